//! Checking an llm-provider case's expectations against what its run produced: `expected.response`,
//! `expected.raises`, the wire-request forms (005, 032, 054, 059 headers; §5.11 `wire_requests`),
//! `llm_spans`, and the named invariants.

use serde_json::Value;

use super::invariants;
use super::record::{CallRun, CaseRun};
use crate::matcher::{Keys, Matcher, short};
use crate::node::Node;

/// Checks every expectation of the case; `Err` lists each failure.
pub(crate) fn check_case(run: &CaseRun) -> Result<(), String> {
    let mut failures = Vec::new();
    let mut matcher = Matcher::default();
    let single = run.case.get("call").is_some();
    for (idx, call) in run.calls.iter().enumerate() {
        // The single-call form keeps its expectations beside `call:`; a `calls:` entry carries its own.
        let scope = if single { &run.case } else { &call.input };
        let label = if single {
            String::new()
        } else {
            format!("calls[{idx}] ")
        };
        check_call(scope, call, run, &mut matcher, &label, &mut failures);
    }
    if let Some(identical) = run.case.get("expected_wire_bytes_identical") {
        check_bytes_identical(identical, run, &mut failures);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

fn check_call(
    scope: &Node,
    call: &CallRun,
    run: &CaseRun,
    matcher: &mut Matcher,
    label: &str,
    failures: &mut Vec<String>,
) {
    let mut fail = |text: String| failures.push(format!("{label}{text}"));
    if let Some(expected) = scope.get("expected") {
        for (key, want) in expected.as_map().unwrap_or_default() {
            let outcome = match key.as_str() {
                "response" => check_response(want, call, run, matcher),
                "raises" => check_raises(want, call, matcher),
                "success" => expect_bool(want, call.result.is_ok(), || {
                    format!("call result: {}", describe_result(call))
                }),
                "llm_spans" => check_llm_spans(want, call, matcher),
                "wire_requests" => check_wire_requests(want, call, matcher),
                "no_token_events_emitted" => expect_bool(want, call.tokens.is_empty(), || {
                    format!("{} token events emitted", call.tokens.len())
                }),
                "caller_messages_unmodified" => {
                    expect_bool(want, call.caller_before.0 == call.caller_after.0, || {
                        "caller messages changed".to_owned()
                    })
                }
                "provider_call_count" => {
                    let want_n = want.as_i64().unwrap_or(-1);
                    if i64::try_from(call.requests.len()).ok() == Some(want_n) {
                        Ok(())
                    } else {
                        Err(format!(
                            "{} provider requests, expected {want_n}",
                            call.requests.len()
                        ))
                    }
                }
                "invariants" => check_invariants(want, call, run),
                other => Err(format!("fixture_directive_unknown: expected.{other}")),
            };
            if let Err(text) = outcome {
                fail(format!("expected.{key}: {text}"));
            }
        }
    }
    if let Some(want) = scope.get("expected_wire_request") {
        match call.wire(0) {
            None => fail(format!(
                "expected_wire_request: no request was sent ({})",
                describe_result(call)
            )),
            Some(_) if call.requests[0].method != "POST" => {
                fail(format!(
                    "expected_wire_request: sent with {}, not POST",
                    call.requests[0].method
                ));
            }
            Some(actual) => {
                if let Err(mismatch) = matcher.check(want, Some(&actual), "", Keys::Exact) {
                    fail(format!("expected_wire_request {mismatch}"));
                }
            }
        }
    }
    if let Some(checks) = scope.get("expected_wire_request_checks")
        && let Err(text) = check_wire_checks(checks, call)
    {
        fail(format!("expected_wire_request_checks: {text}"));
    }
    if let Some(keys) = scope
        .get("expected_wire_request_absent_keys")
        .and_then(Node::as_seq)
    {
        let wire = call.wire(0);
        for key in keys.iter().filter_map(Node::as_str) {
            if wire.as_ref().is_some_and(|w| w.get(key).is_some()) {
                fail(format!(
                    "expected_wire_request_absent_keys: `{key}` is on the wire"
                ));
            }
        }
    }
}

fn expect_bool(want: &Node, holds: bool, describe: impl FnOnce() -> String) -> Result<(), String> {
    if want.as_bool().unwrap_or(true) == holds {
        Ok(())
    } else {
        Err(describe())
    }
}

pub(super) fn describe_result(call: &CallRun) -> String {
    match &call.result {
        Ok(_) => "the call succeeded".to_owned(),
        Err(error) => format!(
            "the call raised {} ({})",
            error["category"].as_str().unwrap_or("?"),
            error["message"].as_str().unwrap_or("")
        ),
    }
}

fn check_response(want: &Node, call: &CallRun, run: &CaseRun, matcher: &mut Matcher) -> Result<(), String> {
    let actual = call
        .result
        .as_ref()
        .map_err(|_| format!("expected a response, but {}", describe_result(call)))?;
    for (key, expected) in want.as_map().unwrap_or_default() {
        match key.as_str() {
            "raw_check" => check_raw(expected, actual, call, run)?,
            "parsed" => matcher
                .check(expected, actual.get("parsed"), "/parsed", Keys::Exact)
                .map_err(|m| m.to_string())?,
            field => matcher
                .check(expected, actual.get(field), &format!("/{field}"), Keys::Subset)
                .map_err(|m| m.to_string())?,
        }
    }
    Ok(())
}

/// `raw_check.required_keys`: each key is on `raw`, with the mock body's value when the reply was an
/// atomic body (001 header); a streamed reply has no single body, so presence is what is checked.
fn check_raw(want: &Node, actual: &Value, call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let raw = &actual["raw"];
    let body = reply_body_for_last_request(call, run);
    for key in want
        .get("required_keys")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_str)
    {
        let Some(value) = raw.get(key) else {
            return Err(format!("raw lacks `{key}`"));
        };
        if let Some(expected) = body.as_ref().and_then(|b| b.get(key))
            && expected != value
            && !crate::llm::json_equal(expected, value)
        {
            return Err(format!(
                "raw.{key} is {}, the mock sent {}",
                short(value),
                short(expected)
            ));
        }
    }
    Ok(())
}

/// The JSON body of the canned reply that answered this call's last request, if it was atomic.
fn reply_body_for_last_request(call: &CallRun, run: &CaseRun) -> Option<Value> {
    let idx = call.first_reply_idx + call.requests.len().checked_sub(1)?;
    run.mock_responses()
        .get(idx)
        .and_then(|reply| reply.get("body"))
        .map(Node::to_json)
}

fn check_raises(want: &Node, call: &CallRun, matcher: &mut Matcher) -> Result<(), String> {
    let Err(error) = &call.result else {
        return Err("expected an error, but the call succeeded".to_owned());
    };
    if let Some(category) = want.get("category").and_then(Node::as_str)
        && error["category"] != category
    {
        return Err(format!(
            "raised {}, expected {category} ({})",
            error["category"],
            error["message"].as_str().unwrap_or("")
        ));
    }
    if let Some(carries) = want.get("carries") {
        let fields = error.as_object().cloned().unwrap_or_default();
        matcher
            .check_carries(carries, &fields, "carries")
            .map_err(|m| m.to_string())?;
    }
    if let Some(message) = want.get("message").and_then(Node::as_str)
        && !error["message"].as_str().is_some_and(|m| m.contains(message))
    {
        return Err(format!(
            "error message {} does not contain {message:?}",
            error["message"]
        ));
    }
    if let Some(seconds) = want.get("retry_after_seconds") {
        matcher
            .check(
                seconds,
                error.get("retry_after_seconds"),
                "retry_after_seconds",
                Keys::Exact,
            )
            .map_err(|m| m.to_string())?;
    }
    Ok(())
}

/// `expected.llm_spans` (0126 on §5.11: exhaustive and positional, one entry per attempt), checked against the
/// real spans the call's OTel observer rendered through the SDK.
fn check_llm_spans(want: &Node, call: &CallRun, matcher: &mut Matcher) -> Result<(), String> {
    let entries = want.as_seq().unwrap_or_default();
    if entries.len() != call.spans.len() {
        return Err(format!(
            "{} LLM spans, expected {}",
            call.spans.len(),
            entries.len()
        ));
    }
    for (idx, (entry, attributes)) in entries.iter().zip(&call.spans).enumerate() {
        for (key, expected) in entry.as_map().unwrap_or_default() {
            let path = format!("llm_spans/{idx}/{key}");
            let attribute = |name: &str| attributes.get(name).cloned().unwrap_or(Value::Null);
            match key.as_str() {
                "attempt_index" => matcher.check(
                    expected,
                    Some(&attribute("openarmature.llm.attempt_index")),
                    &path,
                    Keys::Exact,
                ),
                "error_category" => matcher.check(
                    expected,
                    Some(&attribute("openarmature.error.category")),
                    &path,
                    Keys::Exact,
                ),
                "attributes" => matcher.check(
                    expected,
                    Some(&Value::Object(attributes.clone())),
                    &path,
                    Keys::Subset,
                ),
                "attributes_absent" => {
                    for name in expected
                        .as_seq()
                        .unwrap_or_default()
                        .iter()
                        .filter_map(Node::as_str)
                    {
                        if attributes.contains_key(name) {
                            return Err(format!("{path}: `{name}` is present"));
                        }
                    }
                    Ok(())
                }
                other => {
                    return Err(format!(
                        "fixture_directive_unknown: llm_spans entry key `{other}`"
                    ));
                }
            }
            .map_err(|m| m.to_string())?;
        }
    }
    Ok(())
}

/// §5.11 `wire_requests`: per attempt, `sampling` fields on the wire and the messages appended after
/// the caller's own.
fn check_wire_requests(want: &Node, call: &CallRun, matcher: &mut Matcher) -> Result<(), String> {
    let entries = want.as_seq().unwrap_or_default();
    if entries.len() != call.requests.len() {
        return Err(format!(
            "{} wire requests, expected {}",
            call.requests.len(),
            entries.len()
        ));
    }
    let n_caller = call.caller_before.0.as_array().map_or(0, Vec::len);
    for (idx, entry) in entries.iter().enumerate() {
        let wire = call
            .wire(idx)
            .ok_or_else(|| format!("wire request {idx} is not JSON"))?;
        if let Some(sampling) = entry.get("sampling").and_then(Node::as_map) {
            for (key, expected) in sampling {
                matcher
                    .check(
                        expected,
                        wire.get(key),
                        &format!("wire_requests/{idx}/{key}"),
                        Keys::Exact,
                    )
                    .map_err(|m| m.to_string())?;
            }
        }
        if let Some(appended) = entry.get("appended_messages").and_then(Node::as_seq) {
            let messages = wire["messages"].as_array().cloned().unwrap_or_default();
            let got = messages.get(n_caller..).unwrap_or_default();
            if got.len() != appended.len() {
                return Err(format!(
                    "wire request {idx} appended {} messages, expected {}",
                    got.len(),
                    appended.len()
                ));
            }
            for (msg_idx, (expected, actual)) in appended.iter().zip(got).enumerate() {
                let path = format!("wire_requests/{idx}/appended_messages/{msg_idx}");
                if let Some(role) = expected.get("role") {
                    matcher
                        .check(role, actual.get("role"), &format!("{path}/role"), Keys::Exact)
                        .map_err(|m| m.to_string())?;
                }
                if let Some(content) = expected.get("content") {
                    matcher
                        .check(
                            content,
                            actual.get("content"),
                            &format!("{path}/content"),
                            Keys::Exact,
                        )
                        .map_err(|m| m.to_string())?;
                }
                for needle in expected
                    .get("content_contains")
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(Node::as_str)
                {
                    if !actual["content"].as_str().is_some_and(|c| c.contains(needle)) {
                        return Err(format!(
                            "{path}: content {} lacks {needle:?}",
                            short(&actual["content"])
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `expected_wire_request_checks` (027, 032): `<key>_absent` and the schema-reference check.
fn check_wire_checks(checks: &Node, call: &CallRun) -> Result<(), String> {
    let wire = call
        .wire(0)
        .ok_or_else(|| format!("no request was sent ({})", describe_result(call)))?;
    for (name, want) in checks.as_map().unwrap_or_default() {
        let want = want.as_bool().unwrap_or(true);
        let holds = if let Some(key) = name.strip_suffix("_absent") {
            wire.get(key).is_none()
        } else if name == "system_message_content_references_schema" {
            system_references_schema(&wire, call)
        } else {
            return Err(format!("fixture_directive_unknown: wire check `{name}`"));
        };
        if holds != want {
            return Err(format!("`{name}` is {holds}, expected {want}"));
        }
    }
    Ok(())
}

/// The first wire message is a system message whose text names every top-level property of the
/// call's response_schema (or embeds the schema's JSON).
fn system_references_schema(wire: &Value, call: &CallRun) -> bool {
    let first = &wire["messages"][0];
    let Some(text) = first["content"].as_str().filter(|_| first["role"] == "system") else {
        return false;
    };
    let Some(schema) = call.input.get("response_schema").map(Node::to_json) else {
        return false;
    };
    if text.contains(&schema.to_string()) {
        return true;
    }
    schema["properties"]
        .as_object()
        .is_some_and(|props| !props.is_empty() && props.keys().all(|name| text.contains(name.as_str())))
}

fn check_bytes_identical(identical: &Node, run: &CaseRun, failures: &mut Vec<String>) {
    let indices: Vec<usize> = identical
        .get("calls")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_i64)
        .filter_map(|i| usize::try_from(i).ok())
        .collect();
    let bodies: Vec<Option<&Vec<u8>>> = indices
        .iter()
        .map(|idx| {
            run.calls
                .get(*idx)
                .and_then(|c| c.requests.first())
                .map(|r| &r.body)
        })
        .collect();
    match bodies.first() {
        Some(Some(first)) => {
            for (pos, body) in bodies.iter().enumerate().skip(1) {
                if *body != Some(*first) {
                    failures.push(format!(
                        "expected_wire_bytes_identical: call {} bytes differ from call {}: {:?} vs {:?}",
                        indices[pos],
                        indices[0],
                        body.map(|b| String::from_utf8_lossy(b).into_owned()),
                        String::from_utf8_lossy(first)
                    ));
                }
            }
        }
        _ => failures.push("expected_wire_bytes_identical: the first listed call sent no request".to_owned()),
    }
}

fn check_invariants(want: &Node, call: &CallRun, run: &CaseRun) -> Result<(), String> {
    let mut failures = Vec::new();
    for (name, value) in want.as_map().unwrap_or_default() {
        let Some(predicate) = invariants::lookup(name) else {
            failures.push(format!("unknown invariant `{name}`"));
            continue;
        };
        let holds = predicate(call, run);
        let want_holds = value.as_bool().unwrap_or(true);
        match (holds, want_holds) {
            (Ok(()), true) | (Err(_), false) => {}
            (Err(why), true) => failures.push(format!("{name}: {why}")),
            (Ok(()), false) => failures.push(format!("{name}: holds, expected it not to")),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join(", "))
    }
}
