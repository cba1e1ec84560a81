//! The walks that look members up in a name index (lists of eight names or more) against the collecting
//! evaluator, which merges: objects small enough for the index and large enough for the merge.
use crate::eval::Evaluator;
use crate::flag::plan::Check;
use crate::validator::Validator;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Names of every length class the index reads differently (up to 3 bytes, 4 to 7, 8 to 16, longer), with
/// shared heads and tails.
const NAMES: [&str; 20] = [
    "a",
    "ab",
    "b",
    "id",
    "kind",
    "name",
    "names",
    "type",
    "typed",
    "base_url",
    "base_path",
    "base_path_env",
    "api_token",
    "api_token_env",
    "content_segmentation",
    "content_segmentations",
    "escape_quotes",
    "escape_special_characters",
    "é",
    "x-é-long-name-over-16",
];

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        9 => prop::sample::select(NAMES.to_vec()).prop_map(str::to_owned),
        1 => "[a-z_]{0,20}",
    ]
}

/// Property schemas: cheap ones, and ones that recurse (set aside until the cheap ones have run).
fn member_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec!["null", "integer", "string", "array", "object"])
            .prop_map(|name| json!({ "type": name })),
        Just(json!({ "items": { "type": "integer" } })),
        Just(json!({ "properties": { "a": { "type": "string" } } })),
        Just(json!({ "$ref": "#/$defs/d" })),
    ]
}

fn member_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        (-2i64..2).prop_map(|n| json!(n)),
        "[ab]{0,2}".prop_map(Value::String),
        prop::collection::vec((0i64..2).prop_map(|n| json!(n)), 0..3).prop_map(Value::Array),
        Just(json!({ "a": "x" })),
        Just(json!({ "a": 1 })),
    ]
}

/// `properties` of 8 to 20 names alone or fused with `required`, `additionalProperties` and
/// `patternProperties`, against objects of 0 to 5 members (looked up) and of up to 20 (merged).
#[test]
fn indexed_objects_agree_with_the_collecting_evaluator() {
    let schema = (
        prop::collection::btree_map(name(), member_schema(), 8..20),
        prop::collection::btree_set(name(), 0..4),
        prop::option::of(member_schema()),
        prop::option::of(member_schema()),
    )
        .prop_map(|(properties, required, additional, patterned)| {
            let mut schema =
                json!({ "$defs": { "d": { "type": ["object", "integer"] } }, "properties": properties });
            if !required.is_empty() {
                schema["required"] = json!(required);
            }
            if let Some(additional) = additional {
                schema["additionalProperties"] = additional;
            }
            if let Some(patterned) = patterned {
                schema["patternProperties"] = json!({ "^b": patterned });
            }
            schema
        });
    let instance = prop_oneof![
        prop::collection::btree_map(name(), member_value(), 0..6),
        prop::collection::btree_map(name(), member_value(), 6..20),
    ]
    .prop_map(|map| Value::Object(map.into_iter().collect()));
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2048));
    runner
        .run(&(schema, instance), |(schema, instance)| {
            indexed_and_agreeing(&schema, &instance, |check| match check {
                Check::Properties { .. } => true,
                Check::Shape(shape) => shape.index_for(false, 0).is_some(),
                _ => false,
            })
        })
        .unwrap();
}

/// `schema` compiles to some check that `is` a name index, and both evaluators give `instance` one verdict.
fn indexed_and_agreeing(
    schema: &Value,
    instance: &Value,
    is: impl Fn(&Check) -> bool,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let validator = Validator::new(schema).unwrap();
    let compiled = validator.compiled();
    prop_assert!(has_check(compiled, is), "no name index in {}", schema);
    let flag = crate::flag::is_valid(compiled, instance);
    let collected = Evaluator::new(compiled, true).run(instance);
    prop_assert_eq!(flag, collected, "{} {}", schema, instance);
    Ok(())
}

/// Whether some plan has a check that `is` (for an object or a string instance).
fn has_check(compiled: &crate::node::CompiledSchema, is: impl Fn(&Check) -> bool) -> bool {
    compiled
        .plans
        .iter()
        .any(|plan| [3, 5].iter().any(|kind| plan.checks_for(*kind).iter().any(&is)))
}

/// `propertyNames` whose schema takes every string (straight, or through `$ref`s: answered without a walk) or
/// not, against objects with and without members.
#[test]
fn property_names_agree_with_the_collecting_evaluator() {
    let names_schema = prop::sample::select(vec![
        json!({ "type": "string" }),
        json!({ "$ref": "#/$defs/key" }),
        json!({ "$ref": "#/$defs/via" }),
        json!({ "$ref": "#/$defs/short" }),
        json!({ "type": ["string", "null"], "description": "a name" }),
        json!({ "type": "integer" }),
        json!({ "maxLength": 2 }),
        json!(true),
        json!(false),
    ]);
    let instance = prop::collection::btree_map(name(), member_value(), 0..6)
        .prop_map(|map| Value::Object(map.into_iter().collect()));
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(512));
    runner
        .run(&(names_schema, instance), |(names, instance)| {
            let schema = json!({
                "$defs": {
                    "key": { "type": "string" },
                    "via": { "$ref": "#/$defs/key" },
                    "short": { "$ref": "#/$defs/key", "maxLength": 3 },
                },
                "propertyNames": names,
            });
            super::flag_agrees(&schema, &instance)?;
            Ok(())
        })
        .unwrap();
}

/// A long `enum` of strings, with and without other values, against strings it lists and does not, and other
/// kinds.
#[test]
fn indexed_enums_agree_with_the_collecting_evaluator() {
    let options = (
        prop::collection::btree_set(name(), 8..20),
        prop::collection::vec(
            prop_oneof![Just(json!(null)), Just(json!(1)), Just(json!([1]))],
            0..3,
        ),
    )
        .prop_map(|(strings, others)| {
            let mut options: Vec<Value> = strings.into_iter().map(Value::String).collect();
            options.extend(others);
            json!({ "enum": options })
        });
    let instance = prop_oneof![
        name().prop_map(Value::String),
        Just(json!(null)),
        Just(json!(1.0)),
        Just(json!([1])),
        Just(json!(true)),
    ];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
    runner
        .run(&(options, instance), |(schema, instance)| {
            indexed_and_agreeing(&schema, &instance, |check| matches!(check, Check::Strings(_)))
        })
        .unwrap();
}
