//! Property tests: the flag and the report agree, nothing panics, and deep nesting is bounded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/described.rs"]
mod described;
#[path = "support/nested.rs"]
mod nested;

use described::described;
use nested::{Growth, nested};
use oa_schema::{IncrementalError, Validator};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Arbitrary JSON, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(|n| json!(n)),
        (-1000.0f64..1000.0).prop_map(|f| json!(f)),
        "[a-z0-9 ]{0,6}".prop_map(Value::String),
    ];
    nested(
        leaf,
        Growth {
            depth: 4,
            size: 32,
            branch: 5,
            items: 0..5,
            key: "[a-d$]{1,3}",
            entries: 0..5,
        },
    )
}

/// Valid 2020-12 schemas built from the keywords most structured-output schemas use.
fn any_schema() -> impl Strategy<Value = Value> {
    let type_name = prop::sample::select(vec![
        "null", "boolean", "integer", "number", "string", "array", "object",
    ]);
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        type_name.clone().prop_map(|name| json!({ "type": name })),
        prop::collection::vec(type_name, 1..3).prop_map(|names| {
            let mut names: Vec<&str> = names;
            names.sort_unstable();
            names.dedup();
            json!({ "type": names })
        }),
        (-5i64..5).prop_map(|n| json!({ "minimum": n })),
        (-5i64..5).prop_map(|n| json!({ "exclusiveMaximum": n })),
        (0u64..4).prop_map(|n| json!({ "maxLength": n })),
        (0u64..3).prop_map(|n| json!({ "minItems": n })),
        (1u64..4).prop_map(|n| json!({ "multipleOf": n })),
        prop::collection::vec("[a-d]", 1..3).prop_map(|names| {
            let mut names = names;
            names.sort();
            names.dedup();
            json!({ "required": names })
        }),
        any_json().prop_map(|value| json!({ "const": value })),
        prop::collection::vec(any_json(), 1..3).prop_map(|values| json!({ "enum": values })),
        Just(json!({ "uniqueItems": true })),
        Just(json!({ "pattern": "^[a-c]+$" })),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "anyOf": members })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "oneOf": members })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "allOf": members })),
            inner.clone().prop_map(|member| json!({ "not": member })),
            inner.clone().prop_map(|member| json!({ "items": member })),
            inner
                .clone()
                .prop_map(|member| json!({ "contains": member, "maxContains": 2 })),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({ "properties": { "a": a, "b": b } })),
            (inner.clone(), inner.clone())
                .prop_map(|(a, rest)| { json!({ "properties": { "a": a }, "additionalProperties": rest }) }),
            (inner.clone(), inner.clone()).prop_map(
                |(a, rest)| json!({ "allOf": [{ "properties": { "a": a } }], "unevaluatedProperties": rest })
            ),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, e)| json!({ "if": c, "then": t, "else": e })),
            (inner.clone(), inner)
                .prop_map(|(first, rest)| json!({ "prefixItems": [first], "unevaluatedItems": rest })),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn flag_and_report_agree(schema in any_schema(), instance in any_json()) {
        let validator = Validator::new(&schema).unwrap();
        let flag = validator.is_valid(&instance);
        let report = validator.validate(&instance);
        prop_assert_eq!(flag, report.is_ok());
        if let Err(violations) = report {
            prop_assert!(!violations.is_empty());
            // The yes/no evaluator said invalid and the collecting one found the violations: they agree.
            prop_assert!(!violations.error_message().contains("internal error"), "{}", violations.error_message());
            // The report is deterministic: the same run twice gives the same text.
            prop_assert_eq!(violations.error_message(), validator.validate(&instance).unwrap_err().error_message());
        }
    }

    /// The incremental route, fed the instance's text cut at random points, ends with `validate`'s very report.
    #[test]
    fn the_incremental_route_ends_with_the_same_report(
        schema in any_schema(),
        instance in any_json(),
        pretty in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let validator = Validator::new(&schema).unwrap();
        let text = if pretty { serde_json::to_string_pretty(&instance) } else { serde_json::to_string(&instance) }
            .unwrap();
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(text.len() + 1)).collect();
        cuts.sort_unstable();
        let mut run = validator.incremental();
        let mut from = 0;
        for cut in cuts.into_iter().chain([text.len()]) {
            run.feed(&text.as_bytes()[from..cut]).unwrap();
            from = cut;
        }
        match (run.finish(), validator.validate(&instance)) {
            (Ok(()), Ok(())) => {}
            (Err(IncrementalError::Invalid(got)), Err(expected)) => {
                prop_assert_eq!(described(&got), described(&expected));
                prop_assert_eq!(got.error_message(), expected.error_message());
            }
            (got, expected) => prop_assert!(false, "incremental {:?}, validate {:?}", got, expected),
        }
    }

    #[test]
    fn every_reported_location_resolves(schema in any_schema(), instance in any_json()) {
        let validator = Validator::new(&schema).unwrap();
        if let Err(violations) = validator.validate(&instance) {
            for violation in &violations {
                let pointer = violation.instance_location().to_pointer();
                match violation.missing_property() {
                    // A missing property: the parent resolves to an object and the last token is absent there.
                    Some(name) => {
                        let parent = pointer.parent().unwrap();
                        let object = parent.get(&instance).and_then(Value::as_object);
                        prop_assert!(object.is_some_and(|object| !object.contains_key(name)), "{}", violation);
                        prop_assert_eq!(pointer.last(), Some(name));
                    }
                    None => prop_assert!(pointer.get(&instance).is_some(), "{} in {}", violation, instance),
                }
            }
        }
    }

    #[test]
    fn compiling_arbitrary_json_never_panics(schema in any_json(), instance in any_json()) {
        if let Ok(validator) = Validator::new(&schema) {
            let flag = validator.is_valid(&instance);
            prop_assert_eq!(flag, validator.validate(&instance).is_ok());
        }
    }

    #[test]
    fn keyword_shaped_garbage_never_panics(
        keyword in prop::sample::select(vec![
            "type", "items", "prefixItems", "properties", "required", "$ref", "$dynamicRef", "pattern", "enum",
            "minimum", "multipleOf", "anyOf", "dependentRequired", "contains", "minContains", "$id", "$anchor",
        ]),
        value in any_json(),
        instance in any_json(),
    ) {
        let schema = json!({ keyword: value });
        if let Ok(validator) = Validator::new(&schema) {
            prop_assert_eq!(validator.is_valid(&instance), validator.validate(&instance).is_ok());
        }
    }
}

fn nested_array(depth: usize) -> Value {
    let mut value = json!([]);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// An object with one member, built without `json!` (which serializes its arguments recursively).
fn object_with(key: &str, value: Value) -> Value {
    let mut members = serde_json::Map::new();
    members.insert(key.to_owned(), value);
    Value::Object(members)
}

fn nested_items_schema(depth: usize) -> Value {
    let mut schema = json!({ "type": "array", "minItems": 1 });
    for _ in 0..depth {
        schema = object_with("items", schema);
    }
    schema
}

#[test]
fn ten_thousand_deep_instance_gives_a_result() {
    let instance = nested_array(10_000);
    for schema in [
        json!({}),
        json!({ "type": "array" }),
        json!({ "items": { "$ref": "#" } }),
        json!({ "const": 1 }),
    ] {
        let validator = Validator::new(&schema).unwrap();
        let flag = validator.is_valid(&instance);
        assert_eq!(flag, validator.validate(&instance).is_ok(), "{schema}");
    }
    // A recursive schema reaches the evaluation depth limit: invalid, with a violation that names the limit.
    let recursive = Validator::new(&json!({ "items": { "$ref": "#" } })).unwrap();
    let violations = recursive.validate(&instance).unwrap_err();
    assert!(names_the_depth_limit(&violations), "{violations}");
}

/// Whether a report has the violation no keyword reports: the evaluation depth limit.
fn names_the_depth_limit(violations: &oa_schema::Violations) -> bool {
    violations
        .iter()
        .any(|v| v.keyword().is_none() && v.message().contains("depth limit"))
}

#[test]
fn depth_limit_reached_inside_a_probe_fails_the_run_and_is_reported() {
    // `deep` accepts any nesting of arrays, but evaluating it on 1,000 levels reaches the depth limit. Reached
    // inside a subschema that records nothing (a union member, `not`, `if`, `contains`), it must still fail the run
    // and be named in the report, whichever evaluator answered the probe.
    let instance = nested_array(1_000);
    let deep = json!({ "items": { "$ref": "#/$defs/deep" } });
    for wrapper in [
        json!({ "anyOf": [{ "$ref": "#/$defs/deep" }, { "type": "string" }] }),
        json!({ "oneOf": [{ "$ref": "#/$defs/deep" }, { "type": "array" }] }),
        json!({ "not": { "not": { "$ref": "#/$defs/deep" } } }),
        json!({ "if": { "$ref": "#/$defs/deep" }, "then": true, "else": true }),
        json!({ "contains": { "$ref": "#/$defs/deep" } }),
    ] {
        let mut schema = wrapper.clone();
        schema["$defs"] = json!({ "deep": deep });
        let validator = Validator::new(&schema).unwrap();
        assert!(!validator.is_valid(&instance), "{wrapper}");
        let violations = validator.validate(&instance).unwrap_err();
        assert!(names_the_depth_limit(&violations), "{wrapper}: {violations}");
    }
}

#[test]
fn ten_thousand_deep_schema_gives_an_error() {
    // A nested array is not a schema at all.
    let err = Validator::new(&nested_array(10_000)).unwrap_err();
    assert!(err.to_string().contains("meta-schema"), "{err}");
    let deep = nested_items_schema(10_000);
    let err = Validator::new(&deep).unwrap_err();
    assert!(
        err.to_string().contains("depth") || err.to_string().contains("deeper"),
        "{err}"
    );
    // The same depth under `const`, which is data rather than schema.
    let deep_const = object_with("const", nested_array(10_000));
    let err = Validator::new(&deep_const).unwrap_err();
    assert!(err.to_string().contains("deeper"), "{err}");
    // serde_json drops nested objects recursively, which overflows a test thread's stack at this depth: that is
    // serde_json's Drop, not oa-schema, so the value is leaked on purpose.
    std::mem::forget(deep);
}

#[test]
fn ten_thousand_deep_items_under_unique_items_give_a_result() {
    let validator = Validator::new(&json!({ "uniqueItems": true })).unwrap();
    // Two equal deep items: invalid, found without recursing 10,000 levels.
    let instance = Value::Array(vec![nested_array(10_000), nested_array(10_000)]);
    assert!(!validator.is_valid(&instance));
    assert_eq!(validator.validate(&instance).unwrap_err().len(), 1);
    let enum_validator = Validator::new(&json!({ "enum": [[[1]], 2] })).unwrap();
    assert!(!enum_validator.is_valid(&nested_array(10_000)));
}

#[test]
fn moderately_deep_schema_compiles() {
    let validator = Validator::new(&nested_items_schema(40)).unwrap();
    assert!(validator.is_valid(&nested_array(41)));
    assert!(!validator.is_valid(&nested_array(40)));
}

#[test]
fn schemas_near_the_depth_limits_give_a_result() {
    for depth in [60, 100, 200, 255, 256, 300] {
        let schema = nested_items_schema(depth);
        match Validator::new(&schema) {
            Ok(validator) => assert!(validator.is_valid(&nested_array(depth + 1)), "depth {depth}"),
            Err(err) => assert!(
                err.to_string().contains("depth") || err.to_string().contains("deeper"),
                "{err}"
            ),
        }
        std::mem::forget(schema);
    }
}
