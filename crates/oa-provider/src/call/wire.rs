//! What a wire format contributes to a call. Everything else — pre-checks, the structured-output path, retry and
//! reask, validation, schema_mode, attempt records and diagnostics — is the vendor-neutral driver's, so a new wire
//! format is one folder implementing [`WireFormat`] and [`StreamFold`].

use serde_json::Value;

use crate::call::hook::DeltaKind;
use crate::call::status::{ErrorBody, status_error};
use crate::error::{Category, PartialStream, ProviderError};
use crate::model::{
    CompletionRequest, FinishReason, Mapping, Message, RuntimeConfig, Tool, ToolChoice, Usage,
};
use crate::structured::{CheckedTools, ResponseSchema, StructuredOutputPath};

/// One attempt's request, as the driver hands it to the wire format to encode.
#[derive(Debug)]
pub(crate) struct WireRequest<'a> {
    /// The bound model.
    pub(crate) model: &'a str,
    /// The messages to send: the caller's, as reask extended them, with a prompt-augmentation directive if any.
    pub(crate) messages: &'a [Message],
    /// The caller's tools; on the `tool_coercion` path, the synthetic tool alone.
    pub(crate) tools: &'a [Tool],
    /// The caller's tool choice; on the `tool_coercion` path, the one forcing the synthetic tool.
    pub(crate) tool_choice: Option<&'a ToolChoice>,
    /// The attempt's config, after its `per_attempt_override`.
    pub(crate) config: &'a RuntimeConfig,
    /// The schema and the path it takes, when the call is structured. On the native paths the wire format puts
    /// the schema in its native constraint; on the fallback paths the driver has already done its part.
    pub(crate) structured: Option<(StructuredOutputPath, &'a ResponseSchema)>,
    /// Whether to ask for a streamed response.
    pub(crate) stream: bool,
}

/// The §6 parts a wire format reads from a response, before structured-output validation.
#[derive(Debug)]
pub(crate) struct Mapped {
    pub(crate) message: Message,
    pub(crate) finish_reason: FinishReason,
    pub(crate) usage: Usage,
    pub(crate) model: Option<String>,
}

/// One provider wire format: OpenAI Chat Completions, Anthropic Messages, Gemini `generateContent`.
pub(crate) trait WireFormat: Send + Sync {
    /// Which §8 mapping this is (carried on every attempt record).
    fn mapping(&self) -> Mapping;

    /// The native path `schema` takes on this wire format: `native` when the native constraint can bind decoding
    /// for this schema, else `native_unenforced`.
    fn native_path(&self, schema: &ResponseSchema) -> StructuredOutputPath;

    /// The path a structured call takes when the native one is unavailable or was rejected. On `tool_coercion`
    /// the driver sends the synthetic tool (and its forced choice) in place of the caller's (none) and reads the
    /// answer back from its call.
    fn fallback_path(&self, request: &CompletionRequest) -> StructuredOutputPath {
        let _ = request;
        StructuredOutputPath::PromptAugmentation
    }

    /// The request path under the base URL a completion for `model` is POSTed to.
    fn completion_path(&self, model: &str, stream: bool) -> String;

    /// Encodes one attempt's body.
    ///
    /// # Errors
    ///
    /// `provider_invalid_request` for a request the wire format cannot express (a managed-field collision).
    fn body(&self, request: &WireRequest<'_>) -> Result<Value, ProviderError>;

    /// Maps an atomic response body.
    ///
    /// # Errors
    ///
    /// `provider_invalid_response` for a body that is not the wire format's shape.
    fn map_body(&self, raw: &Value, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError>;

    /// A fresh fold for one streamed response; `None` when the mapping does not stream (§5), so a `stream` call
    /// is rejected before anything is sent.
    fn stream_fold(&self) -> Option<Box<dyn StreamFold>>;

    /// The fields of the `{"error": {…}}` envelope that name the error, in the order its vendor code is chosen
    /// from.
    fn error_code_fields(&self) -> &'static [&'static str];

    /// The §7 category of a non-success `status` with this error body: the mapping's §8.x.3 table.
    fn category(&self, status: u16, body: &ErrorBody) -> Category;

    /// Maps a non-success status and its body to a §7 error. `scrub` removes secrets from echoed text.
    fn error_for_status(
        &self,
        status: u16,
        body: &[u8],
        retry_after: Option<&str>,
        scrub: &dyn Fn(&str) -> String,
    ) -> ProviderError {
        let body = ErrorBody::read(body, self.error_code_fields());
        status_error(status, self.category(status, &body), &body, retry_after, scrub)
    }

    /// The request fields of the native constraint: a 400 naming one is the server rejecting it.
    fn native_fields(&self) -> &'static [&'static str];

    /// Whether `error` is the server rejecting the native structured-output constraint itself, so the call (and
    /// later calls on this provider) fall back (dynamic detection).
    fn is_native_rejection(&self, error: &ProviderError) -> bool {
        // A server envelope recognised as refusing the constraint (LM Studio's lazy-grammar rejection).
        if error.failure_class() == Some(crate::structured::FailureClass::StructuredOutputUnsupported) {
            return true;
        }
        let message = error.message().to_ascii_lowercase();
        error.is_invalid_request()
            && error.status() == Some(400)
            && self.native_fields().iter().any(|field| message.contains(field))
    }
}

/// Folds the events of one streamed response into the pieces of an atomic one.
pub(crate) trait StreamFold: Send {
    /// Folds one SSE `data` payload in; `emit` receives each content or reasoning delta as it arrives.
    ///
    /// # Errors
    ///
    /// A chunk that is not the wire format's shape, or an error the provider sent inside the stream.
    fn on_data(
        &mut self,
        data: &str,
        emit: &mut dyn FnMut(DeltaKind, &str),
        scrub: &dyn Fn(&str) -> String,
    ) -> Result<(), ProviderError>;

    /// Whether the stream's terminal marker arrived.
    fn is_done(&self) -> bool;

    /// Whether the stream is complete enough to map when the connection ends without the terminal marker.
    fn is_complete(&self) -> bool;

    /// What has arrived, for an error raised mid-stream.
    fn partial(&self) -> PartialStream;

    /// The assembled response and its `raw` form.
    ///
    /// # Errors
    ///
    /// As [`WireFormat::map_body`].
    fn finish(&self, tools: &CheckedTools<'_>) -> Result<(Mapped, Value), ProviderError>;
}
