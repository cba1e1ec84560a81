//! Building a [`Graph`]: named nodes, the entry, and exactly one outgoing edge per node, static or conditional
//! (graph-engine §2). A graph declared without edges runs its nodes in the order added.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::error::{GraphError, NodeError};
use super::{EdgeFn, Graph, NodeFn};

/// Where an edge leads: a node, or the END sentinel (a distinct value, so a node may be called `"END"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Route {
    /// The node of this name.
    Node(String),
    /// Halt and return the state.
    End,
}

impl Route {
    /// The route to the node `name`.
    pub fn node(name: impl Into<String>) -> Self {
        Self::Node(name.into())
    }
}

/// A node's outgoing edge.
#[derive(Clone)]
pub(super) enum Edge {
    /// Always the same destination.
    Static(Route),
    /// A function of the post-update state; a destination that is not a node of the graph is a routing error.
    Conditional(EdgeFn),
}

/// Builds a [`Graph`].
///
/// ```
/// use oa_events::{Graph, GraphError, Route};
/// use serde_json::json;
///
/// let graph = Graph::builder()
///     .node("pick", |_| async { Ok(json!({"n": 2})) })
///     .node("even", |_| async { Ok(json!({"parity": "even"})) })
///     .node("odd", |_| async { Ok(json!({"parity": "odd"})) })
///     .conditional_edge("pick", |state| {
///         Ok(if state["n"].as_i64() == Some(2) { Route::node("even") } else { Route::node("odd") })
///     })
///     .edge("even", Route::End)
///     .edge("odd", Route::End)
///     .build()?;
/// # let _ = graph;
/// let unrouted = Graph::builder()
///     .node("a", |_| async { Ok(json!({})) })
///     .node("b", |_| async { Ok(json!({})) })
///     .edge("a", Route::node("b"))
///     .build();
/// assert_eq!(unrouted.unwrap_err(), GraphError::MissingEdge("b".into()));
/// # Ok::<(), GraphError>(())
/// ```
#[derive(Default)]
pub struct GraphBuilder {
    nodes: Vec<(String, NodeFn)>,
    edges: Vec<(String, Edge)>,
    entry: Option<String>,
}

impl fmt::Debug for GraphBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GraphBuilder")
            .field("n_nodes", &self.nodes.len())
            .field("n_edges", &self.edges.len())
            .field("entry", &self.entry)
            .finish()
    }
}

impl GraphBuilder {
    /// Adds a node. It returns a state update (a JSON object merged key by key into the state, or null for none).
    pub fn node<F, Fut>(mut self, name: impl Into<String>, node: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, NodeError>> + Send + 'static,
    {
        let node: NodeFn = Arc::new(move |state| Box::pin(node(state)));
        self.nodes.push((name.into(), node));
        self
    }

    /// The entry node (default: the first node added).
    pub fn entry(mut self, name: impl Into<String>) -> Self {
        self.entry = Some(name.into());
        self
    }

    /// A static edge from `from` to `to`.
    pub fn edge(mut self, from: impl Into<String>, to: Route) -> Self {
        self.edges.push((from.into(), Edge::Static(to)));
        self
    }

    /// A conditional edge from `from`: `route` receives the state after `from`'s update merged and returns the
    /// destination; its `Err` is an `edge_exception`.
    pub fn conditional_edge<F>(mut self, from: impl Into<String>, route: F) -> Self
    where
        F: Fn(&Value) -> Result<Route, NodeError> + Send + Sync + 'static,
    {
        self.edges.push((from.into(), Edge::Conditional(Arc::new(route))));
        self
    }

    /// The graph. Without any edge declared, each node's edge leads to the node added after it and the last one
    /// to END.
    ///
    /// # Errors
    ///
    /// [`GraphError`] for an empty graph, a duplicate node name, an edge or entry naming no node, or (when edges
    /// are declared) a node with no outgoing edge or with more than one.
    pub fn build(self) -> Result<Graph, GraphError> {
        if self.nodes.is_empty() {
            return Err(GraphError::Empty);
        }
        let index = |name: &str| self.nodes.iter().position(|(node, _)| node == name);
        for (idx, (name, _)) in self.nodes.iter().enumerate() {
            if self.nodes[..idx].iter().any(|(other, _)| other == name) {
                return Err(GraphError::DuplicateNode(name.clone()));
            }
        }
        let entry = match &self.entry {
            Some(name) => index(name).ok_or_else(|| GraphError::UnknownNode(name.clone()))?,
            None => 0,
        };
        let edges = if self.edges.is_empty() {
            let n_nodes = self.nodes.len();
            (0..n_nodes)
                .map(|idx| match self.nodes.get(idx + 1) {
                    Some((next, _)) => Edge::Static(Route::Node(next.clone())),
                    None => Edge::Static(Route::End),
                })
                .collect()
        } else {
            let mut edges: Vec<Option<Edge>> = vec![None; self.nodes.len()];
            for (from, edge) in &self.edges {
                let idx = index(from).ok_or_else(|| GraphError::UnknownNode(from.clone()))?;
                if let Edge::Static(Route::Node(to)) = edge
                    && index(to).is_none()
                {
                    return Err(GraphError::UnknownNode(to.clone()));
                }
                if edges[idx].replace(edge.clone()).is_some() {
                    return Err(GraphError::DuplicateEdge(from.clone()));
                }
            }
            edges
                .into_iter()
                .zip(&self.nodes)
                .map(|(edge, (name, _))| edge.ok_or_else(|| GraphError::MissingEdge(name.clone())))
                .collect::<Result<_, _>>()?
        };
        Ok(Graph {
            nodes: self.nodes,
            edges,
            entry,
        })
    }
}
