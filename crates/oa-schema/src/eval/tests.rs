//! The collecting walk's shortcuts (the questions asked about an array's items before they are walked, scalars
//! included) against the plain route: the yes/no verdict, then a collecting walk that asks nothing. Both must give
//! the same report.

use super::{Evaluator, PRECHECK_NESTING};
use crate::validator::Validator;
use crate::violation::{Violation, Violations};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The report by the plain route.
fn plain_report(validator: &Validator, instance: &Value) -> Result<(), Violations> {
    if validator.is_valid(instance) {
        return Ok(());
    }
    let mut evaluator = Evaluator::new(validator.compiled(), true);
    // No subtree is asked about first: the nesting count is at its limit from the start.
    evaluator.failed_prechecks = PRECHECK_NESTING;
    let collected_valid = evaluator.run(instance);
    let violations: Vec<Violation> = std::mem::take(&mut evaluator.violations);
    assert!(
        !collected_valid && !violations.is_empty(),
        "both evaluators agree on {instance}"
    );
    Err(Violations::sorted(violations))
}

/// Subschemas for scalar items: each admits some of the scalars below and rejects others, several through a
/// probe (`not`, the unions) or with a message built from the schema (`enum`).
fn scalar_schema() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!({ "type": "number", "exclusiveMaximum": 10 }),
        json!({ "type": "string", "enum": ["hello", "world"] }),
        json!({ "enum": [1, "a", null] }),
        json!({ "not": { "type": ["null"] } }),
        json!({ "oneOf": [{ "type": "number", "multipleOf": 3 }, { "type": "number", "multipleOf": 5 }] }),
        json!({ "anyOf": [{ "type": "string", "minLength": 2 }, { "type": "integer", "minimum": 4 }] }),
        json!({ "type": "string", "pattern": "^[a-z]+$", "maxLength": 4 }),
        json!({ "type": "integer" }),
        json!({ "const": 2 }),
        json!({ "minimum": 0, "maximum": 7 }),
        json!({ "type": "array", "items": { "type": "integer", "maximum": 5 } }),
        json!({ "type": "object", "required": ["a"], "properties": { "a": { "type": "string" } } }),
        json!(true),
        json!(false),
    ])
}

/// Scalars (and a few small arrays and objects) for items and roots.
fn value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        (-3i64..16).prop_map(Value::from),
        prop::sample::select(vec!["", "a", "hello", "world", "abcde", "A1", "zz"]).prop_map(Value::from),
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        Just(json!(2.5)),
    ];
    scalar.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(vec!["a", "b"]), inner, 0..3).prop_map(
                |members| Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

proptest! {
    /// Arrays whose items meet a scalar schema each (`prefixItems`, then `items`): the report by `validate` is the
    /// plain route's, whether the items are asked about first or not.
    #[test]
    fn item_questions_change_no_report(
        prefix in prop::collection::vec(scalar_schema(), 1..6),
        rest in scalar_schema(),
        instance in prop::collection::vec(value(), 0..9),
    ) {
        let schema = json!({ "type": "array", "prefixItems": prefix, "items": rest });
        let validator = Validator::new(&schema).expect("the schema compiles");
        let instance = Value::Array(instance);
        prop_assert_eq!(validator.validate(&instance), plain_report(&validator, &instance));
    }

    /// A scalar (or small) root against each schema: `validate` gives the plain route's report (the root is never
    /// asked about; small array roots' items are).
    #[test]
    fn scalar_roots_report_as_before(schema in scalar_schema(), instance in value()) {
        let validator = Validator::new(&schema).expect("the schema compiles");
        prop_assert_eq!(validator.validate(&instance), plain_report(&validator, &instance));
    }
}

/// The benchmark's `fast` instance, whose first item fails and whose other items are asked about: one violation,
/// as the plain route reports it.
#[test]
fn a_failing_first_item_does_not_stop_the_questions() {
    let schema = json!({
        "type": "array",
        "prefixItems": [
            { "type": "number", "exclusiveMaximum": 10 },
            { "type": "string", "enum": ["hello", "world"] },
            { "type": "array", "minItems": 1, "maxItems": 3,
              "prefixItems": [{ "type": "number" }, { "type": "string" }, { "type": "boolean" }] },
            { "not": { "type": ["null"] } },
            { "oneOf": [{ "type": "number", "multipleOf": 3 }, { "type": "number", "multipleOf": 5 }] }
        ]
    });
    let validator = Validator::new(&schema).expect("the schema compiles");
    let instance = json!([10, "world", [1, "a", true], "str", 5]);
    let report = validator.validate(&instance);
    assert_eq!(report, plain_report(&validator, &instance));
    let violations = report.expect_err("item 0 is not below 10");
    let only: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(only, ["#/0: exclusiveMaximum: must be less than 10"]);
}
