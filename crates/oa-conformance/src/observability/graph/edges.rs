//! A case's `edges:` as the runtime's edges: `{from, to}` is static; `{from, condition: {if_field, equals, then,
//! else}}` is conditional; several edges from one node, each but at most one with a `when:` predicate, form one
//! conditional edge (the first `when` that holds wins, else the plain edge; no match is a routing error).

use oa_events::{GraphBuilder, NodeError, Route};
use serde_json::Value;

use crate::node::Node;

/// The sentinel a fixture writes for the runtime's END.
const END: &str = "END";

pub(super) fn wire(mut builder: GraphBuilder, body: &Node) -> Result<GraphBuilder, String> {
    let edges = body.get("edges").and_then(Node::as_seq).unwrap_or_default();
    let mut sources: Vec<&str> = Vec::new();
    for edge in edges {
        let from = edge
            .get("from")
            .and_then(Node::as_str)
            .ok_or("fixture_schema_invalid: an edge without `from`")?;
        if !sources.contains(&from) {
            sources.push(from);
        }
    }
    for from in sources {
        let outgoing: Vec<&Node> = edges
            .iter()
            .filter(|edge| edge.get("from").and_then(Node::as_str) == Some(from))
            .collect();
        builder = match outgoing.as_slice() {
            [edge] if edge.get("condition").is_some() => {
                let condition = if_else(edge.get("condition").unwrap_or(&Node::Null))?;
                builder.conditional_edge(from, move |state| Ok(condition(state)))
            }
            [edge] if edge.get("when").is_none() => builder.edge(from, route(to(edge)?)),
            _ => {
                let branches = when_branches(&outgoing)?;
                builder.conditional_edge(from, move |state| branches(state))
            }
        };
    }
    Ok(builder)
}

fn route(name: &str) -> Route {
    if name == END {
        Route::End
    } else {
        Route::node(name)
    }
}

fn to(edge: &Node) -> Result<&str, String> {
    edge.get("to")
        .and_then(Node::as_str)
        .ok_or_else(|| "fixture_schema_invalid: an edge without `to`".to_owned())
}

type Choose = Box<dyn Fn(&Value) -> Route + Send + Sync>;

/// `condition: {if_field, equals, then, else}` (004).
fn if_else(condition: &Node) -> Result<Choose, String> {
    for (key, _) in condition.as_map().unwrap_or_default() {
        if !["if_field", "equals", "then", "else"].contains(&key.as_str()) {
            return Err(format!("harness_primitive_missing: edge condition.{key}"));
        }
    }
    let field = condition
        .get("if_field")
        .and_then(Node::as_str)
        .ok_or("fixture_schema_invalid: condition.if_field")?
        .to_owned();
    let equals = condition.get("equals").map(Node::to_json).unwrap_or(Value::Null);
    let then = route(condition.get("then").and_then(Node::as_str).unwrap_or(END));
    let otherwise = route(condition.get("else").and_then(Node::as_str).unwrap_or(END));
    Ok(Box::new(move |state| {
        if oa_provider::json::json_equal(&state[&field], &equals) {
            then.clone()
        } else {
            otherwise.clone()
        }
    }))
}

type Predicate = Box<dyn Fn(&Value) -> bool + Send + Sync>;

/// Edges with `when:` predicates in order, then at most one plain edge as the fallback (011).
fn when_branches(
    edges: &[&Node],
) -> Result<impl Fn(&Value) -> Result<Route, NodeError> + Send + Sync + use<>, String> {
    let mut guarded: Vec<(Predicate, Route)> = Vec::new();
    let mut fallback = None;
    for edge in edges {
        let destination = route(to(edge)?);
        match edge.get("when") {
            Some(when) => guarded.push((predicate(when)?, destination)),
            None if fallback.is_none() => fallback = Some(destination),
            None => {
                return Err(format!(
                    "fixture_schema_invalid: two unconditional edges leave {:?}",
                    edge.get("from").and_then(Node::as_str)
                ));
            }
        }
    }
    Ok(move |state: &Value| {
        let chosen = guarded
            .iter()
            .find(|(holds, _)| holds(state))
            .map(|(_, route)| route.clone())
            .or_else(|| fallback.clone());
        // No edge matched: a destination that names no node, which the runtime reports as a routing error.
        Ok(chosen.unwrap_or_else(|| Route::Node(String::new())))
    })
}

/// `when: {field, gt | gte | lt | lte | equals}`; `when: {field}` alone tests truthiness.
fn predicate(when: &Node) -> Result<Predicate, String> {
    let field = when
        .get("field")
        .and_then(Node::as_str)
        .ok_or("fixture_schema_invalid: when.field")?
        .to_owned();
    let mut tests: Vec<Predicate> = Vec::new();
    for (key, operand) in when.as_map().unwrap_or_default() {
        let field = field.clone();
        let operand = operand.to_json();
        let number = operand.as_f64();
        tests.push(match key.as_str() {
            "field" => continue,
            "equals" => {
                Box::new(move |state: &Value| oa_provider::json::json_equal(&state[&field], &operand))
            }
            "gt" | "gte" | "lt" | "lte" => {
                let Some(bound) = number else {
                    return Err(format!("fixture_schema_invalid: when.{key} needs a number"));
                };
                let op = key.clone();
                Box::new(move |state: &Value| {
                    state[&field].as_f64().is_some_and(|value| match op.as_str() {
                        "gt" => value > bound,
                        "gte" => value >= bound,
                        "lt" => value < bound,
                        _ => value <= bound,
                    })
                })
            }
            other => return Err(format!("harness_primitive_missing: edge when.{other}")),
        });
    }
    if tests.is_empty() {
        return Ok(Box::new(move |state: &Value| truthy(&state[&field])));
    }
    Ok(Box::new(move |state: &Value| {
        tests.iter().all(|test| test(state))
    }))
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(entries) => !entries.is_empty(),
    }
}
