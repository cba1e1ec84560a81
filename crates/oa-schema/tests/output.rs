//! The 2020-12 "flag" and "basic" output formats, checked against the suite's output tests
//! (`../shared/json-schema-test-suite/output-tests/draft2020-12`): each test's `output.basic` is a schema our
//! "basic" output must satisfy. Fails loudly when the suite is missing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{OutputFormat, Validator};
use serde_json::{Value, json};
use std::path::Path;

#[test]
fn output_tests_draft2020_12() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/json-schema-test-suite/output-tests/draft2020-12");
    assert!(
        root.is_dir(),
        "JSON Schema Test Suite output tests NOT FOUND at {}: the test needs ../shared",
        root.display()
    );
    let output_schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("output-schema.json")).unwrap()).unwrap();
    let mut n_checked = 0;
    for entry in std::fs::read_dir(root.join("content")).unwrap() {
        let path = entry.unwrap().path();
        let groups: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for group in groups.as_array().unwrap() {
            let validator = Validator::new(&group["schema"]).unwrap();
            for test in group["tests"].as_array().unwrap() {
                let data = &test["data"];
                let flag = validator.output(data, OutputFormat::Flag);
                assert_eq!(flag, json!({ "valid": validator.is_valid(data) }));
                let basic = validator.output(data, OutputFormat::Basic);
                let checker = Validator::options()
                    .resource(
                        "https://json-schema.org/draft/2020-12/output/schema",
                        output_schema.clone(),
                    )
                    .build(&test["output"]["basic"])
                    .unwrap();
                let verdict = checker.validate(&basic);
                assert!(
                    verdict.is_ok(),
                    "{} / {}: {basic}\n{}",
                    path.display(),
                    test["description"],
                    verdict.unwrap_err()
                );
                n_checked += 1;
            }
        }
    }
    assert_eq!(n_checked, 4, "the suite has four 2020-12 output content tests");
}

#[test]
fn basic_output_lists_every_violation_and_annotations_of_valid_instances() {
    let validator = Validator::new(&json!({
        "$id": "https://example.com/person",
        "title": "person",
        "properties": { "age": { "type": "integer", "description": "years" } },
        "required": ["name"]
    }))
    .unwrap();
    let invalid = validator.output(&json!({ "age": "old" }), OutputFormat::Basic);
    assert_eq!(invalid["valid"], false);
    let errors = invalid["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["instanceLocation"], "/age");
    assert_eq!(errors[0]["keywordLocation"], "/properties/age/type");
    assert_eq!(
        errors[0]["absoluteKeywordLocation"],
        "https://example.com/person#/properties/age/type"
    );
    assert_eq!(errors[1]["instanceLocation"], "/name");
    assert!(invalid.get("annotations").is_none());

    let valid = validator.output(&json!({ "name": "Ada", "age": 36 }), OutputFormat::Basic);
    assert_eq!(valid["valid"], true);
    let annotations = valid["annotations"].as_array().unwrap();
    let summary: Vec<(String, Value)> = annotations
        .iter()
        .map(|unit| {
            (
                unit["keywordLocation"].as_str().unwrap().to_owned(),
                unit["annotation"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("/properties/age/description".to_owned(), json!("years")),
            ("/title".to_owned(), json!("person"))
        ]
    );
}
