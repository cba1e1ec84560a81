//! `Provider::complete_with` carrying a hook (`CallExtras::with_hook`) over a real socket: the hook passed beside a
//! borrowed request receives every attempt record and token delta in place of the request's own (retried, streamed, rejected before sending), natively
//! for the built-in providers and through the default (a copy of the request) for a provider that has only
//! `complete`; the caller's request is left as it was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::openai_at as provider_at;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use oa_provider::hook::TokenDelta;
use oa_provider::{
    AttemptHook, AttemptRecord, CallExtras, Category, CompletionRequest, Message, OpenAiProvider, Provider,
    ProviderError, Response,
};
use oa_testkit::openai::text_completion;
use oa_testkit::{Reply, Server};
use serde_json::json;

/// What a hook saw: each attempt's index, call id and error category, and each token delta's text.
#[derive(Default)]
struct Seen {
    attempts: Mutex<Vec<(u32, String, Option<Category>)>>,
    tokens: Mutex<Vec<String>>,
}

impl Seen {
    fn attempts(&self) -> Vec<(u32, String, Option<Category>)> {
        self.attempts.lock().unwrap().clone()
    }

    fn tokens(&self) -> Vec<String> {
        self.tokens.lock().unwrap().clone()
    }
}

impl AttemptHook for Seen {
    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.attempts.lock().unwrap().push((
            record.attempt_index,
            record.call_id.to_owned(),
            record.outcome.err().map(ProviderError::category),
        ));
    }

    fn on_token(&self, delta: &TokenDelta<'_>) {
        self.tokens.lock().unwrap().push(delta.text.to_owned());
    }
}

fn unavailable() -> Reply {
    Reply::json(
        503,
        json!({"error": {"type": "service_unavailable", "message": "service down"}}),
    )
}

fn retried(own: &Arc<Seen>) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("go")])
        .with_retry(support::no_wait(2))
        .with_call_id("call_given")
        .with_hook(Arc::clone(own) as Arc<dyn AttemptHook>)
}

/// A provider with only `complete`: `complete_with` is the trait's default.
#[derive(Debug)]
struct OnlyComplete(OpenAiProvider);

#[async_trait]
impl Provider for OnlyComplete {
    async fn ready(&self) -> Result<(), ProviderError> {
        self.0.ready().await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        self.0.complete(request).await
    }
}

#[tokio::test]
async fn the_hook_beside_the_request_gets_every_attempt_in_place_of_the_requests_own() {
    for default in [false, true] {
        let server = Server::start(vec![unavailable(), Reply::json(200, text_completion("ok"))]).unwrap();
        let provider: Box<dyn Provider> = if default {
            Box::new(OnlyComplete(provider_at(&server)))
        } else {
            Box::new(provider_at(&server))
        };
        let own = Arc::new(Seen::default());
        let beside = Arc::new(Seen::default());
        let request = retried(&own);
        let hook: Arc<dyn AttemptHook> = beside.clone();
        let response = provider
            .complete_with(&request, &CallExtras::default().with_hook(Arc::clone(&hook)))
            .await
            .unwrap();
        assert_eq!(
            response.message.text().as_deref(),
            Some("ok"),
            "default {default}"
        );
        assert_eq!(
            beside.attempts(),
            [
                (0, String::from("call_given"), Some(Category::Unavailable)),
                (1, String::from("call_given"), None),
            ],
            "default {default}"
        );
        assert!(
            own.attempts().is_empty(),
            "default {default}: the request's own hook is replaced"
        );
        // The caller's request is as it was: its own hook is still the one a plain complete() reports to.
        assert!(
            request
                .hook
                .as_ref()
                .is_some_and(|hook| Arc::ptr_eq(hook, &(Arc::clone(&own) as Arc<dyn AttemptHook>)))
        );
        let again = Server::start(vec![Reply::json(200, text_completion("ok"))]).unwrap();
        provider_at(&again).complete(&request).await.unwrap();
        assert_eq!(own.attempts().len(), 1, "default {default}");
        assert_eq!(beside.attempts().len(), 2, "default {default}");
    }
}

#[tokio::test]
async fn streamed_deltas_go_to_the_hook_beside_the_request() {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        json!({"id": "cc-s", "object": "chat.completion.chunk", "model": "test-model",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let events = [
        chunk(json!({"role": "assistant", "content": "Hel"}), json!(null)),
        chunk(json!({"content": "lo"}), json!("stop")),
        json!("[DONE]"),
    ];
    let server = Server::start(vec![Reply::sse(&events)]).unwrap();
    let own = Arc::new(Seen::default());
    let beside = Arc::new(Seen::default());
    let request = retried(&own).with_stream(true);
    let hook: Arc<dyn AttemptHook> = beside.clone();
    let response = provider_at(&server)
        .complete_with(&request, &CallExtras::default().with_hook(Arc::clone(&hook)))
        .await
        .unwrap();
    assert_eq!(response.message.text().as_deref(), Some("Hello"));
    assert_eq!(beside.tokens(), ["Hel", "lo"]);
    assert_eq!(beside.attempts().len(), 1);
    assert!(own.tokens().is_empty() && own.attempts().is_empty());
}

#[tokio::test]
async fn a_call_rejected_before_sending_is_reported_to_the_hook_beside_the_request() {
    let server = Server::start(vec![]).unwrap();
    let own = Arc::new(Seen::default());
    let beside = Arc::new(Seen::default());
    // No messages: refused by the pre-checks, nothing sent.
    let request = CompletionRequest::new(Vec::new()).with_hook(Arc::clone(&own) as Arc<dyn AttemptHook>);
    let hook: Arc<dyn AttemptHook> = beside.clone();
    let error = provider_at(&server)
        .complete_with(&request, &CallExtras::default().with_hook(Arc::clone(&hook)))
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest);
    let seen = beside.attempts();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].2, Some(Category::InvalidRequest));
    assert!(own.attempts().is_empty());
    assert!(server.requests().is_empty());
}
