//! Builds a case's graph on oa-events' runtime: state defaults and `append` reducers, every node of `nodes:` as a
//! body of its directives (see `directives`), the case's edges (see `edges`), and `calls_llm` providers on the
//! case's mock.

mod directives;
mod edges;
mod llm;
mod mock;
mod raises;
mod tool;

use std::sync::{Arc, Mutex};

use oa_events::Graph;
use oa_provider::Response;
use oa_testkit::Server;
use serde_json::{Map, Value};

pub(crate) use directives::Queryable;
use directives::{Body, Directive};
use llm::{CallSite, LlmCall};
use raises::Raising;

use crate::mock_server;
use crate::node::Node;

/// The graph, its initial state, and the mock it calls (kept alive for the run).
pub(crate) struct Built {
    pub(crate) graph: Graph,
    pub(crate) initial_state: Value,
    /// Every `Response` the graph's calls returned, in order: invariants over the terminal response (its thinking
    /// block, 118) read it.
    pub(crate) responses: Arc<Mutex<Vec<Response>>>,
    /// The case's queryable observers, which nodes read and the bus feeds.
    pub(crate) queryable: Queryable,
    _server: Arc<Server>,
}

pub(crate) async fn build(body: &Node) -> Result<Built, String> {
    let mock = mock::mock_replies(body)?;
    let capabilities = mock.capabilities;
    let server = Arc::new(
        mock_server::start(mock.replies, None)
            .map_err(|error| format!("harness: cannot start the mock: {error}"))?,
    );
    let raising = mock.raised.iter().any(Option::is_some).then(|| Raising {
        server: Arc::clone(&server),
        raised: Arc::new(mock.raised),
    });
    let (initial_state, append_fields) = state(body)?;
    let nodes = body
        .get("nodes")
        .and_then(Node::as_map)
        .ok_or("fixture_schema_invalid: no nodes")?;
    let entry = body
        .get("entry")
        .and_then(Node::as_str)
        .ok_or("fixture_schema_invalid: no entry")?;
    let responses = Arc::new(Mutex::new(Vec::new()));
    let site = CallSite {
        base_url: server.base_url(),
        capabilities,
        default_model: mock::default_model(body),
        system: mock::provider_system(body)?,
        responses: Arc::clone(&responses),
        implied_tools: mock::implied_tools(body),
        raising,
    };
    let queryable = Queryable::from_case(body)?;
    let mut builder = Graph::builder().entry(entry);
    for (name, node) in nodes {
        let external_span = node
            .get("also_emits_via_global_tracer")
            .map(|external| {
                external
                    .get("span_name")
                    .and_then(Node::as_str)
                    .map(str::to_owned)
                    .ok_or("fixture_schema_invalid: also_emits_via_global_tracer needs span_name")
            })
            .transpose()?;
        let mut steps = Vec::new();
        for (directive, spec) in node.as_map().unwrap_or_default() {
            let llm = || LlmCall::from_node(spec, &site);
            steps.extend(Directive::parse(directive, spec, llm)?);
        }
        if external_span.is_some() && !steps.iter().any(|step| matches!(step, Directive::CallLlm(_))) {
            return Err(
                "harness_primitive_missing: also_emits_via_global_tracer without calls_llm".to_owned(),
            );
        }
        let body = Arc::new(Body {
            steps: Body::order(steps),
            append: append_fields.clone(),
            queryable: queryable.clone(),
            external_span,
        });
        builder = builder.node(name.clone(), move |state: Value| {
            let body = Arc::clone(&body);
            async move { body.run(state).await }
        });
    }
    let graph = edges::wire(builder, body)?
        .build()
        .map_err(|error| format!("fixture_schema_invalid: {error}"))?;
    Ok(Built {
        graph,
        initial_state,
        responses,
        queryable,
        _server: server,
    })
}

/// The initial state (field defaults under `initial_state`) and the fields whose reducer is `append`.
fn state(body: &Node) -> Result<(Value, Vec<String>), String> {
    let mut state = Map::new();
    let mut append = Vec::new();
    for (field, spec) in body
        .get("state")
        .and_then(|state| state.get("fields"))
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        state.insert(
            field.clone(),
            spec.get("default").map(Node::to_json).unwrap_or(Value::Null),
        );
        match spec.get("reducer").and_then(Node::as_str) {
            None => {}
            Some("append") => append.push(field.clone()),
            Some(other) => return Err(format!("harness_primitive_missing: reducer {other}")),
        }
    }
    if let Some(initial) = body
        .get("initial_state")
        .map(Node::to_json)
        .and_then(|v| v.as_object().cloned())
    {
        state.extend(initial);
    }
    Ok((Value::Object(state), append))
}

pub(super) fn apply_reducers(state: &Value, update: &Value, append: &[String]) -> Value {
    let Some(update) = update.as_object() else {
        return update.clone();
    };
    let mut merged = update.clone();
    for field in append {
        if let (Some(Value::Array(new)), Some(Value::Array(old))) = (update.get(field), state.get(field)) {
            let mut list = old.clone();
            list.extend(new.iter().cloned());
            merged.insert(field.clone(), Value::Array(list));
        }
    }
    Value::Object(merged)
}
