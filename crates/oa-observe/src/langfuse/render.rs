//! The §8.4 field mapping, as pure functions of the events: the trace id derivation, trace and observation
//! metadata, a Generation from a call's terminal event (§8.4.3, §8.7, and 0118's gating of a failed
//! Generation's error message, which proposal 0126 presumes) and a Tool from a tool execution's (§8.4.6).

use std::time::{Duration, SystemTime};

use oa_events::{InvocationEvent, LlmRequest, LlmResponseFields, Scope};
use oa_provider::FinishReason;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::config::LangfuseConfig;
use super::model::{Level, ObservationRecord, ObservationType, Usage};
use crate::names;
use crate::tool::ToolOutcome;
use crate::truncate::truncate;

/// §8.4.1: a UUID invocation id's 32-hex form (dashes stripped, lowercase); any other id's first 16 bytes of
/// SHA-256 as hex (Langfuse's own `create_trace_id(seed)`). The flag says whether it was derived by hashing.
pub(crate) fn trace_id(invocation_id: &str) -> (String, bool) {
    if is_uuid(invocation_id) {
        return (invocation_id.replace('-', "").to_ascii_lowercase(), false);
    }
    let digest = Sha256::digest(invocation_id.as_bytes());
    (
        digest[..16].iter().map(|byte| format!("{byte:02x}")).collect(),
        true,
    )
}

/// The canonical 8-4-4-4-12 hex form.
fn is_uuid(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// §8.4.1 trace metadata: the caller's keys, then OA's (which win: §3.4 reserves their names).
pub(crate) fn trace_metadata(event: &InvocationEvent, derived_id: bool) -> Map<String, Value> {
    let mut metadata = event.metadata.clone();
    if let Some(correlation_id) = &event.correlation_id {
        metadata.insert("correlation_id".into(), json!(correlation_id));
    }
    metadata.insert("entry_node".into(), json!(event.entry_node));
    metadata.extend(identity());
    if derived_id {
        metadata.insert("invocation_id".into(), json!(event.invocation_id));
    }
    metadata
}

/// The runtime-identity rows every trace carries, whatever the privacy settings (§5.1's always-emit invariant).
pub(crate) fn identity() -> Map<String, Value> {
    let mut identity = Map::new();
    identity.insert("spec_version".into(), json!(oa_events::SPEC_VERSION));
    identity.insert(
        "implementation_name".into(),
        json!(oa_events::IMPLEMENTATION_NAME),
    );
    identity.insert(
        "implementation_version".into(),
        json!(oa_events::IMPLEMENTATION_VERSION),
    );
    identity
}

/// §8.4.2 observation metadata: the caller's keys in scope, the correlation id, and the node's identity.
pub(crate) fn observation_metadata(scope: &Scope, step: Option<usize>) -> Map<String, Value> {
    let mut metadata = scope.caller_invocation_metadata.clone().unwrap_or_default();
    if let Some(correlation_id) = &scope.correlation_id {
        metadata.insert("correlation_id".into(), json!(correlation_id));
    }
    if !scope.namespace.is_empty() {
        metadata.insert("namespace".into(), json!(scope.namespace));
    }
    if let Some(step) = step {
        metadata.insert("step".into(), json!(step));
    }
    metadata.insert("attempt_index".into(), json!(scope.attempt_index));
    metadata
}

/// The trace's input and output when state payload is off: §8.4.1's privacy-safe stub.
pub(crate) fn stub_input(event: &InvocationEvent) -> Value {
    json!({"entry_node": event.entry_node, "correlation_id": event.correlation_id})
}

/// See [`stub_input`].
pub(crate) fn stub_output(event: &InvocationEvent) -> Value {
    let status = if event.error.is_some() {
        "failed"
    } else {
        "completed"
    };
    json!({"final_node": event.final_node, "status": status})
}

/// A payload value under the cap: the value itself when its canonical JSON fits, else the truncated text with
/// its marker (§8.7: the unparseable string is the truncation signal).
pub(crate) fn capped(value: &Value, cap: usize) -> Value {
    let text = oa_provider::json::canonical_json(value);
    let cut = truncate(&text, cap);
    if cut.len() == text.len() {
        value.clone()
    } else {
        Value::String(cut)
    }
}

/// How a call ended, as the terminal event reports it.
pub(crate) struct CallOutcome<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) request: &'a LlmRequest,
    pub(crate) response: &'a LlmResponseFields,
    pub(crate) latency_ms: Option<f64>,
    /// The §7 category, the vendor's error type and the message, on failure.
    pub(crate) failure: Option<(&'a str, Option<&'a str>, &'a str)>,
}

/// §8.4.3: the one Generation of a call, under `parent` in `trace_id`, ending `now`.
pub(crate) fn generation(
    outcome: &CallOutcome<'_>,
    config: &LangfuseConfig,
    ids: (String, String, Option<String>),
    now: SystemTime,
) -> ObservationRecord {
    let (id, trace_id, parent) = ids;
    let CallOutcome {
        scope,
        request,
        response,
        ..
    } = outcome;
    let latency = outcome
        .latency_ms
        .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
        .unwrap_or_default();
    let mut metadata = observation_metadata(scope, None);
    metadata.insert("system".into(), json!(request.provider));
    // oa's choice (0126 open question 4): the structured-output path and the enforcement marker, classifications
    // rather than payload, so ungated.
    if let Some(path) = request.structured_output_path {
        metadata.insert("structured_output_path".into(), json!(path.as_str()));
    }
    if let Some(mode) = request.schema_mode {
        metadata.insert("schema_mode".into(), json!(mode.as_str()));
    }
    if let Some(version) = &request.schema_version {
        metadata.insert("schema_version".into(), json!(version));
    }
    if let Some(finish_reason) = response.finish_reason {
        metadata.insert("finish_reason".into(), json!(finish_reason.as_str()));
    }
    if let Some(model) = &response.response_model {
        metadata.insert("response_model".into(), json!(model));
    }
    if let Some(id) = &response.response_id {
        metadata.insert("response_id".into(), json!(id));
    }
    let payload = config.provider_payload();
    if payload && !request.request_extras.is_empty() {
        metadata.insert(
            "request_extras".into(),
            capped(&Value::Object(request.request_extras.clone()), config.payload_cap),
        );
    }
    let (level, status_message) = match outcome.failure {
        Some((category, error_type, message)) => {
            if let Some(error_type) = error_type {
                metadata.insert("error_type".into(), json!(error_type));
            }
            // 0118, presumed by 0126: the message can quote the model's output, so it is payload.
            if payload {
                metadata.insert(
                    "error_message".into(),
                    json!(truncate(message, config.payload_cap)),
                );
            }
            (Level::Error, Some(category.to_owned()))
        }
        None => match response.finish_reason {
            // §8.4.3's RECOMMENDED soft-error level for a cut-off or filtered completion.
            Some(reason @ (FinishReason::Length | FinishReason::ContentFilter)) => (
                Level::Warning,
                Some(format!("finish_reason: {}", reason.as_str())),
            ),
            _ => (Level::Default, None),
        },
    };
    let output = response
        .output_content
        .as_deref()
        .filter(|_| payload)
        .map(|content| Value::String(truncate(content, config.payload_cap)));
    ObservationRecord {
        id,
        trace_id,
        parent_observation_id: parent,
        kind: ObservationType::Generation,
        name: names::LLM_SPAN.to_owned(),
        start_time: now.checked_sub(latency).unwrap_or(now),
        end_time: Some(now),
        metadata,
        level,
        status_message,
        input: payload.then(|| capped(&Value::Array(request.input_messages.clone()), config.payload_cap)),
        output,
        model: Some(request.model.to_string()),
        model_parameters: request.request_params.clone(),
        usage: response.usage.map(|usage| Usage {
            input: usage.prompt_tokens,
            output: usage.completion_tokens,
            total: usage.total_tokens,
        }),
    }
}

/// §8.4.6: the Tool observation of one tool execution, under `parent` in `trace_id`. The tool's name and call id
/// are metadata (identifiers, never gated); the arguments and result are its input and output, and a failure's
/// message its `metadata.error_message` and status message, only when provider payload is on, each capped by
/// this observer's own cap (§8.7). A failure's `error_type` is never withheld: a Tool failure has no category, so
/// it is the only failure discriminator, and with payload off the status message stays empty rather than carry
/// the withheld message (§6's anti-smuggling clause).
pub(crate) fn tool_observation(
    outcome: &ToolOutcome<'_>,
    config: &LangfuseConfig,
    ids: (String, String, Option<String>),
) -> ObservationRecord {
    let (id, trace_id, parent) = ids;
    let payload = config.provider_payload();
    let mut metadata = observation_metadata(outcome.scope, None);
    metadata.insert("openarmature_tool_name".into(), json!(outcome.tool.tool_name));
    if let Some(call_id) = &outcome.tool.tool_call_id {
        metadata.insert("openarmature_tool_call_id".into(), json!(call_id));
    }
    let (level, status_message, output) = match outcome.result {
        Ok(result) => (
            Level::Default,
            None,
            payload.then(|| capped(result, config.payload_cap)),
        ),
        Err((error_type, message)) => {
            if let Some(error_type) = error_type {
                metadata.insert("error_type".into(), json!(error_type));
            }
            let message = payload.then(|| truncate(message, config.payload_cap));
            if let Some(message) = &message {
                metadata.insert("error_message".into(), json!(message));
            }
            (Level::Error, message, None)
        }
    };
    let input = outcome
        .tool
        .arguments
        .as_ref()
        .filter(|_| payload)
        .map(|arguments| capped(&Value::Object(arguments.clone()), config.payload_cap));
    ObservationRecord {
        id,
        trace_id,
        parent_observation_id: parent,
        kind: ObservationType::Tool,
        name: names::TOOL_SPAN.to_owned(),
        start_time: outcome.started_at(),
        end_time: Some(outcome.at),
        metadata,
        level,
        status_message,
        input,
        output,
        model: None,
        model_parameters: Map::new(),
        usage: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_ids_follow_section_8_4_1() {
        assert_eq!(
            trace_id("550e8400-e29b-41d4-a716-446655440000"),
            ("550e8400e29b41d4a716446655440000".to_owned(), false)
        );
        // Fixture 036's worked example: sha256("run_abc123")[:16].hex().
        assert_eq!(
            trace_id("run_abc123"),
            ("29b50a6c08dabfeaeb1696301f4fabe1".to_owned(), true)
        );
        // Not the canonical grouping: hashed.
        assert!(trace_id("550e8400e29b41d4a716446655440000").1);
    }

    #[test]
    fn a_failed_generations_error_message_is_payload_capped_and_its_type_is_not() {
        let scope = Scope {
            invocation_id: "i".into(),
            correlation_id: None,
            session_id: None,
            node_name: "ask".into(),
            namespace: vec!["ask".into()],
            attempt_index: 0,
            fan_out_index: None,
            branch_name: None,
            fan_out_index_chain: Vec::new(),
            branch_name_chain: Vec::new(),
            caller_invocation_metadata: None,
        };
        let request = LlmRequest {
            provider: "openai".into(),
            model: "m".into(),
            call_id: "c".into(),
            input_messages: Vec::new(),
            request_params: Map::new(),
            request_extras: Map::new(),
            structured_output_path: None,
            schema_mode: None,
            schema_version: None,
            schema_account: None,
            active_prompt: None,
            active_prompt_group: None,
            token_budget: None,
        };
        let response = LlmResponseFields {
            response_model: None,
            response_id: None,
            usage: None,
            finish_reason: None,
            output_content: None,
            output_tool_calls: None,
        };
        let message = "v".repeat(1000);
        let outcome = CallOutcome {
            scope: &scope,
            request: &request,
            response: &response,
            latency_ms: Some(5.0),
            failure: Some(("provider_unavailable", Some("server_error"), &message)),
        };
        let ids = || ("o".to_owned(), "t".to_owned(), None);
        let now = SystemTime::now();
        let off = generation(&outcome, &LangfuseConfig::default(), ids(), now);
        assert_eq!(off.metadata["error_type"], "server_error");
        assert!(!off.metadata.contains_key("error_message"));
        assert_eq!(off.status_message.as_deref(), Some("provider_unavailable"));
        assert_eq!(off.start_time + Duration::from_millis(5), now);
        let on = LangfuseConfig::builder()
            .disable_provider_payload(false)
            .payload_cap(300)
            .build()
            .unwrap();
        let on = generation(&outcome, &on, ids(), now);
        let capped = on.metadata["error_message"].as_str().unwrap();
        assert!(
            capped.len() <= 300 && capped.ends_with("[truncated, 1000 bytes total]"),
            "{capped}"
        );
    }

    #[test]
    fn a_payload_over_the_cap_becomes_its_truncated_text() {
        let small = json!([{"role": "user", "content": "hi"}]);
        assert_eq!(capped(&small, 256), small);
        let big = json!([{"role": "user", "content": "x".repeat(500)}]);
        let Value::String(text) = capped(&big, 256) else {
            panic!("expected the truncated text");
        };
        assert!(text.len() <= 256 && text.ends_with("bytes total]"));
    }
}
