//! The request record `complete()` takes (§5).

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::call::{AttemptHook, RetryConfig};
use crate::model::{Message, ProviderError, RuntimeConfig, Tool, ToolChoice};
use crate::structured::TypedDecoder;

/// Everything one `complete()` call takes (§5), built with [`CompletionRequest::new`] and `with_*` setters.
#[derive(Clone, Default)]
pub struct CompletionRequest {
    /// The conversation; first may be system, then user first, last user or tool.
    pub messages: Vec<Message>,
    /// Tools the model may call; names unique.
    pub tools: Vec<Tool>,
    /// The tool-choice constraint; `None` omits it from the wire.
    pub tool_choice: Option<ToolChoice>,
    /// Sampling parameters and extras.
    pub config: RuntimeConfig,
    /// A JSON Schema (object at the top) the output must validate against, of any draft oa-schema reads (the
    /// draft its `$schema` names; none: `schema_options`' default draft, else 2020-12). Shared, not copied:
    /// cloning the request (as an observing wrapper does to attach its hook) copies a pointer, and a call that sends
    /// the same `Arc` again finds its compiled schema by that pointer, without hashing or comparing the schema.
    pub response_schema: Option<Arc<Value>>,
    /// How the response schema is compiled: the documents it refers to (resources, a retriever), its base URI, the
    /// draft of a schema that declares none, whether `format` asserts, unresolved references deferred (see
    /// `oa_schema::ValidatorOptions`). `None`: the defaults. Validation, the every-violation report and the reask
    /// follow it. A schema that refers to documents a provider cannot fetch is sent as its bundle (one
    /// self-contained draft 2020-12 document), and the attempt record says so. Shared: the compiled schema is found
    /// again by these same options (the same `Arc`); options built afresh compile afresh.
    pub schema_options: Option<Arc<oa_schema::ValidatorOptions>>,
    /// Fit the response schema to the mapping's native path (opt-in; default `false`: the schema is sent verbatim,
    /// as the spec says): the strongest schema the provider accepts is sent (see [`fit`](crate::fit)), the answer
    /// is mapped back to the caller's spelling and validated against the caller's whole schema, and the attempt
    /// record's account lists every clause the provider was not asked to enforce. A vendor 400 that names a clause
    /// the table let through is refitted once without it.
    pub fit: bool,
    /// In-call retry; `None` means one attempt.
    pub retry: Option<RetryConfig>,
    /// Consume the streaming wire response and emit token events; the result is the same `Response`.
    pub stream: bool,
    /// End a streamed structured attempt at its first certain violation (default: off; see
    /// [`with_early_stop`](Self::with_early_stop)).
    pub early_stop: bool,
    /// Receives token deltas and attempt records as the call runs.
    pub hook: Option<Arc<dyn AttemptHook>>,
    /// The call's identifier (graph-engine §6 `call_id`); `None` lets the provider mint one per `complete()`.
    /// Every attempt record and token delta of the call carries it, so a listener reads it there.
    pub call_id: Option<String>,
    /// A typed content decoder: the content check first tries to read the content straight into the caller's type
    /// while validating it, and takes the parse-and-validate route when that cannot decide. Set only through
    /// [`CallExtras`] (by [`complete_as`](crate::complete_as)), which a copying wrapper applies here.
    pub(crate) typed_decoder: Option<TypedDecoder>,
}

impl CompletionRequest {
    /// A request with these messages and every option at its default.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// Sets the tools (default: none).
    pub fn with_tools(mut self, tools: Vec<Tool>) -> Self {
        self.tools = tools;
        self
    }

    /// Sets the tool choice (default: absent).
    pub fn with_tool_choice(mut self, tool_choice: ToolChoice) -> Self {
        self.tool_choice = Some(tool_choice);
        self
    }

    /// Sets the runtime config (default: empty).
    pub fn with_config(mut self, config: RuntimeConfig) -> Self {
        self.config = config;
        self
    }

    /// Sets the response schema (default: none, free-form text): a `Value`, or an `Arc<Value>` shared by many
    /// requests (each call with that same `Arc` finds its compiled schema by the pointer alone).
    pub fn with_response_schema(mut self, schema: impl Into<Arc<Value>>) -> Self {
        self.response_schema = Some(schema.into());
        self
    }

    /// Asks for output of type `T`: sets the response schema to T's schema (schemars, draft 2020-12) made
    /// strict-compatible where that keeps its meaning (see [`output_schema`](crate::output_schema)); read the
    /// result back with [`Response::parsed_as`](crate::Response::parsed_as). A schema that cannot go strict (a map with free keys) is sent as
    /// derived, on the `native_unenforced` path.
    #[cfg(feature = "schemars")]
    pub fn with_output<T: schemars::JsonSchema>(self) -> Self {
        self.with_response_schema(crate::structured::output_schema::<T>().schema)
    }

    /// Sets how the response schema is compiled (default: oa-schema's defaults): its resources, retriever, base
    /// URI, default draft. Pass the same `Arc` to many requests to share the compiled schema.
    ///
    /// ```
    /// use oa_provider::{CompletionRequest, Message};
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let options = Validator::options()
    ///     .base_uri("file:///schemas/person.json")
    ///     .resource("file:///schemas/address.json", json!({"type": "object", "required": ["city"]}));
    /// let request = CompletionRequest::new(vec![Message::user("Who lives where?")])
    ///     .with_response_schema(json!({
    ///         "$schema": "http://json-schema.org/draft-07/schema#",
    ///         "type": "object",
    ///         "properties": {"home": {"$ref": "address.json"}}
    ///     }))
    ///     .with_schema_options(options);
    /// assert!(request.check_schema().is_ok());
    /// ```
    pub fn with_schema_options(mut self, options: impl Into<Arc<oa_schema::ValidatorOptions>>) -> Self {
        self.schema_options = Some(options.into());
        self
    }

    /// Fits the response schema to the mapping's native path (default: `false`, the schema verbatim). See
    /// [`fit`](Self::fit).
    pub fn with_fit(mut self, fit: bool) -> Self {
        self.fit = fit;
        self
    }

    /// Runs the checks `complete()` makes on the response schema with the request's schema options, before anything
    /// is sent (nothing to check without a schema), so a caller can refuse a bad schema up front with the same words.
    ///
    /// # Errors
    ///
    /// The `provider_invalid_request` error `complete()` would return.
    pub fn check_schema(&self) -> Result<(), ProviderError> {
        self.response_schema
            .as_ref()
            .map(|schema| crate::structured::CallSchema::check_shared(schema, self.schema_options.as_ref()))
            .transpose()
            .map(|_| ())
    }

    /// Sets the retry configuration (default: none).
    pub fn with_retry(mut self, retry: RetryConfig) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Streams the response (default: false).
    pub fn with_stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Ends a streamed structured attempt at its first *certain* violation (default: off): one no continuation of
    /// the answer could repair (an enum value completed and not allowed, a type mismatch at a value's first byte,
    /// a name `additionalProperties: false` refuses, …; see oa-schema's `Incremental`). The stream is dropped there
    /// (the connection is closed, so the provider stops generating), the attempt ends as `structured_output_invalid`
    /// with the violations certain so far and the text received, and a configured reask starts at once (no
    /// backoff: the server is not the problem). The failure, the attempt record, its event and its span carry an
    /// [`EarlyStop`](crate::model::EarlyStop): the violation's pointer and kind, the bytes and deltas received.
    ///
    /// Needs `stream` and a `response_schema`; it applies to answers read from content (not on the tool-coercion
    /// path, whose answer streams as tool-call arguments, nor with a fitted schema whose answer is mapped back
    /// before it is checked) and only while the content reads as JSON (a fenced or prose answer is judged at the
    /// end, as without the option). An enforcing route gets no violation to stop at: the option costs it only the
    /// incremental check. Anthropic and Gemini do not stream (§8.2, §8.3): there the call is refused as today.
    pub fn with_early_stop(mut self, early_stop: bool) -> Self {
        self.early_stop = early_stop;
        self
    }

    /// Sets the call identifier (default: a fresh one minted per `complete()`).
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Attaches the attempt hook (default: none).
    pub fn with_hook(mut self, hook: Arc<dyn AttemptHook>) -> Self {
        self.hook = Some(hook);
        self
    }
}

impl fmt::Debug for CompletionRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionRequest")
            .field("n_messages", &self.messages.len())
            .field("n_tools", &self.tools.len())
            .field("tool_choice", &self.tool_choice)
            .field("config", &self.config)
            .field("response_schema", &self.response_schema.is_some())
            .field("schema_options", &self.schema_options.is_some())
            .field("fit", &self.fit)
            .field("retry", &self.retry)
            .field("stream", &self.stream)
            .field("early_stop", &self.early_stop)
            .field("hook", &self.hook.is_some())
            .field("call_id", &self.call_id)
            .field("typed_decoder", &self.typed_decoder)
            .finish()
    }
}
