//! The text rendering groups a failed union's members as alternatives (issue 21, point 6): every violation is
//! still printed, once, and the lines of each member sit under `alternative N:`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{ReportOptions, Validator};
use serde_json::{Value, json};

fn text(schema: &Value, instance: &Value) -> String {
    Validator::new(schema)
        .unwrap()
        .validate(instance)
        .unwrap_err()
        .error_message()
}

/// Every violation's own line (`location: message`), as the flat rendering printed them.
fn violation_lines(schema: &Value, instance: &Value) -> Vec<String> {
    let report = Validator::new(schema).unwrap().validate(instance).unwrap_err();
    report.iter().map(ToString::to_string).collect()
}

fn tool_steps() -> Value {
    json!({ "type": "object", "properties": { "steps": { "type": "array", "items": { "oneOf": [
        { "type": "object", "properties": { "tool": { "const": "read" }, "path": { "type": "string" } },
          "required": ["tool", "path"], "additionalProperties": false },
        { "type": "object", "properties": { "tool": { "const": "write" }, "path": { "type": "string" },
          "text": { "type": "string" } }, "required": ["tool", "path", "text"], "additionalProperties": false },
        { "type": "object", "properties": { "tool": { "const": "search" }, "query": { "type": "string" } },
          "required": ["tool", "query"], "additionalProperties": false },
        { "type": "object", "properties": { "tool": { "const": "done" } },
          "required": ["tool"], "additionalProperties": false }
    ] } } } })
}

#[test]
fn a_failed_one_of_is_printed_as_its_alternatives() {
    let instance = json!({ "steps": [{ "tool": "read", "path": "a" }, { "tool": "write", "path": 3 }] });
    let message = text(&tool_steps(), &instance);
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines[0],
        "#/steps/1: oneOf: one of these 4 alternatives must hold (/properties/steps/items/oneOf):"
    );
    assert_eq!(lines[1], "  alternative 0:");
    assert_eq!(lines[2], "    #/steps/1/path: type: expected string, got integer");
    assert_eq!(lines[3], "    #/steps/1/tool: const: must equal \"read\"");
    assert_eq!(lines[4], "  alternative 1:");
    assert!(
        lines.contains(&"  alternative 2:") && lines.contains(&"  alternative 3:"),
        "{message}"
    );
    // Nothing lost, nothing added but the headings.
    let mut printed: Vec<String> = lines
        .iter()
        .filter(|line| line.starts_with("    "))
        .map(|line| line.trim_start().to_owned())
        .collect();
    let mut expected = violation_lines(&tool_steps(), &instance);
    printed.sort();
    expected.sort();
    assert_eq!(printed, expected);
}

#[test]
fn each_application_of_a_union_is_its_own_group() {
    let instance = json!({ "steps": [{ "tool": "write", "path": 3 }, { "tool": "read" }] });
    let message = text(&tool_steps(), &instance);
    let headings: Vec<&str> = message
        .lines()
        .filter(|line| line.contains("must hold"))
        .collect();
    assert_eq!(headings.len(), 2, "{message}");
    assert!(headings[0].starts_with("#/steps/0: oneOf:"), "{message}");
    assert!(headings[1].starts_with("#/steps/1: oneOf:"), "{message}");
}

#[test]
fn a_union_only_one_member_reaches_is_printed_flat() {
    // The null member is set aside by 0126's type rule: one way to fix it, so no heading.
    let schema = json!({ "anyOf": [
        { "type": "object", "properties": { "a": { "type": "integer" } }, "required": ["b"] },
        { "type": "null" }
    ] });
    let message = text(&schema, &json!({ "a": "x" }));
    assert!(!message.contains("alternative"), "{message}");
    assert_eq!(message.lines().count(), 2, "{message}");
}

#[test]
fn nested_unions_nest_their_alternatives() {
    let schema = json!({ "anyOf": [
        { "type": "object", "properties": { "v": { "anyOf": [{ "type": "integer", "minimum": 5 }, { "type": "string", "maxLength": 1 }] } }, "required": ["k"] },
        { "type": "object", "required": ["other"] }
    ] });
    let instance = json!({ "v": 3 });
    let message = text(&schema, &instance);
    assert!(
        message.starts_with("#: anyOf: one of these 2 alternatives must hold (/anyOf):\n  alternative 0:\n"),
        "{message}"
    );
    // The inner union has one surviving member (the string member is set aside for an integer): flat, indented.
    assert!(
        message.contains("\n    #/k: required: required property \"k\" is missing"),
        "{message}"
    );
    assert!(
        message.contains("\n    #/v: minimum: must be at least 5"),
        "{message}"
    );
    assert!(
        message.contains("\n  alternative 1:\n    #/other: required:"),
        "{message}"
    );

    let two_inner = json!({ "anyOf": [
        { "properties": { "v": { "anyOf": [{ "minimum": 5 }, { "multipleOf": 2 }] } }, "required": ["k"] },
        { "required": ["other"] }
    ] });
    let message = text(&two_inner, &json!({ "v": 3 }));
    assert!(
        message.contains("\n    #/v: anyOf: one of these 2 alternatives must hold (/anyOf/0/properties/v/anyOf):\n      alternative 0:\n        #/v: minimum"),
        "{message}"
    );
}

#[test]
fn a_property_named_like_a_union_keyword_is_not_a_union() {
    let schema = json!({ "properties": { "anyOf": { "properties": { "0": { "type": "string" }, "1": { "type": "string" } } } } });
    let message = text(&schema, &json!({ "anyOf": { "0": 1, "1": 2 } }));
    assert!(!message.contains("alternative"), "{message}");
    assert_eq!(message.lines().count(), 2, "{message}");
}

/// A cap takes whole alternatives, the closest to valid first (the `write` member, whose tag matches, before
/// `read`, which has as many lines but one of them a tag mismatch), keeps the union's true member count in its
/// heading, and says how many violations and alternatives it left out.
#[test]
fn a_cap_keeps_whole_alternatives_and_the_true_member_count() {
    let instance = json!({ "steps": [{ "tool": "write", "path": 3 }] });
    let validator = Validator::new(&tool_steps()).unwrap();
    let full = validator.validate(&instance).unwrap_err();
    let report = validator
        .validate_with(&instance, &ReportOptions::new().max_violations(3))
        .unwrap_err();
    assert_eq!(report.len(), 2);
    assert_eq!(report.omitted(), full.len() - 2);
    assert_eq!(report.omitted_alternatives(), 3);
    assert_eq!(
        report.error_message(),
        format!(
            "#/steps/0: oneOf: one of these 4 alternatives must hold (/properties/steps/items/oneOf), 1 shown, \
             closest to valid first:\n  \
             alternative 1:\n    \
             #/steps/0/path: type: expected string, got integer\n    \
             #/steps/0/text: required: required property \"text\" is missing\n\
             ... and {} more (3 alternatives not shown)",
            full.len() - 2
        )
    );
    // A cap that fits two whole members keeps both, closest first, and still says 4.
    let report = validator
        .validate_with(&instance, &ReportOptions::new().max_violations(4))
        .unwrap_err();
    let message = report.error_message();
    let headings: Vec<&str> = message
        .lines()
        .filter(|line| line.contains("alternative "))
        .collect();
    assert_eq!(headings, ["  alternative 1:", "  alternative 0:"], "{message}");
    assert!(
        message.contains("one of these 4 alternatives must hold (/properties/steps/items/oneOf), 2 shown")
    );
    assert!(message.ends_with("(2 alternatives not shown)"), "{message}");
}

/// The case: a 4-member union capped at 3, where one member holds the only real mistake (one violation) and
/// the others miss by two or more: the near miss is the one kept, under the true count of 4.
#[test]
fn a_cap_never_cuts_the_near_miss() {
    let schema = json!({ "oneOf": [
        { "required": ["a", "b", "c"] },
        { "required": ["d", "e"] },
        { "properties": { "n": { "maximum": 3 } }, "required": ["n"] },
        { "required": ["f", "g"] }
    ] });
    let validator = Validator::new(&schema).unwrap();
    let report = validator
        .validate_with(&json!({ "n": 4 }), &ReportOptions::new().max_violations(3))
        .unwrap_err();
    let message = report.error_message();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines[0],
        "#: oneOf: one of these 4 alternatives must hold (/oneOf), 2 shown, closest to valid first:"
    );
    assert_eq!(lines[1], "  alternative 2:");
    assert_eq!(lines[2], "    #/n: maximum: must be at most 3");
    // The next closest members have two lines each: one fits beside the near miss.
    assert_eq!(lines[3], "  alternative 1:");
    assert_eq!(report.len(), 3);
    assert_eq!(report.omitted(), 5);
    assert_eq!(report.omitted_alternatives(), 2);
    assert_eq!(
        *lines.last().unwrap(),
        "... and 5 more (2 alternatives not shown)"
    );
    // The json view lists the kept violations in report order; nothing is added but the headings.
    let kept: Vec<String> = report
        .iter()
        .map(|violation| violation.instance_location().to_fragment())
        .collect();
    assert_eq!(kept, ["#/d", "#/e", "#/n"]);
}

#[test]
fn bounds_of_one_are_singular() {
    let cases = [
        (
            json!({ "maxItems": 1 }),
            json!([1, 2]),
            "must have at most 1 item",
        ),
        (
            json!({ "minProperties": 1 }),
            json!({}),
            "must have at least 1 property",
        ),
        (
            json!({ "minLength": 1 }),
            json!(""),
            "must be at least 1 character long",
        ),
        (
            json!({ "contains": { "type": "string" }, "maxContains": 1 }),
            json!(["a", "b"]),
            "at most 1 matching item,",
        ),
        (
            json!({ "maxItems": 2 }),
            json!([1, 2, 3]),
            "must have at most 2 items",
        ),
    ];
    for (schema, instance, words) in cases {
        let message = text(&schema, &instance);
        assert!(message.contains(words), "{message}");
        assert!(
            !message.contains(" 1 items") && !message.contains(" 1 characters"),
            "{message}"
        );
    }
}

#[test]
fn malformed_json_is_described_in_plain_words() {
    let cases = [
        ("[nul1]", "expected true, false or null"),
        (
            "",
            "at the end of line 1: the text ends where a value should begin",
        ),
        ("[1, 2", "the text ends inside an array"),
        ("{} x", "unexpected text after the JSON value"),
    ];
    for (input, words) in cases {
        let message = oa_schema::parse_json(input).unwrap_err().to_string();
        assert!(message.contains(words), "{input:?}: {message}");
        assert!(
            !message.contains("column 0") && !message.contains("ident") && !message.contains("EOF"),
            "{message}"
        );
    }
}

#[test]
fn a_line_two_members_reach_is_listed_under_each() {
    // Both members reach `#/$defs/name/type` at `#/name`: the report holds it once, the text under each member.
    let schema = json!({
        "$defs": { "name": { "type": "string" } },
        "anyOf": [
            { "properties": { "name": { "$ref": "#/$defs/name" } }, "required": ["id"] },
            { "properties": { "name": { "$ref": "#/$defs/name" } }, "required": ["key"] }
        ]
    });
    let instance = json!({ "name": 5 });
    let report = Validator::new(&schema).unwrap().validate(&instance).unwrap_err();
    assert_eq!(report.len(), 3);
    assert_eq!(
        report.error_message(),
        "#: anyOf: one of these 2 alternatives must hold (/anyOf):\n  \
         alternative 0:\n    #/id: required: required property \"id\" is missing\n    \
         #/name: type: expected string, got integer\n  \
         alternative 1:\n    #/key: required: required property \"key\" is missing\n    \
         #/name: type: expected string, got integer"
    );
    // Outside a union the same line is printed once.
    let flat = json!({ "$defs": { "n": { "type": "string" } }, "properties": { "a": { "allOf": [{ "$ref": "#/$defs/n" }, { "$ref": "#/$defs/n" }] } } });
    assert_eq!(
        text(&flat, &json!({ "a": 1 })),
        "#/a: type: expected string, got integer"
    );
}
