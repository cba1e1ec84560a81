//! The observer through the real OpenTelemetry SDK with in-memory exporters: spans per wire attempt under the node
//! and invocation spans, the schema_not_honored log record with its correlation fields, and per-attempt metrics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use oa_events::{Event, EventBus, Graph, Observer};
use oa_observe::{LogBridge, ObserverConfig, OtelObserver, names};
use oa_provider::enforcement::schema_version;
use oa_provider::model::{ContentBlock, ImageSource};
use oa_provider::retry::Backoff;
use oa_provider::{
    AnthropicProvider, CompletionRequest, Message, OpenAiProvider, Provider, Reask, RetryConfig,
    RuntimeConfig,
};
use oa_testkit::openai::text_reply;
use oa_testkit::{PointValue, Reply, Server, Telemetry, attribute as attr};
use opentelemetry::Value as OtelValue;
use opentelemetry::logs::{AnyValue, Severity};
use opentelemetry::trace::Status;
use opentelemetry_sdk::trace::SpanData;
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

mod support;
use support::{Collect, answer_schema, ask, openai_at};

/// The LLM attempt spans, in attempt order.
fn llm_spans(telemetry: &Telemetry) -> Vec<SpanData> {
    let mut spans: Vec<SpanData> = telemetry
        .spans()
        .unwrap()
        .into_iter()
        .filter(|span| span.name == names::LLM_SPAN)
        .collect();
    spans.sort_by_key(|span| attr(span, names::LLM_ATTEMPT_INDEX).map(|v| v.to_string()));
    spans
}

fn span_named(telemetry: &Telemetry, name: &str) -> SpanData {
    telemetry
        .spans()
        .unwrap()
        .into_iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span named {name}"))
}

/// (count, dimensions) of every data point of the metric `name`: a histogram's count, a counter's value.
fn points(telemetry: &Telemetry, name: &str) -> Vec<(u64, Vec<(String, String)>)> {
    let mut points = Vec::new();
    for point in telemetry
        .points()
        .unwrap()
        .into_iter()
        .filter(|point| point.instrument == name)
    {
        let count = match point.value {
            PointValue::Histogram { count, .. } => count,
            PointValue::Sum(value) => value as u64,
            PointValue::Gauge(_) => continue,
        };
        let mut dims: Vec<(String, String)> = point
            .attributes
            .iter()
            .map(|kv| (kv.key.to_string(), kv.value.to_string()))
            .collect();
        dims.sort();
        points.push((count, dims));
    }
    points
}

fn reask(max_attempts: u32) -> RetryConfig {
    RetryConfig::new(max_attempts)
        .with_backoff(Backoff::Fixed(Duration::ZERO))
        .with_reask(Reask::template("fix it: {error_message}"))
}

/// Runs one node making `request` against a mock answering `replies`, with the OTel observer (built from `config`)
/// and a collector on the bus and the log bridge installed. Returns the collected events.
async fn run(
    telemetry: &Telemetry,
    config: ObserverConfig,
    replies: Vec<Reply>,
    request: CompletionRequest,
) -> Vec<Event> {
    let server = Server::start(replies).unwrap();
    run_on(telemetry, config, openai_at(&server), request).await
}

/// [`run`] of one plain call ("hi") answered "hello".
async fn run_hello(telemetry: &Telemetry, config: ObserverConfig) -> Vec<Event> {
    run(
        telemetry,
        config,
        vec![text_reply("hello", "stop")],
        CompletionRequest::new(vec![Message::user("hi")]),
    )
    .await
}

/// [`run`] through any provider.
async fn run_on(
    telemetry: &Telemetry,
    config: ObserverConfig,
    provider: Arc<dyn Provider>,
    request: CompletionRequest,
) -> Vec<Event> {
    let observer =
        OtelObserver::new(&telemetry.tracer_provider, config).enable_metrics(&telemetry.meter_provider);
    run_observed(telemetry, observer, provider, request).await
}

/// [`run_on`] with the observer given.
async fn run_observed(
    telemetry: &Telemetry,
    observer: OtelObserver,
    provider: Arc<dyn Provider>,
    request: CompletionRequest,
) -> Vec<Event> {
    let collect = Arc::new(Collect::default());
    let bus = EventBus::new(vec![
        Arc::new(observer) as Arc<dyn Observer>,
        Arc::clone(&collect) as Arc<dyn Observer>,
    ]);
    let graph = Graph::builder()
        .node("ask", ask(provider, request, json!({"asked": true})))
        .build()
        .unwrap();
    let subscriber = tracing_subscriber::registry().with(LogBridge::new(&telemetry.logger_provider));
    let _ = support::invoke_traced(&graph, &bus, "corr-161", tracing::Dispatch::new(subscriber)).await;
    collect.0.lock().unwrap().clone()
}

fn defaults() -> ObserverConfig {
    ObserverConfig::default()
}

/// Fixture 161 case 12, end to end: attempt 0 not JSON on stop, attempt 1 valid after a reask.
#[tokio::test]
async fn reask_recovery_has_two_attempt_spans_one_record_and_one_completion_event() {
    let telemetry = Telemetry::new();
    let request = CompletionRequest::new(vec![Message::user("answer")])
        .with_response_schema(answer_schema())
        .with_retry(reask(2));
    let events = run(
        &telemetry,
        defaults(),
        vec![
            text_reply("Sure! here you go", "stop"),
            text_reply(r#"{"answer": "yes"}"#, "stop"),
        ],
        request,
    )
    .await;

    // Spans: invocation > node > two LLM attempt spans.
    let invocation = span_named(&telemetry, names::INVOCATION_SPAN);
    let node = span_named(&telemetry, "ask");
    assert_eq!(node.parent_span_id, invocation.span_context.span_id());
    let llm = llm_spans(&telemetry);
    assert_eq!(llm.len(), 2);
    for (idx, span) in llm.iter().enumerate() {
        assert_eq!(span.parent_span_id, node.span_context.span_id());
        assert_eq!(
            attr(span, names::LLM_ATTEMPT_INDEX),
            Some(OtelValue::I64(idx as i64))
        );
        assert_eq!(
            attr(span, names::LLM_STRUCTURED_OUTPUT_PATH),
            Some("native".into())
        );
        assert_eq!(attr(span, names::GEN_AI_SYSTEM), Some("openai".into()));
        assert_eq!(attr(span, names::CORRELATION_ID), Some("corr-161".into()));
        assert_eq!(
            attr(span, names::LLM_INPUT_MESSAGES),
            None,
            "payload is off by default"
        );
    }
    assert!(matches!(llm[0].status, Status::Error { .. }));
    assert_eq!(
        attr(&llm[0], names::ERROR_CATEGORY),
        Some("structured_output_invalid".into())
    );
    assert_eq!(llm[1].status, Status::Ok);
    assert_eq!(node.status, Status::Ok);
    assert_eq!(invocation.status, Status::Ok);
    assert_eq!(attr(&llm[1], names::LLM_RETRY_REASON), Some("reask".into()));

    // The diagnostic: exactly one WARNING record, for attempt 0, joined to the call's typed event.
    let logs = telemetry.logs().unwrap();
    let records: Vec<_> = logs
        .iter()
        .filter(|record| record.event_name() == Some(names::SCHEMA_NOT_HONORED))
        .collect();
    assert_eq!(records.len(), 1);
    let record = records[0];
    assert_eq!(record.severity_number(), Some(Severity::Warn));
    let attributes: Vec<(String, AnyValue)> = record
        .attributes_iter()
        .map(|(key, value)| (key.to_string(), value.clone()))
        .collect();
    let get = |key: &str| attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    assert_eq!(
        get("openarmature.llm.provider"),
        Some(AnyValue::String("openai".into()))
    );
    assert_eq!(
        get("openarmature.llm.model"),
        Some(AnyValue::String("gpt-test".into()))
    );
    assert_eq!(get("openarmature.llm.attempt_index"), Some(AnyValue::Int(0)));
    assert_eq!(
        get(names::CORRELATION_ID),
        Some(AnyValue::String("corr-161".into()))
    );
    assert_eq!(
        get("openarmature.user.tenant"),
        Some(AnyValue::String("acme".into()))
    );

    // The typed event: one completion, node-level attempt_index 0, the request of attempt 1.
    let completions = oa_testkit::variants!(events, Event::LlmCompletion);
    assert_eq!(completions.len(), 1);
    assert!(!events.iter().any(|event| matches!(event, Event::LlmFailed(_))));
    let completion = completions[0];
    assert_eq!(completion.scope.attempt_index, 0);
    assert_eq!(
        get("openarmature.llm.call_id"),
        Some(AnyValue::String(completion.request.call_id.clone().into()))
    );
    let messages = &completion.request.input_messages;
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": "Sure! here you go"})
    );
    assert!(messages[2]["content"].as_str().unwrap().starts_with("fix it: "));

    // Metrics: a duration sample per attempt, error.type on the failed one; the failure counted by class.
    let durations = points(&telemetry, names::METRIC_OPERATION_DURATION);
    let total: u64 = durations.iter().map(|(count, _)| count).sum();
    assert_eq!(total, 2);
    assert!(durations.iter().any(|(count, dims)| *count == 1
        && dims.contains(&("error.type".into(), "structured_output_invalid".into()))));
    let failures = points(&telemetry, names::METRIC_STRUCTURED_OUTPUT_FAILURES);
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].0, 1);
    assert!(
        failures[0]
            .1
            .contains(&(names::DIM_FAILURE_CLASS.into(), "not_json".into()))
    );
    assert!(
        failures[0]
            .1
            .contains(&(names::LLM_STRUCTURED_OUTPUT_PATH.into(), "native".into()))
    );
    let tokens = points(&telemetry, names::METRIC_TOKEN_USAGE);
    let n_token_samples: u64 = tokens.iter().map(|(count, _)| count).sum();
    assert_eq!(
        n_token_samples, 4,
        "input and output for each attempt that returned usage"
    );
}

/// Fixture 161 case 13: a per-attempt override adds a stop sequence for attempt 1; each span and the failure event
/// describe their own request, and only attempt 0 gets the record.
#[tokio::test]
async fn each_attempt_describes_its_own_request() {
    let telemetry = Telemetry::new();
    let stop = RuntimeConfig::from_json(&json!({"stop_sequences": ["END"]})).unwrap();
    let request = CompletionRequest::new(vec![Message::user("answer")])
        .with_response_schema(answer_schema())
        .with_retry(reask(2).with_per_attempt_override(vec![stop]));
    let events = run(
        &telemetry,
        defaults(),
        vec![text_reply("nope", "stop"), text_reply("nope again", "stop")],
        request,
    )
    .await;
    let llm = llm_spans(&telemetry);
    assert_eq!(llm.len(), 2);
    assert_eq!(attr(&llm[0], "gen_ai.request.stop_sequences"), None);
    assert_eq!(
        attr(&llm[1], "gen_ai.request.stop_sequences"),
        Some(OtelValue::Array(opentelemetry::Array::String(vec!["END".into()])))
    );
    let failed = oa_testkit::variants!(events, Event::LlmFailed);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].request.request_params["stop_sequences"], json!(["END"]));
    assert_eq!(failed[0].error_category.as_str(), "structured_output_invalid");
    let logs = telemetry.logs().unwrap();
    let indices: Vec<String> = logs
        .iter()
        .filter(|record| record.event_name() == Some(names::SCHEMA_NOT_HONORED))
        .flat_map(|record| {
            record
                .attributes_iter()
                .filter(|(key, _)| key.as_str() == "openarmature.llm.attempt_index")
                .map(|(_, value)| format!("{value:?}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(indices, ["Int(0)"]);
}

/// Metrics are one switch: `enable_metrics` with the meter provider records them (every test above), and an
/// observer without it records none, whatever the configuration.
#[tokio::test]
async fn metrics_are_recorded_exactly_when_enabled() {
    let telemetry = Telemetry::new();
    let server = Server::start(vec![text_reply("hello", "stop")]).unwrap();
    let observer = OtelObserver::new(&telemetry.tracer_provider, ObserverConfig::default());
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    run_observed(&telemetry, observer, openai_at(&server), request).await;
    assert_eq!(llm_spans(&telemetry).len(), 1);
    assert!(telemetry.points().unwrap().is_empty());

    let telemetry = Telemetry::new();
    run_hello(&telemetry, ObserverConfig::default()).await;
    let durations = points(&telemetry, names::METRIC_OPERATION_DURATION);
    assert_eq!(durations.iter().map(|(count, _)| count).sum::<u64>(), 1);
}

/// One route for a diagnostic: an application using oa-observe's `Telemetry` (its observer, the log bridge on the
/// call) gets one schema_not_honored record per attempt that earned one, not one per route.
#[tokio::test]
async fn a_diagnostic_is_one_log_record() {
    let telemetry = oa_observe::Telemetry::in_memory();
    let server = Server::start(vec![text_reply("not json", "stop")]).unwrap();
    let bus = EventBus::new(vec![
        Arc::new(telemetry.observer(ObserverConfig::default())) as Arc<dyn Observer>
    ]);
    let observed = oa_events::ObservedProvider::new(openai_at(&server), bus.clone(), "ask");
    let request = CompletionRequest::new(vec![Message::user("answer")]).with_response_schema(answer_schema());
    let outcome = telemetry.bridging_logs(observed.complete(&request)).await;
    assert!(outcome.is_err());
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let names: Vec<String> = telemetry
        .log_records()
        .iter()
        .filter_map(|record| record.event_name.clone())
        .collect();
    assert_eq!(names, [names::SCHEMA_NOT_HONORED]);
}

/// Fixture 161 case 10: no schema, no path attribute and a null path on the event.
#[tokio::test]
async fn no_schema_means_no_path() {
    let telemetry = Telemetry::new();
    let events = run_hello(&telemetry, defaults()).await;
    let llm = llm_spans(&telemetry);
    assert_eq!(llm.len(), 1);
    assert_eq!(attr(&llm[0], names::LLM_STRUCTURED_OUTPUT_PATH), None);
    let completion = oa_testkit::variants!(events, Event::LlmCompletion)[0];
    assert_eq!(completion.request.structured_output_path, None);
    assert!(telemetry.logs().unwrap().is_empty());
}

#[tokio::test]
async fn payload_is_emitted_when_enabled_redacted_and_truncated() {
    let telemetry = Telemetry::new();
    let config = ObserverConfig::builder()
        .disable_provider_payload(false)
        .payload_cap(256)
        .build()
        .unwrap();
    let image = ContentBlock::Image {
        source: ImageSource::Inline {
            base64_data: "QUJD".repeat(50),
        },
        media_type: Some("image/png".into()),
        detail: None,
    };
    let request = CompletionRequest::new(vec![Message::user_blocks(vec![ContentBlock::text("see"), image])]);
    run(
        &telemetry,
        config,
        vec![text_reply(&"long answer ".repeat(40), "stop")],
        request,
    )
    .await;
    let llm = llm_spans(&telemetry);
    let messages = attr(&llm[0], names::LLM_INPUT_MESSAGES).unwrap().to_string();
    assert!(messages.contains("inline_redacted"), "{messages}");
    assert!(!messages.contains("QUJD"));
    let content = attr(&llm[0], names::LLM_OUTPUT_CONTENT).unwrap().to_string();
    assert!(content.len() <= 256);
    assert!(content.ends_with("…[truncated, 480 bytes total]"), "{content}");
}

#[tokio::test]
async fn disabled_llm_spans_and_genai_semconv_are_honoured() {
    let telemetry = Telemetry::new();
    let config = ObserverConfig::builder()
        .disable_genai_semconv(true)
        .build()
        .unwrap();
    run_hello(&telemetry, config).await;
    let llm = llm_spans(&telemetry);
    assert_eq!(attr(&llm[0], names::GEN_AI_SYSTEM), None);
    assert_eq!(attr(&llm[0], names::LLM_MODEL), Some("gpt-test".into()));

    let telemetry = Telemetry::new();
    let config = ObserverConfig::builder().disable_llm_spans(true).build().unwrap();
    run_hello(&telemetry, config).await;
    assert!(llm_spans(&telemetry).is_empty());
    span_named(&telemetry, "ask");
}

#[test]
fn a_payload_cap_below_256_is_rejected() {
    assert_eq!(
        ObserverConfig::builder()
            .payload_cap(255)
            .build()
            .unwrap_err()
            .cap,
        255
    );
    assert!(ObserverConfig::builder().payload_cap(256).build().is_ok());
}

#[test]
fn names_are_the_specs() {
    assert_eq!(
        names::SCHEMA_NOT_HONORED,
        "openarmature.structured_output.schema_not_honored"
    );
    assert_eq!(names::LLM_SPAN, "openarmature.llm.complete");
    assert_eq!(names::INVOCATION_SPAN, "openarmature.invocation");
    // §5.5.11's tool span and attributes (`.call`, not `.complete`; the OA namespace, not gen_ai.tool.*), §5.6.
    assert_eq!(names::TOOL_SPAN, "openarmature.tool.call");
    assert_eq!(names::TOOL_NAME, "openarmature.tool.name");
    assert_eq!(names::TOOL_CALL_ID, "openarmature.tool.call.id");
    assert_eq!(names::TOOL_CALL_ARGUMENTS, "openarmature.tool.call.arguments");
    assert_eq!(names::TOOL_CALL_RESULT, "openarmature.tool.call.result");
    assert_eq!(names::ERROR_TYPE, "error.type");
    assert_eq!(names::SESSION_ID, "openarmature.session_id");
    assert_eq!(
        names::LLM_STRUCTURED_OUTPUT_PATH,
        "openarmature.llm.structured_output.path"
    );
    assert_eq!(
        names::METRIC_OPERATION_DURATION,
        "openarmature.gen_ai.client.operation.duration"
    );
    assert_eq!(
        names::METRIC_TOKEN_USAGE,
        "openarmature.gen_ai.client.token.usage"
    );
}

/// The marker on failure, on each of the four paths: the failed call's typed event, its attempt spans and every
/// metric sample it produced (duration, token usage, the failure counter) carry the schema_mode of the attempt and
/// the schema_version of the call, so "failure rate by mode" counts the calls that failed.
#[tokio::test]
async fn a_failed_call_carries_its_marker_on_every_path() {
    let strict = answer_schema();
    // No `required`, no `additionalProperties: false`: it cannot go strict, so it goes native_unenforced.
    let loose = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "minProperties": 1});
    let openai = |server: &Server, native: bool| -> Arc<dyn Provider> {
        Arc::new(
            OpenAiProvider::builder("gpt-test")
                .base_url(server.base_url())
                .no_api_key()
                .capabilities(support::native(native))
                .build()
                .unwrap(),
        )
    };
    let cases: [(&str, &Value, bool, &str); 4] = [
        ("native", &strict, true, "unverified_repaired"),
        ("native_unenforced", &loose, true, "unenforced_repaired"),
        ("prompt_augmentation", &strict, false, "prompted_repaired"),
        ("tool_coercion", &strict, false, "coerced_repaired"),
    ];
    for (path, schema, native, mode) in cases {
        let telemetry = Telemetry::new();
        let (server, provider) = if path == "tool_coercion" {
            let server = Server::start(vec![
                oa_testkit::anthropic::text_reply("prose", "end_turn"),
                oa_testkit::anthropic::text_reply("more prose", "end_turn"),
            ])
            .unwrap();
            let provider: Arc<dyn Provider> = Arc::new(
                AnthropicProvider::builder("claude-test")
                    .base_url(server.base_url())
                    .no_api_key()
                    .capabilities(support::native(false))
                    .build()
                    .unwrap(),
            );
            (server, provider)
        } else {
            let server = Server::start(vec![
                text_reply("prose", "stop"),
                text_reply("more prose", "stop"),
            ])
            .unwrap();
            let provider = openai(&server, native);
            (server, provider)
        };
        let request = CompletionRequest::new(vec![Message::user("answer")])
            .with_config(RuntimeConfig {
                max_tokens: Some(64),
                ..RuntimeConfig::default()
            })
            .with_response_schema(schema.clone())
            .with_retry(reask(2));
        let events = run_on(&telemetry, defaults(), provider, request).await;
        assert_eq!(server.requests().len(), 2, "{path}");
        let version = schema_version(schema);
        let failed = *oa_testkit::variants!(events, Event::LlmFailed)
            .first()
            .unwrap_or_else(|| panic!("{path}: no failure event"));
        assert_eq!(
            failed.request.structured_output_path.map(|p| p.as_str()),
            Some(path)
        );
        assert_eq!(
            failed.request.schema_mode.map(|m| m.as_str()),
            Some(mode),
            "{path}"
        );
        assert_eq!(
            failed.request.schema_version.as_deref(),
            Some(version.as_str()),
            "{path}"
        );
        let spans = llm_spans(&telemetry);
        assert_eq!(spans.len(), 2, "{path}");
        assert_eq!(
            attr(&spans[1], names::LLM_SCHEMA_MODE),
            Some(mode.to_owned().into()),
            "{path}"
        );
        for span in &spans {
            assert_eq!(
                attr(span, names::LLM_SCHEMA_VERSION),
                Some(version.clone().into()),
                "{path}"
            );
        }
        // The account of the failed attempt: one attribute, its clauses as a compact JSON list.
        let account = failed
            .request
            .schema_account
            .as_ref()
            .unwrap_or_else(|| panic!("{path}: no account on the event"));
        let listed = serde_json::to_string(&account.unenforced).unwrap();
        assert!(listed.starts_with("[{\"pointer\":"), "{path}: {listed}");
        assert_eq!(
            attr(&spans[1], names::LLM_SCHEMA_UNENFORCED),
            Some(listed.into()),
            "{path}"
        );
        for metric in [
            names::METRIC_OPERATION_DURATION,
            names::METRIC_TOKEN_USAGE,
            names::METRIC_STRUCTURED_OUTPUT_FAILURES,
        ] {
            let samples = points(&telemetry, metric);
            assert!(!samples.is_empty(), "{path}: no {metric}");
            for (_, dims) in &samples {
                let has = |key: &str| dims.iter().any(|(k, _)| k == key);
                assert!(
                    has(names::LLM_SCHEMA_MODE) && has(names::LLM_SCHEMA_VERSION),
                    "{path} {metric}: {dims:?}"
                );
                assert!(!has(names::LLM_SCHEMA_UNENFORCED), "not a dimension: {dims:?}");
            }
            assert!(
                samples
                    .iter()
                    .any(|(_, dims)| dims.contains(&(names::LLM_SCHEMA_MODE.into(), mode.into()))),
                "{path} {metric}: {samples:?}"
            );
        }
    }
}

/// A streamed structured call with early stop: attempt 0's answer violates an enum at its first member and is cut
/// there; its span says where and after how much; the collector saw each partial value as a typed event; the
/// reask's attempt 1 passes and its span has no early-stop attribute.
#[tokio::test]
async fn an_early_stopped_attempt_says_so_on_its_span_and_event() {
    use oa_testkit::openai::content_stream;
    let telemetry = Telemetry::new();
    let schema = json!({"type": "object", "properties": {"severity": {"enum": ["low", "high"]}, "note": {"type": "string"}},
                        "required": ["severity"], "additionalProperties": false});
    let doomed: Vec<String> = ["{\"severity\": \"urg", "ent\",", " \"note\": \""]
        .iter()
        .map(|piece| (*piece).to_owned())
        .chain((0..200).map(|_| " more".to_owned()))
        .chain(["\"}".to_owned()])
        .collect();
    let doomed: Vec<&str> = doomed.iter().map(String::as_str).collect();
    let replies = vec![
        content_stream(&doomed, Duration::from_millis(1)),
        content_stream(&["{\"severity\": \"low\"}"], Duration::ZERO),
    ];
    let request = CompletionRequest::new(vec![Message::user("triage")])
        .with_response_schema(schema)
        .with_stream(true)
        .with_early_stop(true)
        .with_retry(reask(2));
    let events = run(&telemetry, defaults(), replies, request).await;

    let llm = llm_spans(&telemetry);
    assert_eq!(llm.len(), 2);
    assert_eq!(
        attr(&llm[0], names::LLM_EARLY_STOP_POINTER),
        Some("/severity".into())
    );
    assert_eq!(attr(&llm[0], names::LLM_EARLY_STOP_KEYWORD), Some("enum".into()));
    assert_eq!(
        attr(&llm[0], names::LLM_EARLY_STOP_DELTAS),
        Some(OtelValue::I64(2))
    );
    let bytes = (doomed[0].len() + doomed[1].len()) as i64;
    assert_eq!(
        attr(&llm[0], names::LLM_EARLY_STOP_BYTES),
        Some(OtelValue::I64(bytes))
    );
    assert_eq!(
        attr(&llm[0], names::ERROR_CATEGORY),
        Some("structured_output_invalid".into())
    );
    assert_eq!(attr(&llm[1], names::LLM_EARLY_STOP_POINTER), None);

    let attempts = oa_testkit::variants!(events, Event::LlmAttempt);
    let stop = attempts[0].early_stop.as_ref().unwrap();
    assert_eq!((stop.pointer.as_str(), stop.deltas), ("/severity", 2));
    assert!(attempts[1].early_stop.is_none());
    let partials: Vec<(u32, String, Value)> = oa_testkit::variants!(events, Event::LlmPartialValue)
        .into_iter()
        .map(|partial| {
            (
                partial.wire_attempt_index,
                partial.pointer.clone(),
                partial.value.clone(),
            )
        })
        .collect();
    assert_eq!(
        partials,
        [
            (0, "/severity".to_owned(), json!("urgent")),
            (1, "/severity".to_owned(), json!("low")),
            (1, String::new(), json!({"severity": "low"})),
        ]
    );
}
