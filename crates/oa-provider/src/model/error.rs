//! The one error a provider call returns: a §7 category, the facts that category carries, and nothing secret.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::model::{AttemptSummary, Blocked, FinishReason, RawJson, SchemaMode, StructuredOutputPath, Usage};
use crate::model::{FailureClass, OutputProblem};

/// The §7 category of a [`ProviderError`]; the strings are the spec's names.
///
/// The set is closed by the spec's nine categories: a caller can match exhaustively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Credentials were rejected or missing (HTTP 401, 403).
    Authentication,
    /// The provider could not be reached or failed (network error, timeout, 5xx, a broken stream).
    Unavailable,
    /// The bound model is unknown to the provider.
    InvalidModel,
    /// The bound model is known but not serving yet.
    ModelNotLoaded,
    /// The provider asked us to slow down (HTTP 429).
    RateLimit,
    /// A response arrived but could not be read into the §6 shape.
    InvalidResponse,
    /// The request was rejected before sending, or the provider called it malformed (HTTP 400).
    InvalidRequest,
    /// The bound model does not accept a content block the request used.
    UnsupportedContentBlock,
    /// A structured-output response did not parse as JSON or did not validate against the schema.
    StructuredOutputInvalid,
}

impl Category {
    /// The spec's identifier for this category, e.g. `"provider_rate_limit"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Authentication => "provider_authentication",
            Self::Unavailable => "provider_unavailable",
            Self::InvalidModel => "provider_invalid_model",
            Self::ModelNotLoaded => "provider_model_not_loaded",
            Self::RateLimit => "provider_rate_limit",
            Self::InvalidResponse => "provider_invalid_response",
            Self::InvalidRequest => "provider_invalid_request",
            Self::UnsupportedContentBlock => "provider_unsupported_content_block",
            Self::StructuredOutputInvalid => "structured_output_invalid",
        }
    }

    /// Whether §7 classifies the category as transient (a retry may succeed).
    pub fn is_transient(self) -> bool {
        matches!(self, Self::Unavailable | Self::RateLimit | Self::ModelNotLoaded)
    }

    /// Every category, in the order §7 lists them.
    pub const ALL: [Category; 9] = [
        Self::Authentication,
        Self::Unavailable,
        Self::InvalidModel,
        Self::ModelNotLoaded,
        Self::RateLimit,
        Self::InvalidResponse,
        Self::InvalidRequest,
        Self::UnsupportedContentBlock,
        Self::StructuredOutputInvalid,
    ];
}

impl serde::Serialize for Category {
    /// As the spec's identifier, e.g. `"provider_rate_limit"`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a `structured_output_invalid` error carries (§7 as amended by proposal 0126).
///
/// Built once, where the content is checked: the typed [`OutputProblem`] (the parse error, or every violation)
/// and its [`FailureClass`] travel with it, and `error_message` is rendered from them, so nothing downstream
/// parses the output or compiles the schema again.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutputFailure {
    /// The schema the call asked for, as supplied.
    pub response_schema: Value,
    /// The response's message content verbatim as the mapping produced it (the refusal text for a refusal).
    pub output_content: String,
    /// Every violation, each at its JSON Pointer in URI fragment form, or the parse failure.
    pub error_message: String,
    /// The response's normalized finish reason.
    pub finish_reason: FinishReason,
    /// The response's token usage.
    pub usage: Usage,
    /// The model the response named, when it named one.
    pub model: Option<String>,
    /// The response's `id` string, when it gave one (as [`Response::response_id`](crate::Response::response_id)).
    pub response_id: Option<String>,
    /// The provider response, verbatim (as [`Response::raw`](crate::Response::raw)).
    pub raw: RawJson,
    /// The provider's statement that it blocked the prompt or the answer, with its reason code (as
    /// [`Response::blocked`](crate::Response::blocked)).
    pub blocked: Option<Blocked>,
    problem: OutputProblem,
    failure_class: FailureClass,
    case_only: bool,
    early_stop: Option<crate::model::EarlyStop>,
}

impl StructuredOutputFailure {
    pub(crate) fn new(
        response_schema: Value,
        output_content: String,
        problem: OutputProblem,
        failure_class: FailureClass,
        surface: Surface<'_>,
    ) -> Self {
        Self {
            response_schema,
            output_content,
            error_message: render_error_message(&problem, failure_class, surface.blocked),
            finish_reason: surface.finish_reason,
            usage: surface.usage,
            model: surface.model.map(str::to_owned),
            response_id: surface.response_id.map(str::to_owned),
            raw: surface.raw.clone(),
            blocked: surface.blocked.cloned(),
            problem,
            failure_class,
            case_only: false,
            early_stop: None,
        }
    }

    pub(crate) fn with_early_stop(mut self, early_stop: crate::model::EarlyStop) -> Self {
        self.early_stop = Some(early_stop);
        self
    }

    /// Where the attempt's stream was stopped early, when it was ([`CompletionRequest::with_early_stop`]): the
    /// answer was not read to its end, [`output_content`](Self::output_content) is what had arrived, and the
    /// violations are those certain by then (each in the report the whole answer would have had).
    ///
    /// [`CompletionRequest::with_early_stop`]: crate::CompletionRequest::with_early_stop
    pub fn early_stop(&self) -> Option<&crate::model::EarlyStop> {
        self.early_stop.as_ref()
    }

    pub(crate) fn with_case_only(mut self, case_only: bool) -> Self {
        self.case_only = case_only;
        self
    }

    /// Whether the answer differs from the schema only in the capitalization of string enum or const values: the
    /// exception Anthropic documents for its constrained decoding (0126 on §8.2.5). It is still a failure, with
    /// every violation reported and the content verbatim; never re-cased into a conforming value.
    pub fn differs_only_in_case(&self) -> bool {
        self.case_only
    }

    /// What was wrong: the parse failure, or every violation.
    pub fn problem(&self) -> &OutputProblem {
        &self.problem
    }

    /// Every violation, when the content was JSON (`None` when it did not parse).
    pub fn violations(&self) -> Option<&oa_schema::Violations> {
        self.problem.violations()
    }

    /// The failure class, the dimension of the structured-output failure counter.
    pub fn failure_class(&self) -> FailureClass {
        self.failure_class
    }
}

/// What failed below HTTP when a call could not reach its endpoint or the exchange broke (`provider_unavailable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportCause {
    /// Nothing listens at the host and port.
    ConnectionRefused,
    /// The host name did not resolve.
    NameNotResolved,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// The connection was closed or reset before the answer completed.
    ConnectionReset,
    /// Connecting took longer than the connect timeout.
    ConnectTimeout,
    /// The endpoint sent nothing for longer than the idle timeout (for a non-streamed call, the whole generation).
    IdleTimeout,
    /// One attempt took longer than the total timeout.
    TotalTimeout,
    /// Anything else below HTTP; the error's source holds the text.
    Other,
}

impl TransportCause {
    /// A short name, e.g. `"connection_refused"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ConnectionRefused => "connection_refused",
            Self::NameNotResolved => "name_not_resolved",
            Self::Tls => "tls",
            Self::ConnectionReset => "connection_reset",
            Self::ConnectTimeout => "connect_timeout",
            Self::IdleTimeout => "idle_timeout",
            Self::TotalTimeout => "total_timeout",
            Self::Other => "other",
        }
    }
}

/// The every-violation description, with what the class adds: a refusal (with the reason the provider gave for a
/// block) and a fenced answer are named as such before the parse error, which alone would read the same for both.
fn render_error_message(problem: &OutputProblem, class: FailureClass, blocked: Option<&Blocked>) -> String {
    let base = problem.error_message();
    if class == FailureClass::Refusal {
        return match blocked {
            Some(Blocked::Prompt(reason)) => {
                format!(
                    "the provider blocked the prompt (block reason {reason}), so there is no answer; {base}"
                )
            }
            Some(Blocked::Answer(reason)) => {
                format!("the provider's filter stopped the answer (finish reason {reason}); {base}")
            }
            None => format!("the model refused (finish_reason content_filter); {base}"),
        };
    }
    if class == FailureClass::FencedJson {
        return format!("content is JSON inside a Markdown code fence, not bare JSON; {base}");
    }
    base
}

/// What had arrived when a stream failed part-way (§8.1.6): content so far, for diagnosis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartialStream {
    /// The content deltas received, concatenated.
    pub content: String,
    /// How many SSE events had been decoded.
    pub n_events: usize,
}

/// The error of a provider operation (`ready`, `complete`).
///
/// Callers branch with [`category`](Self::category) and the `is_*` helpers; the carries of a category are
/// behind accessors. Display is one short lowercase phrase; it and Debug never hold an API key, a header value
/// or a URL (provider messages are scrubbed of the configured key before they are stored).
pub struct ProviderError {
    // Boxed so `Result<Response, ProviderError>` stays one pointer wide on the happy path.
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    category: Category,
    message: String,
    status: Option<u16>,
    retry_after: Option<Duration>,
    timeout: bool,
    structured: Option<StructuredOutputFailure>,
    partial: Option<PartialStream>,
    path: Option<StructuredOutputPath>,
    schema_mode: Option<SchemaMode>,
    schema_version: Option<String>,
    attempts: Vec<AttemptSummary>,
    vendor_code: Option<String>,
    transport: Option<TransportCause>,
    failure_class: Option<FailureClass>,
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl ProviderError {
    /// A new error of `category` with a short description (no secrets: callers pass scrubbed text).
    #[cold]
    pub fn new(category: Category, message: impl Into<String>) -> Self {
        Self {
            inner: Box::new(ErrorImpl {
                category,
                message: message.into(),
                status: None,
                retry_after: None,
                timeout: false,
                structured: None,
                partial: None,
                path: None,
                schema_mode: None,
                schema_version: None,
                attempts: Vec::new(),
                vendor_code: None,
                transport: None,
                failure_class: None,
                source: None,
            }),
        }
    }

    /// A `provider_invalid_request` error: the request was rejected before sending.
    #[cold]
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(Category::InvalidRequest, message)
    }

    /// A `provider_invalid_response` error: the response could not be read into the §6 shape.
    #[cold]
    pub fn invalid_response(message: impl Into<String>) -> Self {
        Self::new(Category::InvalidResponse, message)
    }

    /// A `structured_output_invalid` error with its §7 carries.
    #[cold]
    pub fn structured_output_invalid(failure: StructuredOutputFailure) -> Self {
        // The message is the failure description itself (0126 on graph-engine §6: observers read it there).
        let mut error = Self::new(Category::StructuredOutputInvalid, failure.error_message.clone());
        error.inner.structured = Some(failure);
        error
    }

    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.inner.status = Some(status);
        self
    }

    pub(crate) fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.inner.retry_after = retry_after;
        self
    }

    pub(crate) fn with_timeout(mut self) -> Self {
        self.inner.timeout = true;
        self
    }

    pub(crate) fn with_partial(mut self, partial: PartialStream) -> Self {
        self.inner.partial = Some(partial);
        self
    }

    pub(crate) fn with_path(mut self, path: Option<StructuredOutputPath>) -> Self {
        self.inner.path = path;
        self
    }

    /// The enforcement marker of the attempt that failed (the call's schema_version even when nothing was sent).
    pub(crate) fn with_marker(
        mut self,
        schema_mode: Option<SchemaMode>,
        schema_version: Option<String>,
    ) -> Self {
        self.inner.schema_mode = schema_mode;
        self.inner.schema_version = schema_version;
        self
    }

    pub(crate) fn with_attempts(mut self, attempts: Vec<AttemptSummary>) -> Self {
        self.inner.attempts = attempts;
        self
    }

    /// The vendor's own error code (`error.code`, `error.type`, ...), which observers report as `error_type`: for a
    /// wrapper that builds the errors of the calls it makes (a gateway adapter, a test double).
    pub fn with_vendor_code(mut self, code: Option<String>) -> Self {
        self.inner.vendor_code = code;
        self
    }

    pub(crate) fn with_transport_cause(mut self, cause: TransportCause) -> Self {
        self.inner.transport = Some(cause);
        self
    }

    pub(crate) fn with_failure_class(mut self, class: FailureClass) -> Self {
        self.inner.failure_class = Some(class);
        self
    }

    /// The same error with `scrub` applied to its message: for messages that quote the response (a tool name, a
    /// call id, a violation's value), which a hostile or echoing server can fill with the key.
    pub(crate) fn scrubbed(mut self, scrub: &dyn Fn(&str) -> String) -> Self {
        self.inner.message = scrub(&self.inner.message);
        self
    }

    pub(crate) fn with_source(mut self, source: impl StdError + Send + Sync + 'static) -> Self {
        self.inner.source = Some(Box::new(source));
        self
    }

    /// The §7 category.
    pub fn category(&self) -> Category {
        self.inner.category
    }

    /// The short description, without the category prefix.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Whether §7 classifies this error as transient.
    pub fn is_transient(&self) -> bool {
        self.inner.category.is_transient()
    }

    /// The HTTP status the provider answered with, when the error came from one.
    pub fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// The provider's Retry-After, clamped to `[0, 1 hour]`, when it sent a readable one.
    pub fn retry_after(&self) -> Option<Duration> {
        self.inner.retry_after
    }

    /// Whether a connect, idle or total deadline expired.
    pub fn is_timeout(&self) -> bool {
        self.inner.timeout
    }

    /// The failure class, the dimension of the failure counter: a structured-output failure's (see
    /// [`StructuredOutputFailure::failure_class`]), or a recognised provider envelope's
    /// (`provider_output_parse_failed`, `structured_output_unsupported`); `None` for any other error.
    pub fn failure_class(&self) -> Option<FailureClass> {
        self.inner
            .structured
            .as_ref()
            .map(StructuredOutputFailure::failure_class)
            .or(self.inner.failure_class)
    }

    /// What failed below HTTP, for an error that never got (or lost) an HTTP answer.
    pub fn transport_cause(&self) -> Option<TransportCause> {
        self.inner.transport
    }

    /// Whether the category is `provider_authentication`.
    pub fn is_authentication(&self) -> bool {
        self.inner.category == Category::Authentication
    }

    /// Whether the category is `provider_unavailable`.
    pub fn is_unavailable(&self) -> bool {
        self.inner.category == Category::Unavailable
    }

    /// Whether the category is `provider_rate_limit`.
    pub fn is_rate_limit(&self) -> bool {
        self.inner.category == Category::RateLimit
    }

    /// Whether the category is `provider_invalid_request`.
    pub fn is_invalid_request(&self) -> bool {
        self.inner.category == Category::InvalidRequest
    }

    /// Whether the category is `provider_invalid_response`.
    pub fn is_invalid_response(&self) -> bool {
        self.inner.category == Category::InvalidResponse
    }

    /// Whether the category is `structured_output_invalid`.
    pub fn is_structured_output_invalid(&self) -> bool {
        self.inner.category == Category::StructuredOutputInvalid
    }

    /// The carries of a `structured_output_invalid` error.
    pub fn structured_output(&self) -> Option<&StructuredOutputFailure> {
        self.inner.structured.as_ref()
    }

    /// What a failed stream had delivered before it broke.
    pub fn partial_stream(&self) -> Option<&PartialStream> {
        self.inner.partial.as_ref()
    }

    /// The vendor's own error code or type from the error body (OpenAI's `error.code`, else `error.type`, e.g.
    /// `"rate_limit_exceeded"`), scrubbed and at most 64 characters; `None` when the body named none. It is
    /// what graph-engine §6 `LlmFailedEvent.error_type` reports; branch on [`category`](Self::category), not on
    /// this.
    pub fn vendor_code(&self) -> Option<&str> {
        self.inner.vendor_code.as_deref()
    }

    /// The structured-output path of the request this error came from; `None` without a schema or when no
    /// request was sent.
    pub fn structured_output_path(&self) -> Option<StructuredOutputPath> {
        self.inner.path
    }

    /// How the schema constrained the attempt that failed (the marker a failure-rate-by-mode dashboard groups by);
    /// `None` without a schema or when nothing was sent.
    pub fn schema_mode(&self) -> Option<SchemaMode> {
        self.inner.schema_mode
    }

    /// SHA-256 (hex) of the canonical schema of the call; `None` without a schema.
    pub fn schema_version(&self) -> Option<&str> {
        self.inner.schema_version.as_deref()
    }

    /// Every wire attempt of the failed call, in order, with its usage, path, marker and outcome (the last is this
    /// error's); empty for an error no call produced (or a call rejected by a wrapper before it began).
    pub fn attempts(&self) -> &[AttemptSummary] {
        &self.inner.attempts
    }

    /// What the failed call cost over all its attempts ([`Usage::total_of`]); a failure's own `usage` is the last
    /// attempt's alone.
    pub fn usage_total(&self) -> Usage {
        Usage::total_of(&self.inner.attempts)
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.inner.category, self.inner.message)
    }
}

impl fmt::Debug for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Hand-written so a future field cannot leak by derive; every field here is already scrubbed.
        let mut debug = f.debug_struct("ProviderError");
        debug
            .field("category", &self.inner.category.as_str())
            .field("message", &self.inner.message);
        if let Some(status) = self.inner.status {
            debug.field("status", &status);
        }
        if let Some(retry_after) = self.inner.retry_after {
            debug.field("retry_after", &retry_after);
        }
        if self.inner.timeout {
            debug.field("timeout", &true);
        }
        if let Some(cause) = self.inner.transport {
            debug.field("transport_cause", &cause.as_str());
        }
        if let Some(class) = self.inner.failure_class {
            debug.field("failure_class", &class.as_str());
        }
        if let Some(code) = &self.inner.vendor_code {
            debug.field("vendor_code", code);
        }
        if let Some(path) = self.inner.path {
            debug.field("structured_output_path", &path.as_str());
        }
        if let Some(mode) = self.inner.schema_mode {
            debug.field("schema_mode", &mode.as_str());
        }
        if !self.inner.attempts.is_empty() {
            debug.field("n_attempts", &self.inner.attempts.len());
        }
        if let Some(structured) = &self.inner.structured {
            debug.field("finish_reason", &structured.finish_reason.as_str());
        }
        if let Some(source) = &self.inner.source {
            debug.field("source", &source.to_string());
        }
        debug.finish()
    }
}

impl StdError for ProviderError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|source| source as &(dyn StdError + 'static))
    }
}

/// A cause kept as text only: used for transport errors, whose own Display may name the URL.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ScrubbedCause(pub(crate) String);

/// The response surface a content check reports with its failure.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Surface<'a> {
    pub(crate) finish_reason: FinishReason,
    pub(crate) usage: Usage,
    pub(crate) model: Option<&'a str>,
    pub(crate) response_id: Option<&'a str>,
    pub(crate) raw: &'a RawJson,
    pub(crate) blocked: Option<&'a Blocked>,
}

impl<'a> Surface<'a> {
    /// A surface with no usage, model, response id or block: an answer the provider did not finish (an early stop)
    /// or a test's.
    pub(crate) fn bare(finish_reason: FinishReason, raw: &'a RawJson) -> Self {
        Self {
            finish_reason,
            usage: Usage::default(),
            model: None,
            response_id: None,
            raw,
            blocked: None,
        }
    }
}
