//! A `calls_tool` directive (the observability fixtures' self-documented harness vocabulary, 092's header): the
//! node enters graph-engine §6's tool-call instrumentation scope ([`oa_events::call_tool`]) around a mock tool,
//! which returns `mock_tool.returns` or raises `mock_tool.raises: {error_type, message}`; the result goes to
//! `stores_result_in`, a raise propagates out of the node (`node_exception`).

use oa_events::{NodeError, ToolFailure, ToolInvocation, call_tool};
use serde_json::{Map, Value};

use crate::node::Node;
use crate::observability::support::CALLS_TOOL_KEYS;

/// One `calls_tool` directive.
#[derive(Debug)]
pub(super) struct ToolCall {
    tool: ToolInvocation,
    outcome: Result<Value, ToolFailure>,
    stores_result_in: Option<String>,
}

impl ToolCall {
    /// `calls_tool: {tool_name, tool_call_id?, arguments?, mock_tool: {returns | raises}, stores_result_in?}`.
    pub(super) fn from_node(spec: &Node) -> Result<Self, String> {
        let invalid = |what: &str| format!("fixture_schema_invalid: calls_tool.{what}");
        for (key, _) in spec.as_map().ok_or_else(|| invalid("(a mapping)"))? {
            if !CALLS_TOOL_KEYS.contains(&key.as_str()) {
                return Err(format!("harness_primitive_missing: calls_tool.{key}"));
            }
        }
        let tool_name = spec
            .get("tool_name")
            .and_then(Node::as_str)
            .ok_or_else(|| invalid("tool_name"))?;
        let mut tool = ToolInvocation::new(tool_name);
        match spec.get("tool_call_id") {
            None | Some(Node::Null) => {}
            Some(Node::Str(id)) => tool = tool.with_tool_call_id(id.clone()),
            Some(_) => return Err(invalid("tool_call_id")),
        }
        match spec.get("arguments").map(Node::to_json) {
            None | Some(Value::Null) => {}
            Some(arguments @ Value::Object(_)) => tool = tool.with_arguments(arguments),
            Some(_) => return Err(invalid("arguments")),
        }
        let mock = spec.get("mock_tool").ok_or_else(|| invalid("mock_tool"))?;
        let outcome = match (mock.get("returns"), mock.get("raises")) {
            (Some(returns), None) => Ok(returns.to_json()),
            (None, Some(raises)) => {
                for (key, _) in raises.as_map().unwrap_or_default() {
                    if !["error_type", "message"].contains(&key.as_str()) {
                        return Err(format!(
                            "harness_primitive_missing: calls_tool.mock_tool.raises.{key}"
                        ));
                    }
                }
                Err(ToolFailure {
                    error_type: raises.get("error_type").and_then(Node::as_str).map(str::to_owned),
                    message: raises
                        .get("message")
                        .and_then(Node::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                })
            }
            _ => return Err(invalid("mock_tool (exactly one of returns, raises)")),
        };
        Ok(Self {
            tool,
            outcome,
            stores_result_in: spec
                .get("stores_result_in")
                .and_then(Node::as_str)
                .map(str::to_owned),
        })
    }

    /// Runs the mock tool inside the instrumentation scope: the state update, or the tool's failure.
    pub(super) async fn run(&self) -> Result<Map<String, Value>, NodeError> {
        let outcome = self.outcome.clone();
        let result = call_tool(self.tool.clone(), async move { outcome }).await?;
        let mut update = Map::new();
        if let Some(field) = &self.stores_result_in {
            update.insert(field.clone(), result);
        }
        Ok(update)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<ToolCall, String> {
        ToolCall::from_node(&Node::from_yaml_str(yaml).unwrap())
    }

    #[test]
    fn the_directive_is_read_whole_and_refuses_what_it_does_not_know() {
        let call = parse("{tool_name: t, tool_call_id: c1, arguments: {q: x}, mock_tool: {returns: 1}, stores_result_in: out}")
            .unwrap();
        assert_eq!(call.tool.tool_call_id.as_deref(), Some("c1"));
        assert_eq!(call.outcome, Ok(Value::from(1)));
        let raising = parse("{tool_name: t, mock_tool: {raises: {error_type: E, message: m}}}").unwrap();
        assert_eq!(raising.outcome, Err(ToolFailure::new("E", "m")));
        assert_eq!(raising.tool.tool_call_id, None);
        assert!(
            parse("{tool_name: t, mock_tool: {}}")
                .unwrap_err()
                .contains("exactly one")
        );
        assert!(
            parse("{mock_tool: {returns: 1}}")
                .unwrap_err()
                .contains("tool_name")
        );
        assert!(
            parse("{tool_name: t, arguments: [1], mock_tool: {returns: 1}}")
                .unwrap_err()
                .contains("arguments")
        );
        assert_eq!(
            parse("{tool_name: t, mock_tool: {raises: {error_type: E, message_repeat: {}}}}").unwrap_err(),
            "harness_primitive_missing: calls_tool.mock_tool.raises.message_repeat"
        );
        assert_eq!(
            parse("{tool_name: t, mock_tool: {returns: 1}, retries: 2}").unwrap_err(),
            "harness_primitive_missing: calls_tool.retries"
        );
    }
}
