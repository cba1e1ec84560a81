//! The case-level vocabulary the observability executor runs. A case key outside it is
//! `harness_primitive_missing` when the case runs; the deferral table (`crate::deferral`) keeps cases whose
//! vocabulary names a feature oa does not have from running at all.

use crate::node::Node;

/// Top-level case keys this executor understands.
pub(crate) const SUPPORTED_KEYS: &[&str] = &[
    "name",
    "description",
    "state",
    "entry",
    "nodes",
    "edges",
    "initial_state",
    "expected",
    "expected_error",
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
    "expected_construction_error",
];

/// `harness_primitive_missing` for the first case key outside [`SUPPORTED_KEYS`].
pub(crate) fn check_keys(body: &Node) -> Result<(), String> {
    for (key, _) in body.as_map().unwrap_or_default() {
        if !SUPPORTED_KEYS.contains(&key.as_str()) {
            return Err(format!("harness_primitive_missing: case key `{key}`"));
        }
    }
    Ok(())
}
