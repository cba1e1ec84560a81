//! The Langfuse side of a case: whether it composes a Langfuse observer (0126's rule), the observer built as the
//! case says (`langfuse_observer`, `langfuse_observer_config`, `langfuse_client`), the client it writes to (the
//! in-memory recorder, or conformance-adapter §6.4's provider-faithful fake), and the recorded traces as the JSON
//! the `langfuse_trace` expectations compare.

use std::sync::Arc;

use async_trait::async_trait;
use oa_observe::langfuse::{ObservationRecord, TraceRecord};
use oa_observe::{LangfuseClient, LangfuseConfig, LangfuseCredentials, LangfuseObserver, LangfuseRecorder};
use opentelemetry::KeyValue;
use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::{Map, Value, json};

use crate::node::Node;

/// The attribute namespace a Langfuse client's OpenTelemetry spans carry (§6.4), by which a leak is recognized.
pub(crate) const OBSERVATION_PREFIX: &str = "langfuse.observation.";

/// Expected-outcome keys that assert Langfuse output.
const LANGFUSE_EXPECTATIONS: &[&str] = &[
    "langfuse_trace",
    "langfuse_traces",
    "no_langfuse_observations_emitted",
    "no_langfuse_observations_on_global",
    "no_langfuse_observations_on_private",
    "langfuse_observations_on_global",
];

/// 0126 on conformance-adapter §5.5: a case composes a Langfuse observer when it carries a `langfuse_observer` or
/// `langfuse_client` block (an empty one included) or asserts Langfuse output; otherwise none.
pub(crate) fn composed(body: &Node) -> bool {
    let expected = body.get("expected");
    body.get("langfuse_observer").is_some()
        || body.get("langfuse_client").is_some()
        || LANGFUSE_EXPECTATIONS
            .iter()
            .any(|key| expected.and_then(|e| e.get(key)).is_some())
}

/// The case's Langfuse observer and the recorder holding what it wrote.
pub(crate) fn observer(body: &Node) -> Result<(Arc<LangfuseObserver>, Arc<LangfuseRecorder>), String> {
    let (observer, recorder) = bare_observer(body)?;
    let hook = |key: &str| {
        body.get("langfuse_observer")
            .and_then(|block| block.get(key))
            .map(trace_hook)
    };
    let observer = match hook("trace_input_from_state").transpose()? {
        Some(hook) => observer.with_trace_input(hook),
        None => observer,
    };
    let observer = match hook("trace_output_from_state").transpose()? {
        Some(hook) => observer.with_trace_output(hook),
        None => observer,
    };
    Ok((Arc::new(observer), recorder))
}

/// 037's harness hooks, by name: fixed summaries, the null sentinel, or the state itself.
fn trace_hook(name: &Node) -> Result<impl Fn(&Value) -> Option<Value> + Send + Sync + 'static, String> {
    let name = name.as_str().unwrap_or_default().to_owned();
    let fixed = match name.as_str() {
        "returns_job_input_summary" => Some(json!({"summary": "job-input"})),
        "returns_job_output_summary" => Some(json!({"summary": "job-output"})),
        "returns_null" | "returns_state_snapshot" => None,
        other => return Err(format!("harness_primitive_missing: trace hook {other:?}")),
    };
    let snapshot = name == "returns_state_snapshot";
    Ok(move |state: &Value| {
        if snapshot {
            Some(state.clone())
        } else {
            fixed.clone()
        }
    })
}

fn bare_observer(body: &Node) -> Result<(LangfuseObserver, Arc<LangfuseRecorder>), String> {
    let config = config(body)?;
    let recorder = Arc::new(LangfuseRecorder::default());
    let Some(client) = body.get("langfuse_client") else {
        let client = Arc::clone(&recorder) as Arc<dyn LangfuseClient>;
        return Ok((LangfuseObserver::new(client, config), recorder));
    };
    let mode = client.get("mode").and_then(Node::as_str);
    let provider = client.get("provider").and_then(Node::as_str).unwrap_or("global");
    for (key, _) in client.as_map().unwrap_or_default() {
        if !["mode", "provider"].contains(&key.as_str()) {
            return Err(format!("harness_primitive_missing: langfuse_client.{key}"));
        }
    }
    let observer = match (mode, provider) {
        // Mode (b): the implementation's construct-from-credentials path, with the fake injected as its client.
        (Some("credentials"), _) => {
            let credentials =
                LangfuseCredentials::new("pk-lf-harness", "sk-lf-harness", "http://127.0.0.1:9");
            let recorder = Arc::clone(&recorder);
            LangfuseObserver::from_credentials_with(credentials, config, move |_, isolated| {
                let emitter = Emitter::Provider(isolated.build());
                Ok(Arc::new(FaithfulClient { recorder, emitter }) as Arc<dyn LangfuseClient>)
            })
            .map_err(|error| format!("harness: {error}"))?
        }
        // Mode (a): the harness builds the client on the named provider and hands it in.
        (Some("supplied"), "global" | "isolated") => {
            let emitter = if provider == "global" {
                Emitter::Global
            } else {
                Emitter::Provider(SdkTracerProvider::builder().build())
            };
            let client = FaithfulClient {
                recorder: Arc::clone(&recorder),
                emitter,
            };
            LangfuseObserver::new(Arc::new(client), config)
        }
        other => return Err(format!("harness_primitive_missing: langfuse_client {other:?}")),
    };
    Ok((observer, recorder))
}

/// `langfuse_observer: {disable_provider_payload, disable_llm_spans, payload_byte_cap}` and
/// `langfuse_observer_config: {disable_state_payload}`.
fn config(body: &Node) -> Result<LangfuseConfig, String> {
    let mut builder = LangfuseConfig::builder();
    for block in ["langfuse_observer", "langfuse_observer_config"] {
        for (key, value) in body.get(block).and_then(Node::as_map).unwrap_or_default() {
            builder = match (key.as_str(), value) {
                ("disable_provider_payload", Node::Bool(flag)) => builder.disable_provider_payload(*flag),
                ("disable_llm_spans", Node::Bool(flag)) => builder.disable_llm_spans(*flag),
                ("disable_state_payload", Node::Bool(flag)) => builder.disable_state_payload(*flag),
                // The caller hooks, set on the observer itself (see `observer`).
                ("trace_input_from_state" | "trace_output_from_state", _) => builder,
                ("payload_byte_cap", cap) => builder.payload_cap(
                    cap.as_i64()
                        .and_then(|cap| usize::try_from(cap).ok())
                        .ok_or("fixture_schema_invalid: payload_byte_cap")?,
                ),
                _ => return Err(format!("harness_primitive_missing: {block}.{key}")),
            };
        }
    }
    builder
        .build()
        .map_err(|error| format!("fixture_schema_invalid: {error}"))
}

/// Where the provider-faithful fake emits its observations as OpenTelemetry spans.
enum Emitter {
    /// The caller's global provider.
    Global,
    /// A provider of its own.
    Provider(SdkTracerProvider),
}

/// Conformance-adapter §6.4's provider-faithful fake: it records what the observer writes (the recorded side) and
/// emits each observation as an OpenTelemetry span in the `langfuse.observation.*` namespace through its bound
/// provider, as a Langfuse v4 client does (the provider side, where a leak shows).
struct FaithfulClient {
    recorder: Arc<LangfuseRecorder>,
    emitter: Emitter,
}

impl std::fmt::Debug for FaithfulClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bound = match self.emitter {
            Emitter::Global => "global",
            Emitter::Provider(_) => "own provider",
        };
        f.debug_struct("FaithfulClient")
            .field("bound_to", &bound)
            .finish()
    }
}

#[async_trait]
impl LangfuseClient for FaithfulClient {
    fn upsert_trace(&self, trace: &TraceRecord) {
        self.recorder.upsert_trace(trace);
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.recorder.record_observation(observation);
        let attributes = vec![
            KeyValue::new(format!("{OBSERVATION_PREFIX}type"), observation.kind.as_str()),
            KeyValue::new(format!("{OBSERVATION_PREFIX}id"), observation.id.clone()),
            KeyValue::new(
                format!("{OBSERVATION_PREFIX}output"),
                observation
                    .output
                    .as_ref()
                    .map(Value::to_string)
                    .unwrap_or_default(),
            ),
        ];
        match &self.emitter {
            Emitter::Global => {
                let tracer = opentelemetry::global::tracer("langfuse");
                let mut span = tracer.start(observation.name.clone());
                span.set_attributes(attributes);
                span.end();
            }
            Emitter::Provider(provider) => {
                let tracer = provider.tracer("langfuse");
                let mut span = tracer.start(observation.name.clone());
                span.set_attributes(attributes);
                span.end();
            }
        }
    }
}

/// Every recorded trace as `{id, name, metadata, input, output, userId, sessionId, observations: [tree]}`, its
/// observations nested under their parents, siblings in start order; absent optional fields are present-null, as
/// Langfuse reports them.
pub(crate) fn traces_json(recorder: &LangfuseRecorder) -> Vec<Value> {
    let observations = recorder.observations();
    recorder
        .traces()
        .into_iter()
        .map(|trace| {
            let mut view = trace.to_json();
            if let Value::Object(object) = &mut view {
                for key in ["input", "output", "userId", "sessionId"] {
                    object.entry(key).or_insert(Value::Null);
                }
                object.insert(
                    "observations".into(),
                    Value::Array(children(&observations, &trace.id, None)),
                );
            }
            view
        })
        .collect()
}

fn children(all: &[ObservationRecord], trace_id: &str, parent: Option<&str>) -> Vec<Value> {
    let mut level: Vec<&ObservationRecord> = all
        .iter()
        .filter(|o| o.trace_id == trace_id && o.parent_observation_id.as_deref() == parent)
        .collect();
    level.sort_by_key(|o| o.start_time);
    level
        .into_iter()
        .map(|observation| {
            let mut view = Map::new();
            view.insert("id".into(), json!(observation.id));
            view.insert("type".into(), json!(observation.kind.as_str()));
            view.insert("name".into(), json!(observation.name));
            view.insert("metadata".into(), Value::Object(observation.metadata.clone()));
            view.insert("level".into(), json!(observation.level.as_str()));
            view.insert("statusMessage".into(), json!(observation.status_message));
            view.insert("model".into(), json!(observation.model));
            view.insert(
                "modelParameters".into(),
                Value::Object(observation.model_parameters.clone()),
            );
            view.insert(
                "usage".into(),
                observation.usage.map_or(Value::Null, |usage| usage.to_json()),
            );
            view.insert("input".into(), observation.input.clone().unwrap_or(Value::Null));
            view.insert("output".into(), observation.output.clone().unwrap_or(Value::Null));
            view.insert(
                "children".into(),
                Value::Array(children(all, trace_id, Some(&observation.id))),
            );
            Value::Object(view)
        })
        .collect()
}
