//! The Gemini generateContent provider and its builder (re-exported at the crate root), over the [`GenerateContent`](super::GenerateContent) wire
//! format.

use super::{DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, GenerateContent, PROVIDER_NAME};
use crate::BuildError;
use crate::call::ready::look_up_model;
use crate::endpoint::{Endpoint, Settings, provider_impls, shared_builder_setters};
use crate::http::KeyHeader;
use crate::model::ProviderError;

/// Builds a [`GeminiProvider`]; every setting has a documented default.
#[derive(Debug)]
pub struct GeminiProviderBuilder {
    settings: Settings,
}

impl GeminiProviderBuilder {
    shared_builder_setters!(
        "`\"gemini\"`",
        "`https://generativelanguage.googleapis.com/v1beta`",
        "`GEMINI_API_KEY`",
        "Requests go to `{base}/models/{model}:generateContent` (the model percent-encoded as one path segment) and \
         the `ready()` probe to `{base}/models/{model}`; the key travels only in the `x-goog-api-key` header, never \
         in a `?key=` query."
    );

    /// Builds the provider.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a malformed base URL or header, or when the HTTP client cannot start.
    pub fn build(self) -> Result<GeminiProvider, BuildError> {
        GeminiProvider::from_settings(self.settings)
    }
}

/// A Gemini `generateContent` provider bound to one model (§8.3).
///
/// Every declared config field maps under `generationConfig`, and so do the extras. Streaming is not implemented
/// (§5): a `stream` call is refused before sending.
///
/// Structured output takes the `native` path, `generationConfig.responseJsonSchema` with `responseMimeType:
/// application/json`, unless [`Capabilities::native_response_format`](crate::Capabilities::native_response_format)
/// is `false` or the server rejected a native request earlier; then it takes `prompt_augmentation` (the directive
/// joins `systemInstruction`). Gemini supports a subset of JSON Schema, so the schema is sent as given and every
/// answer is validated against all of it. The path is on every response and error.
///
/// ```
/// use oa_provider::{GeminiProvider, Provider};
///
/// let provider = GeminiProvider::builder("gemini-2.5-flash").no_api_key().build()?;
/// assert_eq!(provider.model(), "gemini-2.5-flash");
/// # Ok::<(), oa_provider::BuildError>(())
/// ```
pub struct GeminiProvider {
    endpoint: Endpoint,
}

impl GeminiProvider {
    /// A builder for a provider bound to `model`.
    pub fn builder(model: impl Into<String>) -> GeminiProviderBuilder {
        GeminiProviderBuilder {
            settings: settings(model.into()),
        }
    }

    async fn probe_ready(&self) -> Result<(), ProviderError> {
        look_up_model(&self.endpoint, &GenerateContent).await
    }
}

provider_impls!(GeminiProvider, GenerateContent, KeyHeader::XGoogApiKey, &[]);
