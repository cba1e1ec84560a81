//! oa-events: the graph-engine §6 typed LLM events (`LlmCompletionEvent`, `LlmFailedEvent`, `LlmTokenEvent`, with
//! proposal 0126's `structured_output_path`) and tool events (`ToolCallEvent`, `ToolCallFailedEvent`), their
//! strictly serial asynchronous delivery to observers, and the smallest invocation runtime that produces them.
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
//! - [`Graph`] runs named async nodes over JSON state along static or conditional edges ([`Route`]) and sets the
//!   [`CallContext`] around each node; node failures carry their graph-engine §4 [`GraphErrorCategory`].
//! - [`call_tool`] is graph-engine §6's tool-call instrumentation scope: a node body wraps one tool execution in
//!   it and the queue carries exactly one [`ToolCallEvent`] or [`ToolCallFailedEvent`]; oa observes, the caller
//!   runs the tool.
//! - [`set_invocation_metadata`] and [`get_invocation_metadata`] augment and read the invocation metadata
//!   (observability §3.4) from inside a node; [`EventCounter`] and [`InvocationAccumulator`] are queryable
//!   observers (observability §9) a node can read mid-invocation.
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
mod identity;
mod ids;
mod metadata;
mod queryable;
mod render;
mod runtime;
mod shared_names;
mod tool;

pub use context::{CallContext, ObservedProvider, complete};
pub use delivery::{DrainTimeout, EventBus, Observer, ObserverError};
pub use event::{
    Event, GraphErrorCategory, InvocationEvent, LlmAttempt, LlmCompletionEvent, LlmFailedEvent, LlmRequest,
    LlmResponseFields, LlmTokenEvent, MetadataEvent, NodeEvent, Scope, ToolCallEvent, ToolCallFailedEvent,
    ToolInvocation,
};
pub use identity::{IMPLEMENTATION_NAME, IMPLEMENTATION_VERSION, SPEC_VERSION};
pub use ids::random_uuid;
pub use metadata::{
    MetadataError, MetadataSnapshot, RESERVED_KEYS, RESERVED_PREFIXES, get_invocation_metadata,
    set_invocation_metadata, validate_metadata,
};
pub use queryable::{EventCounter, InvocationAccumulator, NodePhase};
pub use render::{render_messages, render_tool_calls, request_extras, request_params};
pub use runtime::{Graph, GraphBuilder, GraphError, InvocationError, InvokeOptions, NodeError, Route};
pub use tool::{ToolError, ToolFailure, call_tool};

// The README's example runs as a doc test, so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
