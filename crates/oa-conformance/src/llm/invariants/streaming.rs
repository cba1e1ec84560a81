//! Invariants of §8.1.6 streaming: request flags, assembly from deltas, non-streamed equivalence,
//! and the pre-send rejection of a mapping without streaming.

use serde_json::Value;

use super::*;
use crate::llm::record::{CallRun, CaseRun};
use crate::matcher::short;

pub(super) fn stream_request_flags(call: &CallRun, _: &CaseRun) -> Result<(), String> {
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

pub(super) fn content_is_concatenation(call: &CallRun, run: &CaseRun) -> Result<(), String> {
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

/// The finish reason a stream's last `finish_reason` maps to: a refusal (any `delta.refusal` piece) OpenAI reports
/// as `stop` is `content_filter` (0126 on llm-provider §8.1.6).
/// The usage object of the last stream chunk that carries one.
fn terminal_usage(chunks: &[Value]) -> Result<&Value, &'static str> {
    chunks
        .iter()
        .rev()
        .find_map(|c| c.get("usage").filter(|u| u.is_object()))
        .ok_or("no usage chunk")
}

pub(super) fn map_finish(wire: &str, refused: bool) -> &str {
    match wire {
        "function_call" => "tool_calls",
        "stop" if refused => "content_filter",
        other => other,
    }
}

pub(super) fn usage_and_finish_from_chunks(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let terminal_usage = terminal_usage(&chunks)?;
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
    let refused = chunks
        .iter()
        .flat_map(|c| c["choices"].as_array().cloned().unwrap_or_default())
        .any(|c| c["delta"]["refusal"].is_string());
    ensure(response["finish_reason"] == map_finish(&finish, refused), || {
        format!("finish_reason {}, chunks say {finish}", response["finish_reason"])
    })
}

/// The streamed call's response and that of its non-streamed equivalent.
fn streamed_and_atomic(call: &CallRun) -> Result<(&Value, &Value), String> {
    let streamed = response(call)?;
    let atomic = call
        .non_streamed_equivalent
        .as_ref()
        .ok_or("the non-streamed equivalent call failed or could not be built")?;
    Ok((streamed, atomic))
}

pub(super) fn equals_non_streamed(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let (streamed, atomic) = streamed_and_atomic(call)?;
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

pub(super) fn tool_calls_equal_non_streamed(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let (streamed, atomic) = streamed_and_atomic(call)?;
    let calls = &streamed["message"]["tool_calls"];
    ensure(calls.as_array().is_some_and(|c| !c.is_empty()), || {
        "no tool calls".to_owned()
    })?;
    ensure(*calls == atomic["message"]["tool_calls"], || {
        format!("{} vs {}", short(calls), short(&atomic["message"]["tool_calls"]))
    })
}

pub(super) fn tool_call_arguments_reassemble(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let atomic = crate::llm::stream_equivalent::atomic_body(&chunks).ok_or("empty stream")?;
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

pub(super) fn finish_tool_calls_from_chunk(call: &CallRun, run: &CaseRun) -> Result<(), String> {
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

pub(super) fn reasoning_into_thinking_block(call: &CallRun, run: &CaseRun) -> Result<(), String> {
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

pub(super) fn content_into_text_block(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let want = stream_concat(call, run, "content").unwrap_or_default();
    let blocks = content_blocks(response, "text");
    ensure(!want.is_empty() && blocks == [want.as_str()], || {
        format!("text blocks {blocks:?}, content deltas {want:?}")
    })
}

pub(super) fn rejected_pre_send(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    category_invalid_request(call, run)?;
    ensure(
        call.requests.is_empty() && call.attempts.iter().all(|a| !a.sent),
        || format!("{} requests were sent", call.requests.len()),
    )
}

pub(super) fn category_invalid_request(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.error_category() == Some("provider_invalid_request"), || {
        crate::llm::expect::describe_result(call)
    })
}

pub(super) fn no_request_issued(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.requests.is_empty(), || {
        format!("{} requests were sent", call.requests.len())
    })
}

pub(super) fn no_tokens_on_rejection(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.result.is_err() && call.tokens.is_empty(), || {
        format!(
            "{} token events; {}",
            call.tokens.len(),
            crate::llm::expect::describe_result(call)
        )
    })
}

pub(super) fn atomic_call_succeeds(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let wire = wire(call, 0)?;
    ensure(
        call.requests.len() == 1 && wire.get("stream").is_none_or(|s| s == false),
        || "the atomic call did not go out as one atomic request".to_owned(),
    )
}

pub(super) fn terminal_usage_verbatim_on_raw(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let usage = terminal_usage(&chunks)?;
    ensure(response["raw"]["usage"] == *usage, || {
        format!(
            "raw.usage {} vs chunk {}",
            short(&response["raw"]["usage"]),
            short(usage)
        )
    })
}

pub(super) fn malformed_terminal_counter_nulled(call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let response = response(call)?;
    let chunks = stream_chunks(call, run).ok_or("no stream reply")?;
    let usage = terminal_usage(&chunks)?;
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
