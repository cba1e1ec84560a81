//! Shared test helpers: a collecting observer, the keyless OpenAI provider at a scripted server, the answer
//! schema, and the node that makes one call (the server, the telemetry and the tracing capture are oa-testkit's).

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use oa_events::{EventBus, InvokeOptions, NodeError, Observer};
use oa_provider::{Capabilities, CompletionRequest, OpenAiProvider, Provider};
use oa_testkit::Server;
use serde_json::{Value, json};

#[path = "../../../oa-events/tests/support/collect.rs"]
mod collect;
#[allow(unused_imports)] // not every test binary collects events
pub use collect::Collect;

/// The OpenAI provider of model `gpt-test` at `server`, without a key.
pub fn openai_at(server: &Server) -> Arc<OpenAiProvider> {
    Arc::new(
        OpenAiProvider::builder("gpt-test")
            .base_url(server.base_url())
            .no_api_key()
            .build()
            .unwrap(),
    )
}

/// A strict-mode-compatible schema with one required string `answer`.
pub fn answer_schema() -> Value {
    json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
           "additionalProperties": false})
}

/// What a graph node returns.
pub type NodeFuture = Pin<Box<dyn Future<Output = Result<Value, NodeError>> + Send>>;

/// A node that makes one call of `request` through `provider` (oa-events' `complete`, so the call is reported to
/// the invocation's bus) and then returns `output`.
pub fn ask(
    provider: Arc<dyn Provider>,
    request: CompletionRequest,
    output: Value,
) -> impl Fn(Value) -> NodeFuture + Send + Sync + 'static {
    move |_| {
        let provider = Arc::clone(&provider);
        let request = request.clone();
        let output = output.clone();
        Box::pin(async move {
            oa_events::complete(provider.as_ref(), request).await?;
            Ok(output)
        })
    }
}

/// The options of a tenant's traced call: correlation id `correlation`, metadata `{"tenant": "acme"}`.
pub fn tenant_options(correlation: &str) -> InvokeOptions {
    InvokeOptions {
        correlation_id: Some(correlation.into()),
        metadata: serde_json::from_value(json!({"tenant": "acme"})).unwrap(),
        ..InvokeOptions::default()
    }
}

/// Invokes `graph` on `{}` with [`tenant_options`] (correlation id `correlation`) under `dispatch` (the log bridge
/// and whatever else the test captures), then [`drain_cleanly`]s `bus`.
pub async fn invoke_traced(
    graph: &oa_events::Graph,
    bus: &EventBus,
    correlation: &str,
    dispatch: tracing::Dispatch,
) -> Result<Value, oa_events::InvocationError> {
    use tracing::instrument::WithSubscriber;
    let outcome = graph
        .invoke(bus, json!({}), tenant_options(correlation))
        .with_subscriber(dispatch)
        .await;
    drain_cleanly(bus).await;
    outcome
}

/// Waits (five seconds at most) until `bus` has delivered every event, and asserts that no observer failed.
pub async fn drain_cleanly(bus: &EventBus) {
    bus.drain(std::time::Duration::from_secs(5)).await.unwrap();
    assert_eq!(bus.n_observer_errors(), 0);
}

/// Invokes, with `input` and default options, a graph of one node that makes one call ("hi") through `provider`
/// and returns `{}`, with `observer` alone on the bus; then waits (five seconds at most) until the bus has
/// delivered every event.
pub async fn invoke_one_call(provider: Arc<dyn Provider>, observer: Arc<dyn Observer>, input: Value) {
    let bus = EventBus::new(vec![observer]);
    let graph = oa_events::Graph::builder()
        .node(
            "ask",
            ask(
                provider,
                CompletionRequest::new(vec![oa_provider::Message::user("hi")]),
                json!({}),
            ),
        )
        .build()
        .unwrap();
    graph.invoke(&bus, input, InvokeOptions::default()).await.unwrap();
    bus.drain(std::time::Duration::from_secs(5)).await.unwrap();
}

/// The default capabilities, with native structured output on or off.
pub fn native(native: bool) -> Capabilities {
    Capabilities {
        native_response_format: native,
        ..Capabilities::default()
    }
}
