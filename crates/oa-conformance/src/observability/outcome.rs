//! The expectations about an invocation's outcome and its Langfuse output: `langfuse_trace`, `langfuse_traces`
//! and the Langfuse leak checks, `invocation_id`, `final_state` (and its bounds), API-boundary and call-site rejections, spans
//! emitted or not, `direct_call_result`, `per_invocation` results, `invocation_count` and `determinism_check`.

use serde_json::{Map, Value};

use super::Captured;
use super::capture::SpanView;
use super::langfuse::{OBSERVATION_PREFIX, PAYLOAD_ATTRIBUTES};
use crate::matcher::{Keys, Matcher};
use crate::node::Node;

const INVOCATION_SPAN: &str = "openarmature.invocation";
const LLM_SPAN: &str = "openarmature.llm.complete";

pub(super) fn check(
    key: &str,
    want: &Node,
    captured: &Captured,
    matcher: &mut Matcher,
) -> Result<(), String> {
    let path = format!("expected.{key}");
    let flag = want.as_bool() == Some(true);
    let fail = |detail: String| Err(format!("{path}: {detail}"));
    match key {
        "langfuse_trace" => {
            let traces = captured.run.langfuse.as_deref().unwrap_or_default();
            let [trace] = traces else {
                return fail(format!("{} Langfuse traces, expected one", traces.len()));
            };
            check_trace(want, trace, &failure_messages(captured), matcher, &path)
        }
        // 084: one trace per invocation, in invocation order, each by its listed fields.
        "langfuse_traces" => {
            let traces = captured.run.langfuse.as_deref().unwrap_or_default();
            let wanted = want.as_seq().unwrap_or_default();
            if traces.len() != wanted.len() {
                return fail(format!(
                    "{} Langfuse traces, expected {}",
                    traces.len(),
                    wanted.len()
                ));
            }
            let messages = failure_messages(captured);
            for (idx, (want, trace)) in wanted.iter().zip(traces).enumerate() {
                check_trace(want, trace, &messages, matcher, &format!("{path}/{idx}"))?;
            }
            Ok(())
        }
        "no_langfuse_observations_emitted" if flag => match captured.run.langfuse.as_deref() {
            Some([]) => Ok(()),
            Some(traces) => fail(format!("{} traces were recorded", traces.len())),
            None => fail("no Langfuse observer was composed".to_owned()),
        },
        "no_langfuse_observations_on_global" if flag => no_leak(&captured.run.global_spans, &path),
        "no_langfuse_observations_on_private" if flag => no_leak(&captured.run.spans, &path),
        "langfuse_observations_on_global" if flag => {
            if captured.run.global_spans.iter().any(is_langfuse_span) {
                Ok(())
            } else {
                fail("no Langfuse observation reached the global provider".to_owned())
            }
        }
        // 158: the payload-scoped leak checks, over what the provider-faithful fake emitted on the global
        // provider (observations and trace upserts alike).
        "no_payload_bearing_langfuse_observations_on_global" if flag => {
            match captured.run.global_spans.iter().find(|span| bears_payload(span)) {
                Some(span) => fail(format!("{:?} carries payload on the global provider", span.name)),
                None => Ok(()),
            }
        }
        "payload_bearing_langfuse_observations_on_global" if flag => {
            if captured.run.global_spans.iter().any(bears_payload) {
                Ok(())
            } else {
                fail("no payload-bearing Langfuse emission reached the global provider".to_owned())
            }
        }
        "invocation_id" => {
            let spans = invocation_spans(&captured.run.spans);
            if spans.is_empty() {
                return fail("no invocation span".to_owned());
            }
            for span in spans {
                matcher
                    .check(
                        want,
                        span.attributes.get("openarmature.invocation_id"),
                        &path,
                        Keys::Exact,
                    )
                    .map_err(|mismatch| format!("{path}: {mismatch}"))?;
            }
            Ok(())
        }
        "final_state" => {
            let state = final_state(captured, &path)?;
            for (field, value) in want.as_map().unwrap_or_default() {
                matcher
                    .check(value, state.get(field), &format!("{path}/{field}"), Keys::Exact)
                    .map_err(|mismatch| format!("{path}: {mismatch}"))?;
            }
            Ok(())
        }
        "final_state_bounds" => {
            let state = final_state(captured, &path)?;
            for (field, bounds) in want.as_map().unwrap_or_default() {
                let value = state.get(field).and_then(Value::as_f64);
                let min = bounds.get("min").and_then(Node::as_f64).unwrap_or(f64::MIN);
                let max = bounds.get("max").and_then(Node::as_f64).unwrap_or(f64::MAX);
                if !value.is_some_and(|v| (min..=max).contains(&v)) {
                    return fail(format!(
                        "{field} is {:?}, expected within [{min}, {max}]",
                        state.get(field)
                    ));
                }
            }
            Ok(())
        }
        "invoke_rejects_at_api_boundary" if flag => match captured.error() {
            Some(
                oa_events::InvocationError::InvalidMetadata(_)
                | oa_events::InvocationError::InvalidInvocationId,
            ) => Ok(()),
            other => fail(format!("the invocation ended with {other:?}")),
        },
        "augment_rejects_at_call_site" if flag => match captured.error() {
            Some(oa_events::InvocationError::Node { source, .. })
                if source.to_string().contains("reserved") =>
            {
                Ok(())
            }
            other => fail(format!("the invocation ended with {other:?}")),
        },
        "no_spans_emitted" if flag => {
            if captured.run.spans.is_empty() {
                Ok(())
            } else {
                fail(format!("{} spans were emitted", captured.run.spans.len()))
            }
        }
        "direct_call_result" => matcher
            .check(want, captured.direct_call.as_ref(), &path, Keys::Exact)
            .map_err(|mismatch| format!("{path}: {mismatch}")),
        "per_invocation" => {
            for (name, checks) in want.as_map().unwrap_or_default() {
                for (check, value) in checks.as_map().unwrap_or_default() {
                    if value.as_bool() != Some(true) || !per_invocation(captured, name, check)? {
                        return fail(format!("{name}.{check} does not hold"));
                    }
                }
            }
            Ok(())
        }
        "invocation_count" => {
            let want = want.as_i64().and_then(|n| usize::try_from(n).ok());
            let spans = invocation_spans(&captured.run.spans).len();
            if want == Some(captured.invocations.len()) && want == Some(spans) {
                Ok(())
            } else {
                fail(format!(
                    "{} invocations, {spans} invocation spans",
                    captured.invocations.len()
                ))
            }
        }
        "determinism_check" => determinism(want, &captured.run.spans, &path),
        "no_edge_spans" if flag => {
            match captured.run.spans.iter().find(|span| {
                span.name != INVOCATION_SPAN
                    && span.name != LLM_SPAN
                    && !span.attributes.contains_key("openarmature.node.name")
            }) {
                Some(span) => fail(format!(
                    "span {:?} is neither an invocation, node nor LLM span",
                    span.name
                )),
                None => Ok(()),
            }
        }
        other => Err(format!("harness_primitive_missing: expected.{other}")),
    }
}

/// The untruncated failure messages a `metadata_truncation` compares against: the typed failure events' (an LLM
/// call's or a tool execution's).
fn failure_messages(captured: &Captured) -> Vec<&str> {
    captured
        .run
        .events
        .values()
        .flatten()
        .filter(|event| {
            event["event_type"] == "LlmFailedEvent" || event["event_type"] == "ToolCallFailedEvent"
        })
        .filter_map(|event| event["error_message"].as_str())
        .collect()
}

fn is_langfuse_span(span: &SpanView) -> bool {
    span.attributes
        .keys()
        .any(|key| key.starts_with(OBSERVATION_PREFIX))
}

fn bears_payload(span: &SpanView) -> bool {
    PAYLOAD_ATTRIBUTES
        .iter()
        .any(|key| span.attributes.contains_key(*key))
}

fn no_leak(spans: &[SpanView], path: &str) -> Result<(), String> {
    match spans.iter().find(|span| is_langfuse_span(span)) {
        Some(span) => Err(format!("{path}: Langfuse observation {:?} is there", span.name)),
        None => Ok(()),
    }
}

pub(super) fn invocation_spans(spans: &[SpanView]) -> Vec<&SpanView> {
    let mut found: Vec<&SpanView> = spans.iter().filter(|span| span.name == INVOCATION_SPAN).collect();
    found.sort_by_key(|span| span.start);
    found
}

fn final_state<'a>(captured: &'a Captured, path: &str) -> Result<&'a Map<String, Value>, String> {
    match captured.invocations.first().map(|run| &run.result) {
        Some(Ok(Value::Object(state))) => Ok(state),
        Some(Ok(other)) => Err(format!("{path}: the final state is not a mapping: {other}")),
        Some(Err(error)) => Err(format!("{path}: the invocation failed: {error}")),
        None => Err(format!("{path}: nothing was invoked")),
    }
}

/// `langfuse_trace`: the trace's fields by subset, its `observations` positionally (see [`check_observations`]);
/// `messages` are the untruncated failure messages of the run.
fn check_trace(
    want: &Node,
    trace: &Value,
    messages: &[&str],
    matcher: &mut Matcher,
    path: &str,
) -> Result<(), String> {
    for (key, value) in want.as_map().unwrap_or_default() {
        let at = format!("{path}/{key}");
        if key == "observations" {
            let actual = trace["observations"].as_array().map_or(&[][..], Vec::as_slice);
            check_observations(value, actual, messages, matcher, &at)?;
        } else {
            matcher
                .check(value, trace.get(key), &at, Keys::Subset)
                .map_err(|mismatch| format!("{path}: {mismatch}"))?;
        }
    }
    Ok(())
}

/// An observation list: the same count, in start order, each by its listed keys; `children` recursively;
/// `metadata_absent` (keys the metadata must not carry); `metadata_truncation` (0119: a metadata value cut by the
/// observer's own cap, against `messages`, the untruncated failure messages); `input_parses_as_messages` (the
/// input is the structured message list) and `input_is_raw_string_with_marker` (the input is §5.5.5's truncated
/// text).
fn check_observations(
    want: &Node,
    actual: &[Value],
    messages: &[&str],
    matcher: &mut Matcher,
    path: &str,
) -> Result<(), String> {
    let entries = want.as_seq().unwrap_or_default();
    if entries.len() != actual.len() {
        let names: Vec<&str> = actual.iter().filter_map(|o| o["name"].as_str()).collect();
        return Err(format!(
            "{path}: {} observations {names:?}, expected {}",
            actual.len(),
            entries.len()
        ));
    }
    for (idx, (entry, observation)) in entries.iter().zip(actual).enumerate() {
        let at = format!("{path}/{idx}");
        for (key, value) in entry.as_map().unwrap_or_default() {
            match key.as_str() {
                "children" => {
                    let children = observation["children"].as_array().map_or(&[][..], Vec::as_slice);
                    check_observations(value, children, messages, matcher, &format!("{at}/children"))?;
                }
                "input_parses_as_messages" => {
                    if !observation["input"].is_array() {
                        return Err(format!(
                            "{at}: input is not a message list: {}",
                            observation["input"]
                        ));
                    }
                    matcher
                        .check(
                            value,
                            observation.get("input"),
                            &format!("{at}/input"),
                            Keys::Subset,
                        )
                        .map_err(|mismatch| format!("{at}: {mismatch}"))?;
                }
                "metadata_truncation" => {
                    for (key, rule) in value.as_map().unwrap_or_default() {
                        let text = observation["metadata"][key.as_str()]
                            .as_str()
                            .ok_or_else(|| format!("{at}: metadata.{key} is absent or not a string"))?;
                        super::expect::check_truncation(
                            text,
                            rule,
                            messages,
                            &format!("{at}: metadata.{key}"),
                        )?;
                    }
                }
                "metadata_absent" => {
                    for absent in value.as_seq().unwrap_or_default().iter().filter_map(Node::as_str) {
                        if observation["metadata"].get(absent).is_some() {
                            return Err(format!("{at}: metadata.{absent} is present, expected absent"));
                        }
                    }
                }
                "input_is_raw_string_with_marker" => {
                    let text = observation["input"].as_str().unwrap_or_default();
                    let marked = text.contains("…[truncated, ") && text.ends_with(" bytes total]");
                    if marked != (value.as_bool() == Some(true)) {
                        return Err(format!(
                            "{at}: input {:?} vs a raw truncated string",
                            observation["input"]
                        ));
                    }
                }
                _ => matcher
                    .check(value, observation.get(key), &format!("{at}/{key}"), Keys::Subset)
                    .map_err(|mismatch| format!("{at}: {mismatch}"))?,
            }
        }
    }
    Ok(())
}

/// 049's per-invocation checks over one named invocation's final state.
fn per_invocation(captured: &Captured, name: &str, check: &str) -> Result<bool, String> {
    let state = |name: &str| {
        captured
            .invocations
            .iter()
            .find(|run| run.name.as_deref() == Some(name))
            .and_then(|run| run.result.as_ref().ok())
    };
    let this =
        state(name).ok_or_else(|| format!("expected.per_invocation: no successful invocation {name}"))?;
    let events = |state: &Value| {
        state["captured_bucket"]["events"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    Ok(match check {
        "captured_bucket_is_non_empty" => !events(this).is_empty(),
        "bucket_after_drop_is_absent" => this["bucket_after_drop_is_absent"] == true,
        "captured_bucket_disjoint_from_invocation_1" => {
            let Some(first) = state("invocation_1") else {
                return Ok(false);
            };
            let ids = |state: &Value| -> Vec<Value> {
                events(state).iter().map(|e| e["invocation_id"].clone()).collect()
            };
            let (mine, theirs) = (ids(this), ids(first));
            !mine.is_empty() && !theirs.is_empty() && mine.iter().all(|id| !theirs.contains(id))
        }
        other => return Err(format!("harness_primitive_missing: per_invocation check {other}")),
    })
}

/// 011's `determinism_check`: the span trees of the compared runs (one trace per invocation, in invocation
/// order) are equal in structure, names, status and attributes, the ignored attributes aside.
fn determinism(want: &Node, spans: &[SpanView], path: &str) -> Result<(), String> {
    let ignored: Vec<String> = want
        .get("ignore_attributes")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_str)
        .map(str::to_owned)
        .collect();
    let runs: Vec<usize> = want
        .get("compare_runs")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|n| n.as_i64().and_then(|n| usize::try_from(n).ok()))
        .collect();
    let roots = invocation_spans(spans);
    let trees: Vec<Value> = runs
        .iter()
        .map(|&idx| {
            roots
                .get(idx)
                .map(|root| tree(root, spans, &ignored))
                .ok_or_else(|| format!("{path}: no run {idx} ({} invocation spans)", roots.len()))
        })
        .collect::<Result<_, _>>()?;
    let equal = trees.windows(2).all(|pair| pair[0] == pair[1]);
    let required = want.get("require_equal").and_then(Node::as_bool).unwrap_or(true);
    if trees.len() < 2 || equal != required {
        return Err(format!("{path}: runs {runs:?} differ: {trees:?}"));
    }
    Ok(())
}

fn tree(span: &SpanView, spans: &[SpanView], ignored: &[String]) -> Value {
    let is_ignored = |key: &str| {
        ignored.iter().any(|pattern| match pattern.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix),
            None => key == pattern,
        })
    };
    let attributes: Map<String, Value> = span
        .attributes
        .iter()
        .filter(|(key, _)| !is_ignored(key))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut children: Vec<&SpanView> = spans
        .iter()
        .filter(|child| child.parent_id == span.span_id)
        .collect();
    children.sort_by_key(|child| child.start);
    serde_json::json!({
        "name": span.name,
        "status": span.status,
        "attributes": attributes,
        "children": children.into_iter().map(|child| tree(child, spans, ignored)).collect::<Vec<_>>(),
    })
}
