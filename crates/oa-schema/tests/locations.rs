//! Where violations are located, by the rules of proposal 0126 (llm-provider §7): every row of fixture 082's
//! table, then one case per clause of the rule. Each case asserts the exact set of (location, keyword) pairs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{Validator, Violations};
use serde_json::{Value, json};

/// Validates and returns the report, which must exist.
fn report(schema: &Value, instance: &Value) -> Violations {
    let validator = Validator::new(schema).unwrap();
    assert!(!validator.is_valid(instance));
    validator.validate(instance).unwrap_err()
}

/// Asserts the exact, ordered list of (URI-fragment location, keyword) pairs.
fn check(schema: Value, instance: Value, expected: &[(&str, &str)]) -> Violations {
    let violations = report(&schema, &instance);
    let got: Vec<(String, String)> = violations
        .iter()
        .map(|v| {
            (
                v.instance_location().to_fragment(),
                v.keyword().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = expected
        .iter()
        .map(|(l, k)| ((*l).to_owned(), (*k).to_owned()))
        .collect();
    assert_eq!(got, want, "report was:\n{violations}");
    violations
}

// Fixture 082, row by row.

#[test]
fn flat_object_two_missing_one_wrong_type() {
    let violations = check(
        json!({
            "type": "object",
            "properties": { "alpha": { "type": "string" }, "bravo": { "type": "integer" }, "charlie": { "type": "boolean" } },
            "required": ["alpha", "bravo", "charlie"]
        }),
        json!({ "charlie": "yes" }),
        &[
            ("#/alpha", "required"),
            ("#/bravo", "required"),
            ("#/charlie", "type"),
        ],
    );
    let message = violations.error_message();
    assert!(
        message.contains("#/charlie: type: expected boolean, got string"),
        "{message}"
    );
    let missing: Vec<_> = violations.iter().filter_map(|v| v.missing_property()).collect();
    assert_eq!(missing, ["alpha", "bravo"]);
}

#[test]
fn nested_object_wrong_type_and_missing() {
    let violations = check(
        json!({ "properties": { "site": {
            "type": "object",
            "properties": { "lat": { "type": "number" }, "lon": { "type": "number" } },
            "required": ["lat", "lon"]
        } } }),
        json!({ "site": { "lat": "north" } }),
        &[("#/site/lat", "type"), ("#/site/lon", "required")],
    );
    assert_eq!(violations.iter().next().unwrap().expected_types(), ["number"]);
}

#[test]
fn nullable_any_of_reports_only_the_object_member() {
    check(
        json!({ "properties": { "site": { "anyOf": [
            { "type": "object", "properties": { "lat": { "type": "number" } } },
            { "type": "null" }
        ] } } }),
        json!({ "site": { "lat": "north" } }),
        &[("#/site/lat", "type")],
    );
}

#[test]
fn union_of_two_object_schemas_reports_both_members() {
    check(
        json!({ "anyOf": [
            { "type": "object", "properties": { "lat": { "type": "number" } } },
            { "type": "object", "properties": { "lon": { "type": "number" } } }
        ] }),
        json!({ "lat": "a", "lon": "b" }),
        &[("#/lat", "type"), ("#/lon", "type")],
    );
}

#[test]
fn all_of_with_reference_reports_the_type() {
    let violations = check(
        json!({
            "$defs": { "place": { "type": "object" } },
            "properties": { "site": { "allOf": [{ "$ref": "#/$defs/place" }, { "required": ["lat"] }] } }
        }),
        json!({ "site": "harbour" }),
        &[("#/site", "type")],
    );
    assert!(violations.error_message().contains("object"));
    let schema_location = violations.iter().next().unwrap().schema_location();
    assert_eq!(
        schema_location.keyword_path(),
        "/properties/site/allOf/0/$ref/type"
    );
    assert_eq!(schema_location.absolute(), "#/$defs/place/type");
}

#[test]
fn one_of_satisfied_twice_is_one_violation_at_the_composite() {
    check(
        json!({ "properties": { "pet": { "oneOf": [
            { "type": "object" },
            { "type": "object", "properties": { "name": { "type": "string" } } }
        ] } } }),
        json!({ "pet": { "name": "Rex" } }),
        &[("#/pet", "oneOf")],
    );
}

#[test]
fn additional_property_is_located_at_itself() {
    check(
        json!({ "properties": { "site": {
            "type": "object", "properties": { "lat": {} }, "additionalProperties": false
        } } }),
        json!({ "site": { "lat": 1, "zulu": 2 } }),
        &[("#/site/zulu", "additionalProperties")],
    );
}

#[test]
fn property_name_with_a_space_is_percent_encoded() {
    check(
        json!({ "properties": { "first name": { "type": "string" } } }),
        json!({ "first name": 3 }),
        &[("#/first%20name", "type")],
    );
}

#[test]
fn array_of_objects_reports_each_bad_element() {
    check(
        json!({ "properties": { "rows": { "type": "array", "items": {
            "type": "object", "properties": { "qty": { "type": "integer" } }
        } } } }),
        json!({ "rows": [{ "qty": "one" }, { "qty": 2 }, { "qty": "three" }] }),
        &[("#/rows/0/qty", "type"), ("#/rows/2/qty", "type")],
    );
}

#[test]
fn nullable_field_no_member_admits_is_one_violation_naming_both_types() {
    let violations = check(
        json!({ "properties": { "site": { "anyOf": [{ "type": "object" }, { "type": "null" }] } } }),
        json!({ "site": "harbour" }),
        &[("#/site", "anyOf")],
    );
    let violation = violations.iter().next().unwrap();
    assert_eq!(violation.expected_types(), ["null", "object"]);
    assert_eq!(
        violation.to_string(),
        "#/site: anyOf: expected null or object, got string"
    );
}

#[test]
fn dependent_required_missing_property_is_located_where_it_would_be() {
    check(
        json!({ "dependentRequired": { "card": ["billing"] } }),
        json!({ "card": "4111" }),
        &[("#/billing", "dependentRequired")],
    );
}

#[test]
fn element_beyond_prefix_items_with_items_false_is_located_at_itself() {
    check(
        json!({ "prefixItems": [{}, {}], "items": false }),
        json!([1, 2, 3]),
        &[("#/2", "items")],
    );
}

#[test]
fn min_items_is_at_the_array() {
    check(
        json!({ "properties": { "tags": { "minItems": 3 } } }),
        json!({ "tags": [1] }),
        &[("#/tags", "minItems")],
    );
}

#[test]
fn unique_items_is_at_the_array() {
    check(
        json!({ "uniqueItems": true }),
        json!([1, 2, 1.0]),
        &[("#", "uniqueItems")],
    );
}

// One case per clause of the rule.

#[test]
fn satisfied_not_is_one_violation_and_its_subschema_results_are_discarded() {
    check(
        json!({ "properties": { "code": { "not": { "type": "string", "minLength": 10 } } } }),
        json!({ "code": "a much longer string" }),
        &[("#/code", "not")],
    );
}

#[test]
fn contains_is_one_violation_at_the_array() {
    check(
        json!({ "contains": { "type": "integer", "minimum": 10 } }),
        json!([1, 2, "x"]),
        &[("#", "contains")],
    );
    check(
        json!({ "contains": { "type": "integer" }, "maxContains": 1 }),
        json!([1, 2]),
        &[("#", "maxContains")],
    );
    check(
        json!({ "contains": { "type": "integer" }, "minContains": 2 }),
        json!([1, "a"]),
        &[("#", "minContains")],
    );
}

#[test]
fn if_condition_results_are_discarded_then_and_else_report() {
    let schema = json!({
        "if": { "properties": { "kind": { "const": "card" } }, "required": ["kind"] },
        "then": { "required": ["number"] },
        "else": { "properties": { "iban": { "type": "string" } } }
    });
    check(
        schema.clone(),
        json!({ "kind": "card" }),
        &[("#/number", "required")],
    );
    check(
        schema,
        json!({ "kind": "bank", "iban": 7 }),
        &[("#/iban", "type")],
    );
}

#[test]
fn unevaluated_property_is_located_at_itself() {
    check(
        json!({
            "allOf": [{ "properties": { "lat": { "type": "number" } } }],
            "properties": { "lon": { "type": "number" } },
            "unevaluatedProperties": false
        }),
        json!({ "lat": 1, "lon": 2, "alt": 3 }),
        &[("#/alt", "unevaluatedProperties")],
    );
}

#[test]
fn dependent_schemas_report_inside_the_object() {
    check(
        json!({ "dependentSchemas": { "card": { "properties": { "cvc": { "type": "string" } }, "required": ["expiry"] } } }),
        json!({ "card": 1, "cvc": 123 }),
        &[("#/cvc", "type"), ("#/expiry", "required")],
    );
}

#[test]
fn reference_chains_and_recursion_report_at_the_instance() {
    let schema = json!({
        "$defs": {
            "tree": { "type": "object", "properties": {
                "value": { "$ref": "#/$defs/value" },
                "children": { "type": "array", "items": { "$ref": "#/$defs/tree" } }
            } },
            "value": { "$ref": "#/$defs/number" },
            "number": { "type": "number" }
        },
        "$ref": "#/$defs/tree"
    });
    check(
        schema,
        json!({ "value": 1, "children": [{ "value": "x" }, { "children": [{ "value": true }] }] }),
        &[
            ("#/children/0/value", "type"),
            ("#/children/1/children/0/value", "type"),
        ],
    );
}

#[test]
fn properties_named_like_keywords_and_needing_escapes() {
    check(
        json!({ "properties": {
            "properties": { "type": "string" },
            "a/b": { "type": "string" },
            "m~n": { "type": "string" },
            "required": { "type": "string" }
        } }),
        json!({ "properties": 1, "a/b": 2, "m~n": 3, "required": 4 }),
        &[
            ("#/a~1b", "type"),
            ("#/m~0n", "type"),
            ("#/properties", "type"),
            ("#/required", "type"),
        ],
    );
}

#[test]
fn two_failing_assertions_at_one_location_are_two_violations() {
    check(
        json!({ "properties": { "code": { "minLength": 5, "pattern": "^[0-9]+$" } } }),
        json!({ "code": "ab" }),
        &[("#/code", "minLength"), ("#/code", "pattern")],
    );
}

#[test]
fn the_same_assertion_reached_twice_is_reported_once() {
    // Both members of the union reach `#/$defs/name/type` at `#/name`.
    check(
        json!({
            "$defs": { "name": { "type": "string" } },
            "anyOf": [
                { "properties": { "name": { "$ref": "#/$defs/name" } }, "required": ["id"] },
                { "properties": { "name": { "$ref": "#/$defs/name" } }, "required": ["key"] }
            ]
        }),
        json!({ "name": 5 }),
        &[("#/id", "required"), ("#/key", "required"), ("#/name", "type")],
    );
}

#[test]
fn order_is_stable_and_documented() {
    let schema = json!({ "properties": { "b": { "type": "string" }, "a": { "type": "string" }, "rows": {
        "items": { "type": "string" }
    } } });
    let instance = json!({ "rows": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "b": 1, "a": 1 });
    let first = report(&schema, &instance).error_message();
    let lines: Vec<&str> = first
        .lines()
        .map(|line| line.split(':').next().unwrap())
        .collect();
    assert_eq!(lines[..4], ["#/a", "#/b", "#/rows/0", "#/rows/1"]);
    assert_eq!(lines[lines.len() - 1], "#/rows/10");
    for _ in 0..5 {
        assert_eq!(report(&schema, &instance).error_message(), first);
    }
}

/// The collecting walk asks the yes/no evaluator about large subtrees first and skips those it finds valid; the
/// invalid ones, nested two and three levels down among valid siblings, must still report every violation.
#[test]
fn violations_deep_among_large_valid_siblings_are_all_reported() {
    let leaf = json!({ "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] });
    let schema = json!({
        "type": "array",
        "items": { "type": "array", "items": { "type": "array", "items": leaf } }
    });
    let good_row = json!([{ "n": 1 }, { "n": 2 }, { "n": 3 }, { "n": 4 }, { "n": 5 }]);
    let mut table: Vec<Value> = (0..6)
        .map(|_| json!([good_row, good_row, good_row, good_row, good_row]))
        .collect();
    table[1][2][3] = json!({ "n": "x" });
    table[1][4][0] = json!({});
    table[5][0][4] = json!({ "n": 1.5 });
    check(
        json!(schema),
        json!(table),
        &[
            ("#/1/2/3/n", "type"),
            ("#/1/4/0/n", "required"),
            ("#/5/0/4/n", "type"),
        ],
    );
}

/// Small arrays and objects of scalars are asked about too while the run's answers are mostly yes; the invalid
/// ones, before and after valid ones, must each report every violation (two per part here).
#[test]
fn violations_in_small_flat_parts_among_valid_ones_are_all_reported() {
    let pair = json!({ "type": "array", "prefixItems": [{ "type": "integer" }, { "type": "string" }] });
    let point =
        json!({ "type": "object", "properties": { "x": { "type": "number" }, "y": { "maximum": 1 } } });
    let schema = json!({ "type": "array", "items": { "anyOf": [pair, point] } });
    let instance = json!([
        [1, "a"], { "x": 0, "y": 0 }, [2, "b"], { "x": 1, "y": 1 },
        ["no", 3], { "x": 0 }, { "x": "no", "y": 5 }, [4, "c"], [5.5, false]
    ]);
    check(
        schema,
        instance,
        &[
            ("#/4/0", "type"),
            ("#/4/1", "type"),
            ("#/6/x", "type"),
            ("#/6/y", "maximum"),
            ("#/8/0", "type"),
            ("#/8/1", "type"),
        ],
    );
}
