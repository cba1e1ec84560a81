//! The vocabulary the observability executor reads, level by level. A case about to run that carries a key the
//! recognised vocabulary knows but none of these lists does is rejected before it runs (conformance-adapter §5
//! as 0120 frames it: a directive the adapter cannot honour fails the case, naming it and where it sits; it is
//! never ignored), see [`unread`]. The deferral table (`crate::deferral`) keeps cases whose vocabulary names a
//! feature oa does not have from running at all.

use crate::node::Node;

/// Case keys the executor reads.
pub(crate) const CASE_KEYS: &[&str] = &[
    "name",
    "description",
    "state",
    "entry",
    "nodes",
    "edges",
    "initial_state",
    "expected",
    "expected_error",
    "expected_construction_error",
    "invariants",
    "caller_correlation_id",
    "caller_invocation_id",
    "caller_invocation_label",
    "caller_metadata",
    "caller_global_otel_active",
    "disable_llm_spans",
    "disable_provider_payload",
    "disable_genai_semconv",
    "enable_metrics",
    "mock_llm",
    "mock_llm_stream",
    "provider",
    "otel_observer",
    "typed_observers",
    "queryable_observers",
    "langfuse_observer",
    "langfuse_observer_config",
    "langfuse_client",
    "invocations",
    "sequential_invocations",
    "direct_call",
    "requires_capability",
    "session_id",
];

/// Node directives `graph::directives` runs.
pub(crate) const NODE_DIRECTIVES: &[&str] = &[
    "update",
    "update_pure",
    "noop",
    "raises",
    "calls_llm",
    "calls_tool",
    "augment_metadata",
    "capture_invocation_metadata_into",
    "capture_queryable_observer_read_into",
    "then_drop_for_current_invocation",
    "then_assert_bucket_absent_into",
    "also_emits_via_global_tracer",
];

/// `calls_llm` keys `graph::llm` reads.
pub(crate) const CALLS_LLM_KEYS: &[&str] = &[
    "model",
    "messages",
    "response_schema",
    "config",
    "retry",
    "stream",
    "stores_response_in",
    "tools",
];

/// `calls_tool` keys `graph::tool` reads.
pub(crate) const CALLS_TOOL_KEYS: &[&str] = &[
    "tool_name",
    "tool_call_id",
    "arguments",
    "mock_tool",
    "stores_result_in",
];

/// `expected:` keys `expect` and `outcome` check.
pub(crate) const EXPECTED_KEYS: &[&str] = &[
    "observers",
    "llm_spans",
    "span_tree",
    "span_tree_private",
    "span_tree_global",
    "no_openarmature_spans_on_global",
    "no_llm_provider_span",
    "log_records",
    "log_records_absent",
    "metrics",
    "node_completed_event_carries_error",
    "llm_span_attributes",
    "llm_span_attributes_absent",
    "response_usage",
    "invariants",
    "langfuse_trace",
    "langfuse_traces",
    "no_langfuse_observations_emitted",
    "no_langfuse_observations_on_global",
    "no_langfuse_observations_on_private",
    "langfuse_observations_on_global",
    "no_payload_bearing_langfuse_observations_on_global",
    "payload_bearing_langfuse_observations_on_global",
    "invocation_id",
    "final_state",
    "final_state_bounds",
    "invoke_rejects_at_api_boundary",
    "augment_rejects_at_call_site",
    "no_spans_emitted",
    "direct_call_result",
    "per_invocation",
    "invocation_count",
    "determinism_check",
    "no_edge_spans",
];

/// `expected.observers.<name>` assertions `expect` checks.
pub(crate) const OBSERVER_ASSERTIONS: &[&str] = &[
    "contains_event",
    "event_counts",
    "contains_events_in_order",
    "sentinel_node_event_emission_is_impl_defined",
    "contains_exactly_one_event_of_type",
    "contains_event_of_type",
    "relative_order_of_events_matching",
    "event_count",
    "does_not_contain_event_of_type",
];

/// The first key of `body` (a case about to run) that no list above holds, as its location below the case and the
/// key: a case key, a node directive, a `calls_llm` or `calls_tool` key, an `expected:` key or an observer
/// assertion.
pub(crate) fn unread(body: &Node) -> Option<(String, String)> {
    let outside = |entries: Option<&[(String, Node)]>, read: &[&str], at: &str| {
        entries
            .unwrap_or_default()
            .iter()
            .find(|(key, _)| !read.contains(&key.as_str()))
            .map(|(key, _)| (format!("{at}/{key}"), key.clone()))
    };
    if let Some(found) = outside(body.as_map(), CASE_KEYS, "") {
        return Some(found);
    }
    for (name, node) in body.get("nodes").and_then(Node::as_map).unwrap_or_default() {
        let at = format!("/nodes/{name}");
        if let Some(found) = outside(node.as_map(), NODE_DIRECTIVES, &at) {
            return Some(found);
        }
        let calls = node.get("calls_llm").and_then(Node::as_map);
        if let Some(found) = outside(calls, CALLS_LLM_KEYS, &format!("{at}/calls_llm")) {
            return Some(found);
        }
        let tools = node.get("calls_tool").and_then(Node::as_map);
        if let Some(found) = outside(tools, CALLS_TOOL_KEYS, &format!("{at}/calls_tool")) {
            return Some(found);
        }
    }
    let expected = body.get("expected");
    if let Some(found) = outside(expected.and_then(Node::as_map), EXPECTED_KEYS, "/expected") {
        return Some(found);
    }
    for (name, assertions) in expected
        .and_then(|expected| expected.get("observers"))
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        let at = format!("/expected/observers/{name}");
        if let Some(found) = outside(assertions.as_map(), OBSERVER_ASSERTIONS, &at) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observability::{Captured, capture};

    fn empty() -> Captured {
        let mut run = capture::Run::default();
        run.events.insert("c".to_owned(), Vec::new());
        Captured {
            run,
            responses: Vec::new(),
            invocations: Vec::new(),
            direct_call: None,
            queryable: None,
            construction_error: None,
        }
    }

    /// Each listed `expected:` key and observer assertion reaches its checker (whatever that checker then says
    /// about an empty run), so the lists claim nothing the executor does not read.
    #[test]
    fn every_listed_expectation_reaches_its_checker() {
        for key in EXPECTED_KEYS {
            let want = Node::Map(vec![((*key).to_owned(), Node::Bool(true))]);
            if let Err(error) = crate::observability::expect::check(&want, &empty()) {
                assert!(
                    !error.contains("harness_primitive_missing: expected."),
                    "{key}: {error}"
                );
            }
        }
        for assertion in OBSERVER_ASSERTIONS {
            let want = Node::from_yaml_str(&format!("observers: {{c: {{{assertion}: true}}}}")).unwrap();
            if let Err(error) = crate::observability::expect::check(&want, &empty()) {
                assert!(
                    !error.contains("harness_primitive_missing"),
                    "{assertion}: {error}"
                );
            }
        }
        // The contrast: a key outside the lists is refused by the checker too.
        let stray = Node::from_yaml_str("parent_trace: true").unwrap();
        assert_eq!(
            crate::observability::expect::check(&stray, &empty()),
            Err("harness_primitive_missing: expected.parent_trace".to_owned())
        );
    }

    #[test]
    fn an_unread_key_is_found_at_each_level_with_its_location() {
        let find = |yaml: &str| unread(&Node::from_yaml_str(yaml).unwrap());
        assert_eq!(
            find("entry: a\nnodes: {a: {noop: true}}\nexpected: {span_tree: []}"),
            None
        );
        assert_eq!(
            find("first_run_expected: {}"),
            Some(("/first_run_expected".to_owned(), "first_run_expected".to_owned()))
        );
        assert_eq!(
            find("nodes: {a: {calls_llm_from_wrapper: {}}}"),
            Some((
                "/nodes/a/calls_llm_from_wrapper".to_owned(),
                "calls_llm_from_wrapper".to_owned()
            ))
        );
        assert_eq!(
            find("nodes: {a: {calls_llm: {model: m, response: canned}}}"),
            Some(("/nodes/a/calls_llm/response".to_owned(), "response".to_owned()))
        );
        assert_eq!(
            find("expected: {traces: []}"),
            Some(("/expected/traces".to_owned(), "traces".to_owned()))
        );
        assert_eq!(
            find("expected: {observers: {c: {every_captured_event_has: {}}}}"),
            Some((
                "/expected/observers/c/every_captured_event_has".to_owned(),
                "every_captured_event_has".to_owned()
            ))
        );
    }
}
