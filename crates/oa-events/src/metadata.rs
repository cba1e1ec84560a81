//! Caller-supplied invocation metadata (observability §3.4): the key and value rules checked at `invoke()` and
//! at the mid-invocation helper, and the helpers themselves: [`set_invocation_metadata`] merges entries into the
//! running invocation's mapping (and tells observers, so they update the spans still open), and
//! [`get_invocation_metadata`] reads an immutable snapshot of it.
//!
//! The mapping lives in the task-local [`CallContext`](crate::CallContext), shared by the invocation's nodes: this
//! runtime is serial, so the augmenting context is always the outermost one (no fan-out copies).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::CallContext;
use crate::event::{Event, MetadataEvent};

/// Key prefixes no caller key may start with (§3.4): the dotted `openarmature.` and `gen_ai.` namespaces, and (0119)
/// the `openarmature_` underscore namespace the Langfuse mapping writes its flat metadata keys in
/// (`openarmature_tool_name`, `openarmature_response_id`, ...).
pub const RESERVED_PREFIXES: [&str; 3] = ["openarmature.", "openarmature_", "gen_ai."];

/// Key names no caller key may equal: the 33 OA-emitted top-level backend metadata keys of §3.4's reserved set
/// (0119 added `error_type`, `error_message`, `token_budget` and `token_budget_exceeded` to the 29), then oa's own
/// additions (the MAY-expand allowance), which oa's Langfuse mapping writes at the same top level: the
/// structured-output path and enforcement marker on a Generation.
pub const RESERVED_KEYS: &[&str] = &[
    "correlation_id",
    "entry_node",
    "spec_version",
    "detached_child_trace_ids",
    "namespace",
    "step",
    "attempt_index",
    "fan_out_index",
    "subgraph_name",
    "fan_out_item_count",
    "fan_out_concurrency",
    "fan_out_error_policy",
    "fan_out_parent_node_name",
    "prompt_group_name",
    "request_extras",
    "finish_reason",
    "system",
    "response_model",
    "response_id",
    "prompt",
    "invocation_id",
    "branch_name",
    "detached",
    "detached_from_invocation_id",
    "implementation_name",
    "implementation_version",
    "parallel_branches_branch_count",
    "parallel_branches_error_policy",
    "parallel_branches_parent_node_name",
    // 0119.
    "error_type",
    "error_message",
    "token_budget",
    "token_budget_exceeded",
    // oa's additions.
    "structured_output_path",
    "schema_mode",
    "schema_version",
];

/// A metadata entry §3.4 forbids.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// The key starts with a reserved prefix.
    #[error("metadata key {key:?} is in the reserved `{prefix}*` namespace")]
    ReservedNamespace {
        /// The key.
        key: String,
        /// The prefix it starts with.
        prefix: &'static str,
    },
    /// The key equals a reserved name.
    #[error("metadata key {key:?} is reserved: oa writes it at the top level of backend metadata")]
    ReservedKey {
        /// The key.
        key: String,
    },
    /// The value is not an attribute value.
    #[error(
        "metadata value of {key:?} is not an attribute value (a string, number or boolean, or a non-empty array of one of those)"
    )]
    NotAttributeValue {
        /// The key.
        key: String,
    },
}

/// Checks every entry against §3.4: no reserved prefix or name, and each value a string, number or boolean or a
/// homogeneous array of one of those (no null, no object, no mixed or nested array).
///
/// ```
/// use serde_json::{Map, json};
/// use oa_events::{MetadataError, validate_metadata};
///
/// let mut entries = Map::new();
/// entries.insert("tenantId".into(), json!("acme"));
/// assert!(validate_metadata(&entries).is_ok());
/// entries.insert("step".into(), json!("checkout"));
/// assert!(matches!(validate_metadata(&entries), Err(MetadataError::ReservedKey { .. })));
/// ```
///
/// # Errors
///
/// The first offending entry, in the mapping's order.
pub fn validate_metadata(entries: &Map<String, Value>) -> Result<(), MetadataError> {
    for (key, value) in entries {
        if let Some(prefix) = RESERVED_PREFIXES.iter().find(|prefix| key.starts_with(**prefix)) {
            return Err(MetadataError::ReservedNamespace {
                key: key.clone(),
                prefix,
            });
        }
        if RESERVED_KEYS.contains(&key.as_str()) {
            return Err(MetadataError::ReservedKey { key: key.clone() });
        }
        if !is_attribute_value(value) {
            return Err(MetadataError::NotAttributeValue { key: key.clone() });
        }
    }
    Ok(())
}

fn is_attribute_value(value: &Value) -> bool {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(items) => {
            let same_kind = |check: fn(&Value) -> bool| items.iter().all(check);
            !items.is_empty()
                && (same_kind(Value::is_string)
                    || same_kind(Value::is_boolean)
                    || same_kind(Value::is_i64)
                    || same_kind(Value::is_number))
        }
        Value::Null | Value::Object(_) => false,
    }
}

/// Merges `entries` into the running invocation's metadata (existing keys overwritten, others kept) and
/// dispatches [`Event::MetadataAugmented`] so observers update the spans still open in this context; spans opened
/// afterwards carry the entries by ordinary propagation. Outside an invocation it does nothing.
///
/// ```
/// use serde_json::{Map, json};
///
/// let mut entries = Map::new();
/// entries.insert("requestId".into(), json!("req-1"));
/// // Outside an invocation: checked, then a silent no-op.
/// oa_events::set_invocation_metadata(entries)?;
/// assert!(oa_events::get_invocation_metadata().is_empty());
/// # Ok::<(), oa_events::MetadataError>(())
/// ```
///
/// # Errors
///
/// [`MetadataError`] for a reserved key or a value that is not an attribute value, raised before anything is
/// applied.
pub fn set_invocation_metadata(entries: Map<String, Value>) -> Result<(), MetadataError> {
    validate_metadata(&entries)?;
    let Some(context) = CallContext::current() else {
        return Ok(());
    };
    context.merge_metadata(&entries);
    context.bus.dispatch(Event::MetadataAugmented(MetadataEvent {
        scope: context.current_scope(),
        entries,
    }));
    Ok(())
}

/// An immutable snapshot of the metadata in scope (the caller's mapping plus every augmentation so far); empty
/// outside an invocation. Reading dispatches nothing.
pub fn get_invocation_metadata() -> MetadataSnapshot {
    MetadataSnapshot(Arc::new(
        CallContext::current()
            .map(|context| context.metadata_now())
            .unwrap_or_default(),
    ))
}

/// A read-only view of the invocation metadata at one moment (§3.4's immutable mapping snapshot): it derefs to
/// `&Map`, so it can be read but not changed, and later augmentations do not alter it.
#[derive(Clone, PartialEq, Default)]
pub struct MetadataSnapshot(Arc<Map<String, Value>>);

impl Deref for MetadataSnapshot {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        &self.0
    }
}

impl fmt::Debug for MetadataSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn one(key: &str, value: Value) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert(key.to_owned(), value);
        map
    }

    #[test]
    fn reserved_prefixes_and_names_are_rejected_and_plain_keys_pass() {
        for key in [
            "openarmature.user.x",
            "gen_ai.system",
            "openarmature_anything",
            "openarmature_tool_name",
        ] {
            assert!(matches!(
                validate_metadata(&one(key, json!("v"))),
                Err(MetadataError::ReservedNamespace { .. })
            ));
        }
        for key in [
            "step",
            "correlation_id",
            "system",
            "error_type",
            "error_message",
            "token_budget",
            "token_budget_exceeded",
            "structured_output_path",
        ] {
            assert!(matches!(
                validate_metadata(&one(key, json!("v"))),
                Err(MetadataError::ReservedKey { .. })
            ));
        }
        // Exact names, not prefixes; the underscore namespace is `openarmature_`, not `openarmature`.
        validate_metadata(&one("stepName", json!("v"))).unwrap();
        validate_metadata(&one("openarmatureFan", json!("v"))).unwrap();
        validate_metadata(&one("token_budgets", json!("v"))).unwrap();
        // §3.4 after 0119: 33 names, plus oa's three additions.
        assert_eq!(RESERVED_KEYS.len(), 33 + 3);
        validate_metadata(&one("userId", json!("u-1"))).unwrap();
    }

    #[test]
    fn values_follow_the_attribute_value_contract() {
        for good in [
            json!("s"),
            json!(3),
            json!(1.5),
            json!(true),
            json!(["a", "b"]),
            json!([1, 2]),
        ] {
            validate_metadata(&one("k", good)).unwrap();
        }
        for bad in [
            json!(null),
            json!({"a": 1}),
            json!([1, "a"]),
            json!([]),
            json!([[1]]),
        ] {
            assert!(matches!(
                validate_metadata(&one("k", bad)),
                Err(MetadataError::NotAttributeValue { .. })
            ));
        }
    }

    #[test]
    fn outside_an_invocation_the_read_is_empty_and_the_write_a_no_op() {
        set_invocation_metadata(one("requestId", json!("r"))).unwrap();
        assert!(get_invocation_metadata().is_empty());
        assert!(set_invocation_metadata(one("step", json!(1))).is_err());
    }
}
