//! What a run produced, captured through the real SDK's in-memory exporters and typed-event collectors, as JSON
//! the §5.10 matchers compare.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use oa_events::{Event, Observer, ObserverError};
use oa_testkit::{PointValue, Telemetry};
use opentelemetry::Value as OtelValue;
use opentelemetry::logs::AnyValue;
use opentelemetry::trace::Status;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Map, Value, json};

use crate::node::Node;

/// The caller's own global TracerProvider (005's `caller_global_otel_active`), standing in for an external
/// auto-instrumentation library: installed once per process with an in-memory exporter. oa never touches it; the
/// harness emits through it only for a node's `also_emits_via_global_tracer`. Cases using it hold [`GLOBAL_LOCK`]
/// and start from an emptied exporter, so they see only their own spans.
pub(crate) fn global_exporter() -> &'static InMemorySpanExporter {
    static GLOBAL: std::sync::OnceLock<InMemorySpanExporter> = std::sync::OnceLock::new();
    GLOBAL.get_or_init(|| {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        opentelemetry::global::set_tracer_provider(provider);
        exporter
    })
}

/// Serializes the cases that read the global exporter.
pub(crate) static GLOBAL_LOCK: Mutex<()> = Mutex::new(());

/// A typed-event collector (`typed_observers` of kind `typed_event_collector`): optionally filtered to one event
/// type, and with `caller_invocation_metadata` only when `include_caller_metadata` opts in (graph-engine §6: the
/// field is populated only for an observer configured to include it). It always keeps arrival order.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    events: Mutex<Vec<Value>>,
    filter_event_type: Option<String>,
    include_caller_metadata: bool,
}

#[async_trait]
impl Observer for Collector {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        let mut value = event_json(event);
        if let Some(filter) = &self.filter_event_type
            && value["event_type"] != filter.as_str()
        {
            return Ok(());
        }
        if !self.include_caller_metadata {
            if let Some(object) = value.as_object_mut()
                && object.contains_key("caller_invocation_metadata")
            {
                object.insert("caller_invocation_metadata".into(), Value::Null);
            }
            if let Some(scope) = value.get_mut("scope").and_then(Value::as_object_mut) {
                scope.insert("caller_invocation_metadata".into(), Value::Null);
            }
        }
        self.events
            .lock()
            .map_err(|_| ObserverError::new("collector poisoned"))?
            .push(value);
        Ok(())
    }
}

impl Collector {
    /// The harness's own collector: every event, caller metadata included.
    pub(crate) fn harness() -> Self {
        Self {
            include_caller_metadata: true,
            ..Self::default()
        }
    }
}

pub(crate) fn collectors(body: &Node) -> Result<BTreeMap<String, Arc<Collector>>, String> {
    let mut collectors = BTreeMap::new();
    for observer in body
        .get("typed_observers")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let name = observer.get("name").and_then(Node::as_str).unwrap_or_default();
        if observer.get("kind").and_then(Node::as_str) != Some("typed_event_collector") {
            return Err(format!(
                "harness_primitive_missing: typed observer {name:?} of this kind"
            ));
        }
        let mut collector = Collector::default();
        for (key, value) in observer.as_map().unwrap_or_default() {
            match (key.as_str(), value) {
                ("name" | "kind", _) => {}
                ("filter_event_type", Node::Str(event_type)) => {
                    collector.filter_event_type = Some(event_type.clone())
                }
                ("include_caller_metadata", Node::Bool(flag)) => collector.include_caller_metadata = *flag,
                // The collector keeps arrival order whatever this says.
                ("retains_arrival_order", Node::Bool(true)) => {}
                _ => {
                    return Err(format!(
                        "harness_primitive_missing: typed observer {name:?} option {key}"
                    ));
                }
            }
        }
        collectors.insert(name.to_owned(), Arc::new(collector));
    }
    Ok(collectors)
}

/// One finished span as JSON-comparable data.
#[derive(Debug, Clone)]
pub(crate) struct SpanView {
    pub(crate) name: String,
    pub(crate) trace_id: String,
    pub(crate) start: std::time::SystemTime,
    pub(crate) span_id: String,
    pub(crate) parent_id: String,
    pub(crate) status: &'static str,
    pub(crate) status_description: Option<String>,
    pub(crate) has_exception_event: bool,
    pub(crate) attributes: Map<String, Value>,
}

/// A captured log record: its event name and attributes (with `severity_text` and `body` folded in).
#[derive(Debug, Clone)]
pub(crate) struct LogView {
    pub(crate) event_name: Option<String>,
    pub(crate) attributes: Map<String, Value>,
    pub(crate) body: Option<Value>,
    /// The record's OTel severity number.
    pub(crate) severity: Option<opentelemetry::logs::Severity>,
}

/// One metric data point: instrument, dimensions, observation count and value (sum for a histogram).
#[derive(Debug, Clone)]
pub(crate) struct PointView {
    pub(crate) instrument: String,
    pub(crate) dimensions: Map<String, Value>,
    pub(crate) count: u64,
    pub(crate) value: f64,
}

/// Everything the expectations look at.
#[derive(Debug, Default)]
pub(crate) struct Run {
    pub(crate) spans: Vec<SpanView>,
    /// Spans on the caller's global provider, when the case activates it (005); else empty.
    pub(crate) global_spans: Vec<SpanView>,
    pub(crate) logs: Vec<LogView>,
    pub(crate) events: BTreeMap<String, Vec<Value>>,
    pub(crate) points: Vec<PointView>,
    /// The Langfuse traces (with their observation trees) when the case composed a Langfuse observer.
    pub(crate) langfuse: Option<Vec<Value>>,
}

impl Run {
    pub(crate) fn collect(
        telemetry: &Telemetry,
        collectors: &BTreeMap<String, Arc<Collector>>,
        global: bool,
        langfuse: Option<&oa_observe::LangfuseRecorder>,
    ) -> Result<Run, String> {
        let harness = |error| format!("harness: {error}");
        let spans = span_views(telemetry.spans().map_err(harness)?);
        let global_spans = if global {
            span_views(global_exporter().get_finished_spans().map_err(harness)?)
        } else {
            Vec::new()
        };
        let logs = telemetry
            .logs()
            .map_err(harness)?
            .into_iter()
            .map(|record| {
                let mut attributes: Map<String, Value> = record
                    .attributes_iter()
                    .map(|(key, value)| (key.to_string(), any_json(value)))
                    .collect();
                if let Some(text) = record.severity_text() {
                    attributes.insert("severity_text".into(), json!(text));
                }
                LogView {
                    event_name: record.event_name().map(str::to_owned),
                    severity: record.severity_number(),
                    body: record.body().map(any_json),
                    attributes,
                }
            })
            .collect();
        let mut events = BTreeMap::new();
        for (name, collector) in collectors {
            let captured = collector
                .events
                .lock()
                .map_err(|_| "harness: collector poisoned".to_owned())?
                .clone();
            events.insert(name.clone(), captured);
        }
        let points = telemetry
            .points()
            .map_err(harness)?
            .into_iter()
            .map(|point| {
                let (count, value) = match point.value {
                    PointValue::Histogram { count, sum } => (count, sum),
                    PointValue::Sum(value) | PointValue::Gauge(value) => (1, value),
                };
                PointView {
                    dimensions: point
                        .attributes
                        .iter()
                        .map(|kv| (kv.key.to_string(), otel_json(&kv.value)))
                        .collect(),
                    instrument: point.instrument,
                    count,
                    value,
                }
            })
            .collect();
        Ok(Run {
            spans,
            global_spans,
            logs,
            events,
            points,
            langfuse: langfuse.map(super::langfuse::traces_json),
        })
    }
}

fn span_views(spans: Vec<SpanData>) -> Vec<SpanView> {
    spans
        .into_iter()
        .map(|span| SpanView {
            name: span.name.to_string(),
            trace_id: span.span_context.trace_id().to_string(),
            start: span.start_time,
            span_id: span.span_context.span_id().to_string(),
            parent_id: span.parent_span_id.to_string(),
            status: match span.status {
                Status::Ok => "OK",
                Status::Error { .. } => "ERROR",
                Status::Unset => "UNSET",
            },
            has_exception_event: span.events.iter().any(|event| event.name == "exception"),
            status_description: match &span.status {
                Status::Error { description } => Some(description.to_string()),
                _ => None,
            },
            attributes: span
                .attributes
                .iter()
                .map(|kv| (kv.key.to_string(), otel_json(&kv.value)))
                .collect(),
        })
        .collect()
}

/// An event as JSON with its spec type name under `event_type`.
fn event_json(event: &Event) -> Value {
    let mut value = serde_json::to_value(event).unwrap_or(Value::Null);
    let event_type = match value.get("kind").and_then(Value::as_str) {
        Some("llm_completion") => "LlmCompletionEvent",
        Some("llm_failed") => "LlmFailedEvent",
        Some("llm_token") => "LlmTokenEvent",
        Some("node_started") | Some("node_completed") => "NodeEvent",
        Some("llm_attempt") => "LlmAttemptRecord",
        Some("metadata_augmented") => "MetadataAugmentationEvent",
        Some("tool_call") => "ToolCallEvent",
        Some("tool_call_failed") => "ToolCallFailedEvent",
        _ => "InvocationEvent",
    };
    if let Some(object) = value.as_object_mut() {
        object.insert("event_type".into(), json!(event_type));
    }
    value
}

pub(crate) fn otel_json(value: &OtelValue) -> Value {
    match value {
        OtelValue::Bool(flag) => json!(flag),
        OtelValue::I64(integer) => json!(integer),
        OtelValue::F64(float) => json!(float),
        OtelValue::String(text) => json!(text.as_str()),
        OtelValue::Array(array) => match array {
            opentelemetry::Array::Bool(items) => json!(items),
            opentelemetry::Array::I64(items) => json!(items),
            opentelemetry::Array::F64(items) => json!(items),
            opentelemetry::Array::String(items) => {
                Value::Array(items.iter().map(|item| json!(item.as_str())).collect())
            }
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

fn any_json(value: &AnyValue) -> Value {
    match value {
        AnyValue::Int(integer) => json!(integer),
        AnyValue::Double(float) => json!(float),
        AnyValue::String(text) => json!(text.as_str()),
        AnyValue::Boolean(flag) => json!(flag),
        AnyValue::ListAny(items) => Value::Array(items.iter().map(any_json).collect()),
        _ => Value::Null,
    }
}
