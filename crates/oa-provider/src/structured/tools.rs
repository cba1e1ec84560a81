//! Tool calls checked against the call's declared tools (§4): the named tool exists, the call has an id, and its
//! arguments are a JSON object valid against the tool's `parameters`. Each tool's schema is compiled at most once
//! per call, on the first call that names it, and reused for every attempt and every later call of that tool.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::model::ProviderError;
use crate::model::{Tool, ToolCall};

/// The call's tools with their parameter schemas, compiled lazily once each.
#[derive(Debug)]
pub(crate) struct CheckedTools<'a> {
    tools: &'a [Tool],
    compiled: Vec<OnceLock<Result<oa_schema::Validator, String>>>,
    /// Calls are read as they came, unchecked: the tool-coercion path, whose one call is the answer the content
    /// check validates (with every violation, as `structured_output_invalid`) rather than a tool call to vet.
    unchecked: bool,
}

/// A tool call as read from the wire: the arguments still the provider's text.
#[derive(Debug, Clone, Default)]
pub(crate) struct WireToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
    /// A reasoning-continuity signature the provider put on the call (Gemini's `thoughtSignature`), kept opaque.
    pub(crate) signature: Option<String>,
}

impl<'a> CheckedTools<'a> {
    /// The declared tools of one call; nothing is compiled yet.
    pub(crate) fn new(tools: &'a [Tool]) -> Self {
        Self {
            tools,
            compiled: tools.iter().map(|_| OnceLock::new()).collect(),
            unchecked: false,
        }
    }

    /// Tools whose calls are read unchecked (see the `unchecked` field).
    pub(crate) fn unchecked(tools: &'a [Tool]) -> Self {
        Self {
            unchecked: true,
            ..Self::new(tools)
        }
    }

    /// Checks one wire tool call into a §4 `ToolCall`. A `degraded` response (finish reason `error`) is mapped
    /// without the checks, as §7 asks: its calls are reported as they came.
    pub(crate) fn check(&self, call: WireToolCall, degraded: bool) -> Result<ToolCall, ProviderError> {
        let arguments: Option<Value> = if call.arguments.trim().is_empty() {
            Some(Value::Object(Map::new()))
        } else {
            serde_json::from_str(&call.arguments).ok()
        };
        if !degraded && !self.unchecked {
            let tool_idx = self
                .tools
                .iter()
                .position(|tool| tool.name == call.name)
                .ok_or_else(|| {
                    ProviderError::invalid_response(format!(
                        "tool call names undeclared tool {:?}",
                        call.name
                    ))
                })?;
            if call.id.is_empty() {
                return Err(ProviderError::invalid_response("a tool call has no id"));
            }
            let Some(arguments) = arguments.as_ref().filter(|arguments| arguments.is_object()) else {
                return Err(ProviderError::invalid_response(format!(
                    "tool call {:?}: arguments are not a JSON object",
                    call.id
                )));
            };
            self.check_arguments(tool_idx, &call.id, arguments)?;
        }
        Ok(ToolCall {
            id: call.id,
            name: call.name,
            arguments: arguments.unwrap_or(Value::Null),
            signature: call.signature,
        })
    }

    fn check_arguments(
        &self,
        tool_idx: usize,
        call_id: &str,
        arguments: &Value,
    ) -> Result<(), ProviderError> {
        let tool = &self.tools[tool_idx];
        let compiled = self.compiled[tool_idx].get_or_init(|| {
            #[cfg(test)]
            compile_counter::count();
            oa_schema::Validator::new(&tool.parameters).map_err(|error| error.to_string())
        });
        let validator = compiled.as_ref().map_err(|reason| {
            ProviderError::invalid_response(format!(
                "tool {:?}: parameters cannot be compiled: {reason}",
                tool.name
            ))
        })?;
        validator.validate(arguments).map_err(|violations| {
            ProviderError::invalid_response(format!(
                "tool call {call_id:?}: arguments violate the parameters schema: {}",
                violations.error_message()
            ))
        })
    }
}

#[cfg(test)]
crate::structured::thread_counter!(
    compile_counter,
    compilations,
    "How many tool parameter schemas this thread has compiled (tests pin \"once per call\")."
);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(id: &str, arguments: &str) -> WireToolCall {
        WireToolCall {
            id: id.to_owned(),
            name: "lookup".to_owned(),
            arguments: arguments.to_owned(),
            signature: None,
        }
    }

    #[test]
    fn a_tool_schema_is_compiled_once_however_many_calls_name_it() {
        let tools = [Tool::new(
            "lookup",
            "finds a thing",
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
        )];
        let checked = CheckedTools::new(&tools);
        let before = compilations();
        assert!(checked.check(call("a", r#"{"q": "x"}"#), false).is_ok());
        assert!(checked.check(call("b", r#"{"q": "y"}"#), false).is_ok());
        let error = checked.check(call("c", r#"{"q": 1}"#), false).unwrap_err();
        assert!(error.message().contains("/q"), "{}", error.message());
        assert_eq!(compilations() - before, 1);
    }

    #[test]
    fn undeclared_tools_missing_ids_and_non_object_arguments_are_invalid_responses() {
        let tools = [Tool::new("lookup", "", json!({"type": "object"}))];
        let checked = CheckedTools::new(&tools);
        let mut other = call("a", "{}");
        other.name = "other".to_owned();
        assert!(
            checked
                .check(other.clone(), false)
                .unwrap_err()
                .is_invalid_response()
        );
        assert!(
            checked
                .check(call("", "{}"), false)
                .unwrap_err()
                .is_invalid_response()
        );
        assert!(
            checked
                .check(call("a", "[1]"), false)
                .unwrap_err()
                .is_invalid_response()
        );
        // A degraded response keeps its calls as they came.
        assert_eq!(checked.check(other, true).unwrap().name, "other");
        assert_eq!(
            checked.check(call("a", "{}"), false).unwrap().arguments,
            json!({})
        );
    }
}
