//! Diagnostics the provider emits where the call is made (observability §5.5.7 as proposal 0126 amends it), through
//! the `tracing` facade, so they exist whether or not any observer is attached.
//!
//! No subscriber is installed here: an application (or oa-observe's bridge into OpenTelemetry logs) chooses where
//! the records go. Without a subscriber the record is emitted and dropped, as a log call with no handler is.

use serde_json::Value;

use crate::config::RuntimeConfig;
use crate::error::Category;
use crate::observe::AttemptRecord;
use crate::response::{FinishReason, StructuredOutputPath};

/// The event name of the schema_not_honored diagnostic (observability §7 *Diagnostic event names*).
pub const SCHEMA_NOT_HONORED: &str = "openarmature.structured_output.schema_not_honored";

/// The `tracing` target every oa diagnostic is emitted under, so a subscriber can select them.
pub const DIAGNOSTIC_TARGET: &str = "openarmature";

/// Whether `record` is an attempt the schema_not_honored diagnostic reports (0126 on observability §5.5.7): it
/// failed with `structured_output_invalid` on content that is not well-formed JSON or not a JSON object, on the
/// `native` path, with finish reason `stop`, and its request carried no stop sequence (declared, or under the
/// OpenAI mapping's `stop` key in extras; an empty list or `null` carries none).
pub fn is_schema_not_honored(record: &AttemptRecord<'_>) -> bool {
    let Err(error) = record.outcome else {
        return false;
    };
    let Some(failure) = error.structured_output() else {
        return false;
    };
    error.category() == Category::StructuredOutputInvalid
        && record.structured_output_path == Some(StructuredOutputPath::Native)
        && failure.finish_reason == FinishReason::Stop
        && !carries_stop_sequence(record.request.config)
        && !is_json_object(&failure.output_content)
}

/// Emits the schema_not_honored WARNING record for `record` when [`is_schema_not_honored`] holds; once per call
/// of this function, which the provider makes once per attempt. Never changes the request or the outcome.
pub(crate) fn check_schema_not_honored(record: &AttemptRecord<'_>) {
    if !is_schema_not_honored(record) {
        return;
    }
    tracing::warn!(
        name: "openarmature.structured_output.schema_not_honored",
        target: "openarmature",
        {
            openarmature.llm.provider = record.provider,
            openarmature.llm.model = record.model,
            openarmature.llm.call_id = record.call_id,
            openarmature.llm.attempt_index = u64::from(record.attempt_index),
        },
        "structured output schema not honored: a native-path attempt that finished with stop returned content \
         that is not a JSON object"
    );
}

/// Whether the config carries a stop sequence: a non-empty declared list, or a non-empty `stop` in extras.
fn carries_stop_sequence(config: &RuntimeConfig) -> bool {
    let declared = config
        .stop_sequences
        .as_ref()
        .is_some_and(|sequences| !sequences.is_empty());
    let in_extras = match config.extras.get("stop") {
        None | Some(Value::Null) => false,
        Some(Value::Array(sequences)) => !sequences.is_empty(),
        Some(_) => true,
    };
    declared || in_extras
}

/// Whether `content` parses (with the same parser structured output validates with) to a JSON object.
fn is_json_object(content: &str) -> bool {
    matches!(serde_json::from_str::<Value>(content), Ok(Value::Object(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_sequences_are_read_from_declared_fields_and_extras() {
        let mut config = RuntimeConfig::default();
        assert!(!carries_stop_sequence(&config));
        config.stop_sequences = Some(Vec::new());
        assert!(
            !carries_stop_sequence(&config),
            "an empty declared list carries none"
        );
        config.extras.insert("stop".into(), Value::Array(Vec::new()));
        assert!(
            !carries_stop_sequence(&config),
            "an empty extras list carries none"
        );
        config.extras.insert("stop".into(), Value::Null);
        assert!(!carries_stop_sequence(&config));
        config.extras.insert("stop".into(), Value::from("END"));
        assert!(
            carries_stop_sequence(&config),
            "a single stop string is a sequence"
        );
        config.extras.clear();
        config.stop_sequences = Some(vec!["END".into()]);
        assert!(carries_stop_sequence(&config));
    }

    #[test]
    fn only_objects_count_as_honored_shapes() {
        assert!(is_json_object(r#"{"a": 1}"#));
        assert!(!is_json_object("[1, 2]"));
        assert!(!is_json_object("\"text\""));
        assert!(!is_json_object("```json\n{\"a\": 1}\n```"));
        assert!(!is_json_object(""));
    }
}
