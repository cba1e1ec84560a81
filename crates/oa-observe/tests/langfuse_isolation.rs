//! Observability §6's payload-leak rule for a Langfuse client oa builds (proposals 0114, 0116, 0117), through the
//! real OpenTelemetry SDK: a client built on the observer's isolated provider exports there and nowhere else; one
//! on a shared provider with a live payload channel is refused at construction, before anything is emitted,
//! unless the caller accepts the shared provider; one that cannot say where it emits gets every payload channel
//! closed, with one warning. The warnings reach OpenTelemetry logs through `LogBridge` with their stable names in
//! the record's `event_name` (0121).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use oa_observe::langfuse::{
    IsolatedProvider, ObservationRecord, PAYLOAD_SUPPRESSED, ProviderBinding, SHARED_PROVIDER_ACCEPTED,
    TraceRecord,
};
use oa_observe::{
    LangfuseClient, LangfuseConfig, LangfuseCredentials, LangfuseError, LangfuseObserver, LangfuseRecorder,
    LogBridge,
};
use oa_testkit::openai::text_reply;
use oa_testkit::{Server, Telemetry};
use opentelemetry::KeyValue;
use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

mod support;
use support::openai_at;

/// A Langfuse client that records what it is given and emits each observation as a span through the provider it
/// was built on, reporting the binding it was given (as a Langfuse SDK client does).
#[derive(Debug)]
struct SpanEmittingClient {
    recorder: LangfuseRecorder,
    provider: SdkTracerProvider,
    binding: ProviderBinding,
}

/// A [`SpanEmittingClient`] on `provider` reporting `binding`, as a client factory returns it.
fn span_emitting(provider: SdkTracerProvider, binding: ProviderBinding) -> Arc<dyn LangfuseClient> {
    Arc::new(SpanEmittingClient {
        recorder: LangfuseRecorder::default(),
        provider,
        binding,
    })
}

/// The application's own tracer provider (the one a Langfuse client must not share with payload on) and the
/// exporter its spans land in.
fn shared_provider() -> (InMemorySpanExporter, SdkTracerProvider) {
    let exporter = InMemorySpanExporter::default();
    let shared = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    (exporter, shared)
}

impl LangfuseClient for SpanEmittingClient {
    fn upsert_trace(&self, trace: &TraceRecord) {
        self.recorder.upsert_trace(trace);
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.recorder.record_observation(observation);
        let mut span = self.provider.tracer("langfuse").start(observation.name.clone());
        span.set_attribute(KeyValue::new(
            "langfuse.observation.output",
            observation
                .output
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
        ));
        span.end();
    }

    fn binding(&self) -> ProviderBinding {
        self.binding.clone()
    }
}

fn credentials() -> LangfuseCredentials {
    LangfuseCredentials::new("pk-lf-test", "sk-lf-test", "http://127.0.0.1:9")
}

fn payload_on() -> LangfuseConfig {
    LangfuseConfig::builder()
        .disable_provider_payload(false)
        .build()
        .unwrap()
}

/// Runs one graph whose node makes one call answered "hello", with `observer` on the bus.
async fn invoke(observer: LangfuseObserver) {
    let server = Server::start(vec![text_reply("hello", "stop")]).unwrap();
    let provider = openai_at(&server);
    support::invoke_one_call(provider, Arc::new(observer), json!({"state": "private"})).await;
}

/// The output the client's generation span carried, as the exporter holds it.
fn generation_output(exporter: &InMemorySpanExporter) -> Option<opentelemetry::Value> {
    let spans = exporter.get_finished_spans().unwrap();
    let generation = spans
        .iter()
        .find(|span| span.name == "openarmature.llm.complete")?;
    oa_testkit::attribute(generation, "langfuse.observation.output")
}

/// Builds with `build` under a `LogBridge` into `telemetry`'s logger provider.
fn constructed<T>(telemetry: &Telemetry, build: impl FnOnce() -> T) -> T {
    let bridge = tracing_subscriber::registry().with(LogBridge::new(&telemetry.logger_provider));
    tracing::subscriber::with_default(bridge, build)
}

/// The names of the log records `telemetry` holds, with their severity text.
fn records(telemetry: &Telemetry) -> Vec<(Option<String>, Option<String>)> {
    telemetry
        .logs()
        .unwrap()
        .iter()
        .map(|record| {
            (
                record.event_name().map(str::to_owned),
                record.severity_text().map(str::to_owned),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_client_built_on_the_isolated_provider_exports_there_with_its_payload() {
    let exporter = InMemorySpanExporter::default();
    let telemetry = Telemetry::new();
    let observer = constructed(&telemetry, || {
        let exporter = exporter.clone();
        LangfuseObserver::builder(payload_on()).from_credentials_with(credentials(), move |_, isolated| {
            let (provider, binding) = isolated.build(|builder| builder.with_simple_exporter(exporter));
            Ok(span_emitting(provider, binding))
        })
    })
    .unwrap();
    invoke(observer).await;
    assert_eq!(generation_output(&exporter), Some("\"hello\"".into()));
    assert!(records(&telemetry).is_empty(), "{:?}", records(&telemetry));
}

#[tokio::test]
async fn a_shared_provider_with_a_live_payload_channel_fails_construction_before_anything_is_emitted() {
    let (exporter, shared) = shared_provider();
    // Each channel alone is live: the provider payload, the state payload, a trace hook.
    let state_on = LangfuseConfig::builder()
        .disable_state_payload(false)
        .build()
        .unwrap();
    let builders = [
        LangfuseObserver::builder(payload_on()),
        LangfuseObserver::builder(state_on),
        LangfuseObserver::builder(LangfuseConfig::default()).trace_input(|_| Some(json!("summary"))),
    ];
    for builder in builders {
        let provider = shared.clone();
        let error = builder
            .from_credentials_with(credentials(), move |_, _isolated| {
                Ok(span_emitting(provider, ProviderBinding::Shared))
            })
            .unwrap_err();
        assert_eq!(error, LangfuseError::ProviderIsolationUnavailable);
        assert_eq!(error.category(), "langfuse_provider_isolation_unavailable");
    }
    assert!(exporter.get_finished_spans().unwrap().is_empty());
    // With no channel live there is nothing to leak: built, no warning.
    let telemetry = Telemetry::new();
    let provider = shared.clone();
    constructed(&telemetry, || {
        LangfuseObserver::builder(LangfuseConfig::default())
            .from_credentials_with(credentials(), move |_, _| {
                Ok(span_emitting(provider, ProviderBinding::Shared))
            })
    })
    .unwrap();
    assert_eq!(
        records(&telemetry),
        [(
            Some("openarmature.langfuse.shared_provider_no_payload".to_owned()),
            Some("INFO".to_owned())
        )]
    );
}

#[tokio::test]
async fn accepting_the_shared_provider_warns_once_and_emits_the_payload() {
    let (exporter, shared) = shared_provider();
    let telemetry = Telemetry::new();
    let observer = constructed(&telemetry, || {
        LangfuseObserver::builder(payload_on())
            .accept_shared_provider(true)
            .from_credentials_with(credentials(), move |_, _| {
                Ok(span_emitting(shared, ProviderBinding::Shared))
            })
    })
    .unwrap();
    invoke(observer).await;
    assert_eq!(
        records(&telemetry),
        [(
            Some(SHARED_PROVIDER_ACCEPTED.to_owned()),
            Some("WARNING".to_owned())
        )]
    );
    assert_eq!(generation_output(&exporter), Some("\"hello\"".into()));
}

/// A client that keeps to the trait's default binding.
#[derive(Debug, Default)]
struct Unknowable(Arc<LangfuseRecorder>);

impl LangfuseClient for Unknowable {
    fn upsert_trace(&self, trace: &TraceRecord) {
        self.0.upsert_trace(trace);
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.0.record_observation(observation);
    }
}

#[tokio::test]
async fn an_unknowable_binding_closes_every_payload_channel_with_one_warning() {
    let recorder = Arc::new(LangfuseRecorder::default());
    let telemetry = Telemetry::new();
    let config = LangfuseConfig::builder()
        .disable_provider_payload(false)
        .disable_state_payload(false)
        .build()
        .unwrap();
    let client = Arc::clone(&recorder);
    let observer = constructed(&telemetry, || {
        LangfuseObserver::builder(config)
            .trace_output(|_| Some(json!({"summary": "out"})))
            .from_credentials_with(credentials(), move |_, _isolated: IsolatedProvider| {
                Ok(Arc::new(Unknowable(client)) as Arc<dyn LangfuseClient>)
            })
    })
    .unwrap();
    invoke(observer).await;
    assert_eq!(
        records(&telemetry),
        [(Some(PAYLOAD_SUPPRESSED.to_owned()), Some("WARNING".to_owned()))]
    );
    let generation = recorder
        .observations()
        .into_iter()
        .find(|observation| observation.name == "openarmature.llm.complete")
        .unwrap();
    assert_eq!((generation.input, generation.output), (None, None));
    // The state and the hook are withheld too: the trace carries §8.4.1's stub.
    let trace = &recorder.traces()[0];
    assert_eq!(trace.input.as_ref().unwrap()["entry_node"], "ask");
    assert_eq!(trace.output.as_ref().unwrap()["status"], "completed");
    assert!(trace.output.as_ref().unwrap().get("summary").is_none());
}

#[test]
fn a_blank_credential_is_refused_where_a_client_is_built() {
    for (public, secret, missing) in [("", "sk", "public_key"), ("pk", "  ", "secret_key")] {
        let blank = LangfuseCredentials::new(public, secret, "http://127.0.0.1:9");
        let built = LangfuseObserver::from_credentials(blank.clone(), LangfuseConfig::default());
        assert_eq!(built.unwrap_err(), LangfuseError::MissingCredential(missing));
        let built = LangfuseObserver::builder(LangfuseConfig::default())
            .from_credentials_with(blank, |_, _| {
                Ok(Arc::new(LangfuseRecorder::default()) as Arc<dyn LangfuseClient>)
            });
        assert_eq!(built.unwrap_err(), LangfuseError::MissingCredential(missing));
    }
}

/// Mode (a): a supplied client is used as it is, and one that says it emits through a shared provider while a
/// payload channel is live earns §6's MAY warning.
#[test]
fn a_supplied_client_is_left_alone_and_a_shared_one_with_payload_is_warned_about() {
    let telemetry = Telemetry::new();
    let client = Arc::new(SpanEmittingClient {
        recorder: LangfuseRecorder::default(),
        provider: SdkTracerProvider::builder().build(),
        binding: ProviderBinding::Shared,
    });
    constructed(&telemetry, || {
        LangfuseObserver::builder(payload_on()).client(client.clone() as Arc<dyn LangfuseClient>)
    });
    assert_eq!(
        records(&telemetry),
        [(
            Some("openarmature.langfuse.supplied_client_shared_provider".to_owned()),
            Some("WARNING".to_owned())
        )]
    );
    let quiet = Telemetry::new();
    constructed(&quiet, || {
        LangfuseObserver::new(client as Arc<dyn LangfuseClient>, LangfuseConfig::default())
    });
    assert!(records(&quiet).is_empty());
}
