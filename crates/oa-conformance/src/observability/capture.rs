//! What a run produced, captured through the real SDK's in-memory exporters and typed-event collectors, as JSON
//! the §5.10 matchers compare.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use oa_events::{Event, Observer, ObserverError};
use opentelemetry::Value as OtelValue;
use opentelemetry::logs::AnyValue;
use opentelemetry::trace::Status;
use opentelemetry_sdk::logs::{InMemoryLogExporter, SdkLoggerProvider};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{Map, Value, json};

use crate::node::Node;

/// Private providers with in-memory exporters (observability §6 isolation: nothing global).
pub(crate) struct Telemetry {
    spans: InMemorySpanExporter,
    pub(crate) tracer_provider: SdkTracerProvider,
    logs: InMemoryLogExporter,
    pub(crate) logger_provider: SdkLoggerProvider,
    pub(crate) meter_provider: SdkMeterProvider,
}

impl Telemetry {
    pub(crate) fn new() -> Self {
        let spans = InMemorySpanExporter::default();
        let logs = InMemoryLogExporter::default();
        Self {
            tracer_provider: SdkTracerProvider::builder()
                .with_simple_exporter(spans.clone())
                .build(),
            logger_provider: SdkLoggerProvider::builder()
                .with_simple_exporter(logs.clone())
                .build(),
            meter_provider: SdkMeterProvider::builder()
                .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
                .build(),
            spans,
            logs,
        }
    }
}

/// A typed-event collector (`typed_observers` of kind `typed_event_collector`).
#[derive(Debug, Default)]
pub(crate) struct Collector(Mutex<Vec<Event>>);

#[async_trait]
impl Observer for Collector {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.0
            .lock()
            .map_err(|_| ObserverError::new("collector poisoned"))?
            .push(event.clone());
        Ok(())
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
        match observer.get("kind").and_then(Node::as_str) {
            Some("typed_event_collector") if observer.as_map().is_some_and(|m| m.len() == 2) => {
                collectors.insert(name.to_owned(), Arc::new(Collector::default()));
            }
            _ => {
                return Err(format!(
                    "harness_primitive_missing: typed observer {name:?} of this form"
                ));
            }
        }
    }
    Ok(collectors)
}

/// One finished span as JSON-comparable data.
#[derive(Debug, Clone)]
pub(crate) struct SpanView {
    pub(crate) name: String,
    pub(crate) span_id: String,
    pub(crate) parent_id: String,
    pub(crate) status: &'static str,
    pub(crate) attributes: Map<String, Value>,
}

/// A captured log record: its event name and attributes (with `severity_text` and `body` folded in).
#[derive(Debug, Clone)]
pub(crate) struct LogView {
    pub(crate) event_name: Option<String>,
    pub(crate) attributes: Map<String, Value>,
    pub(crate) body: Option<Value>,
}

/// Everything the expectations look at.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) spans: Vec<SpanView>,
    pub(crate) logs: Vec<LogView>,
    pub(crate) events: BTreeMap<String, Vec<Value>>,
}

impl Run {
    pub(crate) fn collect(
        telemetry: &Telemetry,
        collectors: &BTreeMap<String, Arc<Collector>>,
    ) -> Result<Run, String> {
        let spans = telemetry
            .spans
            .get_finished_spans()
            .map_err(|error| format!("harness: {error}"))?
            .into_iter()
            .map(|span| SpanView {
                name: span.name.to_string(),
                span_id: span.span_context.span_id().to_string(),
                parent_id: span.parent_span_id.to_string(),
                status: match span.status {
                    Status::Ok => "OK",
                    Status::Error { .. } => "ERROR",
                    Status::Unset => "UNSET",
                },
                attributes: span
                    .attributes
                    .iter()
                    .map(|kv| (kv.key.to_string(), otel_json(&kv.value)))
                    .collect(),
            })
            .collect();
        let logs = telemetry
            .logs
            .get_emitted_logs()
            .map_err(|error| format!("harness: {error}"))?
            .into_iter()
            .map(|log| {
                let mut attributes: Map<String, Value> = log
                    .record
                    .attributes_iter()
                    .map(|(key, value)| (key.to_string(), any_json(value)))
                    .collect();
                if let Some(text) = log.record.severity_text() {
                    attributes.insert("severity_text".into(), json!(text));
                }
                LogView {
                    event_name: log.record.event_name().map(str::to_owned),
                    body: log.record.body().map(any_json),
                    attributes,
                }
            })
            .collect();
        let mut events = BTreeMap::new();
        for (name, collector) in collectors {
            let captured = collector
                .0
                .lock()
                .map_err(|_| "harness: collector poisoned".to_owned())?
                .iter()
                .map(event_json)
                .collect();
            events.insert(name.clone(), captured);
        }
        Ok(Run { spans, logs, events })
    }
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
