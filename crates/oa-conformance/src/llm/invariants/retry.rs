//! Invariants of §7.1 call-level retry: transient retry, exhaustion, per-attempt overrides, reask.

use serde_json::Value;

use super::*;
use crate::llm::record::{CallRun, CaseRun};
use crate::matcher::short;
use crate::node::Node;

pub(super) fn success_after_transient_retry(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn n_attempts_n_records(call: &CallRun, run: &CaseRun) -> Result<(), String> {
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

pub(super) fn attempt_indices_distinct(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let indices: Vec<u32> = call.attempts.iter().map(|a| a.attempt_index).collect();
    let want: Vec<u32> = (0..).take(indices.len()).collect();
    ensure(indices == want, || {
        format!("attempt indices {indices:?}, expected {want:?}")
    })
}

pub(super) fn exhaustion_propagates_final_error(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn every_attempt_failed(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(!call.attempts.is_empty(), || "no attempts".to_owned())?;
    for idx in 0..call.attempts.len() {
        ensure(attempt_category(call, idx).is_some(), || {
            format!("attempt {idx} has no error category")
        })?;
    }
    Ok(())
}

pub(super) fn non_transient_single_attempt(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn one_attempt_record(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.attempts.len() == 1, || {
        format!("{} attempt records", call.attempts.len())
    })
}

pub(super) fn no_backoff(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.retries.is_empty(), || {
        format!("the retry loop announced {} retries", call.retries.len())
    })
}

pub(super) fn base_attempt_uses_caller_config(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn overrides(call: &CallRun) -> Vec<Value> {
    call.input
        .get("retry")
        .and_then(|r| r.get("per_attempt_override"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(Node::to_json)
        .collect()
}

pub(super) fn override_on_retries_only(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn caller_config_unmutated(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.caller_before.1 == call.caller_after.1, || {
        "the caller's config changed".to_owned()
    })
}

pub(super) fn caller_messages_unmutated(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(
        !call.caller_before.0.is_null() && call.caller_before.0 == call.caller_after.0,
        || "the caller's messages changed".to_owned(),
    )
}

pub(super) fn reask_retries(call: &CallRun) -> Vec<usize> {
    call.attempts
        .iter()
        .filter(|a| a.retry_reason == Some("reask"))
        .map(|a| a.attempt_index as usize)
        .collect()
}

pub(super) fn reask_makes_retryable(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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
pub(super) fn reask_pairs(call: &CallRun) -> Result<Vec<(Value, Value)>, String> {
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

pub(super) fn appended_assistant_is_output(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn appended_user_is_builder_output(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn reask_exhausts_budget(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn final_structured_output_invalid_propagates(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn not_retried_without_reask(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.error_category() == Some("structured_output_invalid"), || {
        crate::llm::expect::describe_result(call)
    })?;
    ensure(max_attempts(call).unwrap_or(1) > 1, || {
        "no retry budget to refuse".to_owned()
    })?;
    ensure(call.attempts.len() == 1, || {
        format!("{} attempts without reask", call.attempts.len())
    })
}

pub(super) fn exactly_one_request(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.requests.len() == 1, || {
        format!("{} requests", call.requests.len())
    })
}

pub(super) fn reply_left_unconsumed(_: &CallRun, run: &CaseRun) -> Result<(), String> {
    ensure(run.n_unconsumed >= 1 && run.n_unanswered == 0, || {
        format!("{} replies left unconsumed", run.n_unconsumed)
    })
}

pub(super) fn override_and_reask_compose(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn transcript_accumulates(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn transient_carries_transcript(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn both_retry_reasons(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let reasons: Vec<&str> = call.attempts.iter().filter_map(|a| a.retry_reason).collect();
    ensure(
        reasons.contains(&"reask") && reasons.contains(&"transient"),
        || format!("retry reasons {reasons:?}"),
    )
}
