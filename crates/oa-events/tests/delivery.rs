//! The delivery queue and the invocation runtime: serial order, isolated observer failures, drains with a timeout,
//! node events, node errors carrying the provider error, and token events for a streamed call.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::error::Error as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use oa_events::{
    DrainTimeout, Event, EventBus, Graph, GraphError, InvocationError, InvokeOptions, NodeError,
};
use oa_events::{LlmAttempt, ObservedProvider, Observer, ObserverError};
use oa_provider::hook::DeltaKind;
use oa_provider::model::{FailureClass, RetryReason};
use oa_provider::retry::Backoff;
use oa_provider::{
    CallExtras, Category, CompletionRequest, FinishReason, Message, Provider, Reask, RetryConfig, SchemaMode,
};
use oa_testkit::openai::text_reply;
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};
use support::{Collect, provider, strict_schema};

struct Failing;

#[async_trait]
impl Observer for Failing {
    async fn on_event(&self, _: &Event) -> Result<(), ObserverError> {
        Err(ObserverError::new("always fails"))
    }
}

struct Panicking;

#[async_trait]
impl Observer for Panicking {
    async fn on_event(&self, _: &Event) -> Result<(), ObserverError> {
        panic!("observer bug");
    }
}

/// Sleeps on every event, recording the order it saw them in.
struct Slow(Mutex<Vec<String>>, Duration);

#[async_trait]
impl Observer for Slow {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        tokio::time::sleep(self.1).await;
        self.0.lock().unwrap().push(kind(event));
        Ok(())
    }
}

fn kind(event: &Event) -> String {
    serde_json::to_value(event).unwrap()["kind"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn two_nodes() -> Graph {
    Graph::builder()
        .node("first", |_| async { Ok(json!({"a": 1})) })
        .node("second", |state: Value| async move {
            Ok(json!({"b": state["a"].as_i64().unwrap() + 1}))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn events_arrive_in_order_and_observer_failures_are_isolated() {
    let collect = Arc::new(Collect::default());
    let bus = EventBus::new(vec![
        Arc::new(Failing) as Arc<dyn Observer>,
        Arc::new(Panicking),
        Arc::clone(&collect) as Arc<dyn Observer>,
    ]);
    let state = two_nodes()
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .unwrap();
    assert_eq!(state, json!({"a": 1, "b": 2}));
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let kinds: Vec<String> = collect.events().iter().map(kind).collect();
    assert_eq!(
        kinds,
        [
            "invocation_started",
            "node_started",
            "node_completed",
            "node_started",
            "node_completed",
            "invocation_completed"
        ]
    );
    assert_eq!(
        bus.n_observer_errors(),
        12,
        "two failing observers times six events"
    );
}

/// Handles events at once (`on_event_now`), recording each one's kind and how it came; fails on node events and
/// panics on invocation events when told to. Its `on_event` records a second way, so a double delivery shows.
#[derive(Default)]
struct AtOnce {
    seen: Mutex<Vec<String>>,
    fail: bool,
}

impl AtOnce {
    fn handle(&self, event: &Event, how: &str) -> Result<(), ObserverError> {
        self.seen.lock().unwrap().push(format!("{how} {}", kind(event)));
        match event {
            Event::NodeStarted(_) | Event::NodeCompleted(_) if self.fail => Err(ObserverError::new("no")),
            Event::InvocationStarted(_) | Event::InvocationCompleted(_) if self.fail => {
                panic!("observer bug")
            }
            _ => Ok(()),
        }
    }
}

#[async_trait]
impl Observer for AtOnce {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.handle(event, "awaited")
    }

    fn on_event_now(&self, event: &Event) -> Option<Result<(), ObserverError>> {
        Some(self.handle(event, "now"))
    }
}

/// An observer that handles events at once gets each exactly once, in order among observers that are awaited, and
/// its errors and panics are isolated and counted as `on_event`'s are.
#[tokio::test]
async fn observers_handling_events_at_once_get_each_once_in_order_and_are_isolated() {
    let collect = Arc::new(Collect::default());
    let at_once = Arc::new(AtOnce::default());
    let failing = Arc::new(AtOnce {
        fail: true,
        ..AtOnce::default()
    });
    let bus = EventBus::new(vec![
        Arc::clone(&failing) as Arc<dyn Observer>,
        Arc::clone(&at_once) as Arc<dyn Observer>,
        Arc::clone(&collect) as Arc<dyn Observer>,
    ]);
    two_nodes()
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .unwrap();
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let expected = [
        "now invocation_started",
        "now node_started",
        "now node_completed",
        "now node_started",
        "now node_completed",
        "now invocation_completed",
    ];
    assert_eq!(*at_once.seen.lock().unwrap(), expected);
    assert_eq!(*failing.seen.lock().unwrap(), expected);
    assert_eq!(
        collect.events().len(),
        6,
        "the awaited observer after them gets every event"
    );
    assert_eq!(bus.n_observer_errors(), 6, "four errors and two panics, isolated");
}

#[tokio::test(start_paused = true)]
async fn drain_times_out_on_a_slow_observer_and_delivery_goes_on() {
    let slow = Arc::new(Slow(Mutex::default(), Duration::from_secs(10)));
    let bus = EventBus::new(vec![Arc::clone(&slow) as Arc<dyn Observer>]);
    let graph = two_nodes();
    graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .unwrap();
    let error = bus.drain(Duration::from_secs(1)).await.unwrap_err();
    assert_eq!(
        error,
        DrainTimeout {
            timeout: Duration::from_secs(1)
        }
    );
    bus.drain(Duration::from_secs(120)).await.unwrap();
    assert_eq!(
        slow.0.lock().unwrap().len(),
        6,
        "every event still delivered, in order"
    );
}

/// Holds every event of the invocation `held` until released; records the invocation of each event it saw.
struct Gate {
    held: &'static str,
    open: tokio::sync::Semaphore,
    seen: Mutex<Vec<String>>,
}

#[async_trait]
impl Observer for Gate {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        if event.invocation_id() == self.held {
            drop(self.open.acquire().await);
        }
        self.seen.lock().unwrap().push(event.invocation_id().to_owned());
        Ok(())
    }
}

fn invocation(id: &str) -> InvokeOptions {
    InvokeOptions {
        invocation_id: Some(id.to_owned()),
        ..InvokeOptions::default()
    }
}

#[tokio::test(start_paused = true)]
async fn drain_events_for_waits_for_its_invocation_only() {
    let gate = Arc::new(Gate {
        held: "second",
        open: tokio::sync::Semaphore::new(0),
        seen: Mutex::default(),
    });
    let bus = EventBus::new(vec![Arc::clone(&gate) as Arc<dyn Observer>]);
    let graph = two_nodes();
    for id in ["first", "second"] {
        graph.invoke(&bus, json!({}), invocation(id)).await.unwrap();
    }
    // "second"'s events, dispatched after the last of "first", are held: the drain for "first" does not wait for
    // them, nor one for an invocation with nothing undelivered; the process-wide drain and "second"'s do.
    bus.drain_events_for("first", Duration::from_secs(1))
        .await
        .unwrap();
    assert_eq!(gate.seen.lock().unwrap().as_slice(), ["first"; 6]);
    bus.drain_events_for("unknown", Duration::ZERO).await.unwrap();
    assert!(bus.drain(Duration::from_secs(1)).await.is_err());
    assert!(
        bus.drain_events_for("second", Duration::from_secs(1))
            .await
            .is_err()
    );
    gate.open.add_permits(6);
    bus.drain_events_for("second", Duration::from_secs(1))
        .await
        .unwrap();
    assert_eq!(gate.seen.lock().unwrap().len(), 12);
    // Delivered: both return at once, and a later invocation's drain covers only what it dispatched.
    bus.drain_events_for("first", Duration::ZERO).await.unwrap();
    bus.drain_events_for("second", Duration::ZERO).await.unwrap();
}

#[tokio::test]
async fn graph_building_rejects_duplicates_and_empty_graphs() {
    assert_eq!(Graph::builder().build().unwrap_err(), GraphError::Empty);
    let duplicate = Graph::builder()
        .node("a", |_| async { Ok(json!({})) })
        .node("a", |_| async { Ok(json!({})) })
        .build();
    assert_eq!(duplicate.unwrap_err(), GraphError::DuplicateNode("a".into()));
}

#[tokio::test]
async fn a_node_error_carries_the_provider_error_and_the_failed_event_is_dispatched() {
    // A 401 is not retried; the node's error keeps it as its source.
    let server = Server::start(vec![Reply::json(401, json!({"error": {"message": "bad key"}}))]).unwrap();
    let provider = Arc::new(provider(&server.base_url()));
    let (collect, bus) = collected();
    let graph = Graph::builder()
        .node("ask", move |_| {
            let provider = Arc::clone(&provider);
            async move {
                oa_events::complete(
                    provider.as_ref(),
                    CompletionRequest::new(vec![Message::user("hi")]),
                )
                .await?;
                Ok::<_, NodeError>(json!({}))
            }
        })
        .build()
        .unwrap();
    let error = graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .unwrap_err();
    let InvocationError::Node { node, source, state } = &error else {
        panic!("expected a node error, got {error:?}");
    };
    assert_eq!(node, "ask");
    assert_eq!(*state, json!({}), "the state the failing node received");
    assert_eq!(
        error.category(),
        Some(oa_events::GraphErrorCategory::NodeException)
    );
    assert_eq!(
        source.provider_error().unwrap().category(),
        Category::Authentication
    );
    let cause = error.source().unwrap().source().unwrap();
    assert!(cause.downcast_ref::<oa_provider::ProviderError>().is_some());
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let events = collect.events();
    let failed = oa_testkit::variants!(events, Event::LlmFailed)[0];
    assert_eq!(failed.error_category, Category::Authentication);
    assert_eq!(
        failed.response.usage, None,
        "no response-side surface outside structured_output_invalid"
    );
    assert_eq!(
        failed.request.input_messages,
        [json!({"role": "user", "content": "hi"})]
    );
    let completed = oa_testkit::variants!(events, Event::NodeCompleted)[0];
    assert_eq!(completed.error_category, Some(Category::Authentication));
}

/// Runs one streamed call (a refusal in two content deltas) inside a graph node, delivering to `observers`, and
/// waits for delivery.
async fn streamed_refusal(observers: Vec<Arc<dyn Observer>>) {
    let chunk = |delta: Value, finish: Value| json!({"id": "s", "model": "gpt-test", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    let server = Server::start(vec![Reply::sse(&[
        chunk(json!({"role": "assistant", "refusal": "I can"}), Value::Null),
        chunk(json!({"refusal": "'t help"}), Value::Null),
        chunk(json!({}), json!("stop")),
        json!("[DONE]"),
    ])])
    .unwrap();
    let provider = Arc::new(provider(&server.base_url()));
    let bus = EventBus::new(observers);
    let graph = Graph::builder()
        .node("ask", move |_| {
            let provider = Arc::clone(&provider);
            async move {
                let request = CompletionRequest::new(vec![Message::user("hi")])
                    .with_response_schema(strict_schema())
                    .with_stream(true);
                let _ = oa_events::complete(provider.as_ref(), request).await;
                Ok::<_, NodeError>(json!({}))
            }
        })
        .build()
        .unwrap();
    graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .unwrap();
    bus.drain(Duration::from_secs(5)).await.unwrap();
}

/// An observer that collects every event it is given and says it does not read tokens.
#[derive(Default)]
struct NoTokens(Collect);

#[async_trait]
impl Observer for NoTokens {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.0.on_event(event).await
    }

    fn wants_tokens(&self) -> bool {
        false
    }
}

fn n_tokens(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, Event::LlmToken(_)))
        .count()
}

#[tokio::test]
async fn no_token_event_is_built_when_no_observer_wants_tokens() {
    let no_tokens = Arc::new(NoTokens::default());
    streamed_refusal(vec![Arc::clone(&no_tokens) as Arc<dyn Observer>]).await;
    let events = no_tokens.0.events();
    assert_eq!(n_tokens(&events), 0);
    // The rest of the call's events are there.
    assert!(events.iter().any(|event| matches!(event, Event::LlmAttempt(_))));
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::LlmFailed(_) | Event::LlmCompletion(_)))
    );
    // One observer that wants them is enough for every observer of the queue to be given them.
    let no_tokens = Arc::new(NoTokens::default());
    let collect = Arc::new(Collect::default());
    streamed_refusal(vec![
        Arc::clone(&no_tokens) as Arc<dyn Observer>,
        Arc::clone(&collect) as Arc<dyn Observer>,
    ])
    .await;
    assert_eq!(n_tokens(&collect.events()), 2);
    assert_eq!(n_tokens(&no_tokens.0.events()), 2);
}

/// Fixture 161 case 17's shape: a streamed refusal arrives as content token events and maps to content_filter.
#[tokio::test]
async fn streamed_deltas_become_token_events_before_the_terminal_event() {
    let collect = Arc::new(Collect::default());
    streamed_refusal(vec![Arc::clone(&collect) as Arc<dyn Observer>]).await;
    let events = collect.events();
    let tokens = oa_testkit::variants!(events, Event::LlmToken);
    assert_eq!(tokens.len(), 2);
    assert_eq!((tokens[0].chunk_index, tokens[0].delta.as_str()), (0, "I can"));
    assert_eq!(tokens[1].delta_kind, DeltaKind::Content);
    assert_eq!(tokens[0].model, "gpt-test");
    let terminal_idx = events
        .iter()
        .position(|event| matches!(event, Event::LlmFailed(_) | Event::LlmCompletion(_)))
        .unwrap();
    let last_token_idx = events
        .iter()
        .rposition(|event| matches!(event, Event::LlmToken(_)))
        .unwrap();
    assert!(last_token_idx < terminal_idx);
    let (finish_reason, call_id) = match &events[terminal_idx] {
        Event::LlmFailed(failed) => (failed.response.finish_reason, failed.request.call_id.clone()),
        Event::LlmCompletion(done) => (done.response.finish_reason, done.request.call_id.clone()),
        _ => unreachable!(),
    };
    assert_eq!(finish_reason, Some(FinishReason::ContentFilter));
    assert_eq!(tokens[0].call_id, call_id);
}

#[tokio::test]
async fn without_an_ambient_context_complete_is_the_plain_call() {
    let server = Server::start(vec![text_reply("hello", "stop")]).unwrap();
    let provider = provider(&server.base_url());
    let response = oa_events::complete(&provider, CompletionRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(response.message.text().as_deref(), Some("hello"));
}

/// Outside a graph, a provider wrapped in `ObservedProvider` still reports every attempt and the terminal event
/// (with the typed marker and failure class), under a scope of its own: nothing is silently dropped.
#[tokio::test]
async fn an_observed_provider_reports_calls_made_outside_a_graph() {
    let server = prose_then_answer();
    let (collect, bus) = collected();
    let observed = ObservedProvider::new(Arc::new(provider(&server.base_url())), bus.clone(), "standalone");
    let request = reasking_request();
    let response = observed.complete(&request).await.unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::UnverifiedRepaired));
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let events = collect.events();
    let kinds: Vec<String> = events.iter().map(kind).collect();
    assert_eq!(kinds, ["llm_attempt", "llm_attempt", "llm_completion"]);
    let attempts: Vec<&LlmAttempt> = oa_testkit::variants!(events, Event::LlmAttempt);
    assert_eq!(attempts[0].scope.node_name, "standalone");
    assert_eq!(attempts[0].failure_class, Some(FailureClass::NotJson));
    assert_eq!(attempts[0].request.schema_mode, Some(SchemaMode::Unverified));
    assert_eq!(attempts[1].retry_reason, Some(RetryReason::Reask));
    assert!(attempts[1].repair);
    assert_eq!(
        attempts[0].request.call_id, attempts[1].request.call_id,
        "one call id, minted once"
    );
    assert_eq!(attempts[0].scope.invocation_id, attempts[1].scope.invocation_id);
    let Event::LlmCompletion(done) = &events[2] else {
        panic!("{events:?}")
    };
    assert_eq!(done.request.schema_mode, Some(SchemaMode::UnverifiedRepaired));
    assert_eq!(done.request.call_id, attempts[0].request.call_id);
    // The terminal event shares the reporting attempt's request and response fields and the call's scope: one
    // copy of each per call, not one per event.
    assert!(Arc::ptr_eq(&done.request, &attempts[1].request));
    assert!(Arc::ptr_eq(
        &done.response,
        attempts[1].response.as_ref().unwrap()
    ));
    assert!(Arc::ptr_eq(&done.scope, &attempts[0].scope));
    assert!(Arc::ptr_eq(&attempts[0].scope, &attempts[1].scope));
    assert!(!Arc::ptr_eq(&attempts[0].request, &attempts[1].request));
}

/// Counts the attempt records it receives.
#[derive(Default)]
struct CountAttempts(std::sync::atomic::AtomicUsize);

impl oa_provider::AttemptHook for CountAttempts {
    fn on_attempt(&self, _record: &oa_provider::AttemptRecord<'_>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// An observed provider called with a hook beside the request reports the call and chains to that hook (in place
/// of the request's own), as a wrapper around it expects; a plain call chains to the request's own.
#[tokio::test]
async fn an_observed_provider_chains_to_the_hook_passed_beside_the_request() {
    let server = Server::start(vec![text_reply("one", "stop"), text_reply("two", "stop")]).unwrap();
    let (collect, bus) = collected();
    let observed = ObservedProvider::new(Arc::new(provider(&server.base_url())), bus.clone(), "standalone");
    let own = Arc::new(CountAttempts::default());
    let request = CompletionRequest::new(vec![Message::user("hi")])
        .with_hook(Arc::clone(&own) as Arc<dyn oa_provider::AttemptHook>);
    let beside = Arc::new(CountAttempts::default());
    let hook: Arc<dyn oa_provider::AttemptHook> = beside.clone();
    let response = observed
        .complete_with(&request, &CallExtras::default().with_hook(Arc::clone(&hook)))
        .await
        .unwrap();
    assert_eq!(response.message.text().as_deref(), Some("one"));
    assert_eq!(beside.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(own.0.load(std::sync::atomic::Ordering::Relaxed), 0);
    observed.complete(&request).await.unwrap();
    assert_eq!(own.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(beside.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let kinds: Vec<String> = collect.events().iter().map(kind).collect();
    assert_eq!(
        kinds,
        ["llm_attempt", "llm_completion", "llm_attempt", "llm_completion"]
    );
}

/// What [`AfterAnswering`] does once its real provider has answered (its attempt reported to the request's hook).
#[derive(Debug, Clone, Copy)]
enum Then {
    /// Returns a response other than the one reported.
    Rewrite,
    /// Never returns: a call abandoned between its successful attempt and its end.
    Hang,
}

/// A real provider whose answer is followed by [`Then`].
#[derive(Debug)]
struct AfterAnswering(oa_provider::OpenAiProvider, Then);

/// A server answering "hello" and, observed as node `node` on a collected bus, the provider at it that does `then`
/// after answering.
fn answering_then(then: Then, node: &str) -> (Server, Arc<Collect>, EventBus, ObservedProvider) {
    let server = Server::start(vec![text_reply("hello", "stop")]).unwrap();
    let (collect, bus) = collected();
    let after = AfterAnswering(provider(&server.base_url()), then);
    let observed = ObservedProvider::new(Arc::new(after), bus.clone(), node);
    (server, collect, bus, observed)
}

#[async_trait]
impl Provider for AfterAnswering {
    async fn ready(&self) -> Result<(), oa_provider::ProviderError> {
        Ok(())
    }

    async fn complete(
        &self,
        request: &CompletionRequest,
    ) -> Result<oa_provider::Response, oa_provider::ProviderError> {
        let mut response = self.0.complete(request).await?;
        match self.1 {
            Then::Rewrite => {
                response.message.content = Some(oa_provider::Content::Text("rewritten".into()));
                Ok(response)
            }
            Then::Hang => std::future::pending().await,
        }
    }
}

/// The terminal event shares its attempt's response fields only when they are the outcome's: a provider that
/// returns something other than what its attempt reported gets fields of its own, from what it returned.
#[tokio::test]
async fn the_terminal_event_reports_the_returned_response_when_it_differs_from_the_attempt() {
    let (_server, collect, bus, observed) = answering_then(Then::Rewrite, "rewrites");
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    observed.complete(&request).await.unwrap();
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let events = collect.events();
    let (Event::LlmAttempt(attempt), Event::LlmCompletion(done)) = (&events[0], &events[1]) else {
        panic!("{events:?}")
    };
    let reported = attempt.response.as_ref().unwrap();
    assert_eq!(reported.output_content.as_deref(), Some("hello"));
    assert_eq!(done.response.output_content.as_deref(), Some("rewritten"));
    assert!(!Arc::ptr_eq(&done.response, reported));
    assert_eq!(done.response.usage, reported.usage);
    assert!(Arc::ptr_eq(&done.request, &attempt.request));
}

/// A successful attempt's event waits to go onto the queue with the terminal event; a call dropped in between
/// still delivers it (and no terminal event, as none was made).
#[tokio::test]
async fn an_abandoned_call_still_delivers_its_successful_attempt() {
    let (_server, collect, bus, observed) = answering_then(Then::Hang, "abandoned");
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    let outcome = tokio::time::timeout(Duration::from_millis(500), observed.complete(&request)).await;
    assert!(outcome.is_err(), "the call hangs after its answer");
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let events = collect.events();
    let kinds: Vec<String> = events.iter().map(kind).collect();
    assert_eq!(kinds, ["llm_attempt"]);
    let Event::LlmAttempt(attempt) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(attempt.scope.node_name, "abandoned");
    assert_eq!(
        attempt
            .response
            .as_ref()
            .and_then(|response| response.output_content.as_deref()),
        Some("hello")
    );
}

/// `complete_as` through an `ObservedProvider`: the wrapper passes the typed decoder on beside the request, so the
/// value is decoded on the typed route, and the events are those of any structured call.
#[tokio::test]
async fn an_observed_provider_passes_the_typed_decoder_through() {
    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Answer {
        answer: String,
    }
    let server = prose_then_answer();
    let (collect, bus) = collected();
    let observed = ObservedProvider::new(Arc::new(provider(&server.base_url())), bus.clone(), "typed");
    let request = reasking_request();
    let typed = oa_provider::complete_as::<Answer>(&observed, &request)
        .await
        .unwrap();
    assert_eq!(typed.value.answer, "yes");
    assert_eq!(
        typed.response.parsed, None,
        "decoded on the typed route behind the wrapper"
    );
    assert_eq!(typed.response.schema_mode, Some(SchemaMode::UnverifiedRepaired));
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let events = collect.events();
    let kinds: Vec<String> = events.iter().map(kind).collect();
    assert_eq!(kinds, ["llm_attempt", "llm_attempt", "llm_completion"]);
    let Event::LlmAttempt(first) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(first.failure_class, Some(FailureClass::NotJson));
    let Event::LlmCompletion(done) = &events[2] else {
        panic!("{events:?}")
    };
    assert_eq!(done.request.schema_mode, Some(SchemaMode::UnverifiedRepaired));
}

/// A structured request whose first wrong answer is asked again once, at once.
/// A bus that delivers to one collecting observer, and that observer.
fn collected() -> (Arc<Collect>, EventBus) {
    let collect = Arc::new(Collect::default());
    let bus = EventBus::new(vec![Arc::clone(&collect) as Arc<dyn Observer>]);
    (collect, bus)
}

/// A server that answers prose, then a valid answer (what a reasking call needs to recover).
fn prose_then_answer() -> Server {
    Server::start(vec![
        text_reply("prose, not JSON", "stop"),
        text_reply(r#"{"answer": "yes"}"#, "stop"),
    ])
    .unwrap()
}

fn reasking_request() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("hi")])
        .with_response_schema(strict_schema())
        .with_retry(
            RetryConfig::new(2)
                .with_backoff(Backoff::Fixed(Duration::ZERO))
                .with_reask(Reask::template("{error_message}")),
        )
}

/// A hook under the observed call that counts the partial values it is handed and says whether it reads them.
struct Partials {
    wants: bool,
    seen: Mutex<usize>,
}

impl oa_provider::AttemptHook for Partials {
    fn on_partial(&self, _: &oa_provider::hook::PartialValue<'_>) {
        *self.seen.lock().unwrap() += 1;
    }

    fn wants_partials(&self) -> bool {
        self.wants
    }
}

/// How many partial values a hook that `wants` them (or not) is handed under an observed streamed structured call
/// whose bus reads tokens (`tokens`) or not.
async fn partials_handed(tokens: bool, wants: bool) -> usize {
    let server = Server::start(vec![oa_testkit::openai::content_stream(
        &["{\"a\": ", "1}"],
        Duration::ZERO,
    )])
    .unwrap();
    let observer: Arc<dyn Observer> = if tokens {
        Arc::new(Collect::default())
    } else {
        Arc::new(NoTokens::default())
    };
    let bus = EventBus::new(vec![observer]);
    let observed = ObservedProvider::new(Arc::new(provider(&server.base_url())), bus.clone(), "standalone");
    let hook = Arc::new(Partials {
        wants,
        seen: Mutex::new(0),
    });
    let request = CompletionRequest::new(vec![Message::user("hi")])
        .with_response_schema(json!({"type": "object"}))
        .with_stream(true);
    let extras = CallExtras::default().with_hook(hook.clone());
    observed.complete_with(&request, &extras).await.unwrap();
    bus.drain(Duration::from_secs(5)).await.unwrap();
    *hook.seen.lock().unwrap()
}

/// The observed call checks a streamed answer as it arrives only when someone reads the partial values: an observer
/// that reads the stream, or the caller's own hook; else no value is copied. (When an observer reads them, the
/// caller's hook is handed them too, as it is handed token deltas.)
#[tokio::test]
async fn partial_values_are_made_only_when_an_observer_or_the_callers_hook_reads_them() {
    // `{"a": 1}`: the member, then the object.
    assert_eq!(partials_handed(false, true).await, 2);
    assert_eq!(partials_handed(true, false).await, 2);
    assert_eq!(partials_handed(false, false).await, 0);
}
