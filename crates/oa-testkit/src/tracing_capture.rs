//! A `tracing` layer that keeps every event, new span and span record with its fields as JSON, so a test can ask
//! what a call emitted without installing a global subscriber.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::{Map, Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// What a captured record was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TracedKind {
    /// An event.
    Event,
    /// A new span with its initial fields.
    Span,
    /// Fields recorded later on an existing span.
    SpanRecord,
}

/// One captured event or span.
#[derive(Debug, Clone, PartialEq)]
pub struct Traced {
    /// Event, new span or span record.
    pub kind: TracedKind,
    /// The callsite's name (an event's name, or the span's).
    pub name: String,
    /// The callsite's target.
    pub target: String,
    /// The callsite's level.
    pub level: Level,
    /// The fields: integers, floats, booleans and strings as JSON values, anything else as its `Debug` text.
    pub fields: Map<String, Value>,
}

/// Captures everything emitted under its [`dispatch`](TracingCapture::dispatch), or under any subscriber it is
/// layered into; clones share the store.
///
/// ```
/// use tracing::instrument::WithSubscriber;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let capture = oa_testkit::TracingCapture::default();
/// async { tracing::warn!(name: "my.diagnostic", attempt = 0_u64, "hello") }
///     .with_subscriber(capture.dispatch())
///     .await;
/// let records = capture.named("my.diagnostic");
/// assert_eq!(records.len(), 1);
/// assert_eq!(records[0].level, tracing::Level::WARN);
/// assert_eq!(records[0].fields["attempt"], 0);
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct TracingCapture(Arc<Mutex<Vec<Traced>>>);

impl TracingCapture {
    /// A dispatcher with only this layer.
    pub fn dispatch(&self) -> tracing::Dispatch {
        // tracing-core caches each callsite's interest for the whole process, and while only one dispatcher is
        // registered it asks the registering thread's default (tokio-rs/tracing#3611): a sibling test thread with
        // no subscriber that reaches a callsite first caches `never`, and the event is dropped under this capture
        // too (oa-observe's isolation test failed so in CI). A second dispatcher, registered before any capture and
        // kept for the process's life, makes every registration ask all registered dispatchers.
        static SECOND: OnceLock<tracing::Dispatch> = OnceLock::new();
        SECOND.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::new()));
        tracing::Dispatch::new(tracing_subscriber::registry().with(self.clone()))
    }

    /// Everything captured so far, in order.
    pub fn all(&self) -> Vec<Traced> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The events named `name`, in order.
    pub fn named(&self, name: &str) -> Vec<Traced> {
        self.all()
            .into_iter()
            .filter(|traced| traced.kind == TracedKind::Event && traced.name == name)
            .collect()
    }

    fn push(&self, kind: TracedKind, metadata: &tracing::Metadata<'_>, fields: Map<String, Value>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Traced {
                kind,
                name: metadata.name().to_owned(),
                target: metadata.target().to_owned(),
                level: *metadata.level(),
                fields,
            });
    }
}

struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), json!(format!("{value:?}")));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for TracingCapture {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        self.push(TracedKind::Event, event.metadata(), fields.0);
    }

    fn on_new_span(&self, attributes: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
        let mut fields = Fields(Map::new());
        attributes.record(&mut fields);
        self.push(TracedKind::Span, attributes.metadata(), fields.0);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, context: Context<'_, S>) {
        let mut fields = Fields(Map::new());
        values.record(&mut fields);
        if let Some(metadata) = context.metadata(id) {
            self.push(TracedKind::SpanRecord, metadata, fields.0);
        }
    }
}
