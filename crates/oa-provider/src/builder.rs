//! One builder for any mapping, chosen at run time (a command line's `--mapping`, a fixture's `mapping:`): the
//! same settings every wire format's builder takes, with that mapping's defaults, building the mapping's provider
//! behind the [`Provider`] trait.

use std::sync::Arc;

use crate::call::Provider;
use crate::endpoint::{Settings, shared_builder_setters};
use crate::model::Mapping;
use crate::{AnthropicProvider, BuildError, GeminiProvider, OpenAiProvider, anthropic, gemini, openai};

/// Builds the provider of a [`Mapping`] chosen at run time.
///
/// ```
/// use oa_provider::{Mapping, ProviderBuilder};
///
/// let provider = ProviderBuilder::new(Mapping::Gemini, "gemini-2.5-flash")
///     .base_url("http://127.0.0.1:9/v1beta")
///     .no_api_key()
///     .build()?;
/// assert_eq!(provider.capability_key().unwrap().provider, "gemini");
/// # Ok::<(), oa_provider::BuildError>(())
/// ```
#[derive(Debug)]
pub struct ProviderBuilder {
    mapping: Mapping,
    settings: Settings,
}

impl ProviderBuilder {
    /// A builder for `mapping`'s provider bound to `model`, with that mapping's defaults.
    pub fn new(mapping: Mapping, model: impl Into<String>) -> Self {
        let model = model.into();
        let settings = match mapping {
            Mapping::OpenAi => openai::provider::settings(model),
            Mapping::Anthropic => anthropic::provider::settings(model),
            Mapping::Gemini => gemini::provider::settings(model),
        };
        Self { mapping, settings }
    }

    /// The mapping this builder builds for.
    pub fn mapping(&self) -> Mapping {
        self.mapping
    }

    shared_builder_setters!(
        "the mapping's name: `\"openai\"`, `\"anthropic\"` or `\"gemini\"`",
        "the mapping's public API root",
        "`OPENAI_API_KEY`, `ANTHROPIC_API_KEY` or `GEMINI_API_KEY`, by mapping,",
        "See the mapping's own builder for the paths requests take under it."
    );

    /// Builds the mapping's provider.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a malformed base URL or header, or when the HTTP client cannot start.
    pub fn build(self) -> Result<Arc<dyn Provider>, BuildError> {
        let settings = self.settings;
        Ok(match self.mapping {
            Mapping::OpenAi => Arc::new(OpenAiProvider::from_settings(settings)?),
            Mapping::Anthropic => Arc::new(AnthropicProvider::from_settings(settings)?),
            Mapping::Gemini => Arc::new(GeminiProvider::from_settings(settings)?),
        })
    }
}
