//! The Anthropic Messages provider and its builder (re-exported at the crate root), over the [`Messages`](super::Messages) wire
//! format.

use super::{API_VERSION, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, Messages, PROVIDER_NAME};
use crate::BuildError;
use crate::call::ready::look_up_model;
use crate::endpoint::{Endpoint, Settings, provider_impls, shared_builder_setters};
use crate::http::KeyHeader;
use crate::model::ProviderError;

/// Builds an [`AnthropicProvider`]; every setting has a documented default.
#[derive(Debug)]
pub struct AnthropicProviderBuilder {
    settings: Settings,
}

impl AnthropicProviderBuilder {
    shared_builder_setters!(
        "`\"anthropic\"`",
        "`https://api.anthropic.com/v1`",
        "`ANTHROPIC_API_KEY`",
        "Requests go to `{base}/messages` and the `ready()` probe to `{base}/models/{model}`; the key travels only \
         in the `x-api-key` header."
    );

    /// Builds the provider.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a malformed base URL or header, or when the HTTP client cannot start.
    pub fn build(self) -> Result<AnthropicProvider, BuildError> {
        AnthropicProvider::from_settings(self.settings)
    }
}

/// An Anthropic Messages provider bound to one model (§8.2).
///
/// `RuntimeConfig::max_tokens` is required (a call without it is refused before sending), and `seed` and the two
/// penalties, which the Messages API lacks, are refused too. Streaming is not implemented (§5): a `stream` call
/// is refused before sending.
///
/// Structured output takes the `native` path, `output_config.format`, unless
/// [`Capabilities::native_response_format`](crate::Capabilities::native_response_format) is `false` or the server
/// rejected a native request earlier. Then a call without tools takes `tool_coercion` (a synthetic tool whose
/// input schema is the response schema, forced by `tool_choice`; the answer is read back from its input), and a
/// call with tools, or with `tool_choice: none`, takes `prompt_augmentation`. The path is on every response and
/// error.
///
/// ```
/// use oa_provider::{AnthropicProvider, Mapping, Provider};
///
/// let provider = AnthropicProvider::builder("claude-sonnet-4-5").no_api_key().build()?;
/// assert_eq!(provider.system(), Mapping::Anthropic.as_str());
/// # Ok::<(), oa_provider::BuildError>(())
/// ```
pub struct AnthropicProvider {
    endpoint: Endpoint,
}

impl AnthropicProvider {
    /// A builder for a provider bound to `model`.
    pub fn builder(model: impl Into<String>) -> AnthropicProviderBuilder {
        AnthropicProviderBuilder {
            settings: settings(model.into()),
        }
    }

    async fn probe_ready(&self) -> Result<(), ProviderError> {
        look_up_model(&self.endpoint, &Messages).await
    }
}

provider_impls!(
    AnthropicProvider,
    Messages,
    KeyHeader::XApiKey,
    &[("anthropic-version", API_VERSION)]
);
