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
    check_with(&Validator::new(&schema).unwrap(), &instance, expected)
}

/// [`check`] with a validator built otherwise (another draft).
fn check_with(validator: &Validator, instance: &Value, expected: &[(&str, &str)]) -> Violations {
    assert!(!validator.is_valid(instance));
    let violations = validator.validate(instance).unwrap_err();
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
    assert_one_violation_naming_null_and_object(json!({
        "properties": { "site": { "anyOf": [{ "type": "object" }, { "type": "null" }] } }
    }));
}

/// `{"site": "harbour"}` against `schema`, whose `site` is a nullable object: one `anyOf` violation at `#/site`
/// naming both types.
fn assert_one_violation_naming_null_and_object(schema: Value) {
    let violations = check(schema, json!({ "site": "harbour" }), &[("#/site", "anyOf")]);
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

// 0126's union rule "after resolving references": a member's type is its type once `$ref` (and `$dynamicRef`,
// `$recursiveRef`) is resolved, met with any sibling `type`; only a member with no type anywhere counts as matching.

/// The nullable shape schema generators emit for an optional object: `anyOf: [{"$ref": …}, {"type": "null"}]`.
fn nullable_address(address: Value) -> Value {
    json!({
        "$defs": { "Address": address },
        "properties": { "site": { "anyOf": [{ "$ref": "#/$defs/Address" }, { "type": "null" }] } }
    })
}

#[test]
fn nullable_ref_no_member_admits_is_one_violation_naming_both_types() {
    let schema = nullable_address(json!({
        "type": "object", "properties": { "street": { "type": "string" } }, "required": ["street"]
    }));
    assert_one_violation_naming_null_and_object(schema);
}

#[test]
fn nullable_ref_whose_target_admits_the_content_reports_inside_the_target() {
    let schema = nullable_address(json!({
        "type": "object", "properties": { "street": { "type": "string" } }, "required": ["street"]
    }));
    check(
        schema,
        json!({ "site": { "street": 5 } }),
        &[("#/site/street", "type")],
    );
}

#[test]
fn ref_member_whose_target_type_does_not_admit_the_content_contributes_nothing() {
    // The string member (through `$ref`) does not admit an object: only the object member's failure is reported,
    // not "expected string, got object" from inside the reference.
    let violations = check(
        json!({
            "$defs": { "Name": { "type": "string", "minLength": 3 } },
            "anyOf": [{ "$ref": "#/$defs/Name" }, { "type": "object", "required": ["first"] }]
        }),
        json!({ "last": "Doe" }),
        &[("#/first", "required")],
    );
    assert!(!violations.error_message().contains("string"), "{violations}");
    // And in a `oneOf` alike.
    check(
        json!({
            "$defs": { "Name": { "type": "string" } },
            "oneOf": [{ "$ref": "#/$defs/Name" }, { "type": "integer", "minimum": 1 }]
        }),
        json!(0),
        &[("#", "minimum")],
    );
}

#[test]
fn chain_of_two_refs_resolves_to_the_last_target_type() {
    let schema = json!({
        "$defs": {
            "Site": { "$ref": "#/$defs/Place" },
            "Place": { "type": "object", "required": ["lat"] }
        },
        "properties": { "site": { "anyOf": [{ "$ref": "#/$defs/Site" }, { "type": "null" }] } }
    });
    let violations = check(schema.clone(), json!({ "site": 7 }), &[("#/site", "anyOf")]);
    assert_eq!(
        violations.iter().next().unwrap().expected_types(),
        ["null", "object"]
    );
    check(schema, json!({ "site": {} }), &[("#/site/lat", "required")]);
}

#[test]
fn ref_member_with_a_sibling_type_takes_the_types_both_admit() {
    // `type: [string, object]` beside a `$ref` to an object: the member admits objects only.
    let schema = json!({
        "$defs": { "Obj": { "type": "object", "required": ["a"] } },
        "anyOf": [{ "type": ["string", "object"], "$ref": "#/$defs/Obj" }, { "type": "integer" }]
    });
    let violations = check(schema.clone(), json!("text"), &[("#", "anyOf")]);
    assert_eq!(
        violations.iter().next().unwrap().expected_types(),
        ["integer", "object"]
    );
    check(schema, json!({}), &[("#/a", "required")]);
}

#[test]
fn member_with_no_type_anywhere_counts_as_matching() {
    // The reference leads to a composite without a type of its own: the member counts, and its failure is reported.
    check(
        json!({
            "$defs": { "Either": { "anyOf": [{ "required": ["a"] }, { "required": ["b"] }] } },
            "anyOf": [{ "$ref": "#/$defs/Either" }, { "type": "null" }]
        }),
        json!({}),
        &[("#/a", "required"), ("#/b", "required")],
    );
}

#[test]
fn a_reference_cycle_member_has_no_type_and_the_report_ends() {
    // Resolving the member's type stops on the cycle (no type: it counts), and evaluating it reaches the depth
    // limit, which the report names.
    let validator = Validator::new(&json!({
        "$defs": { "Loop": { "$ref": "#/$defs/Loop" } },
        "anyOf": [{ "$ref": "#/$defs/Loop" }, { "type": "null" }]
    }))
    .unwrap();
    let violations = validator.validate(&json!("x")).unwrap_err();
    assert!(violations.error_message().contains("depth limit"), "{violations}");
    assert!(
        !violations
            .iter()
            .any(|violation| violation.keyword() == Some("anyOf")),
        "{violations}"
    );
}

#[test]
fn dynamic_and_recursive_refs_resolve_in_the_dynamic_scope() {
    // `$dynamicRef` lands on the outermost `$dynamicAnchor` of the dynamic scope: the root's `node`, an object.
    let dynamic = json!({
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": { "child": { "anyOf": [{ "$dynamicRef": "#node" }, { "type": "null" }] } }
    });
    let violations = check(dynamic, json!({ "child": 1 }), &[("#/child", "anyOf")]);
    assert_eq!(
        violations.iter().next().unwrap().expected_types(),
        ["null", "object"]
    );
    let recursive = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$recursiveAnchor": true,
        "type": "array",
        "items": { "anyOf": [{ "$recursiveRef": "#" }, { "type": "string" }] }
    });
    let violations = check(recursive, json!([["a", 2]]), &[("#/0/1", "anyOf")]);
    assert_eq!(
        violations.iter().next().unwrap().expected_types(),
        ["array", "string"]
    );
}

// 0126's location rules in the older drafts: whatever keyword fails, each violation where it is.

/// `check` for a schema read as `draft`.
fn check_draft(
    draft: oa_schema::Draft,
    schema: Value,
    instance: Value,
    expected: &[(&str, &str)],
) -> Violations {
    let validator = Validator::options().default_draft(draft).build(&schema).unwrap();
    check_with(&validator, &instance, expected)
}

#[test]
fn additional_items_false_rejects_each_extra_item_at_itself() {
    for draft in [
        oa_schema::Draft::Draft4,
        oa_schema::Draft::Draft6,
        oa_schema::Draft::Draft7,
        oa_schema::Draft::Draft201909,
    ] {
        let violations = check_draft(
            draft,
            json!({ "items": [{ "type": "string" }], "additionalItems": false }),
            json!([1, "b", "c"]),
            &[
                ("#/0", "type"),
                ("#/1", "additionalItems"),
                ("#/2", "additionalItems"),
            ],
        );
        let extra = violations.iter().nth(1).unwrap();
        assert_eq!(extra.schema_location().keyword_path(), "/additionalItems");
    }
}

#[test]
fn dependencies_missing_property_is_located_where_it_would_be() {
    for draft in [
        oa_schema::Draft::Draft4,
        oa_schema::Draft::Draft6,
        oa_schema::Draft::Draft7,
    ] {
        let violations = check_draft(
            draft,
            json!({ "dependencies": { "card": ["billing", "cvc"], "tip": { "required": ["total"] } } }),
            json!({ "card": "4111", "tip": 2 }),
            &[
                ("#/billing", "dependencies"),
                ("#/cvc", "dependencies"),
                ("#/total", "required"),
            ],
        );
        let missing: Vec<_> = violations.iter().filter_map(|v| v.missing_property()).collect();
        assert_eq!(missing, ["billing", "cvc", "total"]);
    }
}

#[test]
fn draft4_exclusive_bound_is_reported_at_the_bound() {
    let violations = check_draft(
        oa_schema::Draft::Draft4,
        json!({ "properties": { "n": { "minimum": 1, "exclusiveMinimum": true } } }),
        json!({ "n": 1 }),
        &[("#/n", "minimum")],
    );
    assert_eq!(violations.error_message(), "#/n: minimum: must be greater than 1");
}

#[test]
fn ref_siblings_are_ignored_before_2019_09() {
    // Draft 7: `maxLength` beside `$ref` is ignored; the reference's own failure is located as usual.
    let schema = json!({
        "definitions": { "code": { "type": "string", "pattern": "^[A-Z]+$" } },
        "properties": { "code": { "$ref": "#/definitions/code", "maxLength": 2 } }
    });
    check_draft(
        oa_schema::Draft::Draft7,
        schema.clone(),
        json!({ "code": "abc" }),
        &[("#/code", "pattern")],
    );
    let validator = Validator::options()
        .default_draft(oa_schema::Draft::Draft7)
        .build(&schema)
        .unwrap();
    assert!(validator.is_valid(&json!({ "code": "ABCDE" })));
    // 2019-09 applies both.
    check_draft(
        oa_schema::Draft::Draft201909,
        schema,
        json!({ "code": "ABCDE" }),
        &[("#/code", "maxLength")],
    );
}

#[test]
fn cross_draft_refs_use_each_resources_own_draft() {
    // A 2020-12 schema refers to a draft-07 document (array `items` is positional, `additionalItems` applies, a
    // `$ref`'s siblings are ignored) and to a draft-04 one (`exclusiveMinimum` is a boolean). Read as 2020-12, both
    // would fail their meta-schema; each is read by its own `$schema`, and every violation is where it lies.
    let pair = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://schemas.example/pair.json",
        "definitions": { "word": { "type": "string" } },
        "items": [{ "$ref": "#/definitions/word", "maxLength": 1 }, { "type": "integer" }],
        "additionalItems": false
    });
    let count = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "https://schemas.example/count.json",
        "type": "integer",
        "minimum": 0,
        "exclusiveMinimum": true
    });
    let validator = Validator::options()
        .resource("https://schemas.example/pair.json", pair)
        .resource("https://schemas.example/count.json", count)
        .build(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "pair": { "$ref": "https://schemas.example/pair.json", "minItems": 2 },
                "count": { "$ref": "https://schemas.example/count.json" }
            }
        }))
        .unwrap();
    // The draft-07 `maxLength` beside `$ref` is ignored; the 2020-12 `minItems` beside `$ref` applies.
    assert!(validator.is_valid(&json!({ "pair": ["long", 2], "count": 1 })));
    check_with(
        &validator,
        &json!({ "pair": ["long", "x", 3], "count": 0 }),
        &[
            ("#/count", "minimum"),
            ("#/pair/1", "type"),
            ("#/pair/2", "additionalItems"),
        ],
    );
    check_with(
        &validator,
        &json!({ "pair": ["long"] }),
        &[("#/pair", "minItems")],
    );
}
