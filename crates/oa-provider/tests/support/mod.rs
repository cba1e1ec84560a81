//! What the crate's integration tests share: an OpenAI-mapping provider for oa-testkit's scripted server, with no
//! API key (each test adds what it configures).
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use oa_provider::{OpenAiProvider, OpenAiProviderBuilder};
use oa_testkit::Server;

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
