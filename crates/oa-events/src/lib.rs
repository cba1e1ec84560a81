#![doc = include_str!("../README.md")]
//!
//! ## API map
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
    Event, GraphErrorCategory, InvocationEvent, LlmAttempt, LlmCompletionEvent, LlmFailedEvent,
    LlmPartialValueEvent, LlmRequest, LlmResponseFields, LlmTokenEvent, MetadataEvent, NodeEvent, Scope,
    ToolCallEvent, ToolCallFailedEvent, ToolInvocation,
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
