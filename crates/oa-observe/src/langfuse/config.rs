//! The Langfuse observer's own switches (§8.7, §8.9: independent of the OTel observer's).

use crate::config::{ConfigError, setters};
use crate::truncate::DEFAULT_PAYLOAD_CAP;

/// What a [`LangfuseObserver`](crate::LangfuseObserver) emits. Build with [`LangfuseConfig::builder`]; the
/// default is the privacy-safe posture (no payload, no state).
///
/// ```
/// use oa_observe::LangfuseConfig;
///
/// assert!(!LangfuseConfig::default().provider_payload());
/// let config = LangfuseConfig::builder().disable_provider_payload(false).payload_cap(4096).build()?;
/// assert!(config.provider_payload());
/// assert!(LangfuseConfig::builder().payload_cap(100).build().is_err(), "below §5.5.5's minimum");
/// # Ok::<(), oa_observe::ConfigError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LangfuseConfig {
    pub(crate) disable_llm_spans: bool,
    pub(crate) disable_provider_payload: bool,
    pub(crate) disable_state_payload: bool,
    pub(crate) payload_cap: usize,
}

impl Default for LangfuseConfig {
    fn default() -> Self {
        Self {
            disable_llm_spans: false,
            disable_provider_payload: true,
            disable_state_payload: true,
            payload_cap: DEFAULT_PAYLOAD_CAP,
        }
    }
}

impl LangfuseConfig {
    /// A builder starting from the defaults.
    pub fn builder() -> LangfuseConfigBuilder {
        LangfuseConfigBuilder(Self::default())
    }

    /// Whether Generations carry input, output, request extras and a failure's error message.
    pub fn provider_payload(&self) -> bool {
        !self.disable_provider_payload
    }
}

/// Builds a [`LangfuseConfig`].
#[derive(Debug, Clone, Copy)]
pub struct LangfuseConfigBuilder(LangfuseConfig);

impl LangfuseConfigBuilder {
    setters! {
        /// Renders no Generation for LLM calls (default: false).
        disable_llm_spans(disable: bool);
        /// Withholds a Generation's input, output, `metadata.request_extras` and a failed Generation's
        /// `metadata.error_message` (default: true, withheld).
        disable_provider_payload(disable: bool);
        /// Withholds the state as the trace's input and output, which then carry §8.4.1's stub (default: true).
        disable_state_payload(disable: bool);
        /// The per-field payload cap in bytes (§5.5.5; default 65,536, at least 256).
        payload_cap(cap: usize);
    }

    /// The configuration.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when the payload cap is below 256 bytes.
    pub fn build(self) -> Result<LangfuseConfig, ConfigError> {
        ConfigError::check(self.0.payload_cap)?;
        Ok(self.0)
    }
}
