//! Completed values with their pointers (`Incremental::with_completed_values`, `take_completed`), under random
//! chunking: every value of the document is handed over once, in the order its text ends (members before their
//! container), at its JSON Pointer, and each equals the final document's value there.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_pointer::Location;
use oa_schema::Validator;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any JSON value, a few levels deep, with names that need escaping in a pointer.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        "[a-z~/é\"]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z~/]{0,4}", inner, 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Every value in `value` with its pointer, members before their container, in the order serde_json writes them.
fn post_order(value: &Value, at: &mut Location, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                at.push_index(index);
                post_order(item, at, out);
                at.pop();
            }
        }
        Value::Object(members) => {
            for (name, member) in members {
                at.push_key(name);
                post_order(member, at, out);
                at.pop();
            }
        }
        _ => {}
    }
    out.push((at.to_string(), value.clone()));
}

/// What `take_completed` hands over for `text` cut at `cuts`, and the final value.
fn completed(text: &[u8], cuts: &[usize]) -> (Vec<(String, Value)>, Value) {
    let validator = Validator::new(&json!({})).unwrap();
    let mut run = validator.incremental().max_depth(64).with_completed_values();
    let mut cuts: Vec<usize> = cuts.iter().copied().filter(|&cut| cut <= text.len()).collect();
    cuts.sort_unstable();
    cuts.push(text.len());
    let mut got = Vec::new();
    let mut from = 0;
    for cut in cuts {
        run.feed(&text[from..cut]).unwrap();
        got.extend(
            run.take_completed()
                .into_iter()
                .map(|done| (done.pointer.to_string(), done.value)),
        );
        from = cut;
    }
    (got, run.finish_value().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn each_value_once_in_order_at_its_pointer(
        value in value(),
        cuts in prop::collection::vec(0usize..400, 0..12),
    ) {
        let text = serde_json::to_string_pretty(&value).unwrap();
        let (got, last) = completed(text.as_bytes(), &cuts);
        prop_assert_eq!(&last, &value);
        for (pointer, part) in &got {
            prop_assert_eq!(last.pointer(pointer), Some(part), "at {}", pointer);
        }
        let mut want = Vec::new();
        post_order(&value, &mut Location::root(), &mut want);
        // A number that is the whole document ends only with the text: `finish` completes it, unseen here.
        if value.is_number() {
            want.clear();
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn nothing_without_the_value_or_unasked() {
    let validator = Validator::new(&json!({})).unwrap();
    let mut run = validator.incremental().with_completed_values().without_value();
    run.feed(br#"{"a": [1, 2]}"#).unwrap();
    assert!(run.take_completed().is_empty());
    let mut run = validator.incremental();
    run.feed(br#"{"a": [1, 2]}"#).unwrap();
    assert!(run.take_completed().is_empty());
    // Kept through a later `max_depth`.
    let mut run = validator.incremental().with_completed_values().max_depth(8);
    run.feed(br#"{"a": true}"#).unwrap();
    assert_eq!(run.take_completed().len(), 2);
}
