//! The canary-key test through the upper layers (issue 6), on every wire mapping: every provider failure scenario
//! runs with a recognizable API key and a secret extra header, called through oa-events' `complete` in a graph with
//! the OTel observer and the log bridge installed; neither secret may appear in any span, log record, metric data
//! point, tracing event or typed event (Debug and JSON).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use oa_events::{EventBus, Graph, NodeError, Observer};
use oa_observe::{LogBridge, ObserverConfig, OtelObserver, names};
use oa_provider::retry::Backoff;
use oa_provider::{
    ApiKey, CompletionRequest, Mapping, Message, Provider, ProviderBuilder, Reask, RetryConfig, RuntimeConfig,
};
use oa_testkit::{
    Reply, Server, Telemetry, TracingCapture, anthropic, closed_base_url, gemini, openai, sse_bytes,
};
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt;

mod support;
use support::Collect;

const CANARY: &str = "sk-CANARY-7f3a9c1e5b2d";
const HEADER_CANARY: &str = "hdr-CANARY-44e1";
const MODEL: &str = "canary-model";

/// Everything one run captured, as (where, text) pairs.
struct Captured(Vec<(String, String)>);

impl Captured {
    fn texts_of(&self, prefix: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(place, _)| place.starts_with(prefix))
            .map(|(_, text)| text.as_str())
            .collect()
    }
}

/// The provider every scenario uses: the canary key and the canary header. Built inside the node, so a build error
/// travels the node-failure path (node event and node span) like an application's would.
fn provider_at(mapping: Mapping, base_url: &str) -> Result<Arc<dyn Provider>, NodeError> {
    ProviderBuilder::new(mapping, MODEL)
        .base_url(base_url)
        .api_key(ApiKey::new(CANARY))
        .header("api-key", HEADER_CANARY)
        .idle_timeout(Duration::from_millis(300))
        .max_body_bytes(64 * 1024)
        .build()
        .map_err(|error| NodeError::new(error.to_string()))
}

/// Runs one node calling `complete(request)` against `base_url` with the observer (metrics and payloads on, the
/// most that can be emitted), a collector and both tracing layers installed, and renders all that was captured.
async fn run(mapping: Mapping, base_url: String, request: CompletionRequest) -> Captured {
    let telemetry = Telemetry::new();
    // Every tracing event and span, of any target (not only the bridged `openarmature` one).
    let tracing_capture = TracingCapture::default();
    let config = ObserverConfig::builder()
        .disable_provider_payload(false)
        .build()
        .unwrap();
    let observer =
        OtelObserver::new(&telemetry.tracer_provider, config).enable_metrics(&telemetry.meter_provider);
    let collect = Arc::new(Collect::default());
    let bus = EventBus::new(vec![
        Arc::new(observer) as Arc<dyn Observer>,
        Arc::clone(&collect) as Arc<dyn Observer>,
    ]);
    let graph = Graph::builder()
        .node("ask", move |_| {
            let base_url = base_url.clone();
            let request = request.clone();
            async move {
                let provider = provider_at(mapping, &base_url)?;
                oa_events::complete(provider.as_ref(), request).await?;
                Ok::<_, NodeError>(json!({"asked": true}))
            }
        })
        .build()
        .unwrap();
    let subscriber = tracing_subscriber::registry()
        .with(LogBridge::new(&telemetry.logger_provider))
        .with(tracing_capture.clone());
    let outcome =
        support::invoke_traced(&graph, &bus, "corr-canary", tracing::Dispatch::new(subscriber)).await;

    let mut captured = Vec::new();
    match &outcome {
        Ok(value) => captured.push(("invocation outcome".to_owned(), format!("{value:?}"))),
        Err(error) => captured.push(("invocation error".to_owned(), format!("{error} / {error:?}"))),
    }
    for event in collect.0.lock().unwrap().iter() {
        let json = serde_json::to_value(event).unwrap();
        let kind = json["kind"].as_str().unwrap_or("?").to_owned();
        captured.push((format!("event {kind} (Debug)"), format!("{event:?}")));
        captured.push((format!("event {kind} (JSON)"), json.to_string()));
    }
    for span in telemetry.spans().unwrap() {
        let mut text = format!("{} {:?}", span.name, span.status);
        for kv in &span.attributes {
            let _ = write!(text, " {}={}", kv.key, kv.value);
        }
        for event in span.events.iter() {
            let _ = write!(text, " event {}", event.name);
            for kv in &event.attributes {
                let _ = write!(text, " {}={}", kv.key, kv.value);
            }
        }
        // The Debug form too, for any field the loops above do not reach.
        let _ = write!(text, " {span:?}");
        captured.push((format!("span {}", span.name), text));
    }
    for (index, record) in telemetry.logs().unwrap().iter().enumerate() {
        let mut text = format!("{:?} {:?}", record.event_name(), record.body());
        for (key, value) in record.attributes_iter() {
            let _ = write!(text, " {key}={value:?}");
        }
        let _ = write!(text, " {record:?}");
        captured.push((format!("log record {index} {:?}", record.event_name()), text));
    }
    for point in telemetry.points().unwrap() {
        let mut text = String::new();
        for kv in &point.attributes {
            let _ = write!(text, " {}={}", kv.key, kv.value);
        }
        captured.push((format!("metric {}", point.instrument), text));
    }
    for traced in tracing_capture.all() {
        captured.push(("tracing".to_owned(), format!("{traced:?}")));
    }
    Captured(captured)
}

fn assert_clean(scenario: &str, captured: &Captured) {
    for (place, text) in &captured.0 {
        for secret in [CANARY, HEADER_CANARY, "CANARY"] {
            assert!(
                !text.contains(secret),
                "scenario `{scenario}`: {secret:?} leaked into {place}: {text}"
            );
        }
    }
}

/// The capture is real: the call's LLM span carries the model, and a typed failure (or the node's failure) was seen.
fn assert_captured(scenario: &str, captured: &Captured, expect_llm_span: bool) {
    // Something labelled `label` was captured; `missing` says what was not.
    let assert_seen = |label: &str, missing: &str| {
        assert!(
            !captured.texts_of(label).is_empty(),
            "scenario `{scenario}`: {missing}"
        );
    };
    let llm_spans = captured.texts_of(&format!("span {}", names::LLM_SPAN));
    if expect_llm_span {
        assert!(
            llm_spans.iter().any(|text| text.contains(MODEL)),
            "scenario `{scenario}`: no LLM span naming the model was captured"
        );
        assert_seen("event llm_failed", "no LlmFailed event was captured");
        assert_seen("metric ", "no metric was captured");
    }
    assert_seen("span ask", "no node span was captured");
    assert_seen("invocation error", "the invocation did not fail");
}

async fn scenario(mapping: Mapping, name: &str, replies: Vec<Reply>, request: CompletionRequest) -> Captured {
    let name = format!("{mapping}: {name}");
    let server = Server::start(replies).unwrap();
    let captured = run(mapping, server.base_url(), request).await;
    assert_captured(&name, &captured, true);
    assert_clean(&name, &captured);
    // The key did go out, in the mapping's header only: the scenario exercised a keyed request.
    let requests = server.requests();
    assert!(
        !requests.is_empty(),
        "scenario `{name}`: no request reached the mock"
    );
    let (header, value) = match mapping {
        Mapping::OpenAi => ("authorization", format!("Bearer {CANARY}")),
        Mapping::Anthropic => ("x-api-key", CANARY.to_owned()),
        _ => ("x-goog-api-key", CANARY.to_owned()),
    };
    assert_eq!(requests[0].header(header), Some(value.as_str()), "{name}");
    assert_eq!(requests[0].header("api-key"), Some(HEADER_CANARY));
    assert!(
        !requests[0].path.contains("CANARY"),
        "{name}: the key is in the URL"
    );
    captured
}

/// One user message with a token budget (the Anthropic mapping requires one).
fn hi() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("hi")]).with_config(RuntimeConfig {
        max_tokens: Some(16),
        ..RuntimeConfig::default()
    })
}

/// A 200 reply whose answer is `text`, in `mapping`'s shape.
fn text_reply(mapping: Mapping, text: &str) -> Reply {
    match mapping {
        Mapping::OpenAi => openai::text_reply(text, "stop"),
        Mapping::Anthropic => anthropic::text_reply(text, "end_turn"),
        _ => gemini::text_reply(text, "STOP"),
    }
}

fn echo(status: u16) -> Reply {
    Reply::json(
        status,
        json!({"error": {"message": format!("Incorrect API key provided: {CANARY} / {HEADER_CANARY}"),
                         "code": "invalid_api_key"}}),
    )
}

fn retry(max_attempts: u32) -> RetryConfig {
    RetryConfig::new(max_attempts).with_backoff(Backoff::Fixed(Duration::ZERO))
}

#[tokio::test]
async fn http_error_statuses_do_not_leak_the_key_upwards() {
    for mapping in Mapping::ALL {
        scenario(mapping, "401 echoing the key", vec![echo(401)], hi()).await;
        scenario(mapping, "403 echoing the key", vec![echo(403)], hi()).await;
        // The vendor code travels up as LlmFailedEvent.error_type: a key echoed there must not.
        scenario(
            mapping,
            "403 whose error code and type are the secrets",
            vec![Reply::json(
                403,
                json!({"error": {"message": "denied", "code": CANARY, "type": HEADER_CANARY}}),
            )],
            hi(),
        )
        .await;
        scenario(
            mapping,
            "429 with Retry-After, retried into a 500",
            vec![
                Reply::json_with_header(
                    429,
                    "Retry-After",
                    "0",
                    json!({"error": {"message": format!("slow down {CANARY}")}}),
                ),
                echo(500),
            ],
            hi().with_retry(retry(2)),
        )
        .await;
        scenario(
            mapping,
            "503 then 500, retried",
            vec![echo(503), echo(500)],
            hi().with_retry(retry(2)),
        )
        .await;
    }
}

#[tokio::test]
async fn redirects_and_malformed_bodies_do_not_leak_the_key_upwards() {
    for mapping in Mapping::ALL {
        scenario(
            mapping,
            "302 whose Location carries the key",
            vec![Reply::json_with_header(
                302,
                "Location",
                &format!("http://127.0.0.1:1/v1/chat/completions?api_key={CANARY}"),
                json!({}),
            )],
            hi(),
        )
        .await;
        scenario(
            mapping,
            "malformed body echoing the key",
            vec![Reply::Raw {
                status: 200,
                headers: vec![],
                body: format!("{{not json {CANARY}").into_bytes(),
            }],
            hi(),
        )
        .await;
    }
}

#[tokio::test]
async fn mid_stream_failures_do_not_leak_the_key_upwards() {
    let delta = json!({"choices": [{"index": 0, "delta": {"content": "par"}, "finish_reason": null}]});
    scenario(
        Mapping::OpenAi,
        "error event mid-stream echoing the key",
        vec![Reply::Stream {
            pieces: vec![
                sse_bytes(std::slice::from_ref(&delta)),
                format!("data: {{\"error\": {{\"message\": \"bad key {CANARY}\"}}}}\n\n").into_bytes(),
            ],
            pause: Duration::ZERO,
        }],
        hi().with_stream(true),
    )
    .await;
    scenario(
        Mapping::OpenAi,
        "stream stalls after a delta",
        vec![Reply::StallAfter {
            pieces: vec![sse_bytes(&[delta])],
        }],
        hi().with_stream(true),
    )
    .await;
    for mapping in Mapping::ALL {
        scenario(mapping, "connection dropped", vec![Reply::Drop], hi()).await;
        scenario(
            mapping,
            "body stalls half way",
            vec![Reply::StallAfter {
                pieces: vec![b"{\"partial\": ".to_vec()],
            }],
            hi(),
        )
        .await;
    }
}

#[tokio::test]
async fn schema_not_honored_does_not_leak_the_key_and_is_captured() {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
                        "additionalProperties": false});
    let request = hi()
        .with_response_schema(schema)
        .with_retry(retry(2).with_reask(Reask::template("fix it: {error_message}")));
    for mapping in Mapping::ALL {
        let captured = scenario(
            mapping,
            "structured output not honored twice",
            vec![
                text_reply(mapping, "Sure! here you go"),
                text_reply(mapping, "{\"answer\": 7}"),
            ],
            request.clone(),
        )
        .await;
        // Control: the diagnostic went through the log bridge and names the model, so the log check above was
        // real.
        let records = captured.texts_of(&format!("log record 0 {:?}", Some(names::SCHEMA_NOT_HONORED)));
        assert!(
            records.iter().any(|text| text.contains(MODEL)),
            "{mapping}: the schema_not_honored record was not captured: {:?}",
            captured.texts_of("log record")
        );
    }
}

#[tokio::test]
async fn refused_connections_and_keyed_base_urls_do_not_leak_the_key_upwards() {
    for mapping in Mapping::ALL {
        let name = format!("{mapping}: connection refused");
        let captured = run(mapping, closed_base_url().unwrap(), hi()).await;
        assert_captured(&name, &captured, true);
        assert_clean(&name, &captured);
    }

    // A base URL with the key in its query is refused at build time; the node reports that as its failure.
    let name = "base url with ?api_key=";
    let server = Server::start(vec![]).unwrap();
    let keyed = format!("{}?api_key={CANARY}", server.base_url());
    let captured = run(Mapping::Gemini, keyed, hi()).await;
    assert_captured(name, &captured, false);
    assert!(
        captured
            .texts_of("invocation error")
            .iter()
            .any(|text| text.contains("base url")),
        "the build error did not reach the invocation: {:?}",
        captured.texts_of("invocation error")
    );
    assert_clean(name, &captured);
    assert!(
        server.requests().is_empty(),
        "a keyed base url must not be called"
    );
}

/// The checker itself: a secret in any captured place is reported, naming the place.
#[test]
fn the_check_names_where_a_secret_leaked() {
    let captured = Captured(vec![
        ("span openarmature.llm.complete".into(), format!("url={CANARY}")),
        ("log record 0".into(), "clean".into()),
    ]);
    let panic = std::panic::catch_unwind(|| assert_clean("probe", &captured)).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains("span openarmature.llm.complete"), "{message}");
    assert_clean("clean", &Captured(vec![("log record 0".into(), "clean".into())]));
}
