//! The registry of named invariants (conformance-adapter §5.9): each name a fixture uses maps to a
//! predicate over what the call produced. An unknown name fails the case that uses it.

use serde_json::Value;

use super::record::{CallRun, CaseRun};
use crate::matcher::short;
use crate::node::Node;

/// A predicate: `Ok` when it holds, `Err(why not)` otherwise.
pub(crate) type Invariant = fn(&CallRun, &CaseRun) -> Result<(), String>;

/// Every invariant the adapter implements, by the name fixtures use.
const REGISTRY: &[(&str, Invariant)] = &[
    // §7.1 call-level retry (056-058, 061-066).
    (
        "call_returns_successful_response_after_transient_retry",
        success_after_transient_retry,
    ),
    ("n_attempts_emit_n_llm_spans", n_attempts_n_records),
    (
        "attempt_index_attribute_distinct_per_span",
        attempt_indices_distinct,
    ),
    (
        "exhaustion_propagates_final_error",
        exhaustion_propagates_final_error,
    ),
    ("every_attempt_span_carries_error_category", every_attempt_failed),
    (
        "non_transient_exits_retry_loop_on_first_occurrence",
        non_transient_single_attempt,
    ),
    ("exactly_one_attempt_span_for_non_transient", one_attempt_record),
    ("no_backoff_sleep_invoked", no_backoff),
    ("base_attempt_uses_caller_config", base_attempt_uses_caller_config),
    (
        "per_attempt_override_applies_to_retries_only",
        override_on_retries_only,
    ),
    ("caller_config_unmutated", caller_config_unmutated),
    ("caller_messages_unmutated", caller_messages_unmutated),
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
    ("reask_exhausts_max_attempts_budget", reask_exhausts_budget),
    (
        "final_structured_output_invalid_propagates",
        final_structured_output_invalid_propagates,
    ),
    (
        "structured_output_invalid_not_retried_without_reask",
        not_retried_without_reask,
    ),
    ("exactly_one_attempt_issued", exactly_one_request),
    ("second_mock_response_never_consumed", reply_left_unconsumed),
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
    ("content_delta_assembles_into_text_block", content_into_text_block),
    ("stream_unsupported_mapping_rejects_pre_send", rejected_pre_send),
    (
        "rejection_category_is_provider_invalid_request",
        category_invalid_request,
    ),
    ("no_silent_atomic_fallback", no_request_issued),
    ("no_token_events_on_rejected_stream", no_tokens_on_rejection),
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
    ("no_request_issued", no_request_issued),
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
    ("stream_always_managed_on_unary_side", rejected_pre_send),
    (
        "extras_response_format_neither_dropped_nor_forwarded",
        raised_and_unsent,
    ),
    ("stream_options_neither_dropped_nor_forwarded", raised_and_unsent),
    ("extras_model_neither_dropped_nor_forwarded", raised_and_unsent),
    (
        "extras_temperature_neither_dropped_nor_forwarded",
        raised_and_unsent,
    ),
    ("stream_neither_dropped_nor_forwarded", raised_and_unsent),
    ("bound_model_not_silently_overridden", bound_model_kept),
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
    ("matching_extras_temperature_no_op", declared_temperature_on_wire),
    ("wire_temperature_is_declared_value_once", temperature_once),
    ("wire_stop_is_merged_union", stop_is_merged_union),
    ("declared_stop_first_in_merge_order", declared_stop_first),
    ("matching_stop_collapses_to_single_element", stop_collapses),
    ("scalar_string_extras_stop_coerced_to_list", scalar_stop_coerced),
    ("matching_extras_stream_no_op", call_succeeded_and_sent),
    ("wire_carries_no_stream_key", no_stream_key),
    ("malformed_extras_stop_treated_as_absent", stop_is_declared_only),
    ("wire_stop_is_declared_value_only", stop_is_declared_only),
    ("malformed_list_not_salvaged", malformed_stop_not_salvaged),
    ("no_error_raised_on_malformed_extras", call_succeeded),
];

/// The predicate named `name`, if the adapter implements it.
pub(crate) fn lookup(name: &str) -> Option<Invariant> {
    REGISTRY
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, predicate)| *predicate)
}

// ---- helpers ----------------------------------------------------------------------------------

fn ensure(holds: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if holds { Ok(()) } else { Err(why()) }
}

fn response(call: &CallRun) -> Result<&Value, String> {
    call.result
        .as_ref()
        .map_err(|_| super::expect::describe_result(call))
}

fn wire(call: &CallRun, idx: usize) -> Result<Value, String> {
    call.wire(idx).ok_or_else(|| {
        format!(
            "no JSON wire request {idx} ({})",
            super::expect::describe_result(call)
        )
    })
}

fn is_transient(category: &str) -> bool {
    oa_provider::Category::ALL
        .iter()
        .any(|c| c.as_str() == category && c.is_transient())
}

fn max_attempts(call: &CallRun) -> Option<usize> {
    let retry = call
        .input
        .get("retry")
        .or_else(|| call.input.get("retry_middleware"))?;
    retry
        .get("max_attempts")
        .and_then(Node::as_i64)
        .and_then(|n| usize::try_from(n).ok())
}

fn attempt_category(call: &CallRun, idx: usize) -> Option<&str> {
    call.attempts
        .get(idx)
        .and_then(|a| a.outcome.as_ref().err())
        .and_then(|e| e["category"].as_str())
}

fn caller_extras(call: &CallRun) -> &Value {
    &call.caller_config()["extras"]
}

/// The caller's declared stop list, `[]` when unset.
fn declared_stop(call: &CallRun) -> Vec<Value> {
    call.caller_config()["stop_sequences"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn wire_stop(call: &CallRun) -> Result<Vec<Value>, String> {
    let wire = wire(call, 0)?;
    Ok(match &wire["stop"] {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    })
}

/// The concatenated `delta.<field>` strings of the stream reply this call consumed.
fn stream_concat(call: &CallRun, run: &CaseRun, field: &str) -> Option<String> {
    let chunks = stream_chunks(call, run)?;
    let mut text = String::new();
    for chunk in &chunks {
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            if let Some(piece) = choice["delta"][field].as_str() {
                text.push_str(piece);
            }
        }
    }
    Some(text)
}

fn stream_chunks(call: &CallRun, run: &CaseRun) -> Option<Vec<Value>> {
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

fn token_concat(call: &CallRun, kind: &str) -> String {
    call.tokens
        .iter()
        .filter(|t| t.kind == kind)
        .map(|t| t.text.as_str())
        .collect()
}

fn content_blocks<'v>(response: &'v Value, kind: &str) -> Vec<&'v str> {
    response["message"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == kind)
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// The wire key a declared RuntimeConfig field maps to on the OpenAI wire (§8.1).
fn wire_key(declared: &str) -> &str {
    if declared == "stop_sequences" {
        "stop"
    } else {
        declared
    }
}

fn render_template(template: &str, error: &Value) -> String {
    template
        .replace("{output_content}", error["output_content"].as_str().unwrap_or(""))
        .replace("{error_message}", error["error_message"].as_str().unwrap_or(""))
}

// ---- retry --------------------------------------------------------------------------------------

fn success_after_transient_retry(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let n = call.attempts.len();
    ensure(n >= 2, || format!("{n} attempts, expected a retry"))?;
    for idx in 0..n - 1 {
        let category = attempt_category(call, idx).unwrap_or("none");
        ensure(is_transient(category), || {
            format!("attempt {idx} ended with {category}, not a transient error")
        })?;
        ensure(call.attempts[idx + 1].retry_reason == Some("transient"), || {
            format!("attempt {} has no transient retry reason", idx + 1)
        })?;
    }
    Ok(())
}

fn n_attempts_n_records(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let n_sent = call.attempts.iter().filter(|a| a.sent).count();
    ensure(n_sent == call.requests.len(), || {
        format!(
            "{n_sent} sent attempt records for {} wire requests",
            call.requests.len()
        )
    })?;
    if let Some(spans) = run
        .case
        .get("expected")
        .and_then(|e| e.get("llm_spans"))
        .and_then(Node::as_seq)
    {
        ensure(spans.len() == call.attempts.len(), || {
            format!(
                "{} attempt records, {} spans expected",
                call.attempts.len(),
                spans.len()
            )
        })?;
    }
    ensure(!call.attempts.is_empty(), || "no attempt record".to_owned())
}

fn attempt_indices_distinct(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let indices: Vec<u32> = call.attempts.iter().map(|a| a.attempt_index).collect();
    let want: Vec<u32> = (0..).take(indices.len()).collect();
    ensure(indices == want, || {
        format!("attempt indices {indices:?}, expected {want:?}")
    })
}

fn exhaustion_propagates_final_error(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let category = call.error_category().ok_or("the call succeeded")?;
    let budget = max_attempts(call).ok_or("no max_attempts")?;
    ensure(call.attempts.len() == budget, || {
        format!("{} attempts, budget {budget}", call.attempts.len())
    })?;
    let last = attempt_category(call, budget - 1).unwrap_or("none");
    ensure(last == category, || {
        format!("raised {category}, last attempt ended with {last}")
    })
}

fn every_attempt_failed(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(!call.attempts.is_empty(), || "no attempts".to_owned())?;
    for idx in 0..call.attempts.len() {
        ensure(attempt_category(call, idx).is_some(), || {
            format!("attempt {idx} has no error category")
        })?;
    }
    Ok(())
}

fn non_transient_single_attempt(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let category = call.error_category().ok_or("the call succeeded")?;
    ensure(!is_transient(category), || format!("{category} is transient"))?;
    ensure(call.attempts.len() == 1 && call.requests.len() == 1, || {
        format!(
            "{} attempts, {} requests; expected one",
            call.attempts.len(),
            call.requests.len()
        )
    })
}

fn one_attempt_record(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.attempts.len() == 1, || {
        format!("{} attempt records", call.attempts.len())
    })
}

fn no_backoff(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.retries.is_empty(), || {
        format!("the retry loop announced {} retries", call.retries.len())
    })
}

fn base_attempt_uses_caller_config(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let wire = wire(call, 0)?;
    let config = call.caller_config().as_object().cloned().unwrap_or_default();
    for (field, value) in config.iter().filter(|(k, _)| *k != "extras") {
        let on_wire = &wire[wire_key(field)];
        ensure(crate::llm::json_equal(on_wire, value), || {
            format!(
                "attempt 0 sends {field}={}, caller set {}",
                short(on_wire),
                short(value)
            )
        })?;
    }
    Ok(())
}

fn overrides(call: &CallRun) -> Vec<Value> {
    call.input
        .get("retry")
        .and_then(|r| r.get("per_attempt_override"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(Node::to_json)
        .collect()
}

fn override_on_retries_only(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let schedule = overrides(call);
    ensure(!schedule.is_empty() && call.requests.len() >= 2, || {
        "no retry with an override happened".to_owned()
    })?;
    let base = wire(call, 0)?;
    for idx in 1..call.requests.len() {
        let wire = wire(call, idx)?;
        let Some(entry) = schedule.get(idx - 1).and_then(Value::as_object) else {
            continue;
        };
        for (field, value) in entry {
            ensure(crate::llm::json_equal(&wire[wire_key(field)], value), || {
                format!(
                    "retry {idx} sends {field}={}, override says {}",
                    short(&wire[wire_key(field)]),
                    short(value)
                )
            })?;
            let caller = &call.caller_config()[field.as_str()];
            ensure(
                crate::llm::json_equal(&base[wire_key(field)], caller)
                    || (caller.is_null() && base.get(wire_key(field)).is_none()),
                || {
                    format!(
                        "attempt 0 sends {field}={}, not the caller's",
                        short(&base[wire_key(field)])
                    )
                },
            )?;
        }
    }
    Ok(())
}

fn caller_config_unmutated(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.caller_before.1 == call.caller_after.1, || {
        "the caller's config changed".to_owned()
    })
}

fn caller_messages_unmutated(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(
        !call.caller_before.0.is_null() && call.caller_before.0 == call.caller_after.0,
        || "the caller's messages changed".to_owned(),
    )
}

fn reask_retries(call: &CallRun) -> Vec<usize> {
    call.attempts
        .iter()
        .filter(|a| a.retry_reason == Some("reask"))
        .map(|a| a.attempt_index as usize)
        .collect()
}

fn reask_makes_retryable(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let retries = reask_retries(call);
    ensure(!retries.is_empty(), || "no reask retry happened".to_owned())?;
    for idx in retries {
        let prior = attempt_category(call, idx - 1).unwrap_or("none");
        ensure(prior == "structured_output_invalid", || {
            format!("reask retry {idx} follows {prior}")
        })?;
    }
    Ok(())
}

/// For each reask retry: (wire request, the prior attempt's error).
fn reask_pairs(call: &CallRun) -> Result<Vec<(Value, Value)>, String> {
    let mut pairs = Vec::new();
    for idx in reask_retries(call) {
        let error = call
            .attempts
            .get(idx - 1)
            .and_then(|a| a.outcome.clone().err())
            .ok_or("reask without a prior error")?;
        pairs.push((wire(call, idx)?, error));
    }
    ensure(!pairs.is_empty(), || "no reask retry happened".to_owned())?;
    Ok(pairs)
}

fn appended_assistant_is_output(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    for (wire, error) in reask_pairs(call)? {
        let messages = wire["messages"].as_array().cloned().unwrap_or_default();
        let assistant = messages
            .len()
            .checked_sub(2)
            .and_then(|i| messages.get(i))
            .ok_or("too few messages")?;
        ensure(
            assistant["role"] == "assistant" && assistant["content"] == error["output_content"],
            || {
                format!(
                    "appended {} is not the model output {}",
                    short(assistant),
                    short(&error["output_content"])
                )
            },
        )?;
    }
    Ok(())
}

fn appended_user_is_builder_output(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let template = call
        .input
        .get("retry")
        .and_then(|r| r.get("reask"))
        .and_then(|r| r.get("template"))
        .and_then(Node::as_str)
        .ok_or("no reask template")?;
    for (wire, error) in reask_pairs(call)? {
        let last = wire["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or(Value::Null);
        let want = render_template(template, &error);
        ensure(last["role"] == "user" && last["content"] == want.as_str(), || {
            format!("appended {} is not the rendered template {want:?}", short(&last))
        })?;
    }
    Ok(())
}

fn reask_exhausts_budget(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let budget = max_attempts(call).ok_or("no max_attempts")?;
    ensure(
        call.attempts.len() == budget && call.requests.len() == budget,
        || format!("{} attempts, budget {budget}", call.attempts.len()),
    )?;
    for idx in 0..budget {
        ensure(
            attempt_category(call, idx) == Some("structured_output_invalid"),
            || format!("attempt {idx} did not fail validation"),
        )?;
    }
    Ok(())
}

fn final_structured_output_invalid_propagates(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let error = call.error().ok_or("the call succeeded")?;
    ensure(error["category"] == "structured_output_invalid", || {
        format!("raised {}", error["category"])
    })?;
    let last = call
        .attempts
        .last()
        .and_then(|a| a.outcome.clone().err())
        .ok_or("no failed attempt")?;
    ensure(last["output_content"] == error["output_content"], || {
        "the raised error is not the last attempt's".to_owned()
    })
}

fn not_retried_without_reask(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.error_category() == Some("structured_output_invalid"), || {
        super::expect::describe_result(call)
    })?;
    ensure(max_attempts(call).unwrap_or(1) > 1, || {
        "no retry budget to refuse".to_owned()
    })?;
    ensure(call.attempts.len() == 1, || {
        format!("{} attempts without reask", call.attempts.len())
    })
}

fn exactly_one_request(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.requests.len() == 1, || {
        format!("{} requests", call.requests.len())
    })
}

fn reply_left_unconsumed(_: &CallRun, run: &CaseRun) -> Result<(), String> {
    ensure(run.n_unconsumed >= 1 && run.n_unanswered == 0, || {
        format!("{} replies left unconsumed", run.n_unconsumed)
    })
}

fn override_and_reask_compose(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let schedule = overrides(call);
    let retries = reask_retries(call);
    ensure(!retries.is_empty(), || "no reask retry".to_owned())?;
    let n_caller = call.caller_before.0.as_array().map_or(0, Vec::len);
    for idx in retries {
        let wire = wire(call, idx)?;
        ensure(wire["messages"].as_array().map_or(0, Vec::len) > n_caller, || {
            format!("retry {idx} appended no messages")
        })?;
        for (field, value) in schedule
            .get(idx - 1)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            ensure(crate::llm::json_equal(&wire[wire_key(field)], value), || {
                format!("retry {idx} lacks override {field}")
            })?;
        }
    }
    Ok(())
}

fn transcript_accumulates(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let n_caller = call.caller_before.0.as_array().map_or(0, Vec::len);
    let mut n_reasks = 0;
    let mut previous: Option<Vec<Value>> = None;
    for idx in 0..call.requests.len() {
        if call.attempts.get(idx).and_then(|a| a.retry_reason) == Some("reask") {
            n_reasks += 1;
        }
        let messages = wire(call, idx)?["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        ensure(messages.len() == n_caller + 2 * n_reasks, || {
            format!(
                "attempt {idx} sends {} messages, expected {}",
                messages.len(),
                n_caller + 2 * n_reasks
            )
        })?;
        if let Some(previous) = &previous {
            ensure(messages.starts_with(previous), || {
                format!("attempt {idx} does not extend the previous transcript")
            })?;
        }
        previous = Some(messages);
    }
    ensure(n_reasks >= 2, || {
        format!("{n_reasks} reask retries; accumulation needs two")
    })
}

fn transient_carries_transcript(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let mut seen = false;
    for attempt in call
        .attempts
        .iter()
        .filter(|a| a.retry_reason == Some("transient") && a.attempt_index > 0)
    {
        let idx = attempt.attempt_index as usize;
        let (now, before) = (wire(call, idx)?, wire(call, idx - 1)?);
        ensure(now["messages"] == before["messages"], || {
            format!("transient retry {idx} changed the transcript")
        })?;
        seen |= reask_retries(call).iter().any(|r| *r < idx);
    }
    ensure(seen, || "no transient retry after a reask".to_owned())
}

fn both_retry_reasons(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let reasons: Vec<&str> = call.attempts.iter().filter_map(|a| a.retry_reason).collect();
    ensure(
        reasons.contains(&"reask") && reasons.contains(&"transient"),
        || format!("retry reasons {reasons:?}"),
    )
}

// ---- streaming ----------------------------------------------------------------------------------

fn stream_request_flags(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let wire = wire(call, 0)?;
    ensure(
        wire["stream"] == true && wire["stream_options"]["include_usage"] == true,
        || {
            format!(
                "stream={} stream_options={}",
                wire["stream"],
                short(&wire["stream_options"])
            )
        },
    )
}

fn content_is_concatenation(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let content = response["message"]["content"]
        .as_str()
        .ok_or("content is not text")?;
    let from_stream = stream_concat(call, run, "content").ok_or("no stream reply")?;
    let from_tokens = token_concat(call, "content");
    ensure(content == from_stream && content == from_tokens, || {
        format!("content {content:?}, stream deltas {from_stream:?}, token events {from_tokens:?}")
    })
}

fn map_finish(wire: &str) -> &str {
    match wire {
        "function_call" => "tool_calls",
        other => other,
    }
}

fn usage_and_finish_from_chunks(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let terminal_usage = chunks
        .iter()
        .rev()
        .find_map(|c| c.get("usage").filter(|u| u.is_object()))
        .ok_or("no usage chunk")?;
    for counter in ["prompt_tokens", "completion_tokens", "total_tokens"] {
        let wire = &terminal_usage[counter];
        let want = if wire.as_u64().is_some() {
            wire.clone()
        } else {
            Value::Null
        };
        ensure(response["usage"][counter] == want, || {
            format!(
                "usage.{counter} is {}, terminal chunk says {}",
                response["usage"][counter],
                short(wire)
            )
        })?;
    }
    let finish = chunks
        .iter()
        .flat_map(|c| c["choices"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["finish_reason"].as_str().map(str::to_owned))
        .next_back()
        .ok_or("no finish_reason chunk")?;
    ensure(response["finish_reason"] == map_finish(&finish), || {
        format!("finish_reason {}, chunks say {finish}", response["finish_reason"])
    })
}

fn equals_non_streamed(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let streamed = response(call)?;
    let atomic = call
        .non_streamed_equivalent
        .as_ref()
        .ok_or("the non-streamed equivalent call failed or could not be built")?;
    for field in ["message", "finish_reason", "usage", "parsed"] {
        ensure(streamed[field] == atomic[field], || {
            format!(
                "{field}: streamed {} vs non-streamed {}",
                short(&streamed[field]),
                short(&atomic[field])
            )
        })?;
    }
    Ok(())
}

fn tool_calls_equal_non_streamed(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let streamed = response(call)?;
    let atomic = call
        .non_streamed_equivalent
        .as_ref()
        .ok_or("no non-streamed equivalent")?;
    let calls = &streamed["message"]["tool_calls"];
    ensure(calls.as_array().is_some_and(|c| !c.is_empty()), || {
        "no tool calls".to_owned()
    })?;
    ensure(*calls == atomic["message"]["tool_calls"], || {
        format!("{} vs {}", short(calls), short(&atomic["message"]["tool_calls"]))
    })
}

fn tool_call_arguments_reassemble(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let atomic = super::stream_equivalent::atomic_body(&chunks).ok_or("empty stream")?;
    let wire_calls = atomic["choices"][0]["message"]["tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let got = response["message"]["tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    ensure(!wire_calls.is_empty() && got.len() == wire_calls.len(), || {
        format!("{} tool calls, stream has {}", got.len(), wire_calls.len())
    })?;
    for (have, wire) in got.iter().zip(&wire_calls) {
        let text = wire["function"]["arguments"].as_str().unwrap_or_default();
        let parsed: Value =
            serde_json::from_str(text).map_err(|e| format!("stream arguments {text:?} do not parse: {e}"))?;
        ensure(have["arguments"] == parsed, || {
            format!("arguments {} vs reassembled {text}", short(&have["arguments"]))
        })?;
    }
    Ok(())
}

fn finish_tool_calls_from_chunk(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let sourced = chunks
        .iter()
        .flat_map(|c| c["choices"].as_array().cloned().unwrap_or_default())
        .any(|c| c["finish_reason"] == "tool_calls");
    ensure(sourced && response["finish_reason"] == "tool_calls", || {
        format!("finish_reason {}", response["finish_reason"])
    })
}

fn reasoning_into_thinking_block(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let want = stream_concat(call, run, "reasoning_content")
        .filter(|t| !t.is_empty())
        .or_else(|| stream_concat(call, run, "reasoning"))
        .unwrap_or_default();
    let blocks = content_blocks(response, "thinking");
    ensure(!want.is_empty() && blocks == [want.as_str()], || {
        format!("thinking blocks {blocks:?}, reasoning deltas {want:?}")
    })?;
    let tokens = token_concat(call, "reasoning");
    ensure(tokens == want, || format!("reasoning token events {tokens:?}"))
}

fn content_into_text_block(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let want = stream_concat(call, run, "content").unwrap_or_default();
    let blocks = content_blocks(response, "text");
    ensure(!want.is_empty() && blocks == [want.as_str()], || {
        format!("text blocks {blocks:?}, content deltas {want:?}")
    })
}

fn rejected_pre_send(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    category_invalid_request(call, &dummy_run())?;
    ensure(
        call.requests.is_empty() && call.attempts.iter().all(|a| !a.sent),
        || format!("{} requests were sent", call.requests.len()),
    )
}

fn dummy_run() -> CaseRun {
    CaseRun {
        case: Node::Null,
        calls: Vec::new(),
        n_unconsumed: 0,
        n_unanswered: 0,
    }
}

fn category_invalid_request(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.error_category() == Some("provider_invalid_request"), || {
        super::expect::describe_result(call)
    })
}

fn no_request_issued(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.requests.is_empty(), || {
        format!("{} requests were sent", call.requests.len())
    })
}

fn no_tokens_on_rejection(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.result.is_err() && call.tokens.is_empty(), || {
        format!(
            "{} token events; {}",
            call.tokens.len(),
            super::expect::describe_result(call)
        )
    })
}

fn atomic_call_succeeds(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let wire = wire(call, 0)?;
    ensure(
        call.requests.len() == 1 && wire.get("stream").is_none_or(|s| s == false),
        || "the atomic call did not go out as one atomic request".to_owned(),
    )
}

fn terminal_usage_verbatim_on_raw(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let usage = chunks
        .iter()
        .rev()
        .find_map(|c| c.get("usage").filter(|u| u.is_object()))
        .ok_or("no usage chunk")?;
    ensure(response["raw"]["usage"] == *usage, || {
        format!(
            "raw.usage {} vs chunk {}",
            short(&response["raw"]["usage"]),
            short(usage)
        )
    })
}

fn malformed_terminal_counter_nulled(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let usage = chunks
        .iter()
        .rev()
        .find_map(|c| c.get("usage").filter(|u| u.is_object()))
        .ok_or("no usage chunk")?;
    let malformed: Vec<&str> = ["prompt_tokens", "completion_tokens", "total_tokens"]
        .into_iter()
        .filter(|c| usage.get(*c).is_some_and(|v| v.as_u64().is_none()))
        .collect();
    ensure(!malformed.is_empty(), || {
        "no malformed counter in the chunk".to_owned()
    })?;
    for counter in malformed {
        ensure(response["usage"][counter].is_null(), || {
            format!("usage.{counter} is {}", response["usage"][counter])
        })?;
    }
    Ok(())
}

// ---- usage --------------------------------------------------------------------------------------

fn raw_counters_verbatim(call: &CallRun, run: &CaseRun, counters: &[&str]) -> Result<(), String> {
    let response = response(call)?;
    let body = run
        .mock_responses()
        .get(call.first_reply_idx)
        .and_then(|r| r.get("body"))
        .map(Node::to_json)
        .ok_or("no mock body")?;
    for counter in counters {
        let sent = &body["usage"][*counter];
        ensure(sent.as_u64().is_none() && !sent.is_null(), || {
            format!("the mock's {counter} is not malformed")
        })?;
        ensure(response["raw"]["usage"][*counter] == *sent, || {
            format!(
                "raw.usage.{counter} is {}, sent {}",
                response["raw"]["usage"][*counter], sent
            )
        })?;
        ensure(response["usage"][*counter].is_null(), || {
            format!("usage.{counter} is {}", response["usage"][*counter])
        })?;
    }
    Ok(())
}

fn raw_prompt_tokens_verbatim(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    raw_counters_verbatim(call, run, &["prompt_tokens"])
}

fn raw_all_counters_verbatim(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    raw_counters_verbatim(call, run, &["prompt_tokens", "completion_tokens", "total_tokens"])
}

// ---- managed fields -----------------------------------------------------------------------------

fn raised_and_unsent(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.result.is_err(), || {
        "the conflict was dropped silently: the call succeeded".to_owned()
    })?;
    ensure(call.requests.is_empty(), || {
        "the conflicting value was sent".to_owned()
    })
}

fn bound_model_kept(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let extras_model = &caller_extras(call)["model"];
    for idx in 0..call.requests.len() {
        let wire = wire(call, idx)?;
        ensure(wire["model"] != *extras_model, || {
            format!("request {idx} carries the extras model")
        })?;
    }
    ensure(call.result.is_err(), || "the conflict did not raise".to_owned())
}

fn declared_temperature_kept(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let declared = &call.caller_config()["temperature"];
    for idx in 0..call.requests.len() {
        let wire = wire(call, idx)?;
        ensure(crate::llm::json_equal(&wire["temperature"], declared), || {
            format!("request {idx} sends temperature {}", wire["temperature"])
        })?;
    }
    ensure(call.result.is_err(), || "the conflict did not raise".to_owned())
}

fn extras_key_on_wire(call: &CallRun, key: &str) -> Result<(), String> {
    response(call)?;
    let wire = wire(call, 0)?;
    let extra = &caller_extras(call)[key];
    ensure(!extra.is_null() && wire[key] == *extra, || {
        format!("wire {key} {} vs extras {}", short(&wire[key]), short(extra))
    })
}

fn extras_response_format_on_wire(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    extras_key_on_wire(call, "response_format")
}

fn extras_stream_options_on_wire(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    extras_key_on_wire(call, "stream_options")
}

fn declared_temperature_on_wire(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let wire = wire(call, 0)?;
    let declared = &call.caller_config()["temperature"];
    ensure(
        !declared.is_null() && crate::llm::json_equal(&wire["temperature"], declared),
        || format!("wire temperature {}", wire["temperature"]),
    )
}

fn temperature_once(call: &CallRun, case: &CaseRun) -> Result<(), String> {
    declared_temperature_on_wire(call, case)?;
    let body = String::from_utf8_lossy(&call.requests[0].body).into_owned();
    let n = body.matches("\"temperature\"").count();
    ensure(n == 1, || {
        format!("\"temperature\" appears {n} times in the wire body")
    })
}

/// The extras `stop` as a list: a string is one element, a list of strings is itself, anything else
/// (malformed) is `None`.
fn extras_stop(call: &CallRun) -> Option<Vec<Value>> {
    match &caller_extras(call)["stop"] {
        Value::String(_) => Some(vec![caller_extras(call)["stop"].clone()]),
        Value::Array(items) if items.iter().all(Value::is_string) => Some(items.clone()),
        _ => None,
    }
}

fn stop_is_merged_union(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let mut want = declared_stop(call);
    for item in extras_stop(call).ok_or("extras stop is malformed")? {
        if !want.contains(&item) {
            want.push(item);
        }
    }
    let got = wire_stop(call)?;
    ensure(got == want, || {
        format!("wire stop {got:?}, merged union {want:?}")
    })
}

fn declared_stop_first(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let declared = declared_stop(call);
    let got = wire_stop(call)?;
    ensure(!declared.is_empty() && got.starts_with(&declared), || {
        format!("wire stop {got:?} does not start with {declared:?}")
    })
}

fn stop_collapses(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let got = wire_stop(call)?;
    let mut unique = got.clone();
    unique.dedup();
    ensure(got.len() == 1 && unique == got, || format!("wire stop {got:?}"))
}

fn scalar_stop_coerced(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let extra = caller_extras(call)["stop"]
        .as_str()
        .ok_or("extras stop is not a string")?
        .to_owned();
    let wire = wire(call, 0)?;
    ensure(
        wire["stop"]
            .as_array()
            .is_some_and(|items| items.contains(&Value::from(extra.clone()))),
        || format!("wire stop {} lacks {extra:?} as an element", short(&wire["stop"])),
    )
}

fn call_succeeded(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call).map(|_| ())
}

fn call_succeeded_and_sent(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    ensure(call.requests.len() == 1, || {
        format!("{} requests", call.requests.len())
    })
}

fn no_stream_key(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let wire = wire(call, 0)?;
    ensure(wire.get("stream").is_none(), || {
        format!("wire carries stream={}", wire["stream"])
    })
}

fn stop_is_declared_only(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let got = wire_stop(call)?;
    let declared = declared_stop(call);
    ensure(got == declared, || {
        format!("wire stop {got:?}, declared {declared:?}")
    })
}

fn malformed_stop_not_salvaged(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let declared = declared_stop(call);
    let got = wire_stop(call)?;
    let extras = caller_extras(call)["stop"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for item in extras.iter().filter(|i| i.is_string() && !declared.contains(i)) {
        ensure(!got.contains(item), || {
            format!("{item} from the malformed extras list reached the wire")
        })?;
    }
    ensure(extras.iter().any(Value::is_string), || {
        "the extras list has no salvageable element to test".to_owned()
    })
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
}
