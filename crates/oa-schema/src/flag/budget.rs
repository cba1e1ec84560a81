//! When the yes/no evaluator starts memoizing reference hops: after [`MEMO_AFTER_HOPS`](crate::eval::MEMO_AFTER_HOPS), or, on a large instance,
//! after a number of hops in proportion to its size.
//!
//! The memo keeps unions whose members recurse into the same children polynomial, but each memoized hop pays for a
//! hash, a probe and an insert into a table that grows with the run. A large valid document (a 3 MB Kubernetes
//! API description against the Swagger schema) makes about two hops per value: past the fixed threshold, hashing
//! was a third of its `is_valid`. A run that has made more than [`HOPS_PER_VALUE`] hops per value of its instance
//! is re-evaluating the same parts, and only then does the memo pay. Each time a run passes its threshold, the
//! instance's values are counted up to the threshold's share (a walk that stops there): if there are that many,
//! the threshold doubles, else the memo starts. The walks add up to a sixteenth of the hops made, and the hops made
//! before the memo starts stay within twice [`HOPS_PER_VALUE`] per value (and at most [`MOST_HOPS_UNMEMOIZED`]).

use serde_json::Value;

/// Hops per value of the instance a run may make before memoizing.
const HOPS_PER_VALUE: u32 = 32;

/// The most hops a run makes before memoizing, whatever its instance's size.
const MOST_HOPS_UNMEMOIZED: u32 = HOPS_PER_VALUE << 20;

/// The run over `instance` has passed `threshold` hops: the next threshold, or `None` when the memo starts now (the
/// instance has fewer values than that many hops call for).
pub(super) fn next_threshold(instance: &Value, threshold: u32) -> Option<u32> {
    let values = usize::try_from(threshold / HOPS_PER_VALUE).unwrap_or(usize::MAX);
    (threshold < MOST_HOPS_UNMEMOIZED && values_up_to(instance, values) >= values)
        .then(|| threshold.saturating_mul(2))
}

/// The number of values in `instance` (itself, its items and members, theirs, ...), or `cap` once it reaches that.
/// Only containers are visited: a container adds its length, and scalars need no visit.
fn values_up_to(instance: &Value, cap: usize) -> usize {
    let mut count = 1;
    let mut containers = vec![instance];
    while let Some(container) = containers.pop() {
        if count >= cap {
            return cap;
        }
        match container {
            Value::Array(items) => {
                count += items.len();
                containers.extend(items.iter().filter(|item| is_container(item)));
            }
            Value::Object(members) => {
                count += members.len();
                containers.extend(members.values().filter(|member| is_container(member)));
            }
            _ => {}
        }
    }
    count.min(cap)
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(items) if !items.is_empty())
        || matches!(value, Value::Object(members) if !members.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{HOPS_PER_VALUE, MOST_HOPS_UNMEMOIZED, next_threshold, values_up_to};
    use serde_json::json;

    #[test]
    fn every_value_is_counted_once() {
        assert_eq!(values_up_to(&json!(1), 100), 1);
        assert_eq!(values_up_to(&json!([]), 100), 1);
        assert_eq!(values_up_to(&json!([1, [2, 3], { "a": {}, "b": [[]] }]), 100), 9);
        assert_eq!(values_up_to(&json!([1, [2, 3], { "a": {}, "b": [[]] }]), 4), 4);
    }

    #[test]
    fn the_threshold_doubles_while_the_instance_has_the_values_for_it() {
        assert_eq!(next_threshold(&json!({ "a": [1, 2, 3] }), 4096), None);
        // 5,001 values: enough for 32 hops each up to 160,032 hops.
        let large = json!(vec![json!({ "a": 1, "b": [true, false] }); 1000]);
        let mut threshold = 4096;
        let mut thresholds = vec![];
        while let Some(next) = next_threshold(&large, threshold) {
            threshold = next;
            thresholds.push(threshold);
        }
        assert_eq!(thresholds, [8192, 16_384, 32_768, 65_536, 131_072, 262_144]);
        assert!(threshold <= 2 * 5001 * HOPS_PER_VALUE);
    }

    #[test]
    fn the_threshold_stops_growing_at_its_ceiling() {
        let wide = json!(vec![0; (MOST_HOPS_UNMEMOIZED / HOPS_PER_VALUE) as usize]);
        assert_eq!(
            next_threshold(&wide, MOST_HOPS_UNMEMOIZED / 2),
            Some(MOST_HOPS_UNMEMOIZED)
        );
        assert_eq!(next_threshold(&wide, MOST_HOPS_UNMEMOIZED), None);
    }

    #[test]
    fn the_count_stops_at_its_cap_on_deep_and_wide_values() {
        let mut deep = json!(null);
        for _ in 0..10_000 {
            deep = serde_json::Value::Array(vec![deep]);
        }
        assert_eq!(values_up_to(&deep, 100), 100);
        assert_eq!(values_up_to(&deep, usize::MAX), 10_001);
        // Dropped without recursion: a recursive drop of 10,000 levels would need a deep stack.
        while let serde_json::Value::Array(mut inner) = deep {
            deep = inner.pop().unwrap_or_default();
        }
        let wide = json!(vec![0; 5000]);
        assert_eq!(values_up_to(&wide, 10), 10);
    }
}
