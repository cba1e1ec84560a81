//! Tool executions and sessions through both observers: the `openarmature.tool.call` span through the real
//! OpenTelemetry SDK (in-memory exporters) under its node's span, with its identity, gated payload and failure
//! mapping; the Langfuse Tool observation over the recorder; and a session id on every span, log record and
//! Langfuse trace of a session-bound invocation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use oa_events::{
    EventBus, Graph, InvocationError, InvokeOptions, NodeError, Observer, ToolFailure, ToolInvocation,
    call_tool,
};
use oa_observe::langfuse::{Level, ObservationRecord, ObservationType};
use oa_observe::{
    LangfuseClient, LangfuseConfig, LangfuseObserver, LangfuseRecorder, LogBridge, ObserverConfig,
    OtelObserver, names,
};
use oa_testkit::{Telemetry, attribute as attr};
use opentelemetry::Value as OtelValue;
use opentelemetry::trace::Status;
use opentelemetry_sdk::trace::SpanData;
use serde_json::{Map, Value, json};
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

/// What the graph's one node does with its tool.
#[derive(Clone, Copy)]
enum Outcome {
    Returns,
    Raises,
}

/// A graph whose node `run_tool` runs `get_weather` (call `call_abc123`, arguments `{city: Paris}`) through the
/// instrumentation scope, the tool returning `{temperature_c: 20}` or raising a `TimeoutError`, then logs a
/// diagnostic through `tracing` (to see the log bridge's correlation fields).
fn graph(outcome: Outcome) -> Graph {
    Graph::builder()
        .node("run_tool", move |_| async move {
            let tool = ToolInvocation::new("get_weather")
                .with_tool_call_id("call_abc123")
                .with_arguments(json!({"city": "Paris"}));
            let result = call_tool(tool, async move {
                match outcome {
                    Outcome::Returns => Ok(json!({"temperature_c": 20})),
                    Outcome::Raises => Err(ToolFailure::new("TimeoutError", "tool timed out")),
                }
            })
            .await;
            tracing::warn!(target: "openarmature", "after the tool");
            Ok::<_, NodeError>(json!({"weather": result?}))
        })
        .build()
        .unwrap()
}

struct Run {
    telemetry: Telemetry,
    recorder: Arc<LangfuseRecorder>,
    outcomes: Vec<Result<Value, InvocationError>>,
}

/// Invokes `graph` once per entry of `invocations` with the OTel observer (`otel`), a Langfuse observer over the
/// recorder (`langfuse`) and the log bridge.
async fn observe(
    graph: Graph,
    otel: ObserverConfig,
    langfuse: LangfuseConfig,
    invocations: Vec<InvokeOptions>,
) -> Run {
    let telemetry = Telemetry::new();
    let recorder = Arc::new(LangfuseRecorder::default());
    let bus = EventBus::new(vec![
        Arc::new(OtelObserver::new(&telemetry.tracer_provider, otel)) as Arc<dyn Observer>,
        Arc::new(LangfuseObserver::new(
            recorder.clone() as Arc<dyn LangfuseClient>,
            langfuse,
        )),
    ]);
    let mut outcomes = Vec::new();
    for options in invocations {
        let subscriber = tracing_subscriber::registry().with(LogBridge::new(&telemetry.logger_provider));
        outcomes.push(
            graph
                .invoke(&bus, json!({}), options)
                .with_subscriber(tracing::Dispatch::new(subscriber))
                .await,
        );
    }
    support::drain_cleanly(&bus).await;
    Run {
        telemetry,
        recorder,
        outcomes,
    }
}

/// One default invocation of `graph` with the OTel observer configured by `otel` (the Langfuse payload off).
async fn observe_once(graph: Graph, otel: ObserverConfig) -> Run {
    observe(
        graph,
        otel,
        langfuse_payload(false),
        vec![InvokeOptions::default()],
    )
    .await
}

fn payload(on: bool) -> ObserverConfig {
    ObserverConfig::builder()
        .disable_provider_payload(!on)
        .build()
        .unwrap()
}

fn langfuse_payload(on: bool) -> LangfuseConfig {
    LangfuseConfig::builder()
        .disable_provider_payload(!on)
        .build()
        .unwrap()
}

fn span<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let found: Vec<&SpanData> = spans.iter().filter(|span| span.name == name).collect();
    assert_eq!(found.len(), 1, "{name}: {found:#?}");
    found[0]
}

/// The one Tool observation among `observations` (asserted to be the only one).
fn tool_observation(observations: &[ObservationRecord]) -> &ObservationRecord {
    let tools: Vec<_> = observations
        .iter()
        .filter(|o| o.kind == ObservationType::Tool)
        .collect();
    let [tool] = tools.as_slice() else {
        panic!("{observations:#?}");
    };
    tool
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attr(span, key).map(|value| value.as_str().into_owned())
}

#[tokio::test]
async fn a_tool_span_sits_under_its_node_with_its_identity_and_no_payload_by_default() {
    let run = observe_once(graph(Outcome::Returns), payload(false)).await;
    let spans = run.telemetry.spans().unwrap();
    assert_eq!(spans.len(), 3, "invocation, node, tool: {spans:#?}");
    let node = span(&spans, "run_tool");
    let tool = span(&spans, names::TOOL_SPAN);
    assert_eq!(tool.parent_span_id, node.span_context.span_id());
    assert_eq!(tool.span_context.trace_id(), node.span_context.trace_id());
    assert_eq!(tool.status, Status::Ok);
    assert_eq!(text(tool, names::TOOL_NAME).as_deref(), Some("get_weather"));
    assert_eq!(text(tool, names::TOOL_CALL_ID).as_deref(), Some("call_abc123"));
    assert!(text(tool, names::CORRELATION_ID).is_some());
    // Payload off: identity only; and the Development gen_ai.tool.* surface is never emitted.
    for absent in [
        names::TOOL_CALL_ARGUMENTS,
        names::TOOL_CALL_RESULT,
        names::ERROR_TYPE,
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.operation.name",
    ] {
        assert!(attr(tool, absent).is_none(), "{absent}");
    }
    assert!(tool.start_time <= tool.end_time && node.start_time <= tool.start_time);
    assert!(tool.end_time <= node.end_time);
}

#[tokio::test]
async fn payload_on_adds_the_json_encoded_arguments_and_result_capped() {
    let run = observe_once(graph(Outcome::Returns), payload(true)).await;
    let spans = run.telemetry.spans().unwrap();
    let tool = span(&spans, names::TOOL_SPAN);
    assert_eq!(
        text(tool, names::TOOL_CALL_ARGUMENTS).as_deref(),
        Some(r#"{"city":"Paris"}"#)
    );
    assert_eq!(
        text(tool, names::TOOL_CALL_RESULT).as_deref(),
        Some(r#"{"temperature_c":20}"#)
    );
    // The cap applies to both: a result far over a 256-byte cap comes back cut, with the marker.
    let big = Graph::builder()
        .node("run_tool", |_| async {
            let result = call_tool(ToolInvocation::new("dump"), async {
                Ok::<_, ToolFailure>("é".repeat(1000))
            })
            .await?;
            Ok::<_, NodeError>(json!({"n": result.len()}))
        })
        .build()
        .unwrap();
    let capped = ObserverConfig::builder()
        .disable_provider_payload(false)
        .payload_cap(256)
        .build()
        .unwrap();
    let cut = observe_once(big, capped).await;
    let spans = cut.telemetry.spans().unwrap();
    let result = text(span(&spans, names::TOOL_SPAN), names::TOOL_CALL_RESULT).unwrap();
    assert!(result.len() <= 256, "{}", result.len());
    assert!(result.ends_with("…[truncated, 2002 bytes total]"), "{result}");
    assert!(attr(span(&spans, names::TOOL_SPAN), names::TOOL_CALL_ID).is_none());
}

#[tokio::test]
async fn a_failed_tool_span_is_error_with_error_type_and_an_exception_event_and_its_node_fails() {
    let run = observe_once(graph(Outcome::Raises), payload(true)).await;
    assert!(matches!(&run.outcomes[0], Err(InvocationError::Node { .. })));
    let spans = run.telemetry.spans().unwrap();
    let tool = span(&spans, names::TOOL_SPAN);
    assert_eq!(tool.status, Status::error("TimeoutError"));
    assert_eq!(text(tool, names::ERROR_TYPE).as_deref(), Some("TimeoutError"));
    // The arguments are still rendered (payload on); a failure has no result.
    assert!(attr(tool, names::TOOL_CALL_ARGUMENTS).is_some());
    assert!(attr(tool, names::TOOL_CALL_RESULT).is_none());
    let exception = tool
        .events
        .iter()
        .find(|event| event.name == "exception")
        .expect("an exception event");
    let field = |key: &str| {
        exception
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.clone())
    };
    assert_eq!(field("exception.type"), Some(OtelValue::from("TimeoutError")));
    assert_eq!(
        field("exception.message"),
        Some(OtelValue::from("tool timed out"))
    );
    assert!(matches!(span(&spans, "run_tool").status, Status::Error { .. }));
}

#[tokio::test]
async fn the_langfuse_tool_observation_nests_under_its_node_and_gates_its_payload() {
    let mut metadata = Map::new();
    metadata.insert("tenantId".into(), json!("acme-corp"));
    let options = || InvokeOptions {
        metadata: metadata.clone(),
        ..InvokeOptions::default()
    };
    let observe_with = |langfuse_on: bool| {
        observe(
            graph(Outcome::Returns),
            payload(false),
            langfuse_payload(langfuse_on),
            vec![options()],
        )
    };
    let on = observe_with(true).await;
    let observations = on.recorder.observations();
    let node = observations
        .iter()
        .find(|o| o.kind == ObservationType::Span)
        .unwrap();
    let tool = tool_observation(&observations);
    assert!(!observations.iter().any(|o| o.kind == ObservationType::Generation));
    assert_eq!(tool.name, "openarmature.tool.call");
    assert_eq!(tool.parent_observation_id.as_deref(), Some(node.id.as_str()));
    assert_eq!(tool.trace_id, node.trace_id);
    assert_eq!(tool.level, Level::Default);
    assert_eq!(tool.input, Some(json!({"city": "Paris"})));
    assert_eq!(tool.output, Some(json!({"temperature_c": 20})));
    assert_eq!(tool.metadata["openarmature_tool_name"], "get_weather");
    assert_eq!(tool.metadata["openarmature_tool_call_id"], "call_abc123");
    assert_eq!(
        tool.metadata["tenantId"], "acme-corp",
        "§8.4.2: the caller set on every observation"
    );
    assert_eq!(tool.to_json()["type"], "tool");
    assert_eq!(tool.ingestion_type(), "tool-create");
    let off = observe_with(false).await;
    let observations = off.recorder.observations();
    let tool = tool_observation(&observations);
    assert_eq!((tool.input.as_ref(), tool.output.as_ref()), (None, None));
    assert_eq!(tool.metadata["openarmature_tool_name"], "get_weather");
}

#[tokio::test]
async fn a_failed_tool_observation_keeps_its_type_and_shows_its_message_only_with_payload_on() {
    let failed = |on: bool| async move {
        let config = LangfuseConfig::builder()
            .disable_provider_payload(!on)
            .payload_cap(256)
            .build()
            .unwrap();
        let run = observe(
            graph(Outcome::Raises),
            payload(false),
            config,
            vec![InvokeOptions::default()],
        )
        .await;
        tool_observation(&run.recorder.observations()).clone()
    };
    let on = failed(true).await;
    assert_eq!(on.level, Level::Error);
    assert_eq!(on.metadata["error_type"], "TimeoutError");
    assert_eq!(on.metadata["error_message"], "tool timed out");
    assert_eq!(on.status_message.as_deref(), Some("tool timed out"));
    assert_eq!(on.output, None);
    let off = failed(false).await;
    assert_eq!(off.level, Level::Error);
    assert_eq!(
        off.metadata["error_type"], "TimeoutError",
        "a classification, never withheld"
    );
    assert!(off.metadata.get("error_message").is_none());
    assert_eq!(
        off.status_message, None,
        "the withheld message is not smuggled into the status"
    );
    assert_eq!(off.input, None);
}

#[tokio::test]
async fn a_session_id_is_on_every_span_and_log_record_and_groups_the_langfuse_traces() {
    let bound = || InvokeOptions {
        session_id: Some("sess-xyz".into()),
        ..InvokeOptions::default()
    };
    let run = observe(
        graph(Outcome::Returns),
        payload(false),
        langfuse_payload(false),
        vec![bound(), bound(), InvokeOptions::default()],
    )
    .await;
    let spans = run.telemetry.spans().unwrap();
    assert_eq!(spans.len(), 9);
    // The trace of each invocation, in invocation order (the invocation span is the last of its trace to end).
    let traces: Vec<_> = spans
        .iter()
        .filter(|span| span.name == names::INVOCATION_SPAN)
        .map(|span| span.span_context.trace_id())
        .collect();
    assert_eq!(traces.len(), 3);
    let bound_traces = &traces[..2];
    for span in &spans {
        let session = text(span, names::SESSION_ID);
        if bound_traces.contains(&span.span_context.trace_id()) {
            assert_eq!(session.as_deref(), Some("sess-xyz"), "{}", span.name);
        } else {
            assert_eq!(session, None, "{}", span.name);
        }
    }
    let logs = run.telemetry.logs().unwrap();
    let sessions: Vec<Option<String>> = logs
        .iter()
        .map(|record| {
            record
                .attributes_iter()
                .find(|(key, _)| key.as_str() == names::SESSION_ID)
                .map(|(_, value)| format!("{value:?}"))
        })
        .collect();
    assert_eq!(sessions.len(), 3);
    assert!(
        sessions[..2]
            .iter()
            .all(|s| s.as_deref().is_some_and(|s| s.contains("sess-xyz")))
    );
    assert_eq!(sessions[2], None);
    let traces = run.recorder.traces();
    assert_eq!(traces.len(), 3);
    assert_ne!(traces[0].id, traces[1].id);
    assert_eq!(traces[0].session_id.as_deref(), Some("sess-xyz"));
    assert_eq!(traces[1].session_id.as_deref(), Some("sess-xyz"));
    assert_eq!(traces[1].to_json()["sessionId"], "sess-xyz");
    assert_eq!(traces[2].session_id, None);
    assert!(traces[2].to_json().get("sessionId").is_none());
}
