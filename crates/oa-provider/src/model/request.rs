//! The §5 provider interface every wire format implements, and the request record `complete()` takes.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::call::{AttemptHook, RetryConfig};
use crate::enforcement::CapabilityKey;
use crate::error::ProviderError;
use crate::model::{CallExtras, Message, Response, RuntimeConfig, Tool, ToolChoice};

/// An LLM provider bound to one model (§5).
///
/// Contract: `complete()` is reentrant (concurrent calls go to the wire concurrently, never serialized), never
/// mutates its request, does not loop on tool calls, and retries only when the request carries a
/// [`RetryConfig`]. `ready()` is never called by `complete()`. Cancelling is dropping the future; a dropped
/// call sends nothing further and is not retried.
#[async_trait]
pub trait Provider: Send + Sync + fmt::Debug {
    /// Checks that the bound model is reachable and serving, so the next `complete()` should not fail with
    /// authentication, invalid-model, not-loaded or unavailable.
    ///
    /// # Errors
    ///
    /// One of those four categories (or `provider_rate_limit` / `provider_invalid_response` from the probe).
    async fn ready(&self) -> Result<(), ProviderError>;

    /// Performs one completion call (with in-call retries when `request.retry` is set).
    ///
    /// # Errors
    ///
    /// A [`ProviderError`] of one of the §7 categories; `provider_invalid_request` for anything rejected before
    /// sending, `structured_output_invalid` with its carries when the content fails the response_schema.
    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError>;

    /// Performs `complete(request)` with `hook` receiving the call's token deltas and attempt records in place of
    /// `request.hook`: how a wrapper (an observer's recorder, a diagnostics tap) attaches its hook to a caller's
    /// request it only borrows. The wrapper chains to `request.hook` itself if that should still see everything.
    ///
    /// The default copies the request to set its hook, then calls [`complete`](Self::complete); the built-in
    /// providers take the hook as it is, with no copy of the request, and a wrapper passes it on the same way.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use oa_provider::{AttemptHook, AttemptRecord, CompletionRequest, Message, OpenAiProvider, Provider};
    ///
    /// struct Printer;
    /// impl AttemptHook for Printer {
    ///     fn on_attempt(&self, record: &AttemptRecord<'_>) {
    ///         println!("attempt {} of {}", record.attempt_index, record.call_id);
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let provider = OpenAiProvider::builder("gpt-4o-mini").base_url("http://127.0.0.1:9").no_api_key().build()?;
    /// let request = CompletionRequest::new(vec![Message::user("hi")]);
    /// let hook: Arc<dyn AttemptHook> = Arc::new(Printer);
    /// // Nothing listens on port 9: the call fails, and the hook still sees its attempt.
    /// assert!(provider.complete_hooked(&request, &hook).await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`complete`](Self::complete).
    async fn complete_hooked(
        &self,
        request: &CompletionRequest,
        hook: &Arc<dyn AttemptHook>,
    ) -> Result<Response, ProviderError> {
        self.complete_with(request, &CallExtras::default().with_hook(Arc::clone(hook)))
            .await
    }

    /// Performs `complete(request)` with `extras` in place of the request's own hook and typed decoder (each
    /// extra that is set): the general form of [`complete_hooked`](Self::complete_hooked), and how
    /// [`complete_as`](crate::complete_as) attaches its decoder to a request it only borrows.
    ///
    /// The default copies the request to apply the extras (none when there are none), then calls
    /// [`complete`](Self::complete); the built-in providers and wrappers take them as they are, with no copy.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use oa_provider::{AttemptHook, AttemptRecord, CallExtras, CompletionRequest, Message, OpenAiProvider, Provider};
    ///
    /// struct Printer;
    /// impl AttemptHook for Printer {
    ///     fn on_attempt(&self, record: &AttemptRecord<'_>) {
    ///         println!("attempt {} of {}", record.attempt_index, record.call_id);
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let provider = OpenAiProvider::builder("gpt-4o-mini").base_url("http://127.0.0.1:9").no_api_key().build()?;
    /// let request = CompletionRequest::new(vec![Message::user("hi")]);
    /// let extras = CallExtras::default().with_hook(Arc::new(Printer));
    /// // Nothing listens on port 9: the call fails, and the hook still sees its attempt.
    /// assert!(provider.complete_with(&request, &extras).await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`complete`](Self::complete).
    async fn complete_with(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        if extras.is_empty() {
            return self.complete(request).await;
        }
        self.complete(&extras.applied_to(request)).await
    }

    /// The route this provider serves, as the capability registry keys it (provider name, model, base URL);
    /// `None` for a provider that is not one route (a router, a test double). Probes record their verdicts under
    /// it, and a provider built with a registry reads its verdict under it.
    fn capability_key(&self) -> Option<CapabilityKey> {
        None
    }
}

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
    /// Receives token deltas and attempt records as the call runs.
    pub hook: Option<Arc<dyn AttemptHook>>,
    /// The call's identifier (graph-engine §6 `call_id`); `None` lets the provider mint one per `complete()`.
    /// Every attempt record and token delta of the call carries it, so a listener reads it there.
    pub call_id: Option<String>,
    /// A typed content decoder: the content check first tries to read the content straight into the caller's type
    /// while validating it, and takes the parse-and-validate route when that cannot decide.
    /// [`complete_as`](crate::complete_as) passes its own beside the request ([`CallExtras`]) rather than setting
    /// it here.
    pub typed_decoder: Option<crate::structured::TypedDecoder>,
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
    /// result back with [`Response::parsed_as`]. A schema that cannot go strict (a map with free keys) is sent as
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
            .field("hook", &self.hook.is_some())
            .field("call_id", &self.call_id)
            .field("typed_decoder", &self.typed_decoder)
            .finish()
    }
}
