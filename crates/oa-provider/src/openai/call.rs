//! One `complete()` on the OpenAI mapping: pre-send checks, the structured-output path, the retry loop, and per
//! attempt the body, the wire exchange (atomic or streamed), validation and the attempt record.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use serde_json::Value;
use tokio::time::Instant;

use crate::canonical;
use crate::diagnostic;
use crate::error::ProviderError;
use crate::message::{Content, ContentBlock, Message};
use crate::observe::{AttemptRecord, AttemptRequest, DeltaKind, TokenDelta};
use crate::openai::OpenAiProvider;
use crate::openai::request::{WireInputs, build_body, response_format};
use crate::openai::response::{Mapped, assemble, map_body};
use crate::openai::status::error_for_status;
use crate::openai::stream::StreamAssembler;
use crate::provider::CompletionRequest;
use crate::response::{FinishReason, Response, StructuredOutputPath};
use crate::retry::{self, AttemptPlan};
use crate::schema_mode::{SchemaMode, schema_version};
use crate::sse::SseDecoder;
use crate::structured::{ResponseSchema, augment_messages, is_strict_compatible};
use crate::validate;

const CHAT_PATH: &str = "/chat/completions";

pub(crate) async fn complete(
    provider: &OpenAiProvider,
    request: &CompletionRequest,
) -> Result<Response, ProviderError> {
    // One identifier for the whole call, fallback included: the attempts' records and diagnostics share it.
    let call_id = request
        .call_id
        .clone()
        .unwrap_or_else(crate::observe::mint_call_id);
    let schema = match check_request(provider, request) {
        Ok(schema) => schema,
        Err(error) => {
            report_rejection(provider, request, &call_id, &error);
            return Err(error);
        }
    };
    let path = schema
        .as_ref()
        .map(|schema| choose_path(provider, &schema.schema));
    let result = run_call(provider, request, schema.as_ref(), path, &call_id).await;
    match result {
        // Dynamic detection (§8.1.5.1): the server rejected the native constraint itself, so this call (and later
        // ones on this provider) fall back to prompt augmentation, as a fresh call with its own attempt indices.
        Err(error) if is_native_rejection(&error, path) => {
            provider.native_rejected.store(true, Ordering::Relaxed);
            run_call(
                provider,
                request,
                schema.as_ref(),
                Some(StructuredOutputPath::PromptAugmentation),
                &call_id,
            )
            .await
        }
        other => other,
    }
}

/// The checks made before any attempt: messages, tools, image support, streaming, the response schema.
fn check_request(
    provider: &OpenAiProvider,
    request: &CompletionRequest,
) -> Result<Option<ResponseSchema>, ProviderError> {
    validate::check_messages(&request.messages)?;
    validate::check_tools(&request.tools, request.tool_choice.as_ref())?;
    validate::check_image_support(&request.messages, provider.capabilities.image_input)?;
    if request.stream && !provider.capabilities.streaming {
        return Err(ProviderError::invalid_request(
            "this provider mapping does not support streaming",
        ));
    }
    request
        .response_schema
        .as_ref()
        .map(ResponseSchema::check)
        .transpose()
}

/// A call rejected before its first attempt still gets a record (no body, no path), so observers see it.
fn report_rejection(
    provider: &OpenAiProvider,
    request: &CompletionRequest,
    call_id: &str,
    error: &ProviderError,
) {
    if let Some(observer) = &request.observer {
        observer.on_attempt(&AttemptRecord {
            attempt_index: 0,
            retry_reason: None,
            provider: &provider.system,
            model: &provider.model,
            call_id,
            structured_output_path: None,
            request: AttemptRequest {
                messages: &request.messages,
                config: &request.config,
                body: None,
                stream: request.stream,
            },
            outcome: Err(error),
            started_at: SystemTime::now(),
            duration: std::time::Duration::ZERO,
        });
    }
}

fn choose_path(provider: &OpenAiProvider, schema: &Value) -> StructuredOutputPath {
    if !provider.capabilities.native_response_format || provider.native_rejected.load(Ordering::Relaxed) {
        StructuredOutputPath::PromptAugmentation
    } else if is_strict_compatible(schema) {
        StructuredOutputPath::Native
    } else {
        StructuredOutputPath::NativeUnenforced
    }
}

fn is_native_rejection(error: &ProviderError, path: Option<StructuredOutputPath>) -> bool {
    let native = matches!(
        path,
        Some(StructuredOutputPath::Native | StructuredOutputPath::NativeUnenforced)
    );
    let message = error.message().to_ascii_lowercase();
    native
        && error.is_invalid_request()
        && error.status() == Some(400)
        && (message.contains("response_format") || message.contains("json_schema"))
}

async fn run_call(
    provider: &OpenAiProvider,
    request: &CompletionRequest,
    schema: Option<&ResponseSchema>,
    path: Option<StructuredOutputPath>,
    call_id: &str,
) -> Result<Response, ProviderError> {
    retry::run(
        request.retry.as_ref(),
        &request.messages,
        &request.config,
        |plan| attempt(provider, request, schema, path, call_id, plan),
    )
    .await
    .map_err(|error| error.with_path(path))
}

async fn attempt(
    provider: &OpenAiProvider,
    request: &CompletionRequest,
    schema: Option<&ResponseSchema>,
    path: Option<StructuredOutputPath>,
    call_id: &str,
    plan: AttemptPlan,
) -> Result<Response, ProviderError> {
    let started_at = SystemTime::now();
    let clock = Instant::now();
    // Only a reask extends the transcript beyond the caller's messages, so a longer one means an earlier attempt
    // of this call failed validation and this one is a repair (`*_repaired` schema_mode).
    let repaired = plan.messages.len() > request.messages.len();
    let messages = match (path, schema) {
        (Some(StructuredOutputPath::PromptAugmentation), Some(schema)) => {
            augment_messages(&plan.messages, &schema.schema)
        }
        _ => plan.messages,
    };
    let response_format = match (path, schema) {
        (Some(StructuredOutputPath::Native), Some(schema)) => Some(response_format(&schema.schema, true)),
        (Some(StructuredOutputPath::NativeUnenforced), Some(schema)) => {
            Some(response_format(&schema.schema, false))
        }
        _ => None,
    };
    let inputs = WireInputs {
        model: &provider.model,
        messages: &messages,
        tools: &request.tools,
        tool_choice: request.tool_choice.as_ref(),
        config: &plan.config,
        response_format,
        stream: request.stream,
    };
    let (outcome, body_text) = match build_body(&inputs) {
        Err(error) => (Err(error), None),
        Ok(body) => {
            let body_text = canonical::to_string(&body);
            let exchange = Exchange {
                provider,
                request,
                schema,
                path,
                attempt_index: plan.index,
                repaired,
            };
            (
                exchange.run(body_text.clone().into_bytes()).await,
                Some(body_text),
            )
        }
    };
    let outcome = outcome.map_err(|error| error.with_path(path));
    let record = AttemptRecord {
        attempt_index: plan.index,
        retry_reason: plan.retry_reason,
        provider: &provider.system,
        model: &provider.model,
        call_id,
        structured_output_path: path,
        request: AttemptRequest {
            messages: &messages,
            config: &plan.config,
            body: body_text.as_deref(),
            stream: request.stream,
        },
        outcome: outcome.as_ref(),
        started_at,
        duration: clock.elapsed(),
    };
    // Where the call is made, once per attempt, whatever observers are attached (0126 on observability §5.5.7).
    diagnostic::check_schema_not_honored(&record);
    if let Some(observer) = &request.observer {
        observer.on_attempt(&record);
    }
    outcome
}

/// One wire exchange of one attempt.
struct Exchange<'a> {
    provider: &'a OpenAiProvider,
    request: &'a CompletionRequest,
    schema: Option<&'a ResponseSchema>,
    path: Option<StructuredOutputPath>,
    attempt_index: u32,
    repaired: bool,
}

impl Exchange<'_> {
    async fn run(&self, body: Vec<u8>) -> Result<Response, ProviderError> {
        let transport = &self.provider.transport;
        let mut reply = transport.post(CHAT_PATH, body, self.request.stream).await?;
        if !(200..300).contains(&reply.status) {
            let body = transport.read_body(&mut reply).await.unwrap_or_default();
            return Err(error_for_status(
                reply.status,
                &body,
                reply.retry_after.as_deref(),
                &|text| transport.scrub(text),
            ));
        }
        let (mapped, raw) = if self.request.stream {
            self.read_stream(&mut reply).await?
        } else {
            let body = transport.read_body(&mut reply).await?;
            let raw: Value = serde_json::from_slice(&body)
                .map_err(|_| ProviderError::invalid_response("response body is not JSON"))?;
            (map_body(&raw, &self.request.tools)?, raw)
        };
        self.finish(mapped, raw)
    }

    async fn read_stream(
        &self,
        reply: &mut crate::openai::transport::Reply,
    ) -> Result<(Mapped, Value), ProviderError> {
        let transport = &self.provider.transport;
        let mut decoder = SseDecoder::new(transport.limits.max_sse_line_bytes);
        let mut assembler = StreamAssembler::default();
        let observer = self.request.observer.as_deref();
        let attempt_index = self.attempt_index;
        let mut emit = |kind: DeltaKind, text: &str| {
            if let Some(observer) = observer {
                observer.on_token(&TokenDelta {
                    provider: &self.provider.system,
                    model: &self.provider.model,
                    attempt_index,
                    kind,
                    text,
                });
            }
        };
        while !assembler.is_done() {
            let chunk = match transport.next_chunk(reply).await {
                Ok(chunk) => chunk,
                Err(error) => return Err(error.with_partial(assembler.partial())),
            };
            let mut events = Vec::new();
            let decoded = match &chunk {
                Some(bytes) => decoder.push(bytes, &mut events),
                None => decoder.finish(&mut events),
            };
            // Events completed before a bad line are folded in first, so the error carries what arrived.
            for event in events {
                assembler.on_data(&event.data, &mut emit, &|text| transport.scrub(text))?;
                if assembler.is_done() {
                    break;
                }
            }
            if !assembler.is_done() {
                decoded.map_err(|error| {
                    ProviderError::invalid_response(format!("malformed event stream: {error}"))
                        .with_partial(assembler.partial())
                })?;
            }
            if chunk.is_none() {
                break;
            }
        }
        if !assembler.is_done() && !assembler.has_finish_reason() {
            return Err(ProviderError::new(
                crate::error::Category::Unavailable,
                "stream ended before it completed",
            )
            .with_partial(assembler.partial()));
        }
        let raw = assembler.raw();
        let mut mapped = assemble(assembler.assembly(&raw), &self.request.tools)?;
        mapped.model = assembler.model();
        Ok((mapped, raw))
    }

    fn finish(&self, mapped: Mapped, raw: Value) -> Result<Response, ProviderError> {
        let Mapped {
            message,
            finish_reason,
            usage,
            model,
        } = mapped;
        let parsed = match self.schema {
            Some(schema) if finish_reason != FinishReason::ToolCalls => {
                let content = content_text(&message);
                Some(schema.validate_content(&content, finish_reason, usage, model.clone(), &raw)?)
            }
            _ => None,
        };
        Ok(Response {
            message,
            finish_reason,
            usage,
            parsed,
            raw,
            model,
            structured_output_path: self.path,
            schema_mode: self
                .path
                .filter(|_| self.schema.is_some())
                .map(|path| SchemaMode::of(path, self.repaired)),
            schema_version: self.schema.map(|schema| schema_version(&schema.schema)),
        })
    }
}

/// The text a structured-output response is validated from: the string content, or the text blocks joined
/// (reasoning blocks are not output).
fn content_text(message: &Message) -> String {
    match &message.content {
        Some(Content::Text(text)) => text.clone(),
        Some(Content::Blocks(blocks)) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect(),
        None => String::new(),
    }
}
