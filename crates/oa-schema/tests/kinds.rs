//! Every violation kind a keyword reports, from a schema and an instance that produce it: the kind is what a caller
//! matches on, and its keyword is the one the report names.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use oa_schema::{Draft, Validator, ViolationKind, Violations};
use serde_json::{Value, json};

const DRAFT4: &str = "http://json-schema.org/draft-04/schema#";
const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";

/// The report of `instance` against `schema` (format asserted, unresolved references deferred).
fn report(schema: &Value, instance: &Value) -> Violations {
    Validator::options()
        .format_assertion(true)
        .defer_unresolved_references(true)
        .build(schema)
        .unwrap_or_else(|error| panic!("{schema}: {error}"))
        .validate(instance)
        .expect_err("invalid")
}

#[test]
fn each_keyword_reports_its_own_kind() {
    let cases: Vec<(ViolationKind, Value, Value)> = vec![
        (
            ViolationKind::False,
            json!({"properties": {"a": false}}),
            json!({"a": 1}),
        ),
        (ViolationKind::Type, json!({"type": "string"}), json!(1)),
        (ViolationKind::Const, json!({"const": 1}), json!(2)),
        (ViolationKind::Enum, json!({"enum": [1, "a"]}), json!(2)),
        (ViolationKind::Minimum, json!({"minimum": 5}), json!(4)),
        (
            ViolationKind::Minimum,
            json!({"$schema": DRAFT4, "minimum": 5, "exclusiveMinimum": true}),
            json!(5),
        ),
        (ViolationKind::Maximum, json!({"maximum": 5}), json!(6)),
        (
            ViolationKind::ExclusiveMinimum,
            json!({"exclusiveMinimum": 5}),
            json!(5),
        ),
        (
            ViolationKind::ExclusiveMaximum,
            json!({"exclusiveMaximum": 5}),
            json!(5),
        ),
        (ViolationKind::MultipleOf, json!({"multipleOf": 2}), json!(3)),
        (ViolationKind::MaxLength, json!({"maxLength": 1}), json!("ab")),
        (ViolationKind::MinLength, json!({"minLength": 3}), json!("ab")),
        (ViolationKind::Pattern, json!({"pattern": "^a"}), json!("b")),
        (
            ViolationKind::Format,
            json!({"format": "date"}),
            json!("yesterday"),
        ),
        (ViolationKind::MaxItems, json!({"maxItems": 1}), json!([1, 2])),
        (ViolationKind::MinItems, json!({"minItems": 3}), json!([1, 2])),
        (
            ViolationKind::UniqueItems,
            json!({"uniqueItems": true}),
            json!([1, 1]),
        ),
        (
            ViolationKind::Items,
            json!({"prefixItems": [{}], "items": false}),
            json!([1, 2]),
        ),
        (
            ViolationKind::AdditionalItems,
            json!({"$schema": DRAFT7, "items": [{}], "additionalItems": false}),
            json!([1, 2]),
        ),
        (
            ViolationKind::Contains,
            json!({"contains": {"type": "string"}}),
            json!([1]),
        ),
        (
            ViolationKind::MinContains,
            json!({"contains": {"type": "string"}, "minContains": 2}),
            json!(["a", 1]),
        ),
        (
            ViolationKind::MaxContains,
            json!({"contains": {"type": "string"}, "maxContains": 1}),
            json!(["a", "b"]),
        ),
        (
            ViolationKind::UnevaluatedItems,
            json!({"unevaluatedItems": false}),
            json!([1]),
        ),
        (
            ViolationKind::MaxProperties,
            json!({"maxProperties": 0}),
            json!({"a": 1}),
        ),
        (
            ViolationKind::MinProperties,
            json!({"minProperties": 1}),
            json!({}),
        ),
        (ViolationKind::Required, json!({"required": ["a"]}), json!({})),
        (
            ViolationKind::DependentRequired,
            json!({"dependentRequired": {"a": ["b"]}}),
            json!({"a": 1}),
        ),
        (
            ViolationKind::Dependencies,
            json!({"$schema": DRAFT7, "dependencies": {"a": ["b"]}}),
            json!({"a": 1}),
        ),
        (
            ViolationKind::AdditionalProperties,
            json!({"additionalProperties": false}),
            json!({"a": 1}),
        ),
        (
            // A backreference forces the backtracking engine, whose budget a long name exhausts.
            ViolationKind::PatternProperties,
            json!({"patternProperties": {"^(a*)*\\1x$": {}}}),
            json!({"a".repeat(40): 1}),
        ),
        (
            ViolationKind::UnevaluatedProperties,
            json!({"unevaluatedProperties": false}),
            json!({"a": 1}),
        ),
        (
            ViolationKind::AnyOf,
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!(1),
        ),
        (
            ViolationKind::OneOf,
            json!({"oneOf": [{}, {"type": "integer"}]}),
            json!(1),
        ),
        (ViolationKind::Not, json!({"not": {}}), json!(1)),
        (ViolationKind::Ref, json!({"$ref": "missing.json"}), json!(1)),
        (
            ViolationKind::DynamicRef,
            json!({"$dynamicRef": "missing.json"}),
            json!(1),
        ),
        (
            ViolationKind::RecursiveRef,
            json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "$id": "https://example.com/r",
                   "$recursiveRef": "missing.json"}),
            json!(1),
        ),
    ];
    for (kind, schema, instance) in &cases {
        let report = report(schema, instance);
        let kinds: Vec<ViolationKind> = report.iter().map(|violation| violation.kind()).collect();
        assert_eq!(kinds, [*kind], "{schema} against {instance}: {report}");
        let violation = report.iter().next().unwrap();
        assert_eq!(violation.keyword(), kind.keyword(), "{schema}");
        let keyword = kind.keyword().unwrap();
        // The report names the keyword: in the message, and (but for a `false` subschema) as the keyword path's
        // last step.
        assert!(
            violation.message().starts_with(&format!("{keyword}: ")),
            "{violation}"
        );
        if *kind != ViolationKind::False {
            assert!(
                violation
                    .schema_location()
                    .keyword_path()
                    .ends_with(&format!("/{keyword}")),
                "{:?}",
                violation.schema_location()
            );
        }
    }
}

#[test]
fn the_depth_limit_is_a_kind_without_a_keyword() {
    let mut instance = json!([]);
    for _ in 0..600 {
        instance = json!([instance]);
    }
    let validator = Validator::options()
        .default_draft(Draft::Draft202012)
        .build(&json!({"items": {"$ref": "#"}}))
        .unwrap();
    let report = validator.validate(&instance).unwrap_err();
    let limit: Vec<_> = report
        .iter()
        .filter(|violation| violation.kind() == ViolationKind::DepthLimit)
        .collect();
    assert_eq!(limit.len(), 1, "{report}");
    assert_eq!(limit[0].keyword(), None);
    assert!(limit[0].message().contains("depth limit"), "{}", limit[0]);
    assert_eq!(ViolationKind::Internal.keyword(), None);
}
