//! Tests for JSON equality and its hash: suite cases for `const`, `enum` and `uniqueItems`, and the hash law.

use super::*;
use crate::format::suite;
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashMap;

fn hash_of(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    json_hash(value, &mut hasher);
    hasher.finish()
}

/// `uniqueItems` the way a validator would run it: bucket by hash, compare within a bucket.
fn all_unique(items: &[Value]) -> bool {
    let mut buckets: HashMap<u64, Vec<&Value>> = HashMap::new();
    for item in items {
        let bucket = buckets.entry(hash_of(item)).or_default();
        if bucket.iter().any(|seen| json_equal(seen, item)) {
            return false;
        }
        bucket.push(item);
    }
    true
}

/// Interprets schemas made only of `const`, `enum` or `uniqueItems`; `None` for anything else.
fn interpret(schema: &Value, instance: &Value) -> Option<bool> {
    let mut valid = true;
    for (keyword, argument) in schema.as_object()? {
        valid &= match keyword.as_str() {
            "$schema" | "$comment" => true,
            "const" => json_equal(argument, instance),
            "enum" => argument
                .as_array()?
                .iter()
                .any(|allowed| json_equal(allowed, instance)),
            "uniqueItems" => {
                !argument.as_bool()? || instance.as_array().is_none_or(|items| all_unique(items))
            }
            _ => return None,
        };
    }
    Some(valid)
}

#[test]
fn suite_const_enum_unique_items() {
    let mut n_run = 0;
    let mut failures = Vec::new();
    for file in ["const.json", "enum.json", "uniqueItems.json"] {
        for case in suite::load(file) {
            if let Some(got) = interpret(&case.schema, &case.data) {
                n_run += 1;
                if got != case.valid {
                    failures.push(case.name());
                }
            }
        }
    }
    assert!(failures.is_empty(), "failing cases:\n{}", failures.join("\n"));
    assert!(n_run >= 100, "only {n_run} cases ran");
}

#[test]
fn equal_values_hash_alike() {
    let pairs = [
        (json!(1), json!(1.0)),
        (json!(-0.0), json!(0)),
        (
            json!({"a": 1, "b": [2.0, {"c": null}]}),
            json!({"b": [2, {"c": null}], "a": 1.0}),
        ),
    ];
    for (a, b) in pairs {
        assert!(json_equal(&a, &b), "{a} == {b}");
        assert_eq!(hash_of(&a), hash_of(&b), "{a} and {b}");
    }
    assert!(!json_equal(&json!(1), &json!(true)));
    assert!(!json_equal(&json!("1"), &json!(1)));
    assert_ne!(hash_of(&json!(["ab", "c"])), hash_of(&json!(["a", "bc"])));
    assert_ne!(
        hash_of(&json!({"a": 1, "b": 2})),
        hash_of(&json!({"a": 2, "b": 1}))
    );
}

#[cfg(feature = "arbitrary_precision")]
#[test]
fn big_numbers_compare_exactly() {
    let a: Value = serde_json::from_str("[12345678901234567890123456789, 1e400]").unwrap();
    let b: Value = serde_json::from_str("[12345678901234567890123456789.0, 10e399]").unwrap();
    let c: Value = serde_json::from_str("[12345678901234567890123456788, 1e400]").unwrap();
    assert!(json_equal(&a, &b));
    assert_eq!(hash_of(&a), hash_of(&b));
    assert!(!json_equal(&a, &c));
}

#[test]
fn hash_spreads_distinct_values() {
    // Fewer under Miri (`cargo xtask miri`), which interprets every step about a thousand times slower.
    let n = if cfg!(miri) { 300 } else { 10_000 };
    let mut hashes: Vec<u64> = (0..n)
        .map(|i| hash_of(&json!({ "id": i, "name": format!("n{i}") })))
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(hashes.len(), n);
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-5i64..5).prop_map(Value::from),
        (-5i64..5).prop_map(|i| Value::from(i as f64)),
        prop_oneof![Just(0.5), Just(-2.5), Just(1e300)].prop_map(Value::from),
        "[ab]{0,2}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[ab]{1,2}", inner, 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn hash_is_consistent_with_equal(a in arb_json(), b in arb_json()) {
        if json_equal(&a, &b) {
            prop_assert_eq!(hash_of(&a), hash_of(&b));
        }
        prop_assert!(json_equal(&a, &a));
        prop_assert_eq!(json_equal(&a, &b), json_equal(&b, &a));
    }
}
