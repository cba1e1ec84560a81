//! Opt-in report views: the discriminator-aware union view and the cap. Neither changes the default report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{ReportOptions, Validator};
use serde_json::{Value, json};

fn geometry_schema() -> Value {
    json!({
        "$defs": {
            "point": { "type": "object", "properties": {
                "type": { "const": "Point" }, "coordinates": { "type": "array", "items": { "type": "number" } }
            } },
            "polygon": { "type": "object", "properties": {
                "type": { "enum": ["Polygon"] },
                "coordinates": { "type": "array", "items": { "type": "array", "minItems": 4 } }
            } }
        },
        "properties": { "geometry": { "anyOf": [{ "$ref": "#/$defs/point" }, { "$ref": "#/$defs/polygon" }] } }
    })
}

fn locations(violations: &oa_schema::Violations) -> Vec<(String, String)> {
    violations
        .iter()
        .map(|v| {
            (
                v.instance_location().to_fragment(),
                v.keyword().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn discriminators_set_aside_contradicted_members_only_on_request() {
    let validator = Validator::new(&geometry_schema()).unwrap();
    let instance = json!({ "geometry": { "type": "Polygon", "coordinates": [[1, 2]] } });
    let full = validator.validate(&instance).unwrap_err();
    // Same location: ordered by absolute schema location (`#/$defs/point/...` before `#/$defs/polygon/...`).
    assert_eq!(
        locations(&full),
        [
            ("#/geometry/coordinates/0".to_owned(), "type".to_owned()),
            ("#/geometry/coordinates/0".to_owned(), "minItems".to_owned()),
            ("#/geometry/type".to_owned(), "const".to_owned()),
        ]
    );
    let focused = validator
        .validate_with(&instance, &ReportOptions::new().discriminators(true))
        .unwrap_err();
    assert_eq!(
        locations(&focused),
        [("#/geometry/coordinates/0".to_owned(), "minItems".to_owned())]
    );
    // The default view is unchanged by the option's existence.
    assert_eq!(
        validator
            .validate_with(&instance, &ReportOptions::new())
            .unwrap_err(),
        full
    );
}

#[test]
fn discriminators_keep_every_member_when_all_are_contradicted() {
    let validator = Validator::new(&geometry_schema()).unwrap();
    let instance = json!({ "geometry": { "type": "Line", "coordinates": "x" } });
    let full = validator.validate(&instance).unwrap_err();
    let focused = validator
        .validate_with(&instance, &ReportOptions::new().discriminators(true))
        .unwrap_err();
    assert_eq!(full, focused);
}

/// FHIR's shape: every member pins `resourceType` and some also have an `enum` of their own. The member the tag
/// names is reported even though the instance breaks its other `enum`: only the union's discriminating property
/// sets members aside.
#[test]
fn discriminators_report_the_tagged_member_whose_other_enum_is_broken() {
    let resource = |tag: &str, extra: Value| json!({ "properties": { "resourceType": { "const": tag }, "gender": extra }, "additionalProperties": false });
    let schema = json!({
        "$defs": {
            "Account": resource("Account", json!({ "type": "string" })),
            "Patient": resource("Patient", json!({ "enum": ["male", "female"] })),
            "Person": resource("Person", json!({ "enum": ["m", "f"] }))
        },
        "oneOf": [{ "$ref": "#/$defs/Account" }, { "$ref": "#/$defs/Patient" }, { "$ref": "#/$defs/Person" }]
    });
    let validator = Validator::new(&schema).unwrap();
    let instance = json!({ "resourceType": "Patient", "gender": 7 });
    let focused = validator
        .validate_with(&instance, &ReportOptions::new().discriminators(true))
        .unwrap_err();
    assert_eq!(locations(&focused), [("#/gender".to_owned(), "enum".to_owned())]);
    assert!(
        focused
            .iter()
            .all(|v| v.schema_location().absolute().contains("Patient")),
        "{focused}"
    );
    assert!(validator.validate(&instance).unwrap_err().len() > 1);
}

#[test]
fn cap_keeps_the_first_violations_and_says_how_many_more() {
    let validator = Validator::new(&json!({ "items": { "type": "string" } })).unwrap();
    let instance = json!([1, 2, 3, 4, 5]);
    let full = validator.validate(&instance).unwrap_err();
    assert_eq!(full.len(), 5);
    assert_eq!(full.omitted(), 0);
    let capped = validator
        .validate_with(&instance, &ReportOptions::new().max_violations(2))
        .unwrap_err();
    assert_eq!(capped.len(), 2);
    assert_eq!(capped.omitted(), 3);
    assert_eq!(
        capped.error_message(),
        "#/0: type: expected string, got integer\n#/1: type: expected string, got integer\n... and 3 more"
    );
    assert!(!full.error_message().contains("more"));
}
