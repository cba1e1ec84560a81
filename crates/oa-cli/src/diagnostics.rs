//! Collects the diagnostics a call emits (oa-provider's `tracing` records under the `openarmature` target), so
//! `oa complete` can print them as warnings or list them in its JSON.

use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, PoisonError};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// The `tracing` target oa diagnostics are emitted under.
const DIAGNOSTIC_TARGET: &str = oa_provider::DIAGNOSTIC_TARGET;

/// One diagnostic record: its event name and its attributes as emitted (the human text is not an attribute).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Diagnostic {
    pub(crate) event_name: String,
    pub(crate) level: String,
    pub(crate) attributes: Map<String, Value>,
}

/// A handle on the records collected so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Collected(Arc<Mutex<Vec<Diagnostic>>>);

impl Collected {
    /// The records collected so far, in emission order.
    pub(crate) fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Runs `work` with a subscriber that collects every oa diagnostic emitted on this thread.
pub(crate) fn collect<T>(work: impl FnOnce() -> T) -> (T, Vec<Diagnostic>) {
    let collected = Collected::default();
    let subscriber = tracing_subscriber::registry().with(Collector(collected.clone()));
    let output = tracing::subscriber::with_default(subscriber, work);
    (output, collected.take())
}

struct Collector(Collected);

impl<S: tracing::Subscriber> Layer<S> for Collector {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let metadata = event.metadata();
        if metadata.target() != DIAGNOSTIC_TARGET {
            return;
        }
        let mut visitor = Attributes::default();
        event.record(&mut visitor);
        let diagnostic = Diagnostic {
            event_name: metadata.name().to_owned(),
            level: metadata.level().to_string(),
            attributes: visitor.0,
        };
        self.0
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(diagnostic);
    }
}

#[derive(Default)]
struct Attributes(Map<String, Value>);

impl Attributes {
    fn insert(&mut self, field: &Field, value: Value) {
        if field.name() != "message" {
            self.0.insert(field.name().to_owned(), value);
        }
    }
}

impl Visit for Attributes {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.insert(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.insert(field, Value::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.insert(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.insert(field, Value::from(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.insert(field, Value::from(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.insert(field, Value::from(format!("{value:?}")));
    }
}
