//! The JSON views of provider results that fixture expectations are compared with.

use oa_provider::{ProviderError, Response};
use serde_json::{Value, json};

/// A `Response` as the fixtures spell it: message, finish_reason, usage, parsed, raw, model,
/// structured_output_path. Every field is present; `None` is `null` (present-null, §5.10).
pub(crate) fn response_json(response: &Response) -> Value {
    json!({
        "message": message_json(&response.message),
        "finish_reason": response.finish_reason.as_str(),
        "usage": serde_json::to_value(response.usage).unwrap_or(Value::Null),
        "parsed": response.parsed,
        "raw": response.raw,
        "model": response.model,
        "structured_output_path": response.structured_output_path.map(|path| path.as_str()),
    })
}

/// A message with `tool_calls` always present (null when none), as the fixtures assert it.
pub(crate) fn message_json(message: &oa_provider::Message) -> Value {
    let mut value = serde_json::to_value(message).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.entry("tool_calls").or_insert(Value::Null);
        map.entry("content").or_insert(Value::Null);
    }
    value
}

/// A `ProviderError` as the `raises` / `carries` assertions read it: its category, message,
/// retry-after, and (for `structured_output_invalid`) the §7 fields.
pub(crate) fn error_json(error: &ProviderError) -> Value {
    let mut value = json!({
        "category": error.category().as_str(),
        "message": error.message(),
        "retry_after_seconds": error.retry_after().map(|wait| wait.as_secs_f64()),
        "structured_output_path": error.structured_output_path().map(|path| path.as_str()),
    });
    if let (Some(failure), Value::Object(map)) = (error.structured_output(), &mut value) {
        map.insert("response_schema".into(), failure.response_schema.clone());
        map.insert(
            "output_content".into(),
            Value::String(failure.output_content.clone()),
        );
        map.insert(
            "error_message".into(),
            Value::String(failure.error_message.clone()),
        );
        map.insert(
            "finish_reason".into(),
            Value::String(failure.finish_reason.as_str().to_owned()),
        );
        map.insert(
            "usage".into(),
            serde_json::to_value(failure.usage).unwrap_or(Value::Null),
        );
    }
    value
}
