//! `minItems`, `maxItems` and `uniqueItems` (hash-bucketed, so n log n-ish rather than quadratic).

use super::Keyword;
use crate::equal::{json_equal, json_hash};
use crate::eval::{Detail, Evaluator, Frame, push_usize};
use crate::node::Node;
use crate::violation::ViolationKind;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};

/// `uniqueItems`: only `true` asserts anything.
pub(crate) fn compile_unique_items(value: &Value) -> Option<Keyword> {
    (value == &Value::Bool(true)).then_some(Keyword::UniqueItems)
}

/// Below this many items, pairwise comparison beats hashing.
const SMALL_ARRAY: usize = 16;

fn len(items: &[Value]) -> u64 {
    u64::try_from(items.len()).unwrap_or(u64::MAX)
}

/// `maxItems`'s verdict (non-arrays pass).
#[inline]
pub(crate) fn holds_max_items(limit: u64, instance: &Value) -> bool {
    match instance {
        Value::Array(items) => len(items) <= limit,
        _ => true,
    }
}

/// `minItems`'s verdict (non-arrays pass).
#[inline]
pub(crate) fn holds_min_items(limit: u64, instance: &Value) -> bool {
    match instance {
        Value::Array(items) => len(items) >= limit,
        _ => true,
    }
}

/// `uniqueItems`'s verdict (non-arrays pass).
pub(crate) fn holds_unique_items(instance: &Value) -> bool {
    match instance {
        Value::Array(items) => first_duplicate(items).is_none(),
        _ => true,
    }
}

pub(crate) fn evaluate_unique_items(
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
    ev.fail(frame, node, ViolationKind::UniqueItems, Detail::message(message))
}

/// Items nested deeper than this are compared without recursion (and without hashing).
const MAX_RECURSIVE_DEPTH: usize = 128;

/// [`first_duplicate`] for a small array, comparing a fingerprint of each pair of items and the items themselves
/// only when those agree; `None` when some item is a number not written as a plain integer (`1.0` equals `1`, which
/// the fingerprint cannot see), and the caller compares every pair.
fn first_duplicate_by_fingerprint(
    items: &[Value],
    same: impl Fn(&Value, &Value) -> bool,
) -> Option<Option<(usize, usize)>> {
    let mut prints = [0_u64; SMALL_ARRAY];
    for (print, item) in prints.iter_mut().zip(items) {
        *print = fingerprint(item)?;
    }
    for (second, item) in items.iter().enumerate() {
        let print = prints.get(second)?;
        for (first, earlier) in items.iter().enumerate().take(second) {
            if prints.get(first) == Some(print) && same(earlier, item) {
                return Some(Some((first, second)));
            }
        }
    }
    Some(None)
}

/// A fingerprint that equal items share: the kind, and the value of scalars (integers written plainly, strings
/// by a hash of their bytes), the length of arrays, and of objects their size and shallow contents (see
/// [`object_print`]). `None` for other numbers.
fn fingerprint(item: &Value) -> Option<u64> {
    const KIND: u32 = 61;
    Some(match item {
        Value::Null => 0,
        Value::Bool(flag) => (1 << KIND) | u64::from(*flag),
        Value::Number(number) => {
            (2 << KIND) ^ (crate::number::as_short_i64(number)? as u64 & ((1 << KIND) - 1))
        }
        Value::String(text) => {
            let hash = text.bytes().fold(text.len() as u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            });
            (3 << KIND) | (hash >> 3)
        }
        Value::Array(inner) => (4 << KIND) | inner.len() as u64,
        Value::Object(members) => (5 << KIND) | (object_print(members) & ((1 << KIND) - 1)),
    })
}

/// The most members an object's fingerprint reads (a larger one is printed by its size alone).
const PRINTED_MEMBERS: usize = 8;

/// An object's fingerprint: its size, and for a small one a sum (so that member order does not matter) over its
/// members of their names and scalar values, each read at its length and last 8 bytes. Arrays of
/// `{"$ref": "#/parameters/…"}` objects (Swagger's parameter lists) then compare only the pairs that may be equal.
fn object_print(members: &serde_json::Map<String, Value>) -> u64 {
    if members.len() > PRINTED_MEMBERS {
        return members.len() as u64;
    }
    let mut sum = members.len() as u64;
    for (name, member) in members {
        let value = match member {
            Value::String(text) => short_print(text),
            Value::Number(_) | Value::Null | Value::Bool(_) => 0,
            Value::Array(inner) => inner.len() as u64,
            Value::Object(inner) => !(inner.len() as u64),
        };
        let entry = (short_print(name).rotate_left(29) ^ value).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        sum = sum.wrapping_add(entry ^ (entry >> 32));
    }
    sum
}

/// A string's length and, from 8 bytes on, its last 8 bytes (names and references differ most at their ends):
/// equal strings print alike.
#[inline]
fn short_print(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let tail = bytes
        .len()
        .checked_sub(8)
        .and_then(|at| bytes.get(at..))
        .and_then(|tail| <[u8; 8]>::try_from(tail).ok())
        .map_or(0, u64::from_le_bytes);
    tail ^ bytes.len() as u64
}

/// The indices of the first pair of equal items, if any.
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    if items.len() <= SMALL_ARRAY {
        // Compared with recursion bounded at the depth past which the iterative comparison takes over: no walk to
        // measure each item's depth first (that walk cost more than the comparisons on arrays of objects).
        let same = |a: &Value, b: &Value| {
            crate::depth::equal_within(a, b, MAX_RECURSIVE_DEPTH)
                .unwrap_or_else(|| crate::depth::equal_iterative(a, b))
        };
        if let Some(found) = first_duplicate_by_fingerprint(items, same) {
            return found;
        }
        for (second, item) in items.iter().enumerate() {
            if let Some(first) = items[..second].iter().position(|earlier| same(earlier, item)) {
                return Some((first, second));
            }
        }
        return None;
    }
    if items.iter().any(|item| {
        // Only containers can nest: scalars (the usual items of `required` and `enum` lists) skip the walk.
        matches!(item, Value::Array(_) | Value::Object(_)) && crate::depth::exceeds(item, MAX_RECURSIVE_DEPTH)
    }) {
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

#[cfg(test)]
mod tests {
    use super::{SMALL_ARRAY, first_duplicate};
    use crate::equal::json_equal;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Items that collide in every way the fingerprint could get wrong: `1` and `1.0`, `-0` and `0`, equal
    /// containers, strings of one length.
    fn any_item() -> impl Strategy<Value = Value> {
        let scalar = prop::sample::select(vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            serde_json::from_str("-0").unwrap_or(Value::Null),
            json!(1),
            serde_json::from_str("1.0").unwrap_or(Value::Null),
            json!(2),
            json!(2.5),
            json!("a"),
            json!("b"),
            json!("ab"),
            json!("1"),
            // Strings of one length, head and tail, which only a full comparison tells apart.
            json!("abcdefgh-x-abcdefgh"),
            json!("abcdefgh-y-abcdefgh"),
        ]);
        scalar.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[ab]", inner.clone(), 0..2)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
                // Objects around the size past which only their size is printed, with names that print alike.
                prop::collection::btree_map(
                    "(a|b|c|d|e|f|g|h|i|j|abcdefgh-x-abcdefgh|abcdefgh-y-abcdefgh)",
                    inner,
                    0..super::PRINTED_MEMBERS + 3
                )
                .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    /// Items nested past the bounded recursion, in small arrays and large ones: equal pairs are found (by the
    /// iterative comparison), unequal ones are not, and nothing overflows the stack.
    #[test]
    fn items_nested_deeper_than_the_recursion_are_compared_without_it() {
        let nested = |levels: usize, leaf: Value| {
            let mut value = leaf;
            for _ in 0..levels {
                value = Value::Array(vec![value]);
            }
            value
        };
        for len in [3, SMALL_ARRAY, SMALL_ARRAY + 3] {
            for levels in [
                super::MAX_RECURSIVE_DEPTH - 1,
                super::MAX_RECURSIVE_DEPTH + 1,
                5000,
            ] {
                let mut items: Vec<Value> = (0..len).map(|i| nested(levels, json!(i))).collect();
                assert_eq!(first_duplicate(&items), None, "{len} items, {levels} levels");
                let last = std::mem::replace(&mut items[len - 1], nested(levels, json!(1)));
                drop_deep(last);
                assert_eq!(
                    first_duplicate(&items),
                    Some((1, len - 1)),
                    "{len} items, {levels} levels"
                );
                items.into_iter().for_each(drop_deep);
            }
        }
    }

    /// Drops a value nested in arrays without recursion (a recursive drop of 5000 levels needs a deep stack).
    fn drop_deep(mut value: Value) {
        while let Value::Array(mut inner) = value {
            value = inner.pop().unwrap_or(Value::Null);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn finds_the_first_pair_that_json_equality_finds(items in prop_oneof![
            prop::collection::vec(any_item(), 0..5),
            prop::collection::vec(any_item(), 0..=SMALL_ARRAY + 2),
        ]) {
            let mut expected = None;
            'outer: for second in 0..items.len() {
                for first in 0..second {
                    if json_equal(&items[first], &items[second]) {
                        expected = Some((first, second));
                        break 'outer;
                    }
                }
            }
            prop_assert_eq!(first_duplicate(&items), expected);
        }
    }
}
