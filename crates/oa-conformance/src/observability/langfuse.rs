//! The Langfuse side of a case: whether it composes a Langfuse observer (0126's rule), the observer built as the
//! case says (`langfuse_observer`, `langfuse_observer_config`, `langfuse_client`), the client it writes to (the
//! in-memory recorder, or conformance-adapter §6.4's provider-faithful fake), and the recorded traces as the JSON
//! the `langfuse_trace` expectations compare.

use std::sync::Arc;

use async_trait::async_trait;
use oa_observe::langfuse::{ObservationRecord, ObservationType, ProviderBinding, TraceRecord};
use oa_observe::{
    LangfuseClient, LangfuseConfig, LangfuseCredentials, LangfuseError, LangfuseObserver, LangfuseRecorder,
};
use opentelemetry::KeyValue;
use opentelemetry::trace::{Span as _, TracerProvider as _};
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::{Map, Value, json};

use crate::capability::AdapterCapabilities;
use crate::node::Node;

/// The attribute namespace a Langfuse client's OpenTelemetry spans carry (§6.4), by which a leak is recognized.
pub(crate) const OBSERVATION_PREFIX: &str = "langfuse.observation.";

/// 0126 on conformance-adapter §5.5: a case composes a Langfuse observer when it carries a `langfuse_observer` or
/// `langfuse_client` block (an empty one included) or asserts Langfuse output; otherwise none.
pub(crate) fn composed(body: &Node) -> bool {
    let asserts_langfuse = body
        .get("expected")
        .and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .any(|(key, _)| key.contains("langfuse"));
    body.get("langfuse_observer").is_some() || body.get("langfuse_client").is_some() || asserts_langfuse
}

/// A case's Langfuse observer and the recorder holding what it wrote.
pub(crate) type Composed = (Arc<LangfuseObserver>, Arc<LangfuseRecorder>);

/// The case's Langfuse observer and the recorder holding what it wrote; the inner `Err` is the observer's own
/// construction error (observability §6), which `expected_construction_error` may expect.
pub(crate) fn observer(
    body: &Node,
    capabilities: AdapterCapabilities,
) -> Result<Result<Composed, LangfuseError>, String> {
    let mut builder = LangfuseObserver::builder(config(body)?);
    let hook = |key: &str| {
        body.get("langfuse_observer")
            .and_then(|block| block.get(key))
            .map(trace_hook)
    };
    if let Some(hook) = hook("trace_input_from_state").transpose()? {
        builder = builder.trace_input(hook);
    }
    if let Some(hook) = hook("trace_output_from_state").transpose()? {
        builder = builder.trace_output(hook);
    }
    let recorder = Arc::new(LangfuseRecorder::default());
    let Some(client) = body.get("langfuse_client") else {
        let client = Arc::clone(&recorder) as Arc<dyn LangfuseClient>;
        return Ok(Ok((Arc::new(builder.client(client)), recorder)));
    };
    let knob = |key: &str| client.get(key);
    for (key, _) in client.as_map().unwrap_or_default() {
        if !LANGFUSE_CLIENT_KEYS.contains(&key.as_str()) {
            return Err(format!("harness_primitive_missing: langfuse_client.{key}"));
        }
    }
    let mode = knob("mode").and_then(Node::as_str);
    let provider = knob("provider").and_then(Node::as_str).unwrap_or("global");
    let flag = |key: &str| knob(key).and_then(Node::as_bool).unwrap_or(false);
    let observer = match (mode, provider) {
        // Mode (b): the implementation's construct-from-credentials path, with the fake injected as its client.
        (Some("credentials"), _) => {
            let credentials =
                LangfuseCredentials::new("pk-lf-harness", "sk-lf-harness", "http://127.0.0.1:9");
            // 158's `preexisting_same_key_client`: a same-credential client was built first, on the global
            // provider, and (as the Langfuse SDKs' per-key singleton does) is what the construction gets back; it
            // reports the shared provider only where the adapter can detect a binding.
            let primed = flag("preexisting_same_key_client").then(|| FaithfulClient {
                recorder: Arc::clone(&recorder),
                emitter: Emitter::Global,
                binding: if capabilities.langfuse_bound_provider_detection {
                    ProviderBinding::Shared
                } else {
                    ProviderBinding::Unknown
                },
            });
            let recorder = Arc::clone(&recorder);
            builder
                .accept_shared_provider(flag("accept_shared_provider"))
                .from_credentials_with(credentials, move |_, isolated| {
                    let client = primed.unwrap_or_else(|| {
                        let (provider, binding) = isolated.build(|builder| builder);
                        FaithfulClient {
                            recorder,
                            emitter: Emitter::Provider(provider),
                            binding,
                        }
                    });
                    Ok(Arc::new(client) as Arc<dyn LangfuseClient>)
                })
        }
        // Mode (a): the harness builds the client on the named provider and hands it in.
        (Some("supplied"), "global" | "isolated") => {
            let (emitter, binding) = if provider == "global" {
                (Emitter::Global, ProviderBinding::Shared)
            } else {
                (
                    Emitter::Provider(SdkTracerProvider::builder().build()),
                    ProviderBinding::Unknown,
                )
            };
            let client = FaithfulClient {
                recorder: Arc::clone(&recorder),
                emitter,
                binding,
            };
            Ok(builder.client(Arc::new(client)))
        }
        other => return Err(format!("harness_primitive_missing: langfuse_client {other:?}")),
    };
    Ok(observer.map(|observer| (Arc::new(observer), recorder)))
}

/// The `langfuse_client` keys the harness reads (157's construction mode and provider, 158's primed singleton and
/// opt-out).
const LANGFUSE_CLIENT_KEYS: &[&str] = &[
    "mode",
    "provider",
    "preexisting_same_key_client",
    "accept_shared_provider",
];

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
/// emits each observation, and each trace upsert, as an OpenTelemetry span through its bound provider, as a
/// Langfuse v4 client does (the provider side, where a leak shows). A span carries what the record carries of the
/// harvested payload (`input`, `output`, a failure's `metadata.error_message`, a failed Tool's status message; a
/// trace's input and output when they are more than §8.4.1's stub), so a payload-bearing emission is told from a
/// payload-free one (158, as 0118 narrowed it: `error_type` is a classification and does not count).
struct FaithfulClient {
    recorder: Arc<LangfuseRecorder>,
    emitter: Emitter,
    binding: ProviderBinding,
}

impl std::fmt::Debug for FaithfulClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bound = match self.emitter {
            Emitter::Global => "global",
            Emitter::Provider(_) => "own provider",
        };
        f.debug_struct("FaithfulClient")
            .field("bound_to", &bound)
            .field("binding", &self.binding)
            .finish()
    }
}

impl FaithfulClient {
    fn emit(&self, name: String, attributes: Vec<KeyValue>) {
        fn span<T: opentelemetry::trace::Tracer>(tracer: &T, name: String, attributes: Vec<KeyValue>) {
            let mut span = tracer.start(name);
            span.set_attributes(attributes);
            span.end();
        }
        match &self.emitter {
            Emitter::Global => span(&opentelemetry::global::tracer("langfuse"), name, attributes),
            Emitter::Provider(provider) => span(&provider.tracer("langfuse"), name, attributes),
        }
    }
}

#[async_trait]
impl LangfuseClient for FaithfulClient {
    fn upsert_trace(&self, trace: &TraceRecord) {
        self.recorder.upsert_trace(trace);
        let mut attributes = vec![KeyValue::new(format!("{TRACE_PREFIX}id"), trace.id.clone())];
        for (key, value) in [("input", &trace.input), ("output", &trace.output)] {
            if let Some(value) = value.as_ref().filter(|value| !is_stub(value)) {
                attributes.push(KeyValue::new(format!("{TRACE_PREFIX}{key}"), value.to_string()));
            }
        }
        self.emit(format!("langfuse.trace {}", trace.name), attributes);
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.recorder.record_observation(observation);
        let mut attributes = vec![
            KeyValue::new(format!("{OBSERVATION_PREFIX}type"), observation.kind.as_str()),
            KeyValue::new(format!("{OBSERVATION_PREFIX}id"), observation.id.clone()),
        ];
        for (key, value) in [("input", &observation.input), ("output", &observation.output)] {
            if let Some(value) = value.as_ref().filter(|value| !value.is_null()) {
                attributes.push(KeyValue::new(
                    format!("{OBSERVATION_PREFIX}{key}"),
                    value.to_string(),
                ));
            }
        }
        if let Some(message) = observation.metadata.get("error_message") {
            attributes.push(KeyValue::new(
                format!("{OBSERVATION_PREFIX}metadata.error_message"),
                message.to_string(),
            ));
        }
        // A Tool failure has no category: its status message, when there is one, is the harvested message.
        if let (ObservationType::Tool, Some(message)) = (observation.kind, &observation.status_message) {
            attributes.push(KeyValue::new(
                format!("{OBSERVATION_PREFIX}status_message"),
                message.clone(),
            ));
        }
        self.emit(observation.name.clone(), attributes);
    }

    fn binding(&self) -> ProviderBinding {
        self.binding.clone()
    }
}

/// The attribute namespace of a trace upsert's span.
const TRACE_PREFIX: &str = "langfuse.trace.";

/// The span attributes that carry harvested payload (158's payload-bearing classification).
pub(crate) const PAYLOAD_ATTRIBUTES: &[&str] = &[
    "langfuse.observation.input",
    "langfuse.observation.output",
    "langfuse.observation.metadata.error_message",
    "langfuse.observation.status_message",
    "langfuse.trace.input",
    "langfuse.trace.output",
];

/// §8.4.1's privacy-safe stub of a trace's input (`entry_node`, `correlation_id`) or output (`final_node`,
/// `status`): payload-free.
fn is_stub(value: &Value) -> bool {
    value.as_object().is_some_and(|object| {
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.iter()
            .all(|key| ["entry_node", "correlation_id"].contains(key))
            || keys.iter().all(|key| ["final_node", "status"].contains(key))
    })
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
