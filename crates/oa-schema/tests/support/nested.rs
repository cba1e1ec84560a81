//! Arbitrary JSON grown from a leaf strategy (proptest): arrays and objects of leaves, a few levels deep. Shared by
//! the property tests, each with its own leaves and bounds.

use proptest::prelude::*;
use serde_json::Value;
use std::ops::Range;

/// How far [`nested`] grows: proptest's `prop_recursive` bounds, then the lengths of arrays, the pattern of object
/// keys and the number of object entries.
pub(crate) struct Growth {
    pub(crate) depth: u32,
    pub(crate) size: u32,
    pub(crate) branch: u32,
    pub(crate) items: Range<usize>,
    pub(crate) key: &'static str,
    pub(crate) entries: Range<usize>,
}

/// `leaf`, or arrays and objects of what this grows, within `growth`.
pub(crate) fn nested(
    leaf: impl Strategy<Value = Value> + 'static,
    growth: Growth,
) -> impl Strategy<Value = Value> {
    let Growth {
        depth,
        size,
        branch,
        items,
        key,
        entries,
    } = growth;
    leaf.prop_recursive(depth, size, branch, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), items.clone()).prop_map(Value::Array),
            prop::collection::btree_map(key, inner, entries.clone())
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}
