//! The §8.1 OpenAI-compatible Chat Completions mapping: [`OpenAiProvider`] and its builder.

mod call;
mod ready;
mod request;
mod response;
mod status;
mod stream;
mod transport;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use async_trait::async_trait;

pub use status::{MAX_RETRY_AFTER, parse_retry_after, parse_retry_after_at};

use crate::error::ProviderError;
use crate::provider::{CompletionRequest, Provider};
use crate::response::Response;
use transport::{Limits, Transport};

/// The environment variable the API key is read from unless the builder says otherwise.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";

/// The base URL used unless the builder sets one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The default provider identifier on attempt records (graph-engine §6 `provider`); see
/// [`OpenAiProviderBuilder::system`].
pub const PROVIDER_NAME: &str = "openai";

/// What the bound server and model are statically known to support. Every flag defaults to `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// The server honours `response_format: {type: json_schema}`; when `false`, structured output takes the
    /// prompt-augmentation path (§8.1.5.1).
    pub native_response_format: bool,
    /// The model accepts image blocks; when `false`, a request with one is refused before sending with
    /// `provider_unsupported_content_block`.
    pub image_input: bool,
    /// The mapping streams; when `false`, a `stream` call is refused before sending with
    /// `provider_invalid_request` (§5 *Provider streaming support*).
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

/// The API key, kept out of every Debug and Display.
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

enum KeySource {
    Env(String),
    Key(ApiKey),
    None,
}

/// Builds an [`OpenAiProvider`]; every setting has a documented default.
pub struct OpenAiProviderBuilder {
    model: String,
    base_url: String,
    key: KeySource,
    headers: Vec<(String, String)>,
    capabilities: Capabilities,
    limits: Limits,
    system: String,
}

impl fmt::Debug for OpenAiProviderBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiProviderBuilder")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("n_headers", &self.headers.len())
            .field("capabilities", &self.capabilities)
            .field("system", &self.system)
            .finish()
    }
}

impl OpenAiProviderBuilder {
    /// Sets the provider identifier its attempt records and token deltas carry, which observers emit as
    /// `gen_ai.system` and `openarmature.llm.provider` (default [`PROVIDER_NAME`], `"openai"`). Observability
    /// §5.5.3: a caller pointing this mapping at another server (vLLM, LM Studio, llama.cpp) names it here,
    /// e.g. `"vllm"`.
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = system.into();
        self
    }

    /// Sets the base URL, e.g. `http://127.0.0.1:8080/v1` (default [`DEFAULT_BASE_URL`]). Requests go to
    /// `{base}/chat/completions` and the `ready()` probe to `{base}/models`.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// Uses this key (default: read from [`DEFAULT_API_KEY_ENV`] at build time, none if unset).
    pub fn api_key(mut self, key: ApiKey) -> Self {
        self.key = KeySource::Key(key);
        self
    }

    /// Reads the key from this environment variable at build time (none if unset).
    pub fn api_key_env(mut self, variable: impl Into<String>) -> Self {
        self.key = KeySource::Env(variable.into());
        self
    }

    /// Sends no key (local servers).
    pub fn no_api_key(mut self) -> Self {
        self.key = KeySource::None;
        self
    }

    /// Adds a header to every request (default: none). Values are marked sensitive and never printed.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the static capabilities (default: all supported).
    pub fn capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Sets the TCP connect timeout (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.limits.connect_timeout = timeout;
        self
    }

    /// Sets the longest gap between bytes before the attempt fails (default 300 s). It includes the wait for
    /// the response headers, which for a non-streamed call is the whole generation.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.idle_timeout = timeout;
        self
    }

    /// Sets the deadline for one wire attempt, streaming included (default 600 s).
    pub fn total_timeout(mut self, timeout: Duration) -> Self {
        self.limits.total_timeout = timeout;
        self
    }

    /// Sets the largest response body read (default 16 MiB).
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_body_bytes = bytes;
        self
    }

    /// Sets the longest SSE line, and the largest data of one SSE event (default 1 MiB).
    pub fn max_sse_line_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_sse_line_bytes = bytes;
        self
    }

    /// Builds the provider.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a malformed base URL or header, or when the HTTP client cannot start.
    pub fn build(self) -> Result<OpenAiProvider, BuildError> {
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
        let headers = transport::build_headers(&self.headers, secret.as_deref())?;
        let secrets = secret
            .into_iter()
            .chain(self.headers.into_iter().map(|(_, value)| value))
            .collect();
        let transport =
            Transport::new(base_url, headers, secrets, self.limits).map_err(|_| BuildError::Client)?;
        Ok(OpenAiProvider {
            model: self.model,
            capabilities: self.capabilities,
            system: self.system,
            transport,
            native_rejected: AtomicBool::new(false),
        })
    }
}

/// An OpenAI-compatible Chat Completions provider bound to one model (§8.1).
///
/// Structured output takes the native path (`response_format` with `strict: true` when the schema meets
/// strict mode, else `strict: false`) unless [`Capabilities::native_response_format`] is `false` or the server
/// rejected a native request earlier; then it takes prompt augmentation. The path is on every response and
/// error ([`Response::structured_output_path`]).
pub struct OpenAiProvider {
    model: String,
    capabilities: Capabilities,
    /// The provider identifier on records (default [`PROVIDER_NAME`]).
    system: String,
    transport: Transport,
    /// Set once a native structured-output request was rejected (dynamic detection, §8.1.5.1); later calls on
    /// this provider go straight to prompt augmentation.
    native_rejected: AtomicBool,
}

impl OpenAiProvider {
    /// A builder for a provider bound to `model`.
    pub fn builder(model: impl Into<String>) -> OpenAiProviderBuilder {
        OpenAiProviderBuilder {
            model: model.into(),
            base_url: DEFAULT_BASE_URL.to_owned(),
            key: KeySource::Env(DEFAULT_API_KEY_ENV.to_owned()),
            headers: Vec::new(),
            capabilities: Capabilities::default(),
            limits: Limits {
                connect_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(300),
                total_timeout: Duration::from_secs(600),
                max_body_bytes: 16 * 1024 * 1024,
                max_sse_line_bytes: 1024 * 1024,
            },
            system: PROVIDER_NAME.to_owned(),
        }
    }

    /// The bound model.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The static capabilities.
    pub fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    /// The provider identifier on attempt records and token deltas (`gen_ai.system`).
    pub fn system(&self) -> &str {
        &self.system
    }
}

impl fmt::Debug for OpenAiProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("model", &self.model)
            .field("capabilities", &self.capabilities)
            .field("system", &self.system)
            .field("transport", &self.transport)
            .finish()
    }
}

#[async_trait]
impl Provider for OpenAiProvider {
    async fn ready(&self) -> Result<(), ProviderError> {
        ready::probe(self).await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        call::complete(self, request).await
    }
}
