//! The tool-call instrumentation scope of graph-engine §6: a node body wraps one tool execution in [`call_tool`];
//! oa observes it (identity captured on entry, latency measured at the boundary) and dispatches exactly one
//! terminal event when the outcome is known, `ToolCallEvent` on a result and `ToolCallFailedEvent` on an error,
//! which it then returns unchanged. oa does not choose, run, retry or loop tools, nor feed results back to the
//! model: the caller does.

use std::fmt;
use std::future::Future;
use std::time::{Instant, SystemTime};

use serde::Serialize;
use serde_json::Value;

use crate::context::CallContext;
use crate::event::{Event, ToolCallEvent, ToolCallFailedEvent, ToolInvocation};
use crate::ids::random_uuid;

/// An error a tool execution can fail with: its message is the failure event's `error_message` (its `Display`),
/// and [`ToolError::error_type`] its `error_type`.
///
/// ```
/// use oa_events::ToolError;
///
/// #[derive(Debug)]
/// struct QuotaExceeded;
/// impl std::fmt::Display for QuotaExceeded {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("daily quota exceeded")
///     }
/// }
/// impl ToolError for QuotaExceeded {}
///
/// assert_eq!(QuotaExceeded.error_type().as_deref(), Some("QuotaExceeded"));
/// ```
pub trait ToolError: fmt::Display {
    /// The failure event's `error_type`: by default the error type's own name (the last segment of its path,
    /// generic arguments dropped), as a language's exception class name would be. Override it to report a
    /// tool-defined code, or `None` when no type is meaningful.
    fn error_type(&self) -> Option<String> {
        Some(short_type_name(std::any::type_name::<Self>()).to_owned())
    }
}

/// A tool failure that names its type explicitly: a tool-defined code (or an exception class name relayed from
/// elsewhere) and a message.
///
/// ```
/// use oa_events::{ToolError, ToolFailure};
///
/// let failure = ToolFailure::new("TimeoutError", "tool timed out");
/// assert_eq!(failure.error_type().as_deref(), Some("TimeoutError"));
/// assert_eq!(failure.to_string(), "tool timed out");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolFailure {
    /// The type or code; `None` when there is none.
    pub error_type: Option<String>,
    /// The human-readable message.
    pub message: String,
}

impl ToolFailure {
    /// A failure of type `error_type` with `message`.
    pub fn new(error_type: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            error_type: Some(error_type.into()),
            message: message.into(),
        }
    }
}

impl ToolError for ToolFailure {
    fn error_type(&self) -> Option<String> {
        self.error_type.clone()
    }
}

/// Runs `execution` (the caller's tool call) inside the tool-call instrumentation scope and returns its outcome
/// unchanged. Inside a graph node it dispatches exactly one terminal event on the invocation's queue before
/// returning: [`ToolCallEvent`] with the result serialised to JSON, or [`ToolCallFailedEvent`] with the error's
/// type and message (the error is still returned: the scope observes, it does not swallow). The event carries the
/// identity of the node that entered the scope and the invocation metadata in scope at entry. Outside a graph it
/// only runs `execution`.
///
/// A result that cannot be serialised to JSON is recorded as a string saying so (the event is still dispatched).
///
/// ```
/// use oa_events::{EventBus, EventCounter, Graph, InvokeOptions, NodeError, ToolFailure, ToolInvocation, call_tool};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let graph = Graph::builder()
///     .node("run_tool", |_| async {
///         let tool = ToolInvocation::new("get_weather")
///             .with_tool_call_id("call_abc123")
///             .with_arguments(json!({"city": "Paris"}));
///         let weather = call_tool(tool, async { Ok::<_, ToolFailure>(json!({"temperature_c": 20})) }).await?;
///         Ok::<_, NodeError>(json!({"weather": weather}))
///     })
///     .build()?;
/// let bus = EventBus::new(Vec::new());
/// let state = graph.invoke(&bus, json!({}), InvokeOptions::default()).await?;
/// assert_eq!(state["weather"]["temperature_c"], 20);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// `execution`'s error, unchanged.
pub async fn call_tool<T, E, F>(tool: ToolInvocation, execution: F) -> Result<T, E>
where
    F: Future<Output = Result<T, E>>,
    T: Serialize,
    E: ToolError,
{
    // Scope-entry identity (§6): the node that initiated the execution, with the metadata in scope now.
    let context = CallContext::current();
    let scope = context.as_ref().map(CallContext::current_scope);
    let call_id = format!("tool_{}", random_uuid());
    let started = Instant::now();
    let outcome = execution.await;
    let (Some(context), Some(scope)) = (context, scope) else {
        return outcome;
    };
    let latency_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    let at = SystemTime::now();
    let event = match &outcome {
        Ok(result) => Event::ToolCall(ToolCallEvent {
            scope,
            call_id,
            tool,
            result: serde_json::to_value(result).unwrap_or_else(|error| {
                Value::String(format!(
                    "[the tool's result is not serialisable as JSON: {error}]"
                ))
            }),
            latency_ms,
            at,
        }),
        Err(error) => Event::ToolCallFailed(ToolCallFailedEvent {
            scope,
            call_id,
            tool,
            latency_ms,
            error_type: error.error_type(),
            error_message: error.to_string(),
            at,
        }),
    };
    context.bus.dispatch(event);
    outcome
}

/// `a::b::Name<c::D>` → `Name`.
fn short_type_name(path: &str) -> &str {
    let without_generics = path.split('<').next().unwrap_or(path);
    without_generics.rsplit("::").next().unwrap_or(without_generics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_error_type_is_the_short_type_name() {
        assert_eq!(short_type_name("std::io::error::Error"), "Error");
        assert_eq!(short_type_name("my::Timeout<other::Thing>"), "Timeout");
        assert_eq!(short_type_name("Plain"), "Plain");
    }
}
