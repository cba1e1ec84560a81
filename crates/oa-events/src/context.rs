//! The ambient call context: who is running (invocation, node, correlation) and where events go, carried in a
//! task-local value so that a node body's provider calls reach the event layer without threading it through.
//!
//! The invocation runtime sets it around each node; a fuller graph engine can set it the same way. Outside a
//! graph, [`ObservedProvider`] reports a provider's calls to a bus of its own. Neither the provider nor observers
//! know about any of this.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use oa_provider::enforcement::CapabilityKey;
use oa_provider::hook::{PartialValue, TokenDelta};
use oa_provider::{
    AttemptHook, AttemptRecord, CallExtras, CompletionRequest, Provider, ProviderError, Response,
};
use serde_json::{Map, Value};

use crate::delivery::EventBus;
use crate::event::{
    Event, LlmAttempt, LlmCompletionEvent, LlmFailedEvent, LlmPartialValueEvent, LlmRequest,
    LlmResponseFields, LlmTokenEvent, Scope,
};
use crate::ids::random_uuid;
use crate::render::{
    failure_fields, failure_matches, render_messages, request_extras, request_params, response_fields,
    response_matches,
};

tokio::task_local! {
    static CALL_CONTEXT: CallContext;
}

/// Who is running and where their events go.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// Identity and scope stamped on every event the node's calls produce (its `caller_invocation_metadata` as
    /// of the node's start; [`CallContext::current_scope`] has the metadata as it is now).
    pub scope: Scope,
    /// The queue the events go to.
    pub bus: EventBus,
    /// The invocation metadata in scope, shared by the invocation's nodes (observability §3.4).
    pub metadata: Arc<Mutex<Map<String, Value>>>,
}

impl CallContext {
    /// A context for `scope` on `bus`, its metadata the scope's caller metadata.
    pub fn new(scope: Scope, bus: EventBus) -> Self {
        let metadata = scope.caller_invocation_metadata.clone().unwrap_or_default();
        Self {
            scope,
            bus,
            metadata: Arc::new(Mutex::new(metadata)),
        }
    }

    /// The scope with the metadata in scope now (augmentations included), for an event about to be dispatched.
    pub fn current_scope(&self) -> Scope {
        let metadata = self.metadata_now();
        Scope {
            caller_invocation_metadata: (!metadata.is_empty()).then_some(metadata),
            ..self.scope.clone()
        }
    }

    /// A copy of the metadata in scope now.
    pub(crate) fn metadata_now(&self) -> Map<String, Value> {
        self.metadata
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Merges entries into the metadata in scope (same keys overwritten).
    pub(crate) fn merge_metadata(&self, entries: &Map<String, Value>) {
        let mut metadata = self.metadata.lock().unwrap_or_else(PoisonError::into_inner);
        for (key, value) in entries {
            metadata.insert(key.clone(), value.clone());
        }
    }

    /// The context of the running task, when one is set.
    pub fn current() -> Option<CallContext> {
        CALL_CONTEXT.try_with(Clone::clone).ok()
    }

    /// Runs `future` with this context ambient.
    pub async fn scope<F: std::future::Future>(self, future: F) -> F::Output {
        CALL_CONTEXT.scope(self, future).await
    }
}

/// Calls `provider.complete(request)` and reports it to the ambient context's queue: a token event per streamed
/// delta, an attempt record per wire attempt, then exactly one terminal `LlmCompletionEvent` or `LlmFailedEvent`,
/// all dispatched before this returns. Without an ambient context it is just `provider.complete(request)`; wrap
/// the provider in an [`ObservedProvider`] to report calls made outside a graph.
///
/// The request's own hook, if any, still receives everything.
///
/// # Errors
///
/// The provider's error, unchanged.
pub async fn complete(
    provider: &dyn Provider,
    request: CompletionRequest,
) -> Result<Response, ProviderError> {
    match CallContext::current() {
        Some(context) => {
            let recorder = Recorder::in_context(context, request.hook.clone());
            report(provider, &request, Arc::new(recorder), &CallExtras::NONE).await
        }
        None => provider.complete(&request).await,
    }
}

/// A provider whose calls are reported to an [`EventBus`] whether or not a graph is running: inside a node, to
/// the ambient context (as [`complete`] does); outside one, under a scope of their own — a fresh invocation id
/// per call and the node name given here — so nothing is silently dropped.
///
/// ```
/// use std::sync::Arc;
/// use oa_events::{EventBus, ObservedProvider};
/// use oa_provider::{OpenAiProvider, Provider};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let provider = OpenAiProvider::builder("gpt-4o-mini").no_api_key().build()?;
/// let bus = EventBus::new(Vec::new());
/// let observed = ObservedProvider::new(Arc::new(provider), bus, "llm_call");
/// assert_eq!(observed.node_name(), "llm_call");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ObservedProvider {
    inner: Arc<dyn Provider>,
    bus: EventBus,
    node_name: String,
}

impl ObservedProvider {
    /// Reports `provider`'s calls outside a graph to `bus`, under `node_name`.
    pub fn new(provider: Arc<dyn Provider>, bus: EventBus, node_name: impl Into<String>) -> Self {
        Self {
            inner: provider,
            bus,
            node_name: node_name.into(),
        }
    }

    /// The node name a call outside a graph is reported under.
    pub fn node_name(&self) -> &str {
        &self.node_name
    }

    /// The bus calls outside a graph are reported to.
    pub fn bus(&self) -> &EventBus {
        &self.bus
    }

    /// The recorder of one call, chaining to `inner`: reporting to the ambient context inside a node, to this
    /// wrapper's bus outside one.
    fn recorder(&self, inner: Option<Arc<dyn AttemptHook>>) -> Arc<Recorder> {
        Arc::new(match CallContext::current() {
            Some(context) => Recorder::in_context(context, inner),
            None => Recorder::standalone(self.standalone_scope(), self.bus.clone(), inner),
        })
    }

    /// The scope of a call outside a graph: a fresh invocation id, this wrapper's node name, no caller metadata
    /// (nothing can add any: no context is ambient to augment).
    fn standalone_scope(&self) -> Scope {
        Scope {
            invocation_id: random_uuid(),
            correlation_id: None,
            session_id: None,
            node_name: self.node_name.clone(),
            namespace: vec![self.node_name.clone()],
            attempt_index: 0,
            fan_out_index: None,
            branch_name: None,
            fan_out_index_chain: Vec::new(),
            branch_name_chain: Vec::new(),
            caller_invocation_metadata: None,
        }
    }
}

#[async_trait]
impl Provider for ObservedProvider {
    async fn ready(&self) -> Result<(), ProviderError> {
        self.inner.ready().await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        report(
            self.inner.as_ref(),
            request,
            self.recorder(request.hook.clone()),
            &CallExtras::NONE,
        )
        .await
    }

    async fn complete_with(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        report(
            self.inner.as_ref(),
            request,
            self.recorder(extras.hook_for(request).cloned()),
            extras,
        )
        .await
    }

    fn capability_key(&self) -> Option<CapabilityKey> {
        self.inner.capability_key()
    }
}

/// Runs the call with `recorder` as its hook (and the rest of `extras`, a typed decoder when a caller passed one) and
/// dispatches the terminal event. Both go beside the borrowed request ([`Provider::complete_with`]): the caller's
/// request is not copied to set them. The recorder is held
/// behind its `Arc`: inline it made this future (boxed in turn by `async_trait`) larger than glibc's per-thread
/// cache serves (1,032 bytes), and its allocation cost about 2,000 instructions a call.
async fn report(
    provider: &dyn Provider,
    request: &CompletionRequest,
    recorder: Arc<Recorder>,
    extras: &CallExtras,
) -> Result<Response, ProviderError> {
    let extras = extras
        .clone()
        .with_hook(Arc::clone(&recorder) as Arc<dyn AttemptHook>);
    let outcome = provider.complete_with(request, &extras).await;
    drop(extras);
    let (last, held, scope) = recorder.finish();
    let (llm_request, last_response, latency_ms) = match last {
        Some(last) => (last.request, last.response, Some(last.latency_ms)),
        // A provider that reports no attempt: the caller's messages and config, no path, and the call id the
        // caller gave (or one minted here, the only identity such a call has).
        None => (
            Arc::new(LlmRequest {
                provider: Arc::from("unknown"),
                model: Arc::from("unknown"),
                call_id: request
                    .call_id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}", random_uuid())),
                input_messages: render_messages(&request.messages),
                request_params: request_params(&request.config),
                request_extras: request_extras(&request.config),
                structured_output_path: None,
                schema_mode: None,
                schema_version: None,
                schema_account: None,
                active_prompt: None,
                active_prompt_group: None,
                token_budget: None,
            }),
            None,
            None,
        ),
    };
    // The terminal event reports the last attempt: it shares that attempt's response fields when they are the
    // ones the outcome carries (checked field by field, not assumed), and builds its own otherwise.
    let event = match &outcome {
        Ok(response) => Event::LlmCompletion(LlmCompletionEvent {
            scope,
            request: llm_request,
            response: last_response
                .filter(|fields| response_matches(fields, response))
                .unwrap_or_else(|| Arc::new(response_fields(response))),
            latency_ms,
        }),
        Err(error) => Event::LlmFailed(LlmFailedEvent {
            scope,
            request: llm_request,
            response: match error.structured_output() {
                Some(failure) => last_response
                    .filter(|fields| failure_matches(fields, failure))
                    .unwrap_or_else(|| Arc::new(failure_fields(failure))),
                None => Arc::new(empty_response()),
            },
            error_category: error.category(),
            error_type: error.vendor_code().map(str::to_owned),
            error_message: error.message().to_owned(),
            latency_ms,
        }),
    };
    // The successful attempt's event and the terminal one go onto the queue in one send: the delivery task is
    // woken once for both.
    match held {
        Some(attempt) => recorder.bus.dispatch_pair(attempt, event),
        None => recorder.bus.dispatch(event),
    }
    outcome
}

fn empty_response() -> LlmResponseFields {
    LlmResponseFields {
        response_model: None,
        response_id: None,
        usage: None,
        finish_reason: None,
        output_content: None,
        output_tool_calls: None,
    }
}

/// What the terminal event takes from the call's last attempt record: its request and response fields (shared,
/// not copied) and its latency.
struct LastAttempt {
    request: Arc<LlmRequest>,
    response: Option<Arc<LlmResponseFields>>,
    latency_ms: f64,
}

struct RecorderState {
    n_chunks: u64,
    last: Option<LastAttempt>,
    /// The scope stamped on the call's events, shared by all of them while the invocation metadata stays as it
    /// was when the scope was taken.
    scope: Arc<Scope>,
    /// A successful attempt's event, held until the terminal event that follows it at once, so both go onto the
    /// queue in one send and wake its task once (dispatched on their own, each woke the task, on another thread,
    /// twice a call). Nothing can come between them: a successful attempt ends the call. A failed attempt's event
    /// is dispatched at once (a retry may follow it after a backoff). Dispatched when the recorder is dropped,
    /// should the call be abandoned between the two.
    held: Option<Event>,
}

/// The per-call hook that turns the provider's records into events.
struct Recorder {
    bus: EventBus,
    /// The invocation metadata in scope, which a node body may augment during the call; `None` outside a graph,
    /// where nothing can.
    metadata: Option<Arc<Mutex<Map<String, Value>>>>,
    inner: Option<Arc<dyn AttemptHook>>,
    state: Mutex<RecorderState>,
}

impl Recorder {
    /// A recorder for a call made inside a graph node: the context's scope, with the metadata in scope now.
    fn in_context(context: CallContext, inner: Option<Arc<dyn AttemptHook>>) -> Self {
        let CallContext {
            mut scope,
            bus,
            metadata,
        } = context;
        let now = metadata.lock().unwrap_or_else(PoisonError::into_inner).clone();
        scope.caller_invocation_metadata = (!now.is_empty()).then_some(now);
        Self::new(scope, bus, Some(metadata), inner)
    }

    /// A recorder for a call outside a graph: `scope` as it is, for every event of the call.
    fn standalone(scope: Scope, bus: EventBus, inner: Option<Arc<dyn AttemptHook>>) -> Self {
        Self::new(scope, bus, None, inner)
    }

    fn new(
        scope: Scope,
        bus: EventBus,
        metadata: Option<Arc<Mutex<Map<String, Value>>>>,
        inner: Option<Arc<dyn AttemptHook>>,
    ) -> Self {
        Self {
            bus,
            metadata,
            inner,
            state: Mutex::new(RecorderState {
                n_chunks: 0,
                last: None,
                scope: Arc::new(scope),
                held: None,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RecorderState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The last attempt's record, the held event and the scope for the terminal event.
    fn finish(&self) -> (Option<LastAttempt>, Option<Event>, Arc<Scope>) {
        let mut state = self.state();
        let scope = self.current_scope(&mut state);
        (state.last.take(), state.held.take(), scope)
    }

    /// The scope with the metadata in scope now: the shared one while the metadata is unchanged, a new one (shared
    /// from then on) after a node body augmented it.
    fn current_scope(&self, state: &mut RecorderState) -> Arc<Scope> {
        if let Some(metadata) = &self.metadata {
            let now = metadata.lock().unwrap_or_else(PoisonError::into_inner);
            let unchanged = match &state.scope.caller_invocation_metadata {
                Some(taken) => *taken == *now,
                None => now.is_empty(),
            };
            if !unchanged {
                state.scope = Arc::new(Scope {
                    caller_invocation_metadata: (!now.is_empty()).then(|| now.clone()),
                    ..Scope::clone(&state.scope)
                });
            }
        }
        Arc::clone(&state.scope)
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(event) = self.state().held.take() {
            self.bus.dispatch(event);
        }
    }
}

impl AttemptHook for Recorder {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        if let Some(inner) = &self.inner {
            inner.on_token(delta);
        }
        // No observer reads token events: none is built (nor its chunk counted).
        if !self.bus.wants_tokens() {
            return;
        }
        let (held, chunk_index, scope) = {
            let mut state = self.state();
            state.n_chunks += 1;
            let scope = self.current_scope(&mut state);
            (state.held.take(), state.n_chunks - 1, scope)
        };
        if let Some(held) = held {
            self.bus.dispatch(held);
        }
        self.bus.dispatch(Event::LlmToken(LlmTokenEvent {
            scope,
            provider: delta.provider.to_owned(),
            model: delta.model.to_owned(),
            call_id: delta.call_id.to_owned(),
            chunk_index,
            delta_kind: delta.kind,
            delta: delta.text.to_owned(),
        }));
    }

    fn wants_partials(&self) -> bool {
        self.bus.wants_tokens() || self.inner.as_ref().is_some_and(|inner| inner.wants_partials())
    }

    fn on_partial(&self, partial: &PartialValue<'_>) {
        if let Some(inner) = &self.inner {
            inner.on_partial(partial);
        }
        // Delivered as tokens are: only to observers that read the stream.
        if !self.bus.wants_tokens() {
            return;
        }
        let (held, scope) = {
            let mut state = self.state();
            let scope = self.current_scope(&mut state);
            (state.held.take(), scope)
        };
        if let Some(held) = held {
            self.bus.dispatch(held);
        }
        self.bus.dispatch(Event::LlmPartialValue(LlmPartialValueEvent {
            scope,
            provider: partial.provider.to_owned(),
            model: partial.model.to_owned(),
            call_id: partial.call_id.to_owned(),
            wire_attempt_index: partial.attempt_index,
            pointer: partial.pointer.to_string(),
            value: partial.value.clone(),
            certain_violations: partial.certain_violations,
        }));
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        if let Some(inner) = &self.inner {
            inner.on_attempt(record);
        }
        let request = Arc::new(LlmRequest {
            provider: self.bus.shared_name(record.provider),
            model: self.bus.shared_name(record.model),
            call_id: record.call_id.to_owned(),
            input_messages: render_messages(record.request.messages),
            request_params: request_params(record.request.config),
            request_extras: request_extras(record.request.config),
            structured_output_path: record.structured_output_path,
            schema_mode: record.schema_mode,
            schema_version: record.schema_version.map(str::to_owned),
            schema_account: record.schema_account.clone(),
            active_prompt: None,
            active_prompt_group: None,
            token_budget: None,
        });
        let (response, error_category, error_message, failure_class) = match record.outcome {
            Ok(response) => (Some(Arc::new(response_fields(response))), None, None, None),
            Err(error) => (
                error
                    .structured_output()
                    .map(|failure| Arc::new(failure_fields(failure))),
                Some(error.category()),
                Some(error.message().to_owned()),
                error.failure_class(),
            ),
        };
        let latency_ms = record.duration.as_secs_f64() * 1000.0;
        let mut state = self.state();
        state.last = Some(LastAttempt {
            request: Arc::clone(&request),
            response: response.clone(),
            latency_ms,
        });
        let event = Event::LlmAttempt(LlmAttempt {
            scope: self.current_scope(&mut state),
            request,
            wire_attempt_index: record.attempt_index,
            retry_reason: record.retry_reason,
            repair: record.repair,
            sent: record.request.body.is_some(),
            stream: record.request.stream,
            response,
            error_category,
            error_message,
            failure_class,
            diagnostics: record.diagnostics.to_vec(),
            early_stop: record.early_stop().cloned(),
            started_at: record.started_at,
            duration: record.duration,
        });
        // A successful attempt's event is held (one held already, not expected, goes first); a failed attempt's
        // goes at once, after anything held.
        let (first, second) = if record.outcome.is_ok() {
            (state.held.replace(event), None)
        } else {
            (state.held.take(), Some(event))
        };
        drop(state);
        for event in first.into_iter().chain(second) {
            self.bus.dispatch(event);
        }
    }
}
