//! The ambient call context: who is running (invocation, node, correlation) and where events go, carried in a
//! task-local value so that a node body's provider calls reach the event layer without threading it through.
//!
//! The invocation runtime sets it around each node; a fuller graph engine can set it the same way. Neither the
//! provider nor observers know about it.

use std::sync::{Arc, Mutex};

use oa_provider::{
    AttemptRecord, CallObserver, CompletionRequest, Provider, ProviderError, Response, TokenDelta,
    mint_call_id,
};

use crate::delivery::EventBus;
use crate::event::{
    Event, LlmAttempt, LlmCompletionEvent, LlmFailedEvent, LlmRequest, LlmResponseFields, LlmTokenEvent,
    Scope, retry_reason_str,
};
use crate::render::{failure_fields, render_messages, request_extras, request_params, response_fields};

tokio::task_local! {
    static CALL_CONTEXT: CallContext;
}

/// Who is running and where their events go.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// Identity and scope stamped on every event the node's calls produce.
    pub scope: Scope,
    /// The queue the events go to.
    pub bus: EventBus,
}

impl CallContext {
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
/// all dispatched before this returns. Without an ambient context it is just `provider.complete(request)`.
///
/// The request's own observer, if any, still receives everything.
///
/// # Errors
///
/// The provider's error, unchanged.
pub async fn complete(
    provider: &dyn Provider,
    request: CompletionRequest,
) -> Result<Response, ProviderError> {
    let Some(context) = CallContext::current() else {
        return provider.complete(&request).await;
    };
    let call_id = request.call_id.clone().unwrap_or_else(mint_call_id);
    let recorder = Arc::new(Recorder {
        context: context.clone(),
        call_id: call_id.clone(),
        inner: request.observer.clone(),
        state: Mutex::new(RecorderState::default()),
    });
    let caller_messages = request.messages.clone();
    let caller_config = request.config.clone();
    let mut request = request.with_call_id(call_id.clone());
    request.observer = Some(Arc::clone(&recorder) as Arc<dyn CallObserver>);
    let outcome = provider.complete(&request).await;
    let last = recorder.take_last();
    let (llm_request, latency_ms) = match last {
        Some((llm_request, latency_ms)) => (llm_request, Some(latency_ms)),
        // No attempt record (a provider that reports none): the caller's messages and config, no path.
        None => (
            LlmRequest {
                provider: String::from("unknown"),
                model: String::from("unknown"),
                call_id: call_id.clone(),
                input_messages: render_messages(&caller_messages),
                request_params: request_params(&caller_config),
                request_extras: request_extras(&caller_config),
                structured_output_path: None,
                active_prompt: None,
                active_prompt_group: None,
                token_budget: None,
            },
            None,
        ),
    };
    let event = match &outcome {
        Ok(response) => Event::LlmCompletion(LlmCompletionEvent {
            scope: context.scope.clone(),
            request: llm_request,
            response: response_fields(response),
            latency_ms,
        }),
        Err(error) => Event::LlmFailed(LlmFailedEvent {
            scope: context.scope.clone(),
            request: llm_request,
            response: error
                .structured_output()
                .map(failure_fields)
                .unwrap_or_else(empty_response),
            error_category: error.category().as_str().to_owned(),
            error_type: error.vendor_code().map(str::to_owned),
            error_message: error.message().to_owned(),
            latency_ms,
        }),
    };
    context.bus.dispatch(event);
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

#[derive(Default)]
struct RecorderState {
    n_chunks: u64,
    last: Option<(LlmRequest, f64)>,
}

/// The per-call observer that turns the provider's hooks into events.
struct Recorder {
    context: CallContext,
    call_id: String,
    inner: Option<Arc<dyn CallObserver>>,
    state: Mutex<RecorderState>,
}

impl Recorder {
    fn take_last(&self) -> Option<(LlmRequest, f64)> {
        self.state.lock().ok().and_then(|mut state| state.last.take())
    }
}

impl CallObserver for Recorder {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        if let Some(inner) = &self.inner {
            inner.on_token(delta);
        }
        let chunk_index = match self.state.lock() {
            Ok(mut state) => {
                state.n_chunks += 1;
                state.n_chunks - 1
            }
            Err(_) => return,
        };
        self.context.bus.dispatch(Event::LlmToken(LlmTokenEvent {
            scope: self.context.scope.clone(),
            provider: delta.provider.to_owned(),
            model: delta.model.to_owned(),
            call_id: self.call_id.clone(),
            chunk_index,
            delta_kind: delta.kind.as_str().to_owned(),
            delta: delta.text.to_owned(),
        }));
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        if let Some(inner) = &self.inner {
            inner.on_attempt(record);
        }
        let sent = record.request.body.is_some();
        let request = LlmRequest {
            provider: record.provider.to_owned(),
            model: record.model.to_owned(),
            call_id: record.call_id.to_owned(),
            input_messages: render_messages(record.request.messages),
            request_params: request_params(record.request.config),
            request_extras: request_extras(record.request.config),
            structured_output_path: if sent { record.structured_output_path } else { None },
            active_prompt: None,
            active_prompt_group: None,
            token_budget: None,
        };
        let (response, error_category, error_message) = match record.outcome {
            Ok(response) => (Some(response_fields(response)), None, None),
            Err(error) => (
                error.structured_output().map(failure_fields),
                Some(error.category().as_str().to_owned()),
                Some(error.message().to_owned()),
            ),
        };
        let failure_class = record
            .outcome
            .err()
            .and_then(ProviderError::structured_output)
            .map(|failure| oa_provider::classify_failure(failure).as_str().to_owned());
        let latency_ms = record.duration.as_secs_f64() * 1000.0;
        if let Ok(mut state) = self.state.lock() {
            state.last = Some((request.clone(), latency_ms));
        }
        self.context.bus.dispatch(Event::LlmAttempt(LlmAttempt {
            scope: self.context.scope.clone(),
            request,
            wire_attempt_index: record.attempt_index,
            retry_reason: retry_reason_str(record.retry_reason),
            sent,
            stream: record.request.stream,
            response,
            error_category,
            error_message,
            failure_class,
            started_at: record.started_at,
            duration: record.duration,
        }));
    }
}
