//! The flat meta-schema against the real one: the same verdict on hand-picked schemas, on every schema of the JSON
//! Schema Test Suite and the benchmark data, and on random schema-shaped values.

use crate::draft::Draft;
use crate::validator::{draft_2020_12_flat, meta_schema};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

fn verdicts(schema: &Value) -> (bool, bool) {
    let real = meta_schema(Draft::Draft202012).unwrap().is_valid(schema);
    let flat = draft_2020_12_flat()
        .expect("the flat meta-schema builds")
        .is_valid(schema);
    (real, flat)
}

#[test]
fn flat_agrees_on_hand_picked_schemas() {
    let cases = [
        (json!(true), true),
        (json!({}), true),
        (json!(3), false),
        (json!({"type": "foo"}), false),
        (json!({"type": ["string", "string"]}), false),
        (json!({"type": []}), false),
        (json!({"minLength": -1}), false),
        (json!({"minLength": 1.0}), true),
        (json!({"minLength": 1.5}), false),
        (json!({"multipleOf": 0}), false),
        (json!({"$id": "a#b"}), false),
        (json!({"$anchor": "1a"}), false),
        (json!({"$dynamicAnchor": "ok"}), true),
        (json!({"required": ["a", "a"]}), false),
        (json!({"properties": {"a": 1}}), false),
        (
            json!({"properties": {"a": {"properties": {"b": {"type": 5}}}}}),
            false,
        ),
        (json!({"$defs": {"a": {"type": 5}}}), false),
        (json!({"definitions": {"x": {"minimum": "1"}}}), false),
        (json!({"dependencies": {"a": 5}}), false),
        (
            json!({"dependencies": {"a": ["b"], "c": {"type": "string"}}}),
            true,
        ),
        (json!({"$recursiveAnchor": "1"}), false),
        (json!({"items": {"$dynamicRef": 3}}), false),
        (json!({"enum": 1}), false),
        (json!({"allOf": []}), false),
        (json!({"prefixItems": [true, {"maxItems": -2}]}), false),
        (json!({"$vocabulary": {"https://example.com/v": 1}}), false),
        (json!({"dependentRequired": {"a": [1]}}), false),
        (
            json!({"contentSchema": {"const": 1}, "deprecated": true, "examples": [1]}),
            true,
        ),
        (json!({"deprecated": "yes"}), false),
        (
            json!({"unevaluatedProperties": {"not": {"uniqueItems": 1}}}),
            false,
        ),
        (json!({"format": 1}), false),
        (json!({"pattern": "("}), true),
        (json!({"x-unknown": {"type": 5}}), true),
    ];
    for (schema, want) in cases {
        assert_eq!(verdicts(&schema), (want, want), "{schema}");
    }
}

/// Every `schema` in the suite's files (older drafts' schemas are often invalid under 2020-12, which is what the
/// failing side needs), and every 2020-12 schema of the benchmark data.
#[test]
fn flat_agrees_on_the_suite_and_benchmark_schemas() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let suite = shared.join("json-schema-test-suite/tests");
    let bench = shared.join("bench-data");
    assert!(
        suite.is_dir() && bench.is_dir(),
        "this test needs ../shared/json-schema-test-suite and ../shared/bench-data beside the workspace; failing"
    );
    let mut n_schemas = 0;
    let mut n_invalid = 0;
    let mut check = |schema: &Value, origin: &Path| {
        let (real, flat) = verdicts(schema);
        assert_eq!(real, flat, "{}: {schema}", origin.display());
        n_schemas += 1;
        n_invalid += usize::from(!real);
    };
    let mut dirs = vec![suite];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                let groups: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                for group in groups.as_array().unwrap() {
                    check(&group["schema"], &path);
                }
            }
        }
    }
    for entry in std::fs::read_dir(&bench).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".2020-12.json") {
            let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            check(&schema, &path);
        }
    }
    assert!(n_schemas > 1_000, "only {n_schemas} schemas found");
    assert!(n_invalid > 20, "only {n_invalid} invalid schemas found");
}

const KEYWORDS: &[&str] = &[
    "$id",
    "$schema",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "dependencies",
    "$recursiveAnchor",
    "$recursiveRef",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "x-other",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-2i64..4).prop_map(Value::from),
        prop_oneof![Just(json!(0.5)), Just(json!(2.0)), Just(json!(-1.5))],
        prop_oneof![
            Just(json!("string")),
            Just(json!("object")),
            Just(json!("a")),
            Just(json!("#a")),
            Just(json!("a#")),
            Just(json!("_x.y-z")),
            Just(json!("https://example.com/s")),
        ],
    ]
}

fn schema_like() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYWORDS), inner), 0..5).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(key, value)| (key.to_owned(), value))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn flat_agrees_on_random_schemas(schema in schema_like()) {
        let (real, flat) = verdicts(&schema);
        prop_assert_eq!(real, flat, "{}", schema);
    }
}
