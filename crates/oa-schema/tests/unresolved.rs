//! References that resolve to nothing, deferred (`ValidatorOptions::defer_unresolved_references`): listed by the
//! compiled schema, and an outcome of every evaluation that reaches one (never a verdict), wherever it sits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/nested.rs"]
mod nested;

use nested::{Growth, nested};
use oa_schema::{Draft, SchemaError, UnresolvedCause, Validator, Violations};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The reference no document answers.
const MISSING: &str = "https://example.com/missing.json";

fn deferred(schema: &Value) -> Validator {
    Validator::options()
        .defer_unresolved_references(true)
        .build(schema)
        .unwrap()
}

/// The unresolved references a report says were reached, as `(instance location, reference)`.
fn reached(report: &Violations) -> Vec<(String, String)> {
    report
        .iter()
        .filter_map(|violation| {
            violation
                .unresolved_reference()
                .map(|reference| (violation.instance_location().to_fragment(), reference.to_owned()))
        })
        .collect()
}

/// `is_valid` false, and the report names the reference reached at `at` and holds no internal error.
fn assert_reached(validator: &Validator, instance: &Value, at: &str) {
    assert!(!validator.is_valid(instance), "{instance}");
    let report = validator.validate(instance).unwrap_err();
    assert!(
        !report.error_message().contains("internal error"),
        "{}",
        report.error_message()
    );
    assert!(
        reached(&report).contains(&(at.to_owned(), MISSING.to_owned())),
        "{instance}: {}",
        report.error_message()
    );
}

#[test]
fn an_unreached_reference_is_listed_and_costs_no_verdict() {
    let validator = deferred(&json!({
        "properties": { "name": { "type": "string" }, "lint": { "$ref": MISSING } }
    }));
    let [entry] = validator.unresolved_references() else {
        panic!("{:?}", validator.unresolved_references())
    };
    assert_eq!(entry.reference(), MISSING);
    assert_eq!(entry.keyword(), "$ref");
    assert_eq!(entry.location(), "#/properties/lint/$ref");
    assert_eq!(entry.uri(), MISSING);
    assert_eq!(entry.cause(), &UnresolvedCause::NoDocument);
    assert!(validator.is_valid(&json!({ "name": "x" })));
    let report = validator.validate(&json!({ "name": 7 })).unwrap_err();
    assert!(reached(&report).is_empty());
    assert_eq!(
        report.error_message(),
        "#/name: type: expected string, got integer"
    );
}

#[test]
fn a_reached_reference_is_a_violation_of_its_own_kind_naming_it() {
    let validator = deferred(&json!({ "properties": { "lint": { "$ref": MISSING } } }));
    let report = validator.validate(&json!({ "lint": {} })).unwrap_err();
    let [violation] = report.iter().collect::<Vec<_>>()[..] else {
        panic!("{}", report.error_message())
    };
    assert_eq!(violation.unresolved_reference(), Some(MISSING));
    assert_eq!(violation.keyword(), Some("$ref"));
    assert_eq!(violation.instance_location().to_fragment(), "#/lint");
    assert_eq!(
        violation.schema_location().keyword_path(),
        "/properties/lint/$ref"
    );
    assert_eq!(violation.schema_location().absolute(), "#/properties/lint/$ref");
    assert_eq!(violation.missing_property(), None);
    assert_eq!(
        violation.message(),
        format!(
            "$ref: unresolved reference \"{MISSING}\" was reached: no schema document is held under that URI, and \
             oa-schema never fetches one; no verdict"
        )
    );
}

#[test]
fn no_applicator_turns_a_reached_reference_into_a_verdict() {
    let hole = json!({ "$ref": MISSING });
    // Each schema reaches the hole on the instance; `not`, `if`, `oneOf` and `contains` would invert or count a
    // plain failure, so a `false` in its place would make these valid.
    let cases = [
        (json!({ "not": hole }), json!(1), "#"),
        (json!({ "if": hole, "then": false }), json!(1), "#"),
        (json!({ "if": hole, "else": false }), json!(1), "#"),
        (json!({ "oneOf": [hole, { "type": "integer" }] }), json!(1), "#"),
        (json!({ "anyOf": [hole, { "type": "string" }] }), json!(1), "#"),
        (json!({ "contains": hole, "minContains": 0 }), json!([1]), "#/0"),
        (json!({ "contains": { "not": hole } }), json!([1]), "#/0"),
        (
            json!({ "propertyNames": { "not": hole } }),
            json!({ "a": 1 }),
            "#/a",
        ),
        (
            json!({ "allOf": [{ "not": hole }], "unevaluatedProperties": false }),
            json!({}),
            "#",
        ),
        (json!({ "items": hole }), json!([1, 2, 3, 4, 5, 6]), "#/3"),
        (
            json!({ "dependentSchemas": { "a": { "not": hole } } }),
            json!({ "a": 1 }),
            "#",
        ),
    ];
    for (schema, instance, at) in cases {
        let validator = deferred(&schema);
        assert_reached(&validator, &instance, at);
    }
}

#[test]
fn a_dynamic_scope_schema_reaches_it_too() {
    // `$dynamicRef` whose target depends on the dynamic scope: both evaluators take the collecting route.
    let validator = deferred(&json!({
        "$id": "https://example.com/root",
        "$dynamicAnchor": "node",
        "$defs": {
            "tree": {
                "$id": "tree",
                "$dynamicAnchor": "node",
                "properties": { "child": { "$dynamicRef": "#node" }, "ext": { "not": { "$ref": MISSING } } }
            }
        },
        "$ref": "tree"
    }));
    assert!(validator.is_valid(&json!({ "child": {} })));
    let report = validator.validate(&json!({ "child": { "ext": 1 } })).unwrap_err();
    assert_eq!(reached(&report), [("#/child/ext".to_owned(), MISSING.to_owned())]);
}

#[test]
fn every_reference_keyword_and_cause_is_deferred() {
    let dynamic = deferred(&json!({ "properties": { "a": { "$dynamicRef": MISSING } } }));
    assert_eq!(dynamic.unresolved_references()[0].keyword(), "$dynamicRef");
    let report = dynamic.validate(&json!({ "a": 1 })).unwrap_err();
    assert_eq!(report.iter().next().unwrap().keyword(), Some("$dynamicRef"));
    let recursive = Validator::options()
        .defer_unresolved_references(true)
        .default_draft(Draft::Draft201909)
        .build(&json!({ "$id": "https://example.com/r", "items": { "$recursiveRef": "missing.json" } }))
        .unwrap();
    let [entry] = recursive.unresolved_references() else {
        panic!()
    };
    assert_eq!(entry.keyword(), "$recursiveRef");
    assert_eq!(entry.uri(), "https://example.com/missing.json");
    assert_eq!(entry.location(), "https://example.com/r#/items/$recursiveRef");
    // A pointer into a document that is there, but leads nowhere.
    let pointer = deferred(&json!({ "$defs": {}, "items": { "$ref": "#/$defs/nope" } }));
    let [entry] = pointer.unresolved_references() else {
        panic!()
    };
    assert_eq!(entry.cause(), &UnresolvedCause::NotInDocument);
    assert!(pointer.is_valid(&json!([])));
    assert!(!pointer.is_valid(&json!([1])));
    // Draft 7: a `$ref` overrides its siblings, and is deferred alike.
    let seven = Validator::options()
        .defer_unresolved_references(true)
        .default_draft(Draft::Draft7)
        .build(&json!({ "properties": { "a": { "$ref": "#/definitions/none", "type": "string" } } }))
        .unwrap();
    assert_eq!(seven.unresolved_references().len(), 1);
}

#[test]
fn the_same_reference_in_two_places_is_listed_twice() {
    let validator =
        deferred(&json!({ "properties": { "a": { "$ref": MISSING }, "b": { "$ref": MISSING } } }));
    let locations: Vec<&str> = validator
        .unresolved_references()
        .iter()
        .map(|entry| entry.location())
        .collect();
    assert_eq!(locations.len(), 2);
    assert!(locations.contains(&"#/properties/a/$ref"));
    assert!(locations.contains(&"#/properties/b/$ref"));
}

#[test]
fn everything_else_that_makes_a_schema_invalid_stays_an_error() {
    let options = Validator::options().defer_unresolved_references(true);
    let bad_uri = options.build(&json!({ "$ref": "http://[bad" })).unwrap_err();
    assert!(matches!(bad_uri, SchemaError::InvalidUri { .. }), "{bad_uri:?}");
    let not_a_string = options.build(&json!({ "$ref": 7 })).unwrap_err();
    assert!(
        matches!(not_a_string, SchemaError::InvalidSchema { .. }),
        "{not_a_string:?}"
    );
    let meta = options
        .build(&json!({ "minLength": -1, "$ref": MISSING }))
        .unwrap_err();
    assert!(matches!(meta, SchemaError::InvalidSchema { .. }), "{meta:?}");
    let regex = options
        .build(&json!({ "pattern": "(", "$ref": MISSING }))
        .unwrap_err();
    assert!(matches!(regex, SchemaError::InvalidRegex { .. }), "{regex:?}");
    // Without the option a reference that resolves to nothing stays an error.
    let strict = Validator::new(&json!({ "not": { "$ref": MISSING } })).unwrap_err();
    assert!(
        matches!(strict, SchemaError::UnresolvedReference { .. }),
        "{strict:?}"
    );
}

/// Schemas with holes (references that resolve to nothing) anywhere among the applicators.
fn schema_with_holes() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        3 => Just(json!({ "$ref": MISSING })),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => prop::sample::select(vec!["integer", "string", "object", "array", "null"])
            .prop_map(|name| json!({ "type": name })),
        1 => (-2i64..3).prop_map(|n| json!({ "minimum": n })),
        1 => Just(json!({ "required": ["a"] })),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "anyOf": members })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "oneOf": members })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "allOf": members })),
            inner.clone().prop_map(|member| json!({ "not": member })),
            inner.clone().prop_map(|member| json!({ "items": member })),
            inner.clone().prop_map(|member| json!({ "contains": member })),
            inner
                .clone()
                .prop_map(|member| json!({ "propertyNames": member })),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({ "properties": { "a": a, "b": b } })),
            (inner.clone(), inner.clone()).prop_map(
                |(a, rest)| json!({ "allOf": [{ "properties": { "a": a } }], "unevaluatedProperties": rest })
            ),
            (inner.clone(), inner.clone(), inner)
                .prop_map(|(c, t, e)| json!({ "if": c, "then": t, "else": e })),
        ]
    })
}

fn instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        (-3i64..4).prop_map(|n| json!(n)),
        "[ab]{0,2}".prop_map(Value::String),
    ];
    nested(
        leaf,
        Growth {
            depth: 3,
            size: 12,
            branch: 3,
            items: 0..4,
            key: "[ab]",
            entries: 0..3,
        },
    )
}

/// `schema` with every hole replaced by `with`.
fn filled(schema: &Value, with: bool) -> Value {
    match schema {
        Value::Object(map) if map.get("$ref") == Some(&json!(MISSING)) => Value::Bool(with),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), filled(value, with)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|item| filled(item, with)).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Never a silent verdict: an outcome that names no unresolved reference is the verdict the schema gives
    /// whatever the holes hold (both `true` and `false` in their place agree with it), and one that names one is
    /// never valid. Both evaluators agree throughout.
    #[test]
    fn a_verdict_never_rests_on_a_hole(schema in schema_with_holes(), instance in instance()) {
        let validator = deferred(&schema);
        let flag = validator.is_valid(&instance);
        let report = validator.validate(&instance);
        prop_assert_eq!(flag, report.is_ok());
        let names_a_hole = report.as_ref().is_err_and(|report| !reached(report).is_empty());
        if let Err(report) = &report {
            prop_assert!(!report.error_message().contains("internal error"), "{}", report.error_message());
        }
        if !names_a_hole {
            let with_true = Validator::new(&filled(&schema, true)).unwrap().is_valid(&instance);
            let with_false = Validator::new(&filled(&schema, false)).unwrap().is_valid(&instance);
            prop_assert_eq!(flag, with_true, "holes as true");
            prop_assert_eq!(flag, with_false, "holes as false");
        }
    }
}
