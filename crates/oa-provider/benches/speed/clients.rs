//! The five clients, each prepared once per workload (its own HTTP client, built outside the timed region, as an
//! application builds it once) and called the way its users call it.

use std::sync::Arc;

use futures_util::StreamExt;
use oa_events::{EventBus, EventCounter, ObservedProvider, Observer};
use oa_observe::{ObserverConfig, OtelObserver};
use oa_provider::{ApiKey, CompletionRequest, Message, OpenAiProvider, Provider, complete_as};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::Value;

use crate::workloads::{CityFact, MODEL, PROMPT, PurchaseOrder, Workload};

/// The API key every client sends (the server ignores it).
const API_KEY: &str = "sk-bench-0123456789";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Client {
    Floor,
    AsyncOpenAi,
    Rig,
    Oa,
    OaObserved,
}

impl Client {
    /// The clients this build measures: rig only with the `bench-rig` feature (see oa-provider's Cargo.toml).
    #[cfg(feature = "bench-rig")]
    pub(crate) const ALL: &[Self] = &[
        Self::Floor,
        Self::AsyncOpenAi,
        Self::Rig,
        Self::Oa,
        Self::OaObserved,
    ];
    /// The clients this build measures: rig only with the `bench-rig` feature (see oa-provider's Cargo.toml).
    #[cfg(not(feature = "bench-rig"))]
    pub(crate) const ALL: &[Self] = &[Self::Floor, Self::AsyncOpenAi, Self::Oa, Self::OaObserved];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Floor => "floor",
            Self::AsyncOpenAi => "async-openai",
            Self::Rig => "rig",
            Self::Oa => "oa",
            Self::OaObserved => "oa+observers",
        }
    }
}

/// What a call returns, for the pre-check: the text, or the structured answer as the client's users get it.
#[derive(Debug, PartialEq)]
pub(crate) enum Answer {
    Text(String),
    Json(Value),
    Small(CityFact),
    Large(Box<PurchaseOrder>),
}

/// One client prepared for one workload.
// Built once per (workload, client) and kept behind an Arc: the variants' sizes cost nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Caller {
    Floor {
        http: reqwest::Client,
        url: String,
        body: Value,
        workload: Workload,
    },
    AsyncOpenAi {
        client: async_openai::Client<async_openai::config::OpenAIConfig>,
        request: async_openai::types::chat::CreateChatCompletionRequest,
        workload: Workload,
    },
    #[cfg(feature = "bench-rig")]
    Rig {
        model: rig_core::driver::Model<rig_core::providers::openai::wire::Chat>,
        request: rig_core::completion::CompletionRequest,
        workload: Workload,
    },
    Oa {
        provider: Arc<dyn Provider>,
        request: CompletionRequest,
        workload: Workload,
    },
}

/// The OTel exporter of the observed client: the real SDK renders and ends every span, then this drops the batch,
/// so memory stays flat however long the benchmark runs.
#[derive(Debug)]
struct Discard;

impl SpanExporter for Discard {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        drop(batch);
        Ok(())
    }
}

/// The oa request for a workload: one user message, the schema when structured, `stream` when streamed.
pub(crate) fn oa_request(workload: Workload) -> CompletionRequest {
    let mut request = CompletionRequest::new(vec![Message::user(PROMPT)]);
    if let Some(schema) = workload.schema() {
        request = request.with_response_schema(schema);
    }
    request.with_stream(workload == Workload::Stream)
}

pub(crate) fn oa_provider(base_url: &str) -> Arc<dyn Provider> {
    match OpenAiProvider::builder(MODEL)
        .base_url(base_url)
        .api_key(ApiKey::new(API_KEY))
        .build()
    {
        Ok(provider) => Arc::new(provider),
        Err(error) => panic!("oa provider: {error}"),
    }
}

/// The observed oa client: oa-events' ObservedProvider delivering to an event counter and oa-observe's
/// OtelObserver over the real OpenTelemetry SDK.
pub(crate) fn observed(base_url: &str) -> Arc<dyn Provider> {
    let tracer_provider = SdkTracerProvider::builder().with_simple_exporter(Discard).build();
    let config = match ObserverConfig::builder().build() {
        Ok(config) => config,
        Err(error) => panic!("observer config: {error}"),
    };
    let otel = OtelObserver::new(&tracer_provider, config);
    let observers: Vec<Arc<dyn Observer>> = vec![Arc::new(otel), Arc::new(EventCounter::default())];
    let bus = EventBus::new(observers);
    Arc::new(ObservedProvider::new(oa_provider(base_url), bus, "bench"))
}

impl Caller {
    /// Prepares `client` for `workload` against the server's `base_url`; `floor_body` is oa's request body for the
    /// workload, which the floor sends unchanged.
    pub(crate) fn new(client: Client, workload: Workload, base_url: &str, floor_body: &Value) -> Self {
        match client {
            Client::Floor => Self::Floor {
                http: reqwest::Client::new(),
                url: format!("{base_url}/chat/completions"),
                body: floor_body.clone(),
                workload,
            },
            Client::AsyncOpenAi => Self::AsyncOpenAi {
                client: async_openai::Client::with_config(
                    async_openai::config::OpenAIConfig::new()
                        .with_api_base(base_url)
                        .with_api_key(API_KEY),
                ),
                request: async_openai_request(workload),
                workload,
            },
            #[cfg(not(feature = "bench-rig"))]
            Client::Rig => panic!("rig is measured only with --features bench-rig"),
            #[cfg(feature = "bench-rig")]
            Client::Rig => {
                let model = rig_core::providers::openai::OpenAIConfig::new(API_KEY)
                    .with_base_url(base_url)
                    .client()
                    .chat(MODEL);
                let mut request = rig_core::completion::CompletionRequest::new(PROMPT);
                if let Some(schema) = workload.schema() {
                    let schema = match schemars::Schema::try_from(schema) {
                        Ok(schema) => schema,
                        Err(error) => panic!("rig schema: {error}"),
                    };
                    request = request.output_schema(schema);
                }
                Self::Rig {
                    model,
                    request,
                    workload,
                }
            }
            Client::Oa => Self::Oa {
                provider: oa_provider(base_url),
                request: oa_request(workload),
                workload,
            },
            Client::OaObserved => Self::Oa {
                provider: observed(base_url),
                request: oa_request(workload),
                workload,
            },
        }
    }

    /// One call, as the client's users make it.
    pub(crate) async fn call(&self) -> Result<Answer, String> {
        match self {
            Self::Floor {
                http,
                url,
                body,
                workload,
            } => floor(http, url, body, *workload).await,
            Self::AsyncOpenAi {
                client,
                request,
                workload,
            } => async_openai_call(client, request, *workload).await,
            #[cfg(feature = "bench-rig")]
            Self::Rig {
                model,
                request,
                workload,
            } => rig_call(model, request, *workload).await,
            Self::Oa {
                provider,
                request,
                workload,
            } => match workload {
                // The typed call, as oa's users would make it for a type: validated while decoded.
                Workload::StructuredSmall => complete_as::<CityFact>(provider.as_ref(), request)
                    .await
                    .map(|typed| Answer::Small(typed.value))
                    .map_err(|error| error.to_string()),
                Workload::StructuredLarge => complete_as::<PurchaseOrder>(provider.as_ref(), request)
                    .await
                    .map(|typed| Answer::Large(Box::new(typed.value)))
                    .map_err(|error| error.to_string()),
                Workload::Plain | Workload::Stream => {
                    let response = provider
                        .complete(request)
                        .await
                        .map_err(|error| error.to_string())?;
                    match response.parsed {
                        None => Ok(Answer::Text(
                            response.message.text().unwrap_or_default().to_owned(),
                        )),
                        Some(parsed) => Err(format!("unexpected parsed: {parsed:?}")),
                    }
                }
            },
        }
    }
}

/// The floor: serde_json writes the request, reqwest posts it, serde_json reads the reply (and, for structured
/// output, the content; nothing is validated); a stream is split at blank lines and each `data:` read as JSON.
async fn floor(
    http: &reqwest::Client,
    url: &str,
    body: &Value,
    workload: Workload,
) -> Result<Answer, String> {
    let bytes = serde_json::to_vec(body).map_err(|error| error.to_string())?;
    let response = http
        .post(url)
        .bearer_auth(API_KEY)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(bytes)
        .send()
        .await
        .map_err(|error| error.to_string())?;
    if workload == Workload::Stream {
        let mut response = response;
        let mut text = String::new();
        let mut pending: Vec<u8> = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|error| error.to_string())? {
            pending.extend_from_slice(&chunk);
            let mut start = 0;
            while let Some(end) = find(&pending[start..], b"\n\n") {
                let event = &pending[start..start + end];
                start += end + 2;
                let Some(data) = event.strip_prefix(b"data: ") else {
                    continue;
                };
                if data == b"[DONE]" {
                    return Ok(Answer::Text(text));
                }
                let chunk: Value = serde_json::from_slice(data).map_err(|error| error.to_string())?;
                if let Some(token) = chunk["choices"][0]["delta"]["content"].as_str() {
                    text.push_str(token);
                }
            }
            pending.drain(..start);
        }
        return Err("stream ended without [DONE]".to_owned());
    }
    let bytes = response.bytes().await.map_err(|error| error.to_string())?;
    let reply: Value = serde_json::from_slice(&bytes).map_err(|error| error.to_string())?;
    let content = reply["choices"][0]["message"]["content"]
        .as_str()
        .ok_or("no content")?;
    match workload {
        Workload::Plain => Ok(Answer::Text(content.to_owned())),
        _ => serde_json::from_str(content)
            .map(Answer::Json)
            .map_err(|error| error.to_string()),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

fn async_openai_request(workload: Workload) -> async_openai::types::chat::CreateChatCompletionRequest {
    use async_openai::types::chat::{
        ChatCompletionRequestUserMessage, CreateChatCompletionRequestArgs, ResponseFormat,
        ResponseFormatJsonSchema,
    };
    let mut args = CreateChatCompletionRequestArgs::default();
    args.model(MODEL)
        .messages(vec![ChatCompletionRequestUserMessage::from(PROMPT).into()]);
    if let Some(schema) = workload.schema() {
        args.response_format(ResponseFormat::JsonSchema {
            json_schema: ResponseFormatJsonSchema {
                description: None,
                name: workload.schema_name().to_owned(),
                schema,
                strict: Some(true),
            },
        });
    }
    if workload == Workload::Stream {
        args.stream(true);
    }
    match args.build() {
        Ok(request) => request,
        Err(error) => panic!("async-openai request: {error}"),
    }
}

/// async-openai: `chat().create` (or `create_stream`, reading each chunk's delta), the content deserialised into
/// the user's type for structured output.
async fn async_openai_call(
    client: &async_openai::Client<async_openai::config::OpenAIConfig>,
    request: &async_openai::types::chat::CreateChatCompletionRequest,
    workload: Workload,
) -> Result<Answer, String> {
    if workload == Workload::Stream {
        let mut stream = client
            .chat()
            .create_stream(request.clone())
            .await
            .map_err(|error| error.to_string())?;
        let mut text = String::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|error| error.to_string())?;
            if let Some(token) = chunk
                .choices
                .first()
                .and_then(|choice| choice.delta.content.as_deref())
            {
                text.push_str(token);
            }
        }
        return Ok(Answer::Text(text));
    }
    let response = client
        .chat()
        .create(request.clone())
        .await
        .map_err(|error| error.to_string())?;
    let content = response
        .choices
        .first()
        .and_then(|choice| choice.message.content.as_deref())
        .ok_or("no content")?;
    typed(content, workload)
}

/// rig: `Model::call` (or `Model::stream`, reading each text event), the text deserialised into the user's type
/// for structured output.
#[cfg(feature = "bench-rig")]
async fn rig_call(
    model: &rig_core::driver::Model<rig_core::providers::openai::wire::Chat>,
    request: &rig_core::completion::CompletionRequest,
    workload: Workload,
) -> Result<Answer, String> {
    if workload == Workload::Stream {
        let mut stream = model.stream(request.clone()).map_err(|error| error.to_string())?;
        let mut text = String::new();
        while let Some(item) = stream.next().await {
            if let rig_core::streaming::Item::Event(rig_core::streaming::StreamEvent::Text {
                text: token,
                ..
            }) = item.map_err(|error| error.to_string())?
            {
                text.push_str(&token);
            }
        }
        return Ok(Answer::Text(text));
    }
    let response = model
        .call(request.clone())
        .await
        .map_err(|error| error.to_string())?;
    typed(&response.text(), workload)
}

/// The content as the user's type (structured workloads) or as text.
fn typed(content: &str, workload: Workload) -> Result<Answer, String> {
    match workload {
        Workload::StructuredSmall => serde_json::from_str(content)
            .map(Answer::Small)
            .map_err(|error| error.to_string()),
        Workload::StructuredLarge => serde_json::from_str(content)
            .map(|order| Answer::Large(Box::new(order)))
            .map_err(|error| error.to_string()),
        Workload::Plain | Workload::Stream => Ok(Answer::Text(content.to_owned())),
    }
}
