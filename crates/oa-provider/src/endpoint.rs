//! The vendor-neutral half of a provider: the route it serves (model, base URL, provider name), its transport,
//! static capabilities, the dynamic "native rejected" flag, and the capability registry it reads at call time.
//! Every wire format's builder shares these settings and defaults.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::enforcement::{CapabilityKey, CapabilityRegistry, KeywordSet};
use crate::http::{KeyHeader, Limits, Transport, build_headers};

/// What the bound server and model are statically known to support. Every flag defaults to `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// The server honours the wire format's native structured-output constraint (OpenAI's
    /// `response_format: {type: json_schema}`, Anthropic's `output_config.format`, Gemini's
    /// `responseJsonSchema`); when `false`, structured output takes the wire format's fallback path (prompt
    /// augmentation on OpenAI and Gemini; tool coercion, or the prompt when the call has tools, on Anthropic).
    pub native_response_format: bool,
    /// The model accepts image blocks; when `false`, a request with one is refused before sending with
    /// `provider_unsupported_content_block`.
    pub image_input: bool,
    /// The route streams; when `false`, a `stream` call is refused before sending with
    /// `provider_invalid_request` (§5 *Provider streaming support*). A mapping that does not stream (Anthropic,
    /// Gemini) refuses one whatever this says.
    pub streaming: bool,
}

impl Default for Capabilities {
    fn default() -> Self {
        Self {
            native_response_format: true,
            image_input: true,
            streaming: true,
        }
    }
}

/// Why a provider could not be built. Display never includes a header value or the key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The base URL is not an absolute http(s) URL without query or fragment.
    #[error("base url must be an absolute http or https url without query or fragment")]
    InvalidBaseUrl,
    /// A header name or value (the key included) is not valid in HTTP.
    #[error("header {name:?} has an invalid name or value")]
    InvalidHeader {
        /// The header's name (never its value).
        name: String,
    },
    /// The HTTP client could not be created (TLS backend initialisation).
    #[error("http client could not be built")]
    Client,
}

/// An API key, kept out of every Debug and Display.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Where the key comes from.
pub(crate) enum KeySource {
    Env(String),
    Key(ApiKey),
    None,
}

/// The settings every wire format's builder collects, with their documented defaults.
pub(crate) struct Settings {
    pub(crate) model: String,
    pub(crate) base_url: String,
    pub(crate) key: KeySource,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) capabilities: Capabilities,
    pub(crate) limits: Limits,
    pub(crate) system: String,
    pub(crate) registry: Option<Arc<CapabilityRegistry>>,
    pub(crate) retry_parse_failure: bool,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("n_headers", &self.headers.len())
            .field("capabilities", &self.capabilities)
            .field("system", &self.system)
            .field("registry", &self.registry.is_some())
            .finish()
    }
}

impl Settings {
    /// Defaults: key from `key_env`, no extra headers, every capability, connect 10 s, idle 300 s, total 600 s,
    /// body 16 MiB, SSE line 1 MiB, no registry.
    pub(crate) fn new(model: String, base_url: &str, key_env: &str, system: &str) -> Self {
        Self {
            model,
            base_url: base_url.to_owned(),
            key: KeySource::Env(key_env.to_owned()),
            headers: Vec::new(),
            capabilities: Capabilities::default(),
            limits: Limits {
                connect_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(300),
                total_timeout: Duration::from_secs(600),
                max_body_bytes: 16 * 1024 * 1024,
                max_sse_line_bytes: 1024 * 1024,
            },
            system: system.to_owned(),
            registry: None,
            retry_parse_failure: false,
        }
    }

    /// Builds the endpoint, sending the key the wire format's way and its fixed protocol headers on every request.
    pub(crate) fn build(
        self,
        key_header: KeyHeader,
        fixed_headers: &[(&'static str, &'static str)],
    ) -> Result<Endpoint, BuildError> {
        let base_url = self.base_url.trim_end_matches('/').to_owned();
        let parsed = reqwest::Url::parse(&base_url).map_err(|_| BuildError::InvalidBaseUrl)?;
        if !matches!(parsed.scheme(), "http" | "https")
            || parsed.query().is_some()
            || parsed.fragment().is_some()
        {
            return Err(BuildError::InvalidBaseUrl);
        }
        let secret = match self.key {
            KeySource::Env(variable) => std::env::var(variable).ok().filter(|key| !key.is_empty()),
            KeySource::Key(ApiKey(key)) => Some(key),
            KeySource::None => None,
        };
        let headers = build_headers(fixed_headers, &self.headers, secret.as_deref(), key_header)?;
        let secrets = secret
            .into_iter()
            .chain(self.headers.into_iter().map(|(_, value)| value))
            .collect();
        let transport = Transport::new(base_url.clone(), headers, secrets, self.limits)
            .map_err(|_| BuildError::Client)?;
        Ok(Endpoint {
            model: self.model,
            system: self.system,
            base_url,
            capabilities: self.capabilities,
            transport,
            native_rejected: AtomicBool::new(false),
            registry: self.registry,
            retry_parse_failure: self.retry_parse_failure,
        })
    }
}

/// A built endpoint: what every call on one provider shares.
pub(crate) struct Endpoint {
    pub(crate) model: String,
    /// The provider identifier on records (`gen_ai.system`).
    pub(crate) system: String,
    /// The base URL, without a trailing slash; part of the capability key (a gateway is a different route).
    pub(crate) base_url: String,
    pub(crate) capabilities: Capabilities,
    pub(crate) transport: Transport,
    /// Set once a native structured-output request was rejected (dynamic detection); later calls on this
    /// provider go straight to the fallback path.
    native_rejected: AtomicBool,
    registry: Option<Arc<CapabilityRegistry>>,
    /// Resend once, with identical bytes, an attempt the server's engine failed to parse (opt-in).
    pub(crate) retry_parse_failure: bool,
}

impl Endpoint {
    /// The route this endpoint serves, as the capability registry keys it.
    pub(crate) fn capability_key(&self) -> CapabilityKey {
        CapabilityKey::new(&self.system, &self.model, &self.base_url)
    }

    /// The keywords a fresh verdict that this route enforces covers, read now (from the registry's store when it
    /// has one, within the store's read timeout); `None` without such a verdict.
    pub(crate) async fn verdict_coverage(&self) -> Option<KeywordSet> {
        let registry = self.registry.as_ref()?;
        registry
            .enforcing_now(&self.capability_key())
            .await
            .map(|capability| capability.covered())
    }

    /// Whether a native request was rejected on this route (dynamic detection), rather than never declared.
    pub(crate) fn native_was_rejected(&self) -> bool {
        self.native_rejected.load(Ordering::Relaxed)
    }

    /// Whether a native request may be tried: the capability is declared and no native request was rejected.
    pub(crate) fn native_available(&self) -> bool {
        self.capabilities.native_response_format && !self.native_rejected.load(Ordering::Relaxed)
    }

    /// Records that the server rejected the native constraint.
    pub(crate) fn reject_native(&self) {
        self.native_rejected.store(true, Ordering::Relaxed);
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("model", &self.model)
            .field("system", &self.system)
            .field("capabilities", &self.capabilities)
            .field("transport", &self.transport)
            .field("registry", &self.registry.is_some())
            .finish()
    }
}

/// The setters every wire format's builder shares, written once. Used inside `impl XBuilder { … }` blocks whose
/// type has a `settings: Settings` field; the first three arguments are the defaults as Markdown.
macro_rules! shared_builder_setters {
    ($default_system:literal, $default_base_url:literal, $default_key_env:literal, $paths:literal) => {
        /// Sets the provider identifier its attempt records and token deltas carry, which observers emit as
        /// `gen_ai.system` and `openarmature.llm.provider`, and which keys the capability registry (default
        #[doc = concat!($default_system, ").")]
        /// Observability §5.5.3: a caller pointing this mapping at another server (vLLM, LM Studio, llama.cpp)
        /// names it here, e.g. `"vllm"`.
        pub fn system(mut self, system: impl Into<String>) -> Self {
            self.settings.system = system.into();
            self
        }

        #[doc = concat!("Sets the base URL (default ", $default_base_url, "). ", $paths)]
        pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
            self.settings.base_url = base_url.into();
            self
        }

        #[doc = concat!("Uses this key (default: read from ", $default_key_env, " at build time, none if unset).")]
        pub fn api_key(mut self, key: $crate::ApiKey) -> Self {
            self.settings.key = $crate::endpoint::KeySource::Key(key);
            self
        }

        /// Reads the key from this environment variable at build time (none if unset).
        pub fn api_key_env(mut self, variable: impl Into<String>) -> Self {
            self.settings.key = $crate::endpoint::KeySource::Env(variable.into());
            self
        }

        /// Sends no key (local servers).
        pub fn no_api_key(mut self) -> Self {
            self.settings.key = $crate::endpoint::KeySource::None;
            self
        }

        /// Adds a header to every request (default: none). Values are marked sensitive and never printed.
        pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
            self.settings.headers.push((name.into(), value.into()));
            self
        }

        /// Sets the static capabilities (default: all supported).
        pub fn capabilities(mut self, capabilities: $crate::Capabilities) -> Self {
            self.settings.capabilities = capabilities;
            self
        }

        /// Reads this capability registry at call time (default: none). A structured call on the `native` path is
        /// marked `enforced` only when the registry holds a fresh verdict that this route (provider name, model,
        /// base URL) enforces; otherwise `unverified`.
        pub fn registry(mut self, registry: std::sync::Arc<$crate::enforcement::CapabilityRegistry>) -> Self {
            self.settings.registry = Some(registry);
            self
        }

        /// Sends an attempt once more, with identical bytes and outside the retry budget, when the server says its
        /// engine could not parse the model's output (`provider_output_parse_failed`, LM Studio's "peg-native"
        /// failure), at most once per call (default: off; the failure is returned as it came).
        pub fn retry_parse_failure(mut self, retry: bool) -> Self {
            self.settings.retry_parse_failure = retry;
            self
        }

        /// Sets the TCP connect timeout (default 10 s).
        pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.limits.connect_timeout = timeout;
            self
        }

        /// Sets the longest gap between bytes before the attempt fails (default 300 s). It includes the wait for
        /// the response headers, which for a non-streamed call is the whole generation.
        pub fn idle_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.limits.idle_timeout = timeout;
            self
        }

        /// Sets the deadline for one wire attempt, streaming included (default 600 s).
        pub fn total_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.limits.total_timeout = timeout;
            self
        }

        /// Sets the largest response body read (default 16 MiB).
        pub fn max_body_bytes(mut self, bytes: usize) -> Self {
            self.settings.limits.max_body_bytes = bytes;
            self
        }

        /// Sets the longest SSE line, and the largest data of one SSE event (default 1 MiB).
        pub fn max_sse_line_bytes(mut self, bytes: usize) -> Self {
            self.settings.limits.max_sse_line_bytes = bytes;
            self
        }
    };
}

pub(crate) use shared_builder_setters;

/// What every wire format's provider shares, written once: construction from the shared settings (the key sent in
/// `$key_header`, `$fixed_headers` on every request), the module's `settings(model)` with its `DEFAULT_*`
/// constants, the accessors, the secret-free Debug, and the [`Provider`](crate::Provider) impl that runs calls
/// through the vendor-neutral driver with `$wire` and answers `ready()` with the type's own `probe_ready`. Used at
/// module level for a type with an `endpoint: Endpoint` field.
macro_rules! provider_impls {
    ($provider:ident, $wire:expr, $key_header:expr, $fixed_headers:expr) => {
        /// This mapping's wire format, for the fuzz targets (feature `fuzzing`) and its typed view's tests.
        #[cfg(any(test, feature = "fuzzing"))]
        pub(crate) static WIRE: &dyn $crate::call::wire::WireFormat = &$wire;

        /// The builder settings with this mapping's defaults.
        pub(crate) fn settings(model: String) -> $crate::endpoint::Settings {
            $crate::endpoint::Settings::new(model, DEFAULT_BASE_URL, DEFAULT_API_KEY_ENV, PROVIDER_NAME)
        }

        impl $provider {
            pub(crate) fn from_settings(
                settings: $crate::endpoint::Settings,
            ) -> Result<Self, $crate::BuildError> {
                Ok(Self {
                    endpoint: settings.build($key_header, $fixed_headers)?,
                })
            }

            /// The bound model.
            pub fn model(&self) -> &str {
                &self.endpoint.model
            }

            /// The static capabilities.
            pub fn capabilities(&self) -> $crate::Capabilities {
                self.endpoint.capabilities
            }

            /// The provider identifier on attempt records and token deltas (`gen_ai.system`).
            pub fn system(&self) -> &str {
                &self.endpoint.system
            }
        }

        impl std::fmt::Debug for $provider {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($provider))
                    .field("endpoint", &self.endpoint)
                    .finish()
            }
        }

        #[async_trait::async_trait]
        impl $crate::Provider for $provider {
            async fn ready(&self) -> Result<(), $crate::ProviderError> {
                self.probe_ready().await
            }

            async fn complete(
                &self,
                request: &$crate::CompletionRequest,
            ) -> Result<$crate::Response, $crate::ProviderError> {
                $crate::call::complete(&self.endpoint, &$wire, request, &$crate::CallExtras::NONE).await
            }

            async fn complete_with(
                &self,
                request: &$crate::CompletionRequest,
                extras: &$crate::CallExtras,
            ) -> Result<$crate::Response, $crate::ProviderError> {
                $crate::call::complete(&self.endpoint, &$wire, request, extras).await
            }

            fn capability_key(&self) -> Option<$crate::enforcement::CapabilityKey> {
                Some(self.endpoint.capability_key())
            }
        }
    };
}

pub(crate) use provider_impls;

/// A mapping's three public defaults, alike in every mapping but for their values: the API key's environment
/// variable, the base URL (`$base_doc` says which root it is) and the provider identifier on attempt records, which
/// `$builder`'s `system` replaces. Used in the mapping's module.
macro_rules! mapping_defaults {
    ($key_env:literal, $base_url:literal, $base_doc:literal, $name:literal, $builder:ident) => {
        /// The environment variable the API key is read from unless the builder says otherwise.
        pub const DEFAULT_API_KEY_ENV: &str = $key_env;

        #[doc = $base_doc]
        pub const DEFAULT_BASE_URL: &str = $base_url;

        #[doc = concat!(
            "The default provider identifier on attempt records (graph-engine §6 `provider`); see\n[`",
            stringify!($builder),
            "::system`](crate::",
            stringify!($builder),
            "::system)."
        )]
        pub const PROVIDER_NAME: &str = $name;
    };
}

pub(crate) use mapping_defaults;
