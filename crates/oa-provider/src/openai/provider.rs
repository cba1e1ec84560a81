//! The OpenAI-compatible Chat Completions provider and its builder (re-exported at the crate root), over the [`ChatCompletions`](super::ChatCompletions) wire
//! format.

use super::ready;
use super::{ChatCompletions, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, PROVIDER_NAME};
use crate::BuildError;
use crate::endpoint::{Endpoint, Settings, provider_impls, shared_builder_setters};
use crate::http::KeyHeader;
use crate::model::ProviderError;

/// Builds an [`OpenAiProvider`]; every setting has a documented default.
#[derive(Debug)]
pub struct OpenAiProviderBuilder {
    settings: Settings,
}

impl OpenAiProviderBuilder {
    shared_builder_setters!(
        "`\"openai\"`",
        "`https://api.openai.com/v1`",
        "`OPENAI_API_KEY`",
        "Requests go to `{base}/chat/completions` and the `ready()` probe to `{base}/models`; a local server's \
         base URL ends in `/v1`, e.g. `http://127.0.0.1:8080/v1`."
    );

    /// Builds the provider.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a malformed base URL or header, or when the HTTP client cannot start.
    pub fn build(self) -> Result<OpenAiProvider, BuildError> {
        OpenAiProvider::from_settings(self.settings)
    }
}

/// An OpenAI-compatible Chat Completions provider bound to one model (§8.1).
///
/// Structured output takes the native path (`response_format` with `strict: true` when the schema meets
/// strict mode, else `strict: false`) unless [`Capabilities::native_response_format`](crate::Capabilities::native_response_format) is `false` or the server
/// rejected a native request earlier; then it takes prompt augmentation. The path is on every response and
/// error ([`Response::structured_output_path`](crate::Response::structured_output_path)).
pub struct OpenAiProvider {
    endpoint: Endpoint,
}

impl OpenAiProvider {
    /// A builder for a provider bound to `model`.
    pub fn builder(model: impl Into<String>) -> OpenAiProviderBuilder {
        OpenAiProviderBuilder {
            settings: settings(model.into()),
        }
    }

    async fn probe_ready(&self) -> Result<(), ProviderError> {
        ready::probe(&self.endpoint).await
    }
}

provider_impls!(OpenAiProvider, ChatCompletions, KeyHeader::Bearer, &[]);
