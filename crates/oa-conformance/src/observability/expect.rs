//! Checks a case's `expected:` block against what the run captured, with the §5.10 matchers (one matcher per
//! case, so `<call_id_X>` bound on the typed event is checked again on the diagnostic record).

use oa_events::InvocationError;
use serde_json::{Map, Value};

use super::capture::{LogView, Run, SpanView};
use crate::matcher::{Keys, Matcher};
use crate::node::Node;

const LLM_SPAN: &str = "openarmature.llm.complete";

pub(crate) fn check(expected: &Node, captured: &super::Captured) -> Result<(), String> {
    let run = &captured.run;
    let mut matcher = Matcher::default();
    let entries = expected.as_map().unwrap_or_default();
    // Typed events first: they bind `<call_id_X>` for the records and spans checked after them.
    let mut ordered: Vec<&(String, Node)> = entries.iter().filter(|(key, _)| key == "observers").collect();
    ordered.extend(entries.iter().filter(|(key, _)| key != "observers"));
    for (key, want) in ordered {
        match key.as_str() {
            "observers" => check_observers(want, run, &mut matcher)?,
            "llm_spans" => check_llm_spans(want, run, &mut matcher)?,
            "span_tree" | "span_tree_private" => check_span_tree(want, &run.spans, run, &mut matcher)?,
            // 005: the caller's global provider holds only what the harness emitted through it.
            "span_tree_global" => check_span_tree(want, &run.global_spans, run, &mut matcher)?,
            "no_openarmature_spans_on_global" if want.as_bool() == Some(true) => {
                if let Some(span) = run.global_spans.iter().find(|global| {
                    global.name.starts_with("openarmature.")
                        || run.spans.iter().any(|private| private.name == global.name)
                }) {
                    return Err(format!(
                        "expected.no_openarmature_spans_on_global: span {} is on the global provider",
                        span.name
                    ));
                }
            }
            "no_llm_provider_span" if want.as_bool() == Some(true) => {
                if run.spans.iter().any(|span| span.name == LLM_SPAN) {
                    return Err("expected.no_llm_provider_span: an LLM span was emitted".to_owned());
                }
            }
            "log_records" => check_log_records(want, run, &mut matcher)?,
            "log_records_absent" => check_log_records_absent(want, run)?,
            "metrics" => check_metrics(want, run)?,
            "node_completed_event_carries_error" => {
                let node = want.get("node_name").and_then(Node::as_str);
                let category = want.get("error_category").and_then(Node::as_str);
                let found = run.events.values().flatten().any(|event| {
                    event["kind"] == "node_completed"
                        && event["scope"]["node_name"].as_str() == node
                        && event["error_category"].as_str() == category
                        && event["error"].is_string()
                });
                if !found {
                    return Err(format!(
                        "expected.node_completed_event_carries_error: no completed {node:?} with {category:?}"
                    ));
                }
            }
            "llm_span_attributes" | "llm_span_attributes_absent" => {
                let spans = llm_spans(run);
                let [span] = spans.as_slice() else {
                    return Err(format!("expected.{key}: {} LLM spans, expected one", spans.len()));
                };
                if key == "llm_span_attributes" {
                    check_attributes(
                        want,
                        &span.attributes,
                        "expected.llm_span_attributes",
                        &mut matcher,
                    )?;
                } else {
                    check_absent(want, &span.attributes, "expected.llm_span_attributes_absent")?;
                }
            }
            "response_usage" => {
                let completion = run
                    .events
                    .values()
                    .flatten()
                    .find(|event| event["event_type"] == "LlmCompletionEvent")
                    .ok_or("expected.response_usage: no completion")?;
                let usage = completion.get("usage").unwrap_or(completion);
                let mut usage = usage.clone();
                // A counter the provider did not report is an absent key on the serialized usage; the
                // expectation spells it as null.
                if let Some(object) = usage.as_object_mut() {
                    for (field, _) in want.as_map().unwrap_or_default() {
                        object.entry(field.clone()).or_insert(Value::Null);
                    }
                }
                matcher
                    .check(want, Some(&usage), "expected.response_usage", Keys::Subset)
                    .map_err(|mismatch| format!("expected.response_usage: {mismatch}"))?;
            }
            // Checked by the invariant registry once the run's outcome is at hand.
            "invariants" => {}
            other => super::outcome::check(other, want, captured, &mut matcher)?,
        }
    }
    Ok(())
}

/// `expected_error: {category, raised_from}`: the invocation failed in that node with that category (the provider's
/// §7 category when a call caused it, else the graph-engine §4 one). Without it nothing is asserted here (a case
/// states success through its span statuses or events).
pub(crate) fn check_error(want: Option<&Node>, error: Option<&InvocationError>) -> Result<(), String> {
    match (want, error) {
        (None, _) => Ok(()),
        (Some(_), None) => Err("expected_error: the invocation succeeded".to_owned()),
        (Some(want), Some(error)) => {
            let Some(node) = error.node() else {
                return Err(format!("expected_error: {error}"));
            };
            let category = match error {
                InvocationError::Node { source, .. } => {
                    source.provider_error().map(|e| e.category().as_str())
                }
                _ => None,
            }
            .or_else(|| error.category().map(|c| c.as_str()));
            for (key, value) in want.as_map().unwrap_or_default() {
                let ok = match key.as_str() {
                    "category" => value.as_str() == category,
                    "raised_from" => value.as_str() == Some(node),
                    other => return Err(format!("harness_primitive_missing: expected_error.{other}")),
                };
                if !ok {
                    return Err(format!(
                        "expected_error.{key}: got node {node}, category {category:?}"
                    ));
                }
            }
            Ok(())
        }
    }
}

/// Whether `actual` matches `want` by subset, without touching the case's bindings.
fn matches(want: &Node, actual: &Value, matcher: &Matcher) -> bool {
    let mut trial = matcher.clone();
    trial.check(want, Some(actual), "", Keys::Subset).is_ok()
}

fn check_observers(observers: &Node, run: &Run, matcher: &mut Matcher) -> Result<(), String> {
    for (name, assertions) in observers.as_map().unwrap_or_default() {
        let events = run
            .events
            .get(name)
            .ok_or_else(|| format!("expected.observers.{name}: no such typed observer"))?;
        for (assertion, want) in assertions.as_map().unwrap_or_default() {
            let path = format!("expected.observers.{name}.{assertion}");
            match assertion.as_str() {
                "contains_event" => {
                    let event_type = want.get("event_type").and_then(Node::as_str).unwrap_or_default();
                    let fields = want.get("fields").cloned().unwrap_or(Node::Map(Vec::new()));
                    let found = events
                        .iter()
                        .filter(|event| event["event_type"] == event_type)
                        .find(|event| matches(&fields, event, matcher))
                        .ok_or_else(|| format!("{path}: no {event_type} matches {}", fields.to_json()))?;
                    matcher
                        .check(&fields, Some(found), &path, Keys::Subset)
                        .map_err(|mismatch| format!("{path}: {mismatch}"))?;
                }
                "event_counts" => {
                    for entry in want.as_seq().unwrap_or_default() {
                        let event_type = entry.get("event_type").and_then(Node::as_str).unwrap_or_default();
                        let want_count = entry.get("count").and_then(Node::as_i64).unwrap_or(-1);
                        let count = events.iter().filter(|e| e["event_type"] == event_type).count();
                        if i64::try_from(count).ok() != Some(want_count) {
                            return Err(format!("{path}: {count} {event_type}, expected {want_count}"));
                        }
                    }
                }
                "contains_events_in_order" => {
                    let event_type = want.get("event_type").and_then(Node::as_str).unwrap_or_default();
                    let of_type: Vec<&Value> =
                        events.iter().filter(|e| e["event_type"] == event_type).collect();
                    let wanted = want.get("events").and_then(Node::as_seq).unwrap_or_default();
                    let mut cursor = 0;
                    for (idx, fields) in wanted.iter().enumerate() {
                        let position = of_type[cursor..]
                            .iter()
                            .position(|event| matches(fields, event, matcher))
                            .ok_or_else(|| format!("{path}/{idx}: no later {event_type} matches"))?;
                        cursor += position;
                        matcher
                            .check(fields, Some(of_type[cursor]), &path, Keys::Subset)
                            .map_err(|mismatch| format!("{path}: {mismatch}"))?;
                        cursor += 1;
                    }
                }
                // A permission, not an assertion: the fixture leaves node-event emission for its sentinel node to
                // the implementation, so nothing is checked about it.
                "sentinel_node_event_emission_is_impl_defined" if want.as_bool() == Some(true) => {}
                "contains_exactly_one_event_of_type" | "contains_event_of_type" => {
                    let event_type = want.as_str().unwrap_or_default();
                    let count = events.iter().filter(|e| e["event_type"] == event_type).count();
                    let ok = if assertion == "contains_event_of_type" {
                        count >= 1
                    } else {
                        count == 1
                    };
                    if !ok {
                        return Err(format!("{path}: {count} {event_type}"));
                    }
                }
                "relative_order_of_events_matching" => {
                    let node = want
                        .get("filter")
                        .and_then(|f| f.get("node_name"))
                        .and_then(Node::as_str);
                    let in_node = |event: &&Value| {
                        event["node_name"].as_str() == node || event["scope"]["node_name"].as_str() == node
                    };
                    let kinds: Vec<(String, Option<&str>)> = events
                        .iter()
                        .filter(in_node)
                        .map(|event| {
                            let phase = match event["kind"].as_str() {
                                Some("node_started") => Some("started"),
                                Some("node_completed") => Some("completed"),
                                _ => None,
                            };
                            (event["event_type"].as_str().unwrap_or_default().to_owned(), phase)
                        })
                        .collect();
                    let mut cursor = 0;
                    for (idx, step) in want
                        .get("expected_order")
                        .and_then(Node::as_seq)
                        .unwrap_or_default()
                        .iter()
                        .enumerate()
                    {
                        let event_type = step.get("event_type").and_then(Node::as_str).unwrap_or_default();
                        let phase = step.get("phase").and_then(Node::as_str);
                        let position = kinds[cursor..]
                            .iter()
                            .position(|(kind, got)| kind == event_type && (phase.is_none() || *got == phase))
                            .ok_or_else(|| {
                                format!("{path}/{idx}: {event_type} {phase:?} not found in order")
                            })?;
                        cursor += position + 1;
                    }
                }
                "event_count" | "does_not_contain_event_of_type" => {
                    let (event_type, want_count) = match assertion.as_str() {
                        "event_count" => (
                            want.get("event_type").and_then(Node::as_str).unwrap_or_default(),
                            want.get("count").and_then(Node::as_i64).unwrap_or(-1),
                        ),
                        _ => (
                            want.as_str()
                                .or_else(|| want.get("event_type").and_then(Node::as_str))
                                .unwrap_or_default(),
                            0,
                        ),
                    };
                    let count = events.iter().filter(|e| e["event_type"] == event_type).count();
                    if i64::try_from(count).ok() != Some(want_count) {
                        return Err(format!("{path}: {count} {event_type}, expected {want_count}"));
                    }
                }
                other => return Err(format!("harness_primitive_missing: observer assertion {other}")),
            }
        }
    }
    Ok(())
}

fn llm_spans(run: &Run) -> Vec<&SpanView> {
    let mut spans: Vec<&SpanView> = run.spans.iter().filter(|span| span.name == LLM_SPAN).collect();
    spans.sort_by_key(|span| {
        span.attributes
            .get("openarmature.llm.attempt_index")
            .and_then(Value::as_i64)
            .unwrap_or(i64::MAX)
    });
    spans
}

fn check_llm_spans(want: &Node, run: &Run, matcher: &mut Matcher) -> Result<(), String> {
    let spans = llm_spans(run);
    let entries = want.as_seq().unwrap_or_default();
    if spans.len() != entries.len() {
        return Err(format!(
            "expected.llm_spans: {} spans, expected {}",
            spans.len(),
            entries.len()
        ));
    }
    for (idx, (entry, span)) in entries.iter().zip(spans).enumerate() {
        let path = format!("expected.llm_spans/{idx}");
        for (key, value) in entry.as_map().unwrap_or_default() {
            match key.as_str() {
                "attempt_index" => matcher
                    .check(
                        value,
                        span.attributes.get("openarmature.llm.attempt_index"),
                        &path,
                        Keys::Subset,
                    )
                    .map_err(|mismatch| format!("{path}: {mismatch}"))?,
                "error_category" => matcher
                    .check(
                        value,
                        span.attributes.get("openarmature.error.category"),
                        &path,
                        Keys::Subset,
                    )
                    .map_err(|mismatch| format!("{path} error_category: {mismatch}"))?,
                "attributes" => check_attributes(value, &span.attributes, &path, matcher)?,
                "attributes_absent" => check_absent(value, &span.attributes, &path)?,
                other => return Err(format!("harness_primitive_missing: llm_spans key {other}")),
            }
        }
    }
    Ok(())
}

fn check_attributes(
    want: &Node,
    attributes: &Map<String, Value>,
    path: &str,
    matcher: &mut Matcher,
) -> Result<(), String> {
    for (key, value) in want.as_map().unwrap_or_default() {
        matcher
            .check(value, attributes.get(key), &format!("{path}/{key}"), Keys::Subset)
            .map_err(|mismatch| format!("{path}: {mismatch}"))?;
    }
    Ok(())
}

fn check_absent(want: &Node, attributes: &Map<String, Value>, path: &str) -> Result<(), String> {
    for key in want.as_seq().unwrap_or_default().iter().filter_map(Node::as_str) {
        if attributes.contains_key(key) {
            return Err(format!("{path}: attribute {key} is present, expected absent"));
        }
    }
    Ok(())
}

/// `span_tree`: roots and children matched in order by name, each with status, attributes and absences.
pub(super) fn check_span_tree(
    want: &Node,
    spans: &[SpanView],
    run: &Run,
    matcher: &mut Matcher,
) -> Result<(), String> {
    let roots: Vec<&SpanView> = spans
        .iter()
        .filter(|span| !spans.iter().any(|other| other.span_id == span.parent_id))
        .collect();
    check_span_level(want, &roots, spans, run, "expected.span_tree", matcher)
}

/// The untruncated values a §5.5.1 payload attribute may come from: the typed LLM events' field it renders,
/// serialized as the observer serializes it (a string as it is, anything else as canonical JSON).
fn untruncated(run: &Run, attribute: &str) -> Vec<String> {
    let field = match attribute {
        oa_observe::names::LLM_INPUT_MESSAGES => "input_messages",
        oa_observe::names::LLM_OUTPUT_CONTENT => "output_content",
        oa_observe::names::LLM_OUTPUT_TOOL_CALLS => "output_tool_calls",
        oa_observe::names::LLM_REQUEST_EXTRAS => "request_extras",
        _ => return Vec::new(),
    };
    run.events
        .values()
        .flatten()
        .filter_map(|event| match &event[field] {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(oa_provider::json::canonical_json(other)),
        })
        .collect()
}

fn check_span_level(
    want: &Node,
    actual: &[&SpanView],
    spans: &[SpanView],
    run: &Run,
    path: &str,
    matcher: &mut Matcher,
) -> Result<(), String> {
    let entries = want.as_seq().unwrap_or_default();
    if entries.len() != actual.len() {
        let names: Vec<&str> = actual.iter().map(|span| span.name.as_str()).collect();
        return Err(format!(
            "{path}: {} spans {names:?}, expected {}",
            actual.len(),
            entries.len()
        ));
    }
    for (idx, (entry, span)) in entries.iter().zip(actual).enumerate() {
        let path = format!("{path}/{idx}");
        for (key, value) in entry.as_map().unwrap_or_default() {
            match key.as_str() {
                "name" => {
                    if value.as_str() != Some(span.name.as_str()) {
                        return Err(format!(
                            "{path}: span {:?}, expected {:?}",
                            span.name,
                            value.to_json()
                        ));
                    }
                }
                "attribute_truncation" => {
                    for (attribute, rule) in value.as_map().unwrap_or_default() {
                        let text = span
                            .attributes
                            .get(attribute)
                            .and_then(Value::as_str)
                            .ok_or_else(|| {
                                format!("{path}: attribute {attribute} is absent or not a string")
                            })?;
                        let full = untruncated(run, attribute);
                        let full: Vec<&str> = full.iter().map(String::as_str).collect();
                        check_truncation(text, rule, &full, &format!("{path}: {attribute}"))?;
                    }
                }
                "attribute_does_not_contain" => {
                    for (attribute, rule) in value.as_map().unwrap_or_default() {
                        let forbidden = match rule.get("forbidden_substring_kind").and_then(Node::as_str) {
                            // The graph builder synthesizes inline image data as a run of 'A's (015).
                            Some("synthetic_base64_prefix") => "A".repeat(32),
                            other => {
                                return Err(format!(
                                    "harness_primitive_missing: forbidden_substring_kind {other:?}"
                                ));
                            }
                        };
                        let text = span
                            .attributes
                            .get(attribute)
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        if text.is_empty() || text.contains(&forbidden) {
                            return Err(format!(
                                "{path}: {attribute} is absent or contains the forbidden substring"
                            ));
                        }
                    }
                }
                "exception_recorded" => {
                    if value.as_bool() != Some(span.has_exception_event) {
                        return Err(format!(
                            "{path} ({}): exception recorded {}",
                            span.name, span.has_exception_event
                        ));
                    }
                }
                "status_description" => {
                    if value.as_str() != span.status_description.as_deref() {
                        return Err(format!(
                            "{path} ({}): status description {:?}, expected {:?}",
                            span.name,
                            span.status_description,
                            value.to_json()
                        ));
                    }
                }
                "status" => {
                    if value.as_str() != Some(span.status) {
                        return Err(format!(
                            "{path} ({}): status {}, expected {:?}",
                            span.name,
                            span.status,
                            value.to_json()
                        ));
                    }
                }
                "attributes" => check_attributes(value, &span.attributes, &path, matcher)?,
                "attributes_absent" => check_absent(value, &span.attributes, &path)?,
                "attributes_present" => {
                    for key in value.as_seq().unwrap_or_default().iter().filter_map(Node::as_str) {
                        if !span.attributes.contains_key(key) {
                            return Err(format!("{path}: attribute {key} is absent, expected present"));
                        }
                    }
                }
                "attribute_parses_as_messages" | "attribute_parses_as_object" => {
                    for (attribute, expected_value) in value.as_map().unwrap_or_default() {
                        let text = span
                            .attributes
                            .get(attribute)
                            .and_then(Value::as_str)
                            .ok_or_else(|| {
                                format!("{path}: attribute {attribute} is absent or not a string")
                            })?;
                        let parsed: Value = serde_json::from_str(text)
                            .map_err(|error| format!("{path}: {attribute} is not JSON: {error}"))?;
                        matcher
                            .check(
                                expected_value,
                                Some(&parsed),
                                &format!("{path}/{attribute}"),
                                Keys::Subset,
                            )
                            .map_err(|mismatch| format!("{path}: {mismatch}"))?;
                    }
                }
                "children" => {
                    let children: Vec<&SpanView> = spans
                        .iter()
                        .filter(|child| child.parent_id == span.span_id)
                        .collect();
                    check_span_level(value, &children, spans, run, &format!("{path}/children"), matcher)?;
                }
                other => return Err(format!("harness_primitive_missing: span_tree key {other}")),
            }
        }
    }
    Ok(())
}

/// A §5.5.5 truncation rule over one emitted value (`attribute_truncation` on a span, `metadata_truncation` on a
/// Langfuse observation, 0119): `max_bytes`, `marker_pattern` (a regular expression the value matches),
/// `utf8_valid` (a Rust string is valid UTF-8 by construction, and the cut is checked on a code-point boundary in
/// oa-observe's truncate tests; `true` is the only value it can assert), and `prefix_of_full_serialization`: the
/// value without its marker is a byte-exact prefix of one of `full` (the untruncated values it may come from), and
/// shorter than it.
pub(super) fn check_truncation(text: &str, rule: &Node, full: &[&str], path: &str) -> Result<(), String> {
    for (key, value) in rule.as_map().unwrap_or_default() {
        match key.as_str() {
            "max_bytes" => {
                let max_bytes = value.as_i64().ok_or("fixture_schema_invalid: max_bytes")?;
                if i64::try_from(text.len()).unwrap_or(i64::MAX) > max_bytes {
                    return Err(format!("{path} is {} bytes, over {max_bytes}", text.len()));
                }
            }
            "marker_pattern" => {
                let pattern = value.as_str().ok_or("fixture_schema_invalid: marker_pattern")?;
                let marker = regex::Regex::new(pattern)
                    .map_err(|error| format!("fixture_schema_invalid: marker_pattern: {error}"))?;
                if !marker.is_match(text) {
                    return Err(format!("{path} does not end with the truncation marker"));
                }
            }
            "utf8_valid" if value.as_bool() == Some(true) => {}
            "prefix_of_full_serialization" if value.as_bool() == Some(true) => {
                let kept = text
                    .rfind(TRUNCATION_MARKER_START)
                    .map_or(text, |cut| &text[..cut]);
                if !full
                    .iter()
                    .any(|full| full.len() > kept.len() && full.as_bytes().starts_with(kept.as_bytes()))
                {
                    return Err(format!(
                        "{path}: the value before its marker is not a proper prefix of the untruncated value"
                    ));
                }
            }
            other => return Err(format!("harness_primitive_missing: truncation rule {other}")),
        }
    }
    Ok(())
}

/// Where §5.5.5's marker (`…[truncated, N bytes total]`) begins.
const TRUNCATION_MARKER_START: &str = "…[truncated, ";

fn log_matches(entry: &Node, log: &LogView, matcher: &Matcher) -> bool {
    if let Some(name) = entry.get("event_name")
        && name.as_str() != log.event_name.as_deref()
    {
        return false;
    }
    if let Some(level) = entry.get("level")
        && !log
            .severity
            .is_some_and(|severity| level_matches(level, severity))
    {
        return false;
    }
    if let Some(body) = entry.get("body")
        && !log
            .body
            .as_ref()
            .is_some_and(|actual| matches(body, actual, matcher))
    {
        return false;
    }
    match entry.get("attributes") {
        Some(attributes) => matches(attributes, &Value::Object(log.attributes.clone()), matcher),
        None => true,
    }
}

/// `log_records[].level` (0116): an OTel severity by its level name, any of the level's four severity numbers
/// (`WARNING` is WARN to WARN4).
fn level_matches(level: &Node, severity: opentelemetry::logs::Severity) -> bool {
    let range = match level.as_str() {
        Some("TRACE") => 1..=4,
        Some("DEBUG") => 5..=8,
        Some("INFO") => 9..=12,
        Some("WARNING" | "WARN") => 13..=16,
        Some("ERROR") => 17..=20,
        Some("FATAL" | "CRITICAL") => 21..=24,
        _ => return false,
    };
    range.contains(&(severity as i32))
}

fn check_log_records(want: &Node, run: &Run, matcher: &mut Matcher) -> Result<(), String> {
    for (idx, entry) in want.as_seq().unwrap_or_default().iter().enumerate() {
        let path = format!("expected.log_records/{idx}");
        let matching: Vec<&LogView> = run
            .logs
            .iter()
            .filter(|log| log_matches(entry, log, matcher))
            .collect();
        match entry.get("count").and_then(Node::as_i64) {
            Some(count) if i64::try_from(matching.len()).ok() != Some(count) => {
                return Err(format!(
                    "{path}: {} records match, expected {count}",
                    matching.len()
                ));
            }
            None if matching.is_empty() => {
                return Err(format!("{path}: no record matches ({} captured)", run.logs.len()));
            }
            _ => {}
        }
        if let (Some(first), Some(attributes)) = (matching.first(), entry.get("attributes")) {
            matcher
                .check(
                    attributes,
                    Some(&Value::Object(first.attributes.clone())),
                    &path,
                    Keys::Subset,
                )
                .map_err(|mismatch| format!("{path}: {mismatch}"))?;
        }
    }
    Ok(())
}

fn check_log_records_absent(want: &Node, run: &Run) -> Result<(), String> {
    let matcher = Matcher::default();
    for (idx, entry) in want.as_seq().unwrap_or_default().iter().enumerate() {
        if let Some(log) = run.logs.iter().find(|log| log_matches(entry, log, &matcher)) {
            return Err(format!(
                "expected.log_records_absent/{idx}: a record matches ({:?})",
                log.event_name
            ));
        }
    }
    Ok(())
}

/// oa's extension dimensions: the enforcement chapter's marker, which oa puts on every metric sample of a
/// structured call beside the §11.3 set. A fixture's exact dimension set is compared without them (a fixture that
/// names one still asserts it); every other key is compared exactly, so a missing or stray §11.3 dimension still
/// fails.
const EXTENSION_DIMENSIONS: [&str; 2] = [
    oa_observe::names::LLM_SCHEMA_MODE,
    oa_observe::names::LLM_SCHEMA_VERSION,
];

/// `metrics`: each entry names an instrument and its exact dimensions (oa's extension dimensions aside, unless
/// named), and optionally the recorded value; a matching data point must exist.
fn check_metrics(want: &Node, run: &Run) -> Result<(), String> {
    for (idx, entry) in want.as_seq().unwrap_or_default().iter().enumerate() {
        let path = format!("expected.metrics/{idx}");
        let instrument = entry.get("instrument").and_then(Node::as_str).unwrap_or_default();
        let dimensions = entry
            .get("dimensions")
            .map(Node::to_json)
            .unwrap_or(Value::Object(Map::new()));
        let value = entry.get("value").and_then(Node::as_f64);
        let found = run.points.iter().any(|point| {
            let mut seen = point.dimensions.clone();
            seen.retain(|key, _| {
                !EXTENSION_DIMENSIONS.contains(&key.as_str()) || dimensions.get(key).is_some()
            });
            point.instrument == instrument
                && Value::Object(seen) == dimensions
                && value.is_none_or(|value| (point.value - value).abs() < 1e-9)
        });
        if !found {
            let seen: Vec<String> = run
                .points
                .iter()
                .filter(|point| point.instrument == instrument)
                .map(|point| format!("{} = {}", Value::Object(point.dimensions.clone()), point.value))
                .collect();
            return Err(format!(
                "{path}: no {instrument} point with {dimensions} (seen: {seen:?})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: &str = "{max_bytes: 60, marker_pattern: '…\\[truncated, [0-9]+ bytes total\\]$', utf8_valid: true, \
                        prefix_of_full_serialization: true}";

    #[test]
    fn a_truncation_rule_fails_each_way_a_cut_can_be_wrong() {
        let rule = Node::from_yaml_str(RULE).unwrap();
        let full = "😀".repeat(40);
        let cut = format!("{}…[truncated, 160 bytes total]", "😀".repeat(7));
        check_truncation(&cut, &rule, &[&full], "m").unwrap();
        // Over the cap, without the marker, not a prefix of what it came from.
        let long = format!("{}…[truncated, 160 bytes total]", "😀".repeat(9));
        assert!(
            check_truncation(&long, &rule, &[&full], "m")
                .unwrap_err()
                .contains("over 60")
        );
        assert!(
            check_truncation(&"😀".repeat(7), &rule, &[&full], "m")
                .unwrap_err()
                .contains("marker")
        );
        let other = format!("{}…[truncated, 160 bytes total]", "😁".repeat(7));
        assert!(
            check_truncation(&other, &rule, &[&full], "m")
                .unwrap_err()
                .contains("prefix")
        );
        // A value that was not cut is no truncation of it.
        assert!(check_truncation(&cut, &rule, &[], "m").is_err());
        let unknown = Node::from_yaml_str("{max_lines: 3}").unwrap();
        assert!(
            check_truncation(&cut, &unknown, &[&full], "m")
                .unwrap_err()
                .starts_with("harness_primitive_missing")
        );
    }
}
