//! oa-events: the graph-engine §6 typed LLM events (`LlmCompletionEvent`, `LlmFailedEvent`, `LlmTokenEvent`, with
//! proposal 0126's `structured_output_path`), their strictly serial asynchronous delivery to observers, and the
//! smallest invocation runtime that produces them.
//!
//! # Overview
//!
//! - [`EventBus`] is the observer delivery queue: [`Observer`]s receive every [`Event`] in dispatch order, one at a
//!   time, on the queue's task; observer errors and panics are isolated; [`EventBus::drain`] and
//!   [`EventBus::drain_events_for`] wait for delivery with a timeout.
//! - [`complete`] wraps `Provider::complete` under the ambient [`CallContext`]: token events as deltas stream, an
//!   [`LlmAttempt`] record per wire attempt (what spans and metrics render), then one terminal event describing the
//!   request of the attempt whose outcome it reports. [`ObservedProvider`] does the same for calls made outside a
//!   graph, so a provider call with a bus attached is never silently unreported.
//! - [`Graph`] runs named async nodes in a line over JSON state and sets the [`CallContext`] around each node.
//!
//! # Example
//!
//! ```
//! use oa_events::{EventBus, Graph, InvokeOptions};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bus = EventBus::new(Vec::new());
//! let graph = Graph::builder()
//!     .node("greet", |_state| async { Ok(json!({"greeting": "hi"})) })
//!     .build()?;
//! let state = graph.invoke(&bus, json!({}), InvokeOptions::default()).await?;
//! assert_eq!(state["greeting"], "hi");
//! bus.drain(std::time::Duration::from_secs(1)).await?;
//! # Ok(())
//! # }
//! ```

mod context;
mod delivery;
mod event;
mod ids;
mod render;
mod runtime;

pub use context::{CallContext, ObservedProvider, complete};
pub use delivery::{DrainTimeout, EventBus, Observer, ObserverError};
pub use event::{
    Event, InvocationEvent, LlmAttempt, LlmCompletionEvent, LlmFailedEvent, LlmRequest, LlmResponseFields,
    LlmTokenEvent, NodeEvent, Scope,
};
pub use render::{render_messages, render_tool_calls, request_extras, request_params};
pub use runtime::{Graph, GraphBuilder, GraphError, InvocationError, InvokeOptions, NodeError};

// The README's example runs as a doc test, so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
