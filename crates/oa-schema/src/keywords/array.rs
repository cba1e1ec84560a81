//! `minItems`, `maxItems` and `uniqueItems` (hash-bucketed, so n log n-ish rather than quadratic).

use crate::equal::{json_equal, json_hash};
use crate::eval::{Detail, Evaluator, Frame, push_usize};
use crate::node::Node;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};

/// Below this many items, pairwise comparison beats hashing.
const SMALL_ARRAY: usize = 16;

fn len(items: &[Value]) -> u64 {
    u64::try_from(items.len()).unwrap_or(u64::MAX)
}

pub(super) fn evaluate_max_items(
    ev: &mut Evaluator<'_>,
    limit: u64,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    super::count_bound(
        ev,
        frame,
        node,
        "maxItems",
        holds_max_items(limit, instance),
        ("must have at most ", limit, " items"),
    )
}

/// `maxItems`'s verdict (non-arrays pass).
#[inline]
pub(super) fn holds_max_items(limit: u64, instance: &Value) -> bool {
    match instance {
        Value::Array(items) => len(items) <= limit,
        _ => true,
    }
}

/// `minItems`'s verdict (non-arrays pass).
#[inline]
pub(super) fn holds_min_items(limit: u64, instance: &Value) -> bool {
    match instance {
        Value::Array(items) => len(items) >= limit,
        _ => true,
    }
}

/// `uniqueItems`'s verdict (non-arrays pass).
pub(super) fn holds_unique_items(instance: &Value) -> bool {
    match instance {
        Value::Array(items) => first_duplicate(items).is_none(),
        _ => true,
    }
}

pub(super) fn evaluate_min_items(
    ev: &mut Evaluator<'_>,
    limit: u64,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    super::count_bound(
        ev,
        frame,
        node,
        "minItems",
        holds_min_items(limit, instance),
        ("must have at least ", limit, " items"),
    )
}

pub(super) fn evaluate_unique_items(
    ev: &mut Evaluator<'_>,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let Some((first, second)) = first_duplicate(items) else {
        return true;
    };
    if !ev.collect {
        return false;
    }
    let mut message = ev.message_of(&["items "]);
    push_usize(&mut message, first);
    message.push_str(" and ");
    push_usize(&mut message, second);
    message.push_str(" are equal");
    ev.fail(frame, node, "uniqueItems", Detail::message(message))
}

/// Items nested deeper than this are compared without recursion (and without hashing).
const MAX_RECURSIVE_DEPTH: usize = 128;

/// The indices of the first pair of equal items, if any.
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    if items.len() > 1
        && items
            .iter()
            // Only containers can nest: scalars (the usual items of `required` and `enum` lists) skip the walk.
            .any(|item| {
                matches!(item, Value::Array(_) | Value::Object(_))
                    && crate::depth::exceeds(item, MAX_RECURSIVE_DEPTH)
            })
    {
        // Only values built in code get here (the parser stops at 128 levels): quadratic but bounded in stack.
        for (second, item) in items.iter().enumerate() {
            if let Some(first) = items[..second]
                .iter()
                .position(|earlier| crate::depth::equal_iterative(earlier, item))
            {
                return Some((first, second));
            }
        }
        return None;
    }
    if items.len() <= SMALL_ARRAY {
        for (second, item) in items.iter().enumerate() {
            if let Some(first) = items[..second]
                .iter()
                .position(|earlier| json_equal(earlier, item))
            {
                return Some((first, second));
            }
        }
        return None;
    }
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::with_capacity(items.len());
    for (second, item) in items.iter().enumerate() {
        let mut hasher = DefaultHasher::new();
        json_hash(item, &mut hasher);
        let bucket = buckets.entry(hasher.finish()).or_default();
        if let Some(first) = bucket
            .iter()
            .copied()
            .find(|first| json_equal(&items[*first], item))
        {
            return Some((first, second));
        }
        bucket.push(second);
    }
    None
}
