//! What the crate's integration tests share: an OpenAI-mapping provider for oa-testkit's scripted server, with no
//! API key (each test adds what it configures), and the capabilities that turn native structured output on or off.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use oa_provider::enforcement::{Capability, KeywordSet, ProbeKind};
use oa_provider::retry::Backoff;
use oa_provider::{AttemptHook, AttemptRecord};
use oa_provider::{
    Capabilities, Category, CompletionRequest, OpenAiProvider, OpenAiProviderBuilder, Provider, RetryConfig,
};
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};

/// A builder for the OpenAI mapping on `server`, for `model`, with no API key.
pub fn openai_builder(server: &Server, model: &str) -> OpenAiProviderBuilder {
    OpenAiProvider::builder(model)
        .base_url(server.base_url())
        .no_api_key()
}

/// The OpenAI mapping on `server`, model `test-model`, no API key, nothing else configured.
pub fn openai_at(server: &Server) -> OpenAiProvider {
    openai_builder(server, "test-model").build().unwrap()
}

/// The default capabilities, with native structured output on or off.
pub fn native(native: bool) -> Capabilities {
    Capabilities {
        native_response_format: native,
        ..Capabilities::default()
    }
}

/// At most `max_attempts` attempts, none waiting for the one before.
pub fn no_wait(max_attempts: u32) -> RetryConfig {
    RetryConfig::new(max_attempts).with_backoff(Backoff::Fixed(std::time::Duration::ZERO))
}

/// An object schema with one required integer member, `value`, and no other members.
pub fn value_schema() -> Value {
    json!({"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"], "additionalProperties": false})
}

/// Each case's reply, served alone, fails `request` on the provider `at` builds for its server with the case's
/// category.
pub async fn assert_categories<P: Provider>(
    cases: impl IntoIterator<Item = (Reply, Category)>,
    at: impl Fn(&Server) -> P,
    request: &CompletionRequest,
) {
    for (reply, category) in cases {
        let server = Server::start(vec![reply]).unwrap();
        let error = at(&server).complete(request).await.unwrap_err();
        assert_eq!(error.category(), category, "{}", error.message());
    }
}

/// A canary verdict (`enforces`) checked now, naming no keywords.
pub fn fresh_canary(enforces: bool) -> Capability {
    Capability {
        enforces,
        checked_at: std::time::SystemTime::now(),
        probe: ProbeKind::Canary,
        keywords: KeywordSet::EMPTY,
    }
}

/// An attempt hook keeping what `read` says of each attempt record, in the order the attempts ran.
pub struct Recorded<T> {
    seen: std::sync::Mutex<Vec<T>>,
    read: fn(&AttemptRecord<'_>) -> T,
}

impl<T> Recorded<T> {
    /// A hook that has seen no attempt yet.
    pub fn new(read: fn(&AttemptRecord<'_>) -> T) -> Self {
        Self {
            seen: std::sync::Mutex::new(Vec::new()),
            read,
        }
    }

    /// What each attempt said, so far.
    pub fn seen(&self) -> std::sync::MutexGuard<'_, Vec<T>> {
        self.seen.lock().unwrap()
    }
}

impl<T: Send> AttemptHook for Recorded<T> {
    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.seen.lock().unwrap().push((self.read)(record));
    }
}
