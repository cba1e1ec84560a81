//! The rules that raise a [`Diagnostic`] from an attempt's record (observability §5.5.7 as proposal 0126 amends
//! it), and its emission through the `tracing` facade. The vocabulary (`Diagnostic`, its names and severity) is
//! `call/diagnostic.rs`, which the record itself carries; the rules read the record, so they live apart from it.

use serde_json::Value;

use crate::call::diagnostic::Diagnostic;
use crate::call::hook::AttemptRecord;
use crate::model::{Category, FinishReason, RuntimeConfig, SchemaMode, StructuredOutputPath};

/// Whether `record` is an attempt the schema_not_honored diagnostic reports (0126 on observability §5.5.7): it
/// failed with `structured_output_invalid` on content that is not well-formed JSON or not a JSON object, on the
/// `native` path, with finish reason `stop`, and its request carried no stop sequence (declared, or in extras under
/// the key of the mapping that issued it, [`Mapping::stop_extras_key`](crate::Mapping::stop_extras_key); an empty
/// list or `null` carries none).
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
        && !carries_stop_sequence(record.request.config, record.mapping.stop_extras_key())
        && !failure.failure_class().is_json_object()
}

/// The diagnostics `record` earns, each emitted through `tracing` once; the driver calls this once per attempt and
/// puts the result on the record. Never changes the request or the outcome.
pub(crate) fn raise(record: &AttemptRecord<'_>) -> Vec<Diagnostic> {
    if !is_schema_not_honored(record) {
        return Vec::new();
    }
    emit_schema_not_honored(record);
    vec![Diagnostic::SchemaNotHonored]
}

fn emit_schema_not_honored(record: &AttemptRecord<'_>) {
    tracing::warn!(
        name: "openarmature.structured_output.schema_not_honored",
        target: "openarmature",
        {
            openarmature.llm.provider = record.provider,
            openarmature.llm.model = record.model,
            openarmature.llm.call_id = record.call_id,
            openarmature.llm.attempt_index = u64::from(record.attempt_index),
            openarmature.llm.schema_mode = record.schema_mode.map(SchemaMode::as_str),
            openarmature.llm.schema_version = record.schema_version,
        },
        "{}",
        Diagnostic::SchemaNotHonored.message()
    );
}

/// Whether the config carries a stop sequence: a non-empty declared list, or a non-empty one in extras under
/// `extras_key` (the mapping's wire key).
fn carries_stop_sequence(config: &RuntimeConfig, extras_key: &str) -> bool {
    let declared = config
        .stop_sequences
        .as_ref()
        .is_some_and(|sequences| !sequences.is_empty());
    let in_extras = match config.extras.get(extras_key) {
        None | Some(Value::Null) => false,
        Some(Value::Array(sequences)) => !sequences.is_empty(),
        Some(_) => true,
    };
    declared || in_extras
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_sequences_are_read_from_declared_fields_and_extras() {
        let mut config = RuntimeConfig::default();
        assert!(!carries_stop_sequence(&config, "stop"));
        config.stop_sequences = Some(Vec::new());
        assert!(
            !carries_stop_sequence(&config, "stop"),
            "an empty declared list carries none"
        );
        config.extras.insert("stop".into(), Value::Array(Vec::new()));
        assert!(
            !carries_stop_sequence(&config, "stop"),
            "an empty extras list carries none"
        );
        config.extras.insert("stop".into(), Value::Null);
        assert!(!carries_stop_sequence(&config, "stop"));
        config.extras.insert("stop".into(), Value::from("END"));
        assert!(
            carries_stop_sequence(&config, "stop"),
            "a single stop string is a sequence"
        );
        assert!(
            !carries_stop_sequence(&config, "stopSequences"),
            "another mapping's key is just an extra"
        );
        config.extras.clear();
        config.stop_sequences = Some(vec!["END".into()]);
        assert!(carries_stop_sequence(&config, "stop"));
    }
}
