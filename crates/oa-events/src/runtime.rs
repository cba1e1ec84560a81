//! The smallest faithful invocation runtime the observability fixtures need (their 001 header): named async nodes
//! run in a line along static edges over JSON state, with invocation and correlation ids, caller metadata, node
//! started/completed events, node errors that keep the provider error as their cause, and the ambient
//! [`CallContext`](crate::CallContext) set around each node so provider calls reach the event layer.
//!
//! It is deliberately small (no branches, fan-out, subgraphs or node retry) so a fuller graph engine can replace
//! it; nothing below it depends on it.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use oa_provider::ProviderError;
use serde_json::{Map, Value};

use crate::context::CallContext;
use crate::delivery::EventBus;
use crate::event::{Event, InvocationEvent, NodeEvent, Scope};
use crate::ids::random_id;

type NodeFuture = Pin<Box<dyn Future<Output = Result<Value, NodeError>> + Send>>;
type NodeFn = Arc<dyn Fn(Value) -> NodeFuture + Send + Sync>;

/// A node's failure. When a provider call caused it, the provider error is its [`source`](StdError::source).
#[derive(Debug)]
pub struct NodeError {
    message: String,
    provider: Option<ProviderError>,
}

impl NodeError {
    /// A failure with a message and no provider cause.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            provider: None,
        }
    }

    /// The provider error that caused this failure, when one did.
    pub fn provider_error(&self) -> Option<&ProviderError> {
        self.provider.as_ref()
    }
}

impl From<ProviderError> for NodeError {
    fn from(error: ProviderError) -> Self {
        Self {
            message: format!("provider call failed: {}", error.category()),
            provider: Some(error),
        }
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for NodeError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.provider
            .as_ref()
            .map(|error| error as &(dyn StdError + 'static))
    }
}

/// Why an invocation failed.
#[derive(Debug, thiserror::Error)]
pub enum InvocationError {
    /// A node raised; the node's error (and through it any provider error) is the source.
    #[error("node {node:?} failed")]
    Node {
        /// The node that failed.
        node: String,
        /// Its error.
        #[source]
        source: NodeError,
    },
    /// A node returned something other than a JSON object as its state update.
    #[error("node {node:?} returned a state update that is not a JSON object")]
    BadUpdate {
        /// The node.
        node: String,
    },
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
}

/// A linear graph: nodes run in the order added, each edge static (node `i` to node `i + 1`).
#[derive(Clone)]
pub struct Graph {
    nodes: Vec<(String, NodeFn)>,
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.nodes.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Graph").field("nodes", &names).finish()
    }
}

/// Builds a [`Graph`].
#[derive(Default)]
pub struct GraphBuilder {
    nodes: Vec<(String, NodeFn)>,
}

impl fmt::Debug for GraphBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GraphBuilder")
            .field("n_nodes", &self.nodes.len())
            .finish()
    }
}

impl GraphBuilder {
    /// Appends a node; its edge comes from the node added before it. The node returns a state update (a JSON
    /// object merged key by key into the state).
    pub fn node<F, Fut>(mut self, name: impl Into<String>, node: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, NodeError>> + Send + 'static,
    {
        let node: NodeFn = Arc::new(move |state| Box::pin(node(state)));
        self.nodes.push((name.into(), node));
        self
    }

    /// The graph.
    ///
    /// # Errors
    ///
    /// [`GraphError`] for an empty graph or a duplicate node name.
    pub fn build(self) -> Result<Graph, GraphError> {
        if self.nodes.is_empty() {
            return Err(GraphError::Empty);
        }
        for (idx, (name, _)) in self.nodes.iter().enumerate() {
            if self.nodes[..idx].iter().any(|(other, _)| other == name) {
                return Err(GraphError::DuplicateNode(name.clone()));
            }
        }
        Ok(Graph { nodes: self.nodes })
    }
}

/// What a caller passes to [`Graph::invoke`] besides the state.
#[derive(Debug, Clone, Default)]
pub struct InvokeOptions {
    /// The correlation ID (observability §3.1); `None` mints one.
    pub correlation_id: Option<String>,
    /// Caller-supplied invocation metadata (observability §3.4).
    pub metadata: Map<String, Value>,
}

impl Graph {
    /// A builder.
    pub fn builder() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// Runs every node in order over `state`, dispatching events to `bus`. Returns the final state.
    ///
    /// # Errors
    ///
    /// [`InvocationError`] when a node fails or returns a bad update; the events up to it are dispatched.
    pub async fn invoke(
        &self,
        bus: &EventBus,
        state: Value,
        options: InvokeOptions,
    ) -> Result<Value, InvocationError> {
        let invocation_id = random_id();
        // Auto-generated as a UUIDv4 when the caller supplies none (observability §3.1).
        let correlation_id = options.correlation_id.clone().unwrap_or_else(random_id);
        let invocation = InvocationEvent {
            invocation_id: invocation_id.clone(),
            correlation_id: Some(correlation_id.clone()),
            metadata: options.metadata.clone(),
            error: None,
            at: SystemTime::now(),
        };
        bus.dispatch(Event::InvocationStarted(invocation.clone()));
        let outcome = self
            .run_nodes(bus, state, &invocation_id, &correlation_id, &options.metadata)
            .await;
        bus.dispatch(Event::InvocationCompleted(InvocationEvent {
            error: outcome.as_ref().err().map(ToString::to_string),
            at: SystemTime::now(),
            ..invocation
        }));
        outcome
    }

    async fn run_nodes(
        &self,
        bus: &EventBus,
        mut state: Value,
        invocation_id: &str,
        correlation_id: &str,
        metadata: &Map<String, Value>,
    ) -> Result<Value, InvocationError> {
        for (step, (name, node)) in self.nodes.iter().enumerate() {
            let scope = Scope {
                invocation_id: invocation_id.to_owned(),
                correlation_id: Some(correlation_id.to_owned()),
                node_name: name.clone(),
                namespace: vec![name.clone()],
                attempt_index: 0,
                fan_out_index: None,
                branch_name: None,
                fan_out_index_chain: Vec::new(),
                branch_name_chain: Vec::new(),
                caller_invocation_metadata: (!metadata.is_empty()).then(|| metadata.clone()),
            };
            let started = NodeEvent {
                scope: scope.clone(),
                step,
                error: None,
                error_category: None,
                at: SystemTime::now(),
            };
            bus.dispatch(Event::NodeStarted(started.clone()));
            let context = CallContext {
                scope,
                bus: bus.clone(),
            };
            let result = context.scope(node(state.clone())).await;
            let (error, error_category) = match &result {
                Ok(_) => (None, None),
                Err(error) => (
                    Some(error.to_string()),
                    error.provider_error().map(ProviderError::category),
                ),
            };
            bus.dispatch(Event::NodeCompleted(NodeEvent {
                error,
                error_category,
                at: SystemTime::now(),
                ..started
            }));
            let update = result.map_err(|source| InvocationError::Node {
                node: name.clone(),
                source,
            })?;
            merge(&mut state, update).map_err(|()| InvocationError::BadUpdate { node: name.clone() })?;
        }
        Ok(state)
    }
}

fn merge(state: &mut Value, update: Value) -> Result<(), ()> {
    let Value::Object(update) = update else {
        return if update.is_null() { Ok(()) } else { Err(()) };
    };
    if !state.is_object() {
        *state = Value::Object(Map::new());
    }
    if let Value::Object(state) = state {
        state.extend(update);
    }
    Ok(())
}
