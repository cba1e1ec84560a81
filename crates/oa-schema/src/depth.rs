//! Depth-safe helpers for values nested deeper than recursion can bear (only reachable from values built in code:
//! serde_json's parser stops at 128 levels).

use serde_json::Value;

/// Whether `value` nests deeper than `limit` levels, found without recursion.
pub(crate) fn exceeds(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0_usize)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::Array(items) if !items.is_empty() => {
                if depth >= limit {
                    return true;
                }
                stack.extend(items.iter().map(|item| (item, depth + 1)));
            }
            Value::Object(members) if !members.is_empty() => {
                if depth >= limit {
                    return true;
                }
                stack.extend(members.values().map(|member| (member, depth + 1)));
            }
            _ => {}
        }
    }
    false
}

/// JSON Schema equality (as `equal::json_equal`: numbers by value, objects regardless of key order) without
/// recursion, for values too deep for the recursive version.
pub(crate) fn equal_iterative(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                if !crate::number::numbers_equal(x, y) {
                    return false;
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (key, member) in x {
                    let Some(other) = y.get(key) else { return false };
                    stack.push((member, other));
                }
            }
            _ => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

/// JSON Schema equality (as `equal::json_equal`), recursing at most `levels` container levels: `None` when the
/// answer lies deeper (the caller then asks [`equal_iterative`]). Spares a walk that measures the values' depth
/// first, which cost more than most comparisons.
pub(crate) fn equal_within(a: &Value, b: &Value, levels: usize) -> Option<bool> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let deeper = levels.checked_sub(1);
            for (p, q) in x.iter().zip(y) {
                if !equal_within(p, q, deeper?)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let deeper = levels.checked_sub(1);
            for (key, member) in x {
                let Some(other) = y.get(key) else {
                    return Some(false);
                };
                if !equal_within(member, other, deeper?)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        _ => Some(crate::equal::json_equal(a, b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_container_levels() {
        assert!(!exceeds(&json!([[1]]), 2));
        assert!(exceeds(&json!([[[1]]]), 2));
        assert!(!exceeds(&json!([[[]]]), 2));
    }

    #[test]
    fn iterative_equality_matches_schema_rules() {
        assert!(equal_iterative(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!equal_iterative(&json!([1, 2]), &json!([2, 1])));
        assert!(!equal_iterative(&json!({"a": 1}), &json!({"b": 1})));
        assert!(!equal_iterative(&json!(false), &json!(0)));
    }

    #[test]
    fn bounded_equality_answers_within_its_levels_and_defers_deeper() {
        let pairs = [
            (json!({"a": [1, 2.0]}), json!({"a": [1.0, 2]})),
            (json!([1, 2]), json!([2, 1])),
            (json!({"a": 1}), json!({"b": 1})),
            (json!(false), json!(0)),
            (json!([[[1]]]), json!([[[1]]])),
            (json!([[[1]]]), json!([[[2]]])),
            (json!([[[1]], 2]), json!([[[1]], 3])),
        ];
        for (a, b) in &pairs {
            assert_eq!(equal_within(a, b, 8), Some(equal_iterative(a, b)), "{a} {b}");
        }
        assert_eq!(equal_within(&json!([[[1]]]), &json!([[[1]]]), 2), None);
        assert_eq!(equal_within(&json!([[[1]]]), &json!([[[1]]]), 3), Some(true));
        // A difference found before the deep part answers without it.
        assert_eq!(
            equal_within(&json!([1, [[[1]]]]), &json!([2, [[[1]]]]), 1),
            Some(false)
        );
    }
}
