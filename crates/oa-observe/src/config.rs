//! The observer's configuration: the §5.5.4 opt-out flags and the §5.5.5 payload cap. (The §11.1 metrics flag is
//! [`OtelObserver::enable_metrics`](crate::OtelObserver::enable_metrics), which takes the meter provider too.)

use crate::truncate::{DEFAULT_PAYLOAD_CAP, MIN_PAYLOAD_CAP};

/// What an [`OtelObserver`](crate::OtelObserver) emits. Build with [`ObserverConfig::builder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObserverConfig {
    pub(crate) disable_llm_spans: bool,
    pub(crate) disable_provider_payload: bool,
    pub(crate) disable_genai_semconv: bool,
    pub(crate) payload_cap: usize,
}

impl Default for ObserverConfig {
    fn default() -> Self {
        Self {
            disable_llm_spans: false,
            disable_provider_payload: true,
            disable_genai_semconv: false,
            payload_cap: DEFAULT_PAYLOAD_CAP,
        }
    }
}

/// A payload cap below the §5.5.5 minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("payload cap {cap} is below the minimum of {MIN_PAYLOAD_CAP} bytes")]
pub struct ConfigError {
    /// The rejected cap.
    pub cap: usize,
}

impl ConfigError {
    /// `Ok` for a cap of at least the §5.5.5 minimum: the check both observers' builders make.
    pub(crate) fn check(cap: usize) -> Result<(), Self> {
        if cap < MIN_PAYLOAD_CAP {
            return Err(Self { cap });
        }
        Ok(())
    }
}

/// Writes a configuration builder's setters (the builder wraps its configuration as `.0`), each storing its
/// argument in the field of its own name, so the two observers' builders stay alike.
macro_rules! setters {
    ($($(#[$doc:meta])* $field:ident($arg:ident: $ty:ty);)*) => {
        $(
            $(#[$doc])*
            pub fn $field(mut self, $arg: $ty) -> Self {
                self.0.$field = $arg;
                self
            }
        )*
    };
}
pub(crate) use setters;

impl ObserverConfig {
    /// A builder starting from the spec defaults.
    pub fn builder() -> ObserverConfigBuilder {
        ObserverConfigBuilder(Self::default())
    }
}

/// Builds an [`ObserverConfig`].
#[derive(Debug, Clone, Copy)]
pub struct ObserverConfigBuilder(ObserverConfig);

impl ObserverConfigBuilder {
    setters! {
        /// Skips the LLM provider span entirely (default: false).
        disable_llm_spans(disable: bool);
        /// Withholds payload attributes (messages, output, tool calls, extras) (default: true, no payload).
        disable_provider_payload(disable: bool);
        /// Withholds the `gen_ai.*` request and response attributes (default: false).
        disable_genai_semconv(disable: bool);
        /// The per-attribute payload cap in bytes (default: 65,536; at least 256).
        payload_cap(cap: usize);
    }

    /// The configuration.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when the payload cap is below 256 bytes.
    pub fn build(self) -> Result<ObserverConfig, ConfigError> {
        ConfigError::check(self.0.payload_cap)?;
        Ok(self.0)
    }
}
