//! The smallest faithful invocation runtime the observability fixtures need: named async nodes over JSON state,
//! joined by static or conditional edges (graph-engine §2, §3), with caller-supplied or minted invocation ids,
//! correlation ids, caller metadata checked at the boundary (observability §3.4), node started/completed events
//! carrying the §4 error category, and the ambient [`CallContext`](crate::CallContext) set around each node so
//! its provider calls and metadata helpers reach the event layer.
//!
//! It is deliberately small (no fan-out, parallel branches, subgraphs, reducers beyond key-by-key merge, node
//! retry, middleware or suspension) so a fuller graph engine can replace it; nothing below it depends on it.

mod builder;
mod error;

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
use crate::ids::random_uuid;
use crate::metadata::validate_metadata;

use builder::Edge;
pub use builder::{GraphBuilder, Route};
pub use error::{GraphError, InvocationError, NodeError};

type NodeFuture = Pin<Box<dyn Future<Output = Result<Value, NodeError>> + Send>>;
type NodeFn = Arc<dyn Fn(Value) -> NodeFuture + Send + Sync>;
type EdgeFn = Arc<dyn Fn(&Value) -> Result<Route, NodeError> + Send + Sync>;

/// A compiled graph: nodes, one outgoing edge each, an entry. Cheap to clone; invoke it as often as needed, on
/// one bus or several (the observers see each invocation under its own id).
#[derive(Clone)]
pub struct Graph {
    nodes: Vec<(String, NodeFn)>,
    edges: Vec<Edge>,
    entry: usize,
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.nodes.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Graph")
            .field("nodes", &names)
            .field("entry", &self.entry_node())
            .finish()
    }
}

/// What a caller passes to [`Graph::invoke`] besides the state.
#[derive(Debug, Clone, Default)]
pub struct InvokeOptions {
    /// The invocation id (observability §5.1): used verbatim when given (any non-empty URL-safe string), else a
    /// minted UUIDv4.
    pub invocation_id: Option<String>,
    /// The correlation ID (observability §3.1); `None` mints one.
    pub correlation_id: Option<String>,
    /// Caller-supplied invocation metadata (observability §3.4), checked before any work begins.
    pub metadata: Map<String, Value>,
    /// A human-readable label for the invocation (observability §8.6: the Langfuse trace name).
    pub label: Option<String>,
    /// The session the invocation belongs to (the sessions capability's `session_id`): present on every event of
    /// the invocation, so observers stamp it on every span (`openarmature.session_id`, observability §5.6) and
    /// group traces by it (Langfuse `trace.sessionId`, §8.4.1). `None` leaves the invocation unbound. Many
    /// invocations may share one; oa keeps no session store.
    pub session_id: Option<String>,
}

/// How one node's run ended: its update merged and its edge resolved, or the failure that stopped it.
enum Step {
    Next(Route),
    Failed(InvocationError),
}

impl Graph {
    /// A builder.
    pub fn builder() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// The entry node's name.
    pub fn entry_node(&self) -> &str {
        self.nodes
            .get(self.entry)
            .map(|(name, _)| name.as_str())
            .unwrap_or_default()
    }

    /// Runs the graph from its entry over `state`, dispatching events to `bus`, until an edge leads to END.
    /// Returns the final state. Each node's completed event is dispatched after its update merged and its edge
    /// resolved, carrying the failure of any of those steps (graph-engine §3).
    ///
    /// # Errors
    ///
    /// [`InvocationError`]: a rejected invocation id, session id or metadata (before any event), or a node, edge
    /// or routing failure (after its completed event and the invocation's).
    pub async fn invoke(
        &self,
        bus: &EventBus,
        state: Value,
        options: InvokeOptions,
    ) -> Result<Value, InvocationError> {
        validate_metadata(&options.metadata).map_err(InvocationError::InvalidMetadata)?;
        if options.session_id.as_deref() == Some("") {
            return Err(InvocationError::InvalidSessionId);
        }
        let invocation_id = match options.invocation_id {
            Some(id) if is_url_safe(&id) => id,
            Some(_) => return Err(InvocationError::InvalidInvocationId),
            None => random_uuid(),
        };
        // Auto-generated as a UUIDv4 when the caller supplies none (observability §3.1).
        let correlation_id = options.correlation_id.unwrap_or_else(random_uuid);
        let started = InvocationEvent {
            invocation_id: invocation_id.clone(),
            correlation_id: Some(correlation_id.clone()),
            session_id: options.session_id.clone(),
            entry_node: self.entry_node().to_owned(),
            label: options.label,
            metadata: options.metadata.clone(),
            state: state.clone(),
            final_node: None,
            error: None,
            error_category: None,
            at: SystemTime::now(),
        };
        bus.dispatch(Event::InvocationStarted(started.clone()));
        let scope = Scope {
            invocation_id,
            correlation_id: Some(correlation_id),
            session_id: options.session_id,
            node_name: String::new(),
            namespace: Vec::new(),
            attempt_index: 0,
            fan_out_index: None,
            branch_name: None,
            fan_out_index_chain: Vec::new(),
            branch_name_chain: Vec::new(),
            caller_invocation_metadata: (!options.metadata.is_empty()).then_some(options.metadata),
        };
        let context = CallContext::new(scope, bus.clone());
        let (outcome, final_node) = self.run_nodes(&context, state).await;
        bus.dispatch(Event::InvocationCompleted(InvocationEvent {
            metadata: context.metadata_now(),
            state: match &outcome {
                Ok(state) => state.clone(),
                Err(error) => error.state().cloned().unwrap_or(Value::Null),
            },
            final_node: Some(final_node),
            error: outcome.as_ref().err().map(ToString::to_string),
            error_category: outcome.as_ref().err().and_then(InvocationError::category),
            at: SystemTime::now(),
            ..started
        }));
        outcome
    }

    /// Runs nodes from the entry; returns the outcome and the last node run.
    async fn run_nodes(
        &self,
        invocation: &CallContext,
        mut state: Value,
    ) -> (Result<Value, InvocationError>, String) {
        let mut current = self.entry;
        for step in 0.. {
            let Some((name, node)) = self.nodes.get(current) else {
                break;
            };
            let mut context = invocation.clone();
            context.scope = Scope {
                node_name: name.clone(),
                namespace: vec![name.clone()],
                ..invocation.current_scope()
            };
            let started = NodeEvent {
                scope: context.scope.clone(),
                step,
                error: None,
                graph_error: None,
                error_category: None,
                at: SystemTime::now(),
            };
            invocation.bus.dispatch(Event::NodeStarted(started.clone()));
            let result = context.clone().scope(node(state.clone())).await;
            let outcome = self.settle(current, result, &mut state);
            let (error, graph_error, error_category) = match &outcome {
                Step::Next(_) => (None, None, None),
                Step::Failed(error) => (
                    Some(error.to_string()),
                    error.category(),
                    provider_category(error),
                ),
            };
            invocation.bus.dispatch(Event::NodeCompleted(NodeEvent {
                // Metadata added by the node body is in scope for its completed event.
                scope: Scope {
                    caller_invocation_metadata: context.current_scope().caller_invocation_metadata,
                    ..started.scope.clone()
                },
                error,
                graph_error,
                error_category,
                at: SystemTime::now(),
                ..started
            }));
            match outcome {
                Step::Failed(error) => return (Err(error), name.clone()),
                Step::Next(Route::End) => return (Ok(state), name.clone()),
                Step::Next(Route::Node(next)) => {
                    // `settle` resolved the destination, so it is a node of the graph.
                    current = self.index(&next).unwrap_or(usize::MAX);
                }
            }
        }
        (Ok(state), String::new())
    }

    /// Merges a node's result into `state` and resolves its outgoing edge.
    fn settle(&self, current: usize, result: Result<Value, NodeError>, state: &mut Value) -> Step {
        let name = self.nodes[current].0.clone();
        let update = match result {
            Ok(update) => update,
            Err(source) => {
                return Step::Failed(InvocationError::Node {
                    node: name,
                    source,
                    state: state.clone(),
                });
            }
        };
        if merge(state, update).is_err() {
            return Step::Failed(InvocationError::BadUpdate {
                node: name,
                state: state.clone(),
            });
        }
        let route = match &self.edges[current] {
            Edge::Static(route) => route.clone(),
            Edge::Conditional(route) => match route(state) {
                Ok(route) => route,
                Err(source) => {
                    return Step::Failed(InvocationError::Edge {
                        node: name,
                        source,
                        state: state.clone(),
                    });
                }
            },
        };
        match route {
            Route::Node(destination) if self.index(&destination).is_none() => {
                Step::Failed(InvocationError::Routing {
                    node: name,
                    destination,
                    state: state.clone(),
                })
            }
            route => Step::Next(route),
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|(node, _)| node == name)
    }
}

/// The §7 category of the provider error behind a node failure, when one caused it.
fn provider_category(error: &InvocationError) -> Option<oa_provider::Category> {
    match error {
        InvocationError::Node { source, .. } | InvocationError::Edge { source, .. } => {
            source.provider_error().map(ProviderError::category)
        }
        _ => None,
    }
}

/// Observability §5.1: a caller-supplied id is any non-empty URL-safe string (RFC 3986 unreserved characters).
fn is_url_safe(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~'))
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
