//! Shared test helpers: a collecting observer and provider builders (the server and the tracing capture are
//! oa-testkit's).

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

mod collect;
#[allow(unused_imports)] // not every test binary collects events
pub use collect::Collect;

use oa_provider::{Capabilities, OpenAiProvider};
use serde_json::{Value, json};

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
