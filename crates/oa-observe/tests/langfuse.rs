//! The Langfuse observer over the in-memory recorder, on real calls to a loopback mock: the trace (id derived from
//! the invocation id, name, metadata, stub input and output), a span per node with the generation under its
//! node, one generation per call whatever the attempts, the payload and error-message gating and cap, in-place
//! metadata updates, a call made outside a graph, and when the observer flushes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use oa_events::{EventBus, Graph, InvokeOptions, NodeError, ObservedProvider, Observer};
use oa_observe::langfuse::{Level, ObservationRecord, ObservationType, TraceRecord};
use oa_observe::{
    FlushReport, LangfuseClient, LangfuseConfig, LangfuseError, LangfuseObserver, LangfuseRecorder,
};
use oa_provider::retry::Backoff;
use oa_provider::{CompletionRequest, Message, Provider, Reask, RetryConfig};
use oa_testkit::openai::text_reply;
use oa_testkit::{Reply, Server};
use serde_json::{Map, Value, json};

mod support;
use support::{answer_schema, ask, openai_at};

/// Runs `prep` (an update, then a metadata augmentation) and `ask` (one call of `request`) against `replies`
/// under `options`; returns the recorder's traces and observations.
async fn run(
    config: LangfuseConfig,
    replies: Vec<Reply>,
    request: CompletionRequest,
    options: InvokeOptions,
) -> (Vec<TraceRecord>, Vec<ObservationRecord>) {
    let server = Server::start(replies).unwrap();
    let provider = openai_at(&server);
    let recorder = Arc::new(LangfuseRecorder::default());
    let observer = LangfuseObserver::new(recorder.clone() as Arc<dyn LangfuseClient>, config);
    let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);
    let graph = Graph::builder()
        .node("prep", |_| async {
            let mut entries = Map::new();
            entries.insert("requestId".into(), json!("req-9"));
            oa_events::set_invocation_metadata(entries)?;
            Ok::<_, NodeError>(json!({"ready": true}))
        })
        .node("ask", ask(provider, request, json!({})))
        .build()
        .unwrap();
    let _ = graph
        .invoke(&bus, json!({"secret_state": "s3cr3t"}), options)
        .await;
    bus.drain(Duration::from_secs(5)).await.unwrap();
    (recorder.traces(), recorder.observations())
}

fn options() -> InvokeOptions {
    let mut metadata = Map::new();
    metadata.insert("tenantId".into(), json!("acme"));
    metadata.insert("userId".into(), json!("user-42"));
    InvokeOptions {
        invocation_id: Some("run_abc123".into()),
        correlation_id: Some("corr-lf".into()),
        metadata,
        label: Some("nightly job".into()),
        ..InvokeOptions::default()
    }
}

fn generation(observations: &[ObservationRecord]) -> &ObservationRecord {
    let generations: Vec<&ObservationRecord> = observations
        .iter()
        .filter(|o| o.kind == ObservationType::Generation)
        .collect();
    assert_eq!(generations.len(), 1, "{observations:#?}");
    generations[0]
}

#[tokio::test]
async fn a_graph_maps_to_one_trace_with_a_span_per_node_and_the_generation_under_its_node() {
    let request =
        CompletionRequest::new(vec![Message::user("Answer in JSON.")]).with_response_schema(answer_schema());
    let (traces, observations) = run(
        LangfuseConfig::default(),
        vec![text_reply(r#"{"answer": "yes"}"#, "stop")],
        request,
        options(),
    )
    .await;
    let [trace] = traces.as_slice() else {
        panic!("{traces:#?}");
    };
    // §8.4.1: sha256("run_abc123")[:16] for a non-UUID id, the raw id in the metadata; §8.6: the label names it.
    assert_eq!(trace.id, "29b50a6c08dabfeaeb1696301f4fabe1");
    assert_eq!(trace.name, "nightly job");
    assert_eq!(trace.metadata["invocation_id"], "run_abc123");
    assert_eq!(trace.metadata["correlation_id"], "corr-lf");
    assert_eq!(trace.metadata["entry_node"], "prep");
    assert_eq!(
        trace.metadata["implementation_name"],
        oa_events::IMPLEMENTATION_NAME
    );
    assert_eq!(trace.metadata["tenantId"], "acme");
    assert_eq!(
        trace.metadata["requestId"], "req-9",
        "the augmentation reached the open trace"
    );
    assert_eq!(trace.user_id.as_deref(), Some("user-42"));
    // State payload off (the default): the stubs, never the state.
    assert_eq!(
        trace.input,
        Some(json!({"entry_node": "prep", "correlation_id": "corr-lf"}))
    );
    assert_eq!(
        trace.output,
        Some(json!({"final_node": "ask", "status": "completed"}))
    );
    assert!(!format!("{trace:?}").contains("s3cr3t"));

    let spans: Vec<&ObservationRecord> = observations
        .iter()
        .filter(|o| o.kind == ObservationType::Span)
        .collect();
    let names: Vec<&str> = spans.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["prep", "ask"]);
    assert_eq!(
        spans[0].metadata["requestId"], "req-9",
        "the augmenting node's open span was updated"
    );
    assert_eq!(spans[1].metadata["step"], 1);
    let generation = generation(&observations);
    let ask = spans[1];
    assert_eq!(generation.parent_observation_id.as_deref(), Some(ask.id.as_str()));
    assert_eq!(generation.trace_id, trace.id);
    assert_eq!(generation.level, Level::Default);
    assert_eq!(generation.model.as_deref(), Some("gpt-test"));
    assert_eq!(generation.metadata["structured_output_path"], "native");
    assert_eq!(generation.metadata["schema_mode"], "unverified");
    assert_eq!(generation.metadata["system"], "openai");
    assert_eq!(generation.metadata["finish_reason"], "stop");
    assert_eq!(generation.metadata["response_model"], "test-model");
    assert_eq!(generation.metadata["requestId"], "req-9", "forward propagation");
    let usage = generation.usage.unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.total),
        (Some(5), Some(2), Some(7))
    );
    // Payload off (the default): no input, output or extras.
    assert_eq!((&generation.input, &generation.output), (&None, &None));
    assert!(generation.end_time.unwrap() >= generation.start_time);
}

#[tokio::test]
async fn a_reasked_call_is_one_failed_generation_with_its_error_message_only_when_payload_is_on() {
    let request = || {
        CompletionRequest::new(vec![Message::user("Answer in JSON.")])
            .with_response_schema(answer_schema())
            .with_retry(
                RetryConfig::new(2)
                    .with_backoff(Backoff::Fixed(Duration::ZERO))
                    .with_reask(Reask::template("fix: {error_message}")),
            )
    };
    let replies = || {
        vec![
            text_reply("no json here", "stop"),
            text_reply(&"x".repeat(600), "stop"),
        ]
    };
    let (_, off) = run(LangfuseConfig::default(), replies(), request(), options()).await;
    let failed = generation(&off);
    assert_eq!(failed.level, Level::Error);
    assert_eq!(
        failed.status_message.as_deref(),
        Some("structured_output_invalid")
    );
    assert!(
        !failed.metadata.contains_key("error_message"),
        "gated by disable_provider_payload"
    );
    assert!(failed.output.is_none());
    assert_eq!(failed.usage.unwrap().output, Some(2), "the response side stays");

    let config = LangfuseConfig::builder()
        .disable_provider_payload(false)
        .payload_cap(256)
        .build()
        .unwrap();
    let (_, on) = run(config, replies(), request(), options()).await;
    let failed = generation(&on);
    let message = failed.metadata["error_message"].as_str().unwrap();
    assert!(
        message.contains("not valid JSON") && message.len() <= 256,
        "{message}"
    );
    let output = failed.output.as_ref().unwrap().as_str().unwrap();
    assert!(
        output.len() <= 256 && output.starts_with("xxx"),
        "the last attempt's output, capped"
    );
    let input = failed.input.as_ref().unwrap();
    assert!(input.is_array(), "the messages as sent, parsed: {input}");
    assert_eq!(
        input.as_array().unwrap().len(),
        3,
        "the reask turns of the attempt reported"
    );
}

#[tokio::test]
async fn a_failing_node_is_an_error_span_and_a_failed_invocation_a_failed_trace() {
    let recorder = Arc::new(LangfuseRecorder::default());
    let observer = LangfuseObserver::new(
        recorder.clone() as Arc<dyn LangfuseClient>,
        LangfuseConfig::default(),
    );
    let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);
    let graph = Graph::builder()
        .node("boom", |_| async { Err::<Value, _>(NodeError::new("boom")) })
        .build()
        .unwrap();
    graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .unwrap_err();
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let span = &recorder.observations()[0];
    assert_eq!(
        (span.level, span.status_message.as_deref()),
        (Level::Error, Some("node_exception"))
    );
    let trace = &recorder.traces()[0];
    assert_eq!(
        trace.output,
        Some(json!({"final_node": "boom", "status": "failed"}))
    );
    assert_eq!(trace.id.len(), 32, "a UUID invocation id, dashes stripped");
}

/// Counts flushes; otherwise a recorder.
#[derive(Debug, Default)]
struct CountingClient {
    recorder: LangfuseRecorder,
    n_flushes: AtomicUsize,
}

#[async_trait]
impl LangfuseClient for CountingClient {
    fn upsert_trace(&self, trace: &TraceRecord) {
        self.recorder.upsert_trace(trace);
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.recorder.record_observation(observation);
    }

    async fn flush(&self) -> Result<FlushReport, LangfuseError> {
        self.n_flushes.fetch_add(1, Ordering::SeqCst);
        Ok(FlushReport::default())
    }
}

#[tokio::test]
async fn a_call_outside_a_graph_gets_its_own_trace_and_is_flushed() {
    let server = Server::start(vec![text_reply("hi", "stop")]).unwrap();
    let client = Arc::new(CountingClient::default());
    let observer = LangfuseObserver::new(
        client.clone() as Arc<dyn LangfuseClient>,
        LangfuseConfig::default(),
    );
    let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);
    let observed = ObservedProvider::new(openai_at(&server) as Arc<dyn Provider>, bus.clone(), "complete");
    observed
        .complete(&CompletionRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let traces = client.recorder.traces();
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].name, "complete");
    let observations = client.recorder.observations();
    assert_eq!(observations.len(), 1);
    assert_eq!(observations[0].parent_observation_id, None);
    assert_eq!(observations[0].trace_id, traces[0].id);
    assert!(
        !observations[0].metadata.contains_key("structured_output_path"),
        "no schema, no path"
    );
    assert_eq!(
        client.n_flushes.load(Ordering::SeqCst),
        1,
        "the call's trace is complete: flushed"
    );
}

#[tokio::test]
async fn disable_llm_spans_renders_no_generation_and_the_graph_flushes_once_at_its_end() {
    let server = Server::start(vec![text_reply("hi", "length")]).unwrap();
    let provider = openai_at(&server);
    let client = Arc::new(CountingClient::default());
    let config = LangfuseConfig::builder().disable_llm_spans(true).build().unwrap();
    let observer = LangfuseObserver::new(client.clone() as Arc<dyn LangfuseClient>, config);
    support::invoke_one_call(provider, Arc::new(observer), json!({})).await;
    let kinds: Vec<ObservationType> = client.recorder.observations().iter().map(|o| o.kind).collect();
    assert_eq!(kinds, [ObservationType::Span]);
    assert_eq!(client.n_flushes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_cut_off_completion_is_a_warning() {
    let (_, observations) = run(
        LangfuseConfig::default(),
        vec![text_reply("partial", "length")],
        CompletionRequest::new(vec![Message::user("hi")]),
        InvokeOptions::default(),
    )
    .await;
    let generation = generation(&observations);
    assert_eq!(generation.level, Level::Warning);
    assert_eq!(
        generation.status_message.as_deref(),
        Some("finish_reason: length")
    );
}
