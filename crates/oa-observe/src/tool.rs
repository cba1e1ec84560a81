//! A tool execution as both observers render it (observability §5.5.11, §8.4.6): one view over the two typed tool
//! events, and the OTel tool span's attributes.

use std::time::{Duration, SystemTime};

use oa_events::{Scope, ToolCallEvent, ToolCallFailedEvent, ToolInvocation};
use opentelemetry::KeyValue;
use serde_json::Value;

use crate::attributes::scope_attributes;
use crate::config::ObserverConfig;
use crate::names;
use crate::truncate::truncate;

/// OTel's semantic-convention fallback for `error.type` when the error has no type of its own.
const OTHER_ERROR: &str = "_OTHER";

/// One tool execution's outcome, borrowed from its terminal event.
pub(crate) struct ToolOutcome<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) tool: &'a ToolInvocation,
    pub(crate) latency_ms: Option<f64>,
    /// When the outcome was known.
    pub(crate) at: SystemTime,
    /// The result, or the error's type and message.
    pub(crate) result: Result<&'a Value, (Option<&'a str>, &'a str)>,
}

impl<'a> From<&'a ToolCallEvent> for ToolOutcome<'a> {
    fn from(event: &'a ToolCallEvent) -> Self {
        Self {
            scope: &event.scope,
            tool: &event.tool,
            latency_ms: event.latency_ms,
            at: event.at,
            result: Ok(&event.result),
        }
    }
}

impl<'a> From<&'a ToolCallFailedEvent> for ToolOutcome<'a> {
    fn from(event: &'a ToolCallFailedEvent) -> Self {
        Self {
            scope: &event.scope,
            tool: &event.tool,
            latency_ms: event.latency_ms,
            at: event.at,
            result: Err((event.error_type.as_deref(), &event.error_message)),
        }
    }
}

impl ToolOutcome<'_> {
    /// When the execution began: the outcome's time less the measured latency.
    pub(crate) fn started_at(&self) -> SystemTime {
        let latency = self
            .latency_ms
            .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
            .unwrap_or_default();
        self.at.checked_sub(latency).unwrap_or(self.at)
    }

    /// The failure's `error.type`: the error's own type, else OTel's `_OTHER`; `None` on success.
    pub(crate) fn error_type(&self) -> Option<&str> {
        self.result
            .as_ref()
            .err()
            .map(|(error_type, _)| error_type.unwrap_or(OTHER_ERROR))
    }

    /// §5.5.11: the §5.6 cross-cutting attributes, the tool's identity (never gated: identifiers, not payload),
    /// `error.type` on failure, and the JSON-encoded arguments and result only when `disable_provider_payload` is
    /// off, each truncated to the cap. No `gen_ai.tool.*` attribute: that Development surface is mirrored, not
    /// emitted, in v1.
    pub(crate) fn span_attributes(&self, config: &ObserverConfig) -> Vec<KeyValue> {
        let mut attributes = scope_attributes(self.scope);
        attributes.push(KeyValue::new(names::TOOL_NAME, self.tool.tool_name.clone()));
        if let Some(id) = &self.tool.tool_call_id {
            attributes.push(KeyValue::new(names::TOOL_CALL_ID, id.clone()));
        }
        if let Some(error_type) = self.error_type() {
            attributes.push(KeyValue::new(names::ERROR_TYPE, error_type.to_owned()));
        }
        if !config.disable_provider_payload {
            if let Some(arguments) = &self.tool.arguments {
                let text = oa_provider::json::canonical_json(&Value::Object(arguments.clone()));
                attributes.push(KeyValue::new(
                    names::TOOL_CALL_ARGUMENTS,
                    truncate(&text, config.payload_cap),
                ));
            }
            if let Ok(result) = self.result {
                let text = oa_provider::json::canonical_json(result);
                attributes.push(KeyValue::new(
                    names::TOOL_CALL_RESULT,
                    truncate(&text, config.payload_cap),
                ));
            }
        }
        attributes
    }
}
