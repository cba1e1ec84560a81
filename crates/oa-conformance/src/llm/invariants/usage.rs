//! Invariants of §7 malformed usage counters: verbatim on raw, null on the normalized usage.

use super::*;
use crate::llm::record::{CallRun, CaseRun};
use crate::node::Node;

/// Each `(wire counter, normalized counter)` pair: the mock sent a malformed wire counter, `raw.usage` keeps it
/// verbatim, and the normalized counter is null.
pub(super) fn raw_counters_verbatim(
    call: &CallRun,
    run: &CaseRun,
    counters: &[(&str, &str)],
) -> Result<(), String> {
    let response = response(call)?;
    let body = run
        .mock_responses()
        .get(call.first_reply_idx)
        .and_then(|r| r.get("body"))
        .map(Node::to_json)
        .ok_or("no mock body")?;
    for (counter, normalized) in counters {
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
        ensure(response["usage"][*normalized].is_null(), || {
            format!("usage.{normalized} is {}", response["usage"][*normalized])
        })?;
    }
    Ok(())
}

pub(super) fn raw_prompt_tokens_verbatim(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    raw_counters_verbatim(call, run, &[("prompt_tokens", "prompt_tokens")])
}

/// §8.2: Anthropic's `input_tokens` is the wire name of `prompt_tokens`.
pub(super) fn raw_input_tokens_verbatim(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    raw_counters_verbatim(call, run, &[("input_tokens", "prompt_tokens")])
}

pub(super) fn raw_all_counters_verbatim(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let counters = ["prompt_tokens", "completion_tokens", "total_tokens"];
    raw_counters_verbatim(call, run, &counters.map(|counter| (counter, counter)))
}
