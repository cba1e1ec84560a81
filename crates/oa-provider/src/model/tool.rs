//! §4 tool definitions and the §5 `tool_choice` constraint.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ProviderError;

/// A tool the model may call (§4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Unique within one call's tools.
    pub name: String,
    /// What the tool does, sent to the model.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema (an object schema) of the argument record.
    pub parameters: Value,
}

impl Tool {
    /// A tool from its three fields.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
        }
    }
}

/// How the model may use tools (§5); absent means the provider's default.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call at least one tool; needs tools.
    Required,
    /// The model must not call tools (a hint the provider may ignore).
    None,
    /// The model must call this tool, which must be among the call's tools.
    Tool {
        /// The forced tool's name.
        name: String,
    },
}

impl ToolChoice {
    /// Reads the spec's JSON form: `"auto"`, `"required"`, `"none"` or `{type: "tool", name}`.
    ///
    /// # Errors
    ///
    /// `provider_invalid_request` for any other shape.
    pub fn from_json(value: &Value) -> Result<Self, ProviderError> {
        match value {
            Value::String(mode) => match mode.as_str() {
                "auto" => Ok(Self::Auto),
                "required" => Ok(Self::Required),
                "none" => Ok(Self::None),
                other => Err(ProviderError::invalid_request(format!(
                    "unknown tool_choice mode {other:?}"
                ))),
            },
            Value::Object(map) => match (map.get("type").and_then(Value::as_str), map.get("name")) {
                (Some("tool"), Some(Value::String(name))) if map.len() == 2 => {
                    Ok(Self::Tool { name: name.clone() })
                }
                _ => Err(ProviderError::invalid_request(
                    "tool_choice record must be {type: \"tool\", name: <string>}",
                )),
            },
            _ => Err(ProviderError::invalid_request(
                "tool_choice must be a mode string or a {type: \"tool\"} record",
            )),
        }
    }

    /// The spec's JSON form.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Auto => Value::from("auto"),
            Self::Required => Value::from("required"),
            Self::None => Value::from("none"),
            Self::Tool { name } => serde_json::json!({"type": "tool", "name": name}),
        }
    }
}
