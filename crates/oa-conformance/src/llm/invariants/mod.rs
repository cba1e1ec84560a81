//! The registry of named invariants (conformance-adapter §5.9): each name a fixture uses maps to a
//! predicate over what the call produced. An unknown name fails the case that uses it.

mod managed;
mod retry;
mod streaming;
mod usage;

use oa_provider::Mapping;
use serde_json::Value;

use super::record::{CallRun, CaseRun};
use crate::node::Node;
use managed::{
    declared_temperature_kept, extras_response_format_on_wire, extras_stream_options_on_wire,
    raised_and_unsent,
};
use retry::{
    appended_assistant_is_output, appended_user_is_builder_output, attempt_indices_distinct,
    both_retry_reasons, exhaustion_propagates_final_error, final_structured_output_invalid_propagates,
    non_transient_single_attempt, not_retried_without_reask, override_and_reask_compose,
    override_on_retries_only, reask_makes_retryable, success_after_transient_retry, transcript_accumulates,
    transient_carries_transcript,
};
use streaming::{
    atomic_call_succeeds, category_invalid_request, content_is_concatenation, equals_non_streamed,
    finish_tool_calls_from_chunk, malformed_terminal_counter_nulled, reasoning_into_thinking_block,
    rejected_pre_send, stream_request_flags, terminal_usage_verbatim_on_raw, tool_call_arguments_reassemble,
    tool_calls_equal_non_streamed, usage_and_finish_from_chunks,
};
use usage::{raw_all_counters_verbatim, raw_prompt_tokens_verbatim};

/// A predicate: `Ok` when it holds, `Err(why not)` otherwise.
pub(crate) type Invariant = fn(&CallRun, &CaseRun) -> Result<(), String>;

/// Every invariant the adapter implements, by the name fixtures use.
const REGISTRY: &[(&str, Invariant)] = &[
    // §7.1 call-level retry (056-058, 061-066).
    (
        "call_returns_successful_response_after_transient_retry",
        success_after_transient_retry,
    ),
    ("n_attempts_emit_n_llm_spans", retry::n_attempts_n_records),
    (
        "attempt_index_attribute_distinct_per_span",
        attempt_indices_distinct,
    ),
    (
        "exhaustion_propagates_final_error",
        exhaustion_propagates_final_error,
    ),
    (
        "every_attempt_span_carries_error_category",
        retry::every_attempt_failed,
    ),
    (
        "non_transient_exits_retry_loop_on_first_occurrence",
        non_transient_single_attempt,
    ),
    (
        "exactly_one_attempt_span_for_non_transient",
        retry::one_attempt_record,
    ),
    ("no_backoff_sleep_invoked", retry::no_backoff),
    (
        "base_attempt_uses_caller_config",
        retry::base_attempt_uses_caller_config,
    ),
    (
        "per_attempt_override_applies_to_retries_only",
        override_on_retries_only,
    ),
    ("caller_config_unmutated", retry::caller_config_unmutated),
    ("caller_messages_unmutated", retry::caller_messages_unmutated),
    (
        "reask_makes_structured_output_invalid_retryable",
        reask_makes_retryable,
    ),
    (
        "appended_assistant_message_is_exactly_model_output",
        appended_assistant_is_output,
    ),
    (
        "appended_user_correction_is_exactly_builder_output",
        appended_user_is_builder_output,
    ),
    ("reask_exhausts_max_attempts_budget", retry::reask_exhausts_budget),
    (
        "final_structured_output_invalid_propagates",
        final_structured_output_invalid_propagates,
    ),
    (
        "structured_output_invalid_not_retried_without_reask",
        not_retried_without_reask,
    ),
    ("exactly_one_attempt_issued", retry::exactly_one_request),
    (
        "second_mock_response_never_consumed",
        retry::reply_left_unconsumed,
    ),
    (
        "override_and_reask_compose_on_reask_retries",
        override_and_reask_compose,
    ),
    (
        "reask_transcript_accumulates_across_retries",
        transcript_accumulates,
    ),
    (
        "transient_retry_carries_accumulated_reask_transcript",
        transient_carries_transcript,
    ),
    (
        "retry_reason_discriminates_reask_vs_transient_in_one_loop",
        both_retry_reasons,
    ),
    // §8.1.6 streaming (059, 060, 071).
    (
        "streamed_request_sends_stream_true_and_include_usage",
        stream_request_flags,
    ),
    (
        "assembled_content_is_ordered_concatenation_of_deltas",
        content_is_concatenation,
    ),
    (
        "usage_and_finish_reason_sourced_from_terminal_chunks",
        usage_and_finish_from_chunks,
    ),
    (
        "assembled_response_equals_non_streamed_equivalent",
        equals_non_streamed,
    ),
    (
        "streamed_reasoning_response_shape_identical_to_non_streamed",
        equals_non_streamed,
    ),
    (
        "reassembled_tool_calls_equal_non_streamed_equivalent",
        tool_calls_equal_non_streamed,
    ),
    (
        "streamed_tool_call_arguments_reassemble_and_parse",
        tool_call_arguments_reassemble,
    ),
    (
        "finish_reason_tool_calls_sourced_from_terminal_content_chunk",
        finish_tool_calls_from_chunk,
    ),
    (
        "reasoning_delta_assembles_into_thinking_block",
        reasoning_into_thinking_block,
    ),
    (
        "content_delta_assembles_into_text_block",
        streaming::content_into_text_block,
    ),
    (
        "stream_unsupported_mapping_rejects_pre_send",
        streaming::rejected_pre_send,
    ),
    (
        "rejection_category_is_provider_invalid_request",
        category_invalid_request,
    ),
    ("no_silent_atomic_fallback", streaming::no_request_issued),
    (
        "no_token_events_on_rejected_stream",
        streaming::no_tokens_on_rejection,
    ),
    (
        "atomic_call_unaffected_by_streaming_rejection",
        atomic_call_succeeds,
    ),
    (
        "terminal_chunk_usage_preserved_verbatim_on_raw",
        terminal_usage_verbatim_on_raw,
    ),
    (
        "malformed_terminal_counter_nulled_on_normalized_usage",
        malformed_terminal_counter_nulled,
    ),
    // §7 malformed usage counters (068, 069).
    (
        "raw_usage_prompt_tokens_verbatim_malformed",
        raw_prompt_tokens_verbatim,
    ),
    (
        "raw_usage_all_counters_verbatim_malformed",
        raw_all_counters_verbatim,
    ),
    // §6 managed-field collisions (072-077, 081).
    ("no_request_issued", streaming::no_request_issued),
    (
        "conditionally_managed_response_format_conflict_rejected_pre_send",
        rejected_pre_send,
    ),
    (
        "conditionally_managed_stream_options_conflict_rejected_pre_send",
        rejected_pre_send,
    ),
    (
        "managed_structural_model_conflict_rejected_pre_send",
        rejected_pre_send,
    ),
    (
        "declared_scalar_temperature_conflict_rejected_pre_send",
        rejected_pre_send,
    ),
    (
        "streaming_call_conflicting_stream_rejected_pre_send",
        rejected_pre_send,
    ),
    (
        "unary_call_conflicting_stream_rejected_pre_send",
        rejected_pre_send,
    ),
    (
        "stream_always_managed_on_unary_side",
        streaming::rejected_pre_send,
    ),
    (
        "extras_response_format_neither_dropped_nor_forwarded",
        raised_and_unsent,
    ),
    (
        "stream_options_neither_dropped_nor_forwarded",
        managed::raised_and_unsent,
    ),
    (
        "extras_model_neither_dropped_nor_forwarded",
        managed::raised_and_unsent,
    ),
    (
        "extras_temperature_neither_dropped_nor_forwarded",
        raised_and_unsent,
    ),
    ("stream_neither_dropped_nor_forwarded", managed::raised_and_unsent),
    ("bound_model_not_silently_overridden", managed::bound_model_kept),
    (
        "declared_temperature_not_silently_overridden",
        declared_temperature_kept,
    ),
    (
        "no_schema_response_format_unmanaged_rides_untouched",
        extras_response_format_on_wire,
    ),
    (
        "extras_response_format_on_wire_when_unmanaged",
        extras_response_format_on_wire,
    ),
    (
        "non_streaming_stream_options_unmanaged_rides_untouched",
        extras_stream_options_on_wire,
    ),
    (
        "matching_extras_temperature_no_op",
        managed::declared_temperature_on_wire,
    ),
    (
        "wire_temperature_is_declared_value_once",
        managed::temperature_once,
    ),
    ("wire_stop_is_merged_union", managed::stop_is_merged_union),
    ("declared_stop_first_in_merge_order", managed::declared_stop_first),
    (
        "matching_stop_collapses_to_single_element",
        managed::stop_collapses,
    ),
    (
        "scalar_string_extras_stop_coerced_to_list",
        managed::scalar_stop_coerced,
    ),
    ("matching_extras_stream_no_op", managed::call_succeeded_and_sent),
    ("wire_carries_no_stream_key", managed::no_stream_key),
    (
        "malformed_extras_stop_treated_as_absent",
        managed::stop_is_declared_only,
    ),
    ("wire_stop_is_declared_value_only", managed::stop_is_declared_only),
    (
        "malformed_list_not_salvaged",
        managed::malformed_stop_not_salvaged,
    ),
    ("no_error_raised_on_malformed_extras", managed::call_succeeded),
    // §8.2 / §8.3 managed fields and derived usage (070, 078-080).
    (
        "raw_usage_input_tokens_verbatim_malformed",
        usage::raw_input_tokens_verbatim,
    ),
    (
        "atomic_mapping_extras_stream_conflict_rejected_pre_send",
        rejected_pre_send,
    ),
    ("extras_stream_not_smuggled_to_wire", raised_and_unsent),
    (
        "matching_extras_stream_false_no_op",
        managed::call_succeeded_and_sent,
    ),
    (
        "wire_stop_sequences_is_merged_union",
        managed::stop_is_merged_union,
    ),
    ("declared_first_in_merge_order", managed::declared_stop_first),
    (
        "no_scalar_string_coercion_on_anthropic",
        managed::no_scalar_stop_coercion,
    ),
    (
        "matching_stop_sequences_collapses_to_single_element",
        managed::stop_collapses,
    ),
    (
        "wire_stopSequences_merged_under_generationConfig",
        managed::stop_merged_under_generation_config,
    ),
    (
        "matching_stopSequences_collapses_to_single_element",
        managed::stop_collapses,
    ),
];

/// The predicate named `name`, if the adapter implements it.
pub(crate) fn lookup(name: &str) -> Option<Invariant> {
    REGISTRY
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, predicate)| *predicate)
}

// ---- helpers ----------------------------------------------------------------------------------

pub(super) fn ensure(holds: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if holds { Ok(()) } else { Err(why()) }
}

pub(super) fn response(call: &CallRun) -> Result<&Value, String> {
    call.result
        .as_ref()
        .map_err(|_| crate::llm::expect::describe_result(call))
}

pub(super) fn wire(call: &CallRun, idx: usize) -> Result<Value, String> {
    call.wire(idx).ok_or_else(|| {
        format!(
            "no JSON wire request {idx} ({})",
            crate::llm::expect::describe_result(call)
        )
    })
}

pub(super) fn is_transient(category: &str) -> bool {
    oa_provider::Category::ALL
        .iter()
        .any(|c| c.as_str() == category && c.is_transient())
}

pub(super) fn max_attempts(call: &CallRun) -> Option<usize> {
    let retry = call
        .input
        .get("retry")
        .or_else(|| call.input.get("retry_middleware"))?;
    retry
        .get("max_attempts")
        .and_then(Node::as_i64)
        .and_then(|n| usize::try_from(n).ok())
}

pub(super) fn attempt_category(call: &CallRun, idx: usize) -> Option<&str> {
    call.attempts
        .get(idx)
        .and_then(|a| a.outcome.as_ref().err())
        .and_then(|e| e["category"].as_str())
}

pub(super) fn caller_extras(call: &CallRun) -> &Value {
    &call.caller_config()["extras"]
}

/// The caller's declared stop list, `[]` when unset.
pub(super) fn declared_stop(call: &CallRun) -> Vec<Value> {
    call.caller_config()["stop_sequences"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The stop sequences on the wire, under the mapping's key (`stop`, `stop_sequences`,
/// `generationConfig.stopSequences`); a scalar reads as one element, absent as none.
pub(super) fn wire_stop(call: &CallRun) -> Result<Vec<Value>, String> {
    let wire = wire(call, 0)?;
    Ok(match wire_stop_value(call, &wire) {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    })
}

/// The raw stop value on `wire` under the call's mapping's key.
pub(super) fn wire_stop_value<'v>(call: &CallRun, wire: &'v Value) -> &'v Value {
    match call.mapping {
        Mapping::Gemini => &wire["generationConfig"]["stopSequences"],
        mapping => &wire[mapping.stop_extras_key()],
    }
}

/// The concatenated `delta.<field>` strings of the stream reply this call consumed.
/// The streamed deltas' `field` pieces, concatenated in order. For `content`, a refusal's pieces count as content
/// (0126 on llm-provider §8.1.6: a streamed refusal's pieces are content deltas).
pub(super) fn stream_concat(call: &CallRun, run: &CaseRun, field: &str) -> Option<String> {
    let chunks = stream_chunks(call, run)?;
    let mut text = String::new();
    for chunk in &chunks {
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            let delta = &choice["delta"];
            if let Some(piece) = delta[field].as_str() {
                text.push_str(piece);
            }
            if field == "content"
                && let Some(piece) = delta["refusal"].as_str()
            {
                text.push_str(piece);
            }
        }
    }
    Some(text)
}

pub(super) fn stream_chunks(call: &CallRun, run: &CaseRun) -> Option<Vec<Value>> {
    let idx = call.first_reply_idx + call.requests.len().checked_sub(1)?;
    let reply = run.mock_responses().get(idx).copied()?;
    Some(
        reply
            .get("stream_body")?
            .as_seq()?
            .iter()
            .map(Node::to_json)
            .collect(),
    )
}

pub(super) fn token_concat(call: &CallRun, kind: &str) -> String {
    call.tokens
        .iter()
        .filter(|t| t.kind == kind)
        .map(|t| t.text.as_str())
        .collect()
}

pub(super) fn content_blocks<'v>(response: &'v Value, kind: &str) -> Vec<&'v str> {
    response["message"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == kind)
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// The wire key a declared RuntimeConfig field maps to on the OpenAI wire (§8.1).
pub(super) fn wire_key(declared: &str) -> &str {
    if declared == "stop_sequences" {
        "stop"
    } else {
        declared
    }
}

pub(super) fn render_template(template: &str, error: &Value) -> String {
    template
        .replace("{output_content}", error["output_content"].as_str().unwrap_or(""))
        .replace("{error_message}", error["error_message"].as_str().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique() {
        for (idx, (name, _)) in REGISTRY.iter().enumerate() {
            assert!(
                !REGISTRY[idx + 1..].iter().any(|(other, _)| other == name),
                "{name} twice"
            );
        }
        assert!(lookup("no_request_issued").is_some());
        assert!(lookup("frobnicated").is_none());
    }

    /// Contrasting runs through the real provider and mock: an atomic success, a pre-send rejection,
    /// a transient retry then success, a reask loop, a stream, and a managed-field pass-through.
    const CONTRASTS: &[&str] = &[
        r#"
mock_provider: {responses: [{status: 200, body: {id: a, object: chat.completion, model: test-model, choices: [{index: 0, message: {role: assistant, content: "Hi."}, finish_reason: stop}], usage: {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2}}}]}
call: {operation: complete, messages: [{role: user, content: "Hi"}], config: {temperature: 0.5, stop_sequences: ["x"]}}
"#,
        r#"
mock_provider: {responses: []}
call: {operation: complete, messages: [{role: user, content: "Hi"}], response_schema: {type: object}, config: {extras: {response_format: {type: json_object}}}}
"#,
        r#"
mock_provider: {responses: [{status: 503, body: {error: {message: down}}}, {status: 200, body: {id: b, object: chat.completion, model: test-model, choices: [{index: 0, message: {role: assistant, content: "ok"}, finish_reason: stop}], usage: {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2}}}]}
call: {operation: complete, messages: [{role: user, content: "go"}], retry: {max_attempts: 3, backoff: {type: deterministic, seconds: 0}, per_attempt_override: [{temperature: 0.9}]}}
"#,
        r#"
mock_provider: {responses: [
  {status: 200, body: {id: c, object: chat.completion, model: test-model, choices: [{index: 0, message: {role: assistant, content: "nope"}, finish_reason: stop}], usage: {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2}}},
  {status: 503, body: {error: {message: down}}},
  {status: 200, body: {id: c, object: chat.completion, model: test-model, choices: [{index: 0, message: {role: assistant, content: "{\"v\": 1}"}, finish_reason: stop}], usage: {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2}}}]}
call: {operation: complete, messages: [{role: user, content: "go"}], response_schema: {type: object, properties: {v: {type: integer}}, required: [v]}, retry: {max_attempts: 3, backoff: {type: deterministic, seconds: 0}, reask: {template: "fix: {error_message}"}}}
"#,
        r#"
mock_provider: {responses: [{status: 200, stream_body: [
  {id: d, object: chat.completion.chunk, model: test-model, choices: [{index: 0, delta: {role: assistant, reasoning_content: "hm"}, finish_reason: null}]},
  {id: d, object: chat.completion.chunk, model: test-model, choices: [{index: 0, delta: {tool_calls: [{index: 0, id: t1, function: {name: f, arguments: "{}"}}]}, finish_reason: tool_calls}]},
  {id: d, object: chat.completion.chunk, model: test-model, choices: [], usage: {prompt_tokens: "x", completion_tokens: 1, total_tokens: 2}},
  "[DONE]"]}]}
call: {operation: complete, stream: true, messages: [{role: user, content: "go"}], tools: [{name: f, description: d, parameters: {type: object}}]}
"#,
        r#"
mock_provider: {responses: [{status: 200, body: {id: e, object: chat.completion, model: test-model, choices: [{index: 0, message: {role: assistant, content: "ok"}, finish_reason: stop}], usage: {prompt_tokens: "x", completion_tokens: "y", total_tokens: "z"}}}]}
call: {operation: complete, messages: [{role: user, content: "go"}], config: {temperature: 0.2, extras: {stop: "s", response_format: {type: json_object}, stream_options: {include_usage: true}, temperature: 0.2}}}
"#,
        r#"
mapping: anthropic
mock_provider: {responses: [{status: 200, body: {type: message, id: f, model: claude-test, role: assistant, content: [{type: text, text: "ok"}], stop_reason: end_turn, usage: {input_tokens: "x", output_tokens: 1}}}]}
call: {operation: complete, messages: [{role: user, content: "go"}], config: {max_tokens: 8, stop_sequences: ["STOP"], extras: {stop_sequences: ["END"], stream: false}}}
"#,
        r#"
mapping: gemini
mock_provider: {responses: [{status: 200, body: {candidates: [{content: {role: model, parts: [{text: "ok"}]}, finishReason: STOP}], usageMetadata: {promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2}}}]}
call: {operation: complete, messages: [{role: user, content: "go"}], config: {stop_sequences: ["STOP"], extras: {stopSequences: "END"}}}
"#,
    ];

    /// No invariant is a constant: each one fails on at least one contrasting run, so a fixture case
    /// that passes an invariant has been checked by a predicate that can say no.
    #[test]
    fn every_invariant_can_fail() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let runs: Vec<CaseRun> = CONTRASTS
            .iter()
            .map(|yaml| {
                runtime
                    .block_on(crate::llm::execute(&Node::from_yaml_str(yaml).unwrap()))
                    .unwrap()
            })
            .collect();
        // A correct provider never mutates the caller's request nor repeats an attempt index, so
        // those invariants are shown to fail on a doctored record of the first run instead.
        let mut doctored = runs[0].clone();
        doctored.calls[0].caller_after = (serde_json::json!([]), serde_json::json!({"temperature": 9}));
        let repeated = doctored.calls[0].attempts[0].clone();
        doctored.calls[0].attempts.push(repeated);
        let mut never_failed = Vec::new();
        for (name, predicate) in REGISTRY {
            let fails_somewhere = runs
                .iter()
                .chain([&doctored])
                .any(|run| predicate(&run.calls[0], run).is_err());
            if !fails_somewhere {
                never_failed.push(*name);
            }
        }
        assert!(
            never_failed.is_empty(),
            "these invariants held on every contrasting run: {never_failed:?}"
        );
        // And each contrast makes some invariants hold, so the runs are real, not all failures.
        for (idx, run) in runs.iter().enumerate() {
            let n_holding = REGISTRY
                .iter()
                .filter(|(_, predicate)| predicate(&run.calls[0], run).is_ok())
                .count();
            assert!(
                n_holding > 0,
                "contrast {idx}: no invariant holds ({:?})",
                run.calls[0].result
            );
        }
    }
}
