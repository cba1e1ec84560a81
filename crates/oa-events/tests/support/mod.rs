//! Shared test helpers: a tracing layer that captures events, a collecting observer, and provider builders.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use oa_events::{Event, Observer, ObserverError};
use oa_provider::{Capabilities, OpenAiProvider};
use serde_json::{Map, Value, json};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// One captured `tracing` event.
#[derive(Debug, Clone)]
pub struct Captured {
    pub name: String,
    pub level: tracing::Level,
    pub fields: Map<String, Value>,
}

/// Captures every event whose target is `openarmature`.
#[derive(Clone, Default)]
pub struct Capture(pub Arc<Mutex<Vec<Captured>>>);

impl Capture {
    pub fn dispatch(&self) -> tracing::Dispatch {
        tracing::Dispatch::new(tracing_subscriber::registry().with(self.clone()))
    }

    pub fn named(&self, name: &str) -> Vec<Captured> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|event| event.name == name)
            .cloned()
            .collect()
    }
}

struct Fields<'a>(&'a mut Map<String, Value>);

impl Visit for Fields<'_> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), json!(format!("{value:?}")));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "openarmature" {
            return;
        }
        let mut fields = Map::new();
        event.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(Captured {
            name: event.metadata().name().to_owned(),
            level: *event.metadata().level(),
            fields,
        });
    }
}

/// Collects every event it is given.
#[derive(Default)]
pub struct Collect(pub Mutex<Vec<Event>>);

#[async_trait]
impl Observer for Collect {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.0.lock().unwrap().push(event.clone());
        Ok(())
    }
}

impl Collect {
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().clone()
    }
}

/// A strict-mode-compatible schema, so the OpenAI mapping takes the native path.
pub fn strict_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": false
    })
}

pub fn provider(base_url: &str) -> OpenAiProvider {
    OpenAiProvider::builder("gpt-test")
        .base_url(base_url)
        .no_api_key()
        .build()
        .unwrap()
}

pub fn provider_without_native(base_url: &str) -> OpenAiProvider {
    OpenAiProvider::builder("gpt-test")
        .base_url(base_url)
        .no_api_key()
        .capabilities(Capabilities {
            native_response_format: false,
            ..Capabilities::default()
        })
        .build()
        .unwrap()
}
