//! Shared test helpers: a collecting observer and provider builders (the server and the tracing capture are
//! oa-testkit's).

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use async_trait::async_trait;
use oa_events::{Event, Observer, ObserverError};
use oa_provider::{Capabilities, OpenAiProvider};
use serde_json::{Value, json};

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
