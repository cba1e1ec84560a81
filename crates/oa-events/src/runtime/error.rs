//! The runtime's errors: a node's failure, why an invocation failed (with the state at the point of failure and
//! its graph-engine §4 category), and why a graph could not be built.

use std::error::Error as StdError;
use std::fmt;

use oa_provider::ProviderError;
use serde_json::Value;

use crate::event::GraphErrorCategory;
use crate::metadata::MetadataError;
use crate::tool::ToolFailure;

/// A node's (or a conditional edge's) failure. When a provider call or an instrumented tool execution caused it,
/// that error is its [`source`](StdError::source).
#[derive(Debug)]
pub struct NodeError {
    message: String,
    provider: Option<ProviderError>,
    tool: Option<ToolFailure>,
}

impl NodeError {
    /// A failure with a message and no provider cause.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            provider: None,
            tool: None,
        }
    }

    /// The provider error that caused this failure, when one did.
    pub fn provider_error(&self) -> Option<&ProviderError> {
        self.provider.as_ref()
    }

    /// The tool failure that caused this failure, when one did (a [`ToolFailure`] returned by
    /// [`call_tool`](crate::call_tool) and propagated with `?`).
    pub fn tool_failure(&self) -> Option<&ToolFailure> {
        self.tool.as_ref()
    }
}

impl From<ProviderError> for NodeError {
    fn from(error: ProviderError) -> Self {
        Self {
            message: format!("provider call failed: {}", error.category()),
            provider: Some(error),
            tool: None,
        }
    }
}

/// The message names the tool failure's type only: its text is harvested from the tool and stays on the
/// [`ToolCallFailedEvent`](crate::ToolCallFailedEvent), where observers gate it as payload.
impl From<ToolFailure> for NodeError {
    fn from(error: ToolFailure) -> Self {
        Self {
            message: format!(
                "tool call failed: {}",
                error.error_type.as_deref().unwrap_or("error")
            ),
            provider: None,
            tool: Some(error),
        }
    }
}

impl From<MetadataError> for NodeError {
    fn from(error: MetadataError) -> Self {
        Self::new(error.to_string())
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for NodeError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match (&self.provider, &self.tool) {
            (Some(error), _) => Some(error),
            (None, Some(error)) => Some(error),
            (None, None) => None,
        }
    }
}

/// Why an invocation failed. Every variant after the two API-boundary rejections carries the state at the point
/// of failure (graph-engine §4: recoverable from the error).
#[derive(Debug, thiserror::Error)]
pub enum InvocationError {
    /// The caller's metadata broke §3.4's rules; rejected before any work began (no event was dispatched).
    #[error("invocation metadata rejected: {0}")]
    InvalidMetadata(#[source] MetadataError),
    /// The caller's invocation id is empty or not URL-safe; rejected before any work began.
    #[error("the invocation id must be a non-empty URL-safe string (letters, digits, `-`, `.`, `_`, `~`)")]
    InvalidInvocationId,
    /// The caller's session id is empty; rejected before any work began.
    #[error("the session id must be a non-empty string")]
    InvalidSessionId,
    /// A node raised; the node's error (and through it any provider error) is the source.
    #[error("node {node:?} failed")]
    Node {
        /// The node that failed.
        node: String,
        /// Its error.
        #[source]
        source: NodeError,
        /// The state it received.
        state: Value,
    },
    /// A node returned something other than a JSON object as its state update.
    #[error("node {node:?} returned a state update that is not a JSON object")]
    BadUpdate {
        /// The node.
        node: String,
        /// The state before the update.
        state: Value,
    },
    /// A conditional edge's function raised.
    #[error("the edge from {node:?} failed")]
    Edge {
        /// The node the edge leaves.
        node: String,
        /// The edge function's error.
        #[source]
        source: NodeError,
        /// The state after the node's update.
        state: Value,
    },
    /// A conditional edge returned a destination that is neither a declared node nor END.
    #[error("the edge from {node:?} routed to {destination:?}, which is not a node of the graph")]
    Routing {
        /// The node the edge leaves.
        node: String,
        /// Where it routed.
        destination: String,
        /// The state after the node's update.
        state: Value,
    },
}

impl InvocationError {
    /// The graph-engine §4 category; `None` for a rejection at the API boundary.
    pub fn category(&self) -> Option<GraphErrorCategory> {
        match self {
            Self::InvalidMetadata(_) | Self::InvalidInvocationId | Self::InvalidSessionId => None,
            Self::Node { .. } => Some(GraphErrorCategory::NodeException),
            Self::BadUpdate { .. } => Some(GraphErrorCategory::StateValidationError),
            Self::Edge { .. } => Some(GraphErrorCategory::EdgeException),
            Self::Routing { .. } => Some(GraphErrorCategory::RoutingError),
        }
    }

    /// The state at the point of failure; `None` for a rejection at the API boundary.
    pub fn state(&self) -> Option<&Value> {
        match self {
            Self::InvalidMetadata(_) | Self::InvalidInvocationId | Self::InvalidSessionId => None,
            Self::Node { state, .. }
            | Self::BadUpdate { state, .. }
            | Self::Edge { state, .. }
            | Self::Routing { state, .. } => Some(state),
        }
    }

    /// The node that failed (or whose edge did); `None` for a rejection at the API boundary.
    pub fn node(&self) -> Option<&str> {
        match self {
            Self::InvalidMetadata(_) | Self::InvalidInvocationId | Self::InvalidSessionId => None,
            Self::Node { node, .. }
            | Self::BadUpdate { node, .. }
            | Self::Edge { node, .. }
            | Self::Routing { node, .. } => Some(node),
        }
    }
}

/// A graph building error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// Two nodes share a name.
    #[error("duplicate node name {0:?}")]
    DuplicateNode(String),
    /// The graph has no node.
    #[error("a graph needs at least one node")]
    Empty,
    /// An edge or the entry names a node the graph does not have.
    #[error("no node named {0:?}")]
    UnknownNode(String),
    /// Edges were declared but this node has none leaving it (graph-engine §2: exactly one outgoing edge each).
    #[error("node {0:?} has no outgoing edge")]
    MissingEdge(String),
    /// This node has more than one outgoing edge (branching is one conditional edge, graph-engine §2).
    #[error("node {0:?} has more than one outgoing edge")]
    DuplicateEdge(String),
}
