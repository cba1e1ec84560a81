//! The collecting pass against `validate` on the parsed value: the same report exactly, and an answer wherever the
//! text is well-formed without a repeated name (so that the value route is not what these tests check).

use super::collect_str;
use crate::parse::{ParseOptions, parse_json_with};
use crate::validator::Validator;
use crate::violation::Violations;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::cell::Cell;

thread_local! {
    /// Set: the pass's evaluator builds every violation's paths from its own frame chain, as a run's first
    /// violation's are (the reference the paths kept from one violation to the next are checked against).
    pub(super) static PATHS_FROM_SCRATCH: Cell<bool> = const { Cell::new(false) };
}

/// Schemas whose containers the pass walks through their plans (`properties`, `required`, `additionalProperties`
/// false or a schema, `items`, the count bounds, `$ref`s, a recursive definition), and some it reads whole (a
/// union with `null`, `items: false`, an `enum` of scalars, `unevaluatedProperties`), `prefixItems`,
/// `patternProperties` and `allOf`, where a member or item may have several nodes (read whole and evaluated at
/// each).
fn schemas() -> Vec<Value> {
    vec![
        json!({
            "$defs": {
                "item": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "integer", "maximum": 5 },
                        "x": { "enum": [1, 2, "a"] }
                    },
                    "required": ["id", "x"],
                    "additionalProperties": false,
                    "maxProperties": 2
                }
            },
            "type": "object",
            "properties": {
                "items": { "type": "array", "items": { "$ref": "#/$defs/item" }, "minItems": 2, "maxItems": 3 },
                "id": { "type": ["string", "null"], "maxLength": 2 },
                "x": { "anyOf": [{ "$ref": "#/$defs/item" }, { "type": "null" }] },
                "v": { "type": "array", "items": false }
            },
            "additionalProperties": { "type": ["integer", "array"], "minimum": 0, "maxItems": 1 },
            "minProperties": 2,
            "required": ["id"]
        }),
        json!({
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "v": { "type": "integer", "multipleOf": 2 },
                        "kids": { "type": "array", "items": { "$ref": "#/$defs/node" }, "maxItems": 2 }
                    },
                    "required": ["v"]
                }
            },
            "$ref": "#/$defs/node"
        }),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": { "leaf": { "type": "string", "minLength": 2 } },
            "type": "object",
            "properties": {
                "id": { "$ref": "#/definitions/leaf" },
                "items": { "type": "array", "items": { "$ref": "#/definitions/leaf" } },
                "x": { "enum": [1, "a", null] }
            },
            "required": ["x", "kids"],
            "additionalProperties": false
        }),
        json!({
            "type": "object",
            "properties": {
                "id": { "type": "integer" },
                "items": { "allOf": [{ "type": "array" }, { "maxItems": 1 }] },
                "x": { "type": "object", "properties": { "v": { "const": 1 } }, "unevaluatedProperties": false }
            },
            "patternProperties": { "^k": { "type": "string" } }
        }),
        json!({ "type": "array", "items": { "type": "object", "required": ["id"], "minProperties": 2 } }),
        // `prefixItems` then `items`, nested; and `patternProperties` beside `properties` and
        // `additionalProperties: false` (a name may meet its property and two patterns).
        json!({
            "type": ["array", "object"],
            "prefixItems": [
                { "type": "integer", "maximum": 5 },
                { "type": "array", "prefixItems": [{ "type": "string" }], "items": { "type": "object" }, "maxItems": 2 },
                { "type": "object", "required": ["id", "x"] }
            ],
            "items": { "type": ["string", "array"], "maxLength": 1, "items": { "const": 1 } },
            "minItems": 2,
            "properties": {
                "id": { "type": "integer" },
                "kids": { "type": "array", "items": { "$ref": "#" } }
            },
            "patternProperties": {
                "^k": { "type": ["array", "string"], "maxItems": 1 },
                "i": { "type": ["integer", "array", "string"], "minimum": 3, "minLength": 2 }
            },
            "additionalProperties": false,
            "required": ["id"]
        }),
        // `allOf`: the node's own plan and its members' at once (a `$ref`, a nested `allOf`, `items` and
        // `prefixItems` on the same array, `additionalProperties: false` in one member only).
        json!({
            "$defs": {
                "base": {
                    "type": ["object", "array"],
                    "properties": { "id": { "type": "integer", "maximum": 5 }, "kids": { "$ref": "#" } },
                    "required": ["id"],
                    "items": { "type": ["integer", "object"], "minimum": 0 }
                }
            },
            "properties": { "x": { "enum": [1, 2, "a"] }, "id": { "minimum": 2 } },
            "maxProperties": 3,
            "allOf": [
                { "$ref": "#/$defs/base" },
                { "allOf": [
                    { "patternProperties": { "^k": { "type": "array", "maxItems": 1 } }, "minItems": 1 },
                    { "properties": { "id": true, "x": true, "kids": true, "v": { "type": "string" } },
                      "additionalProperties": false,
                      "prefixItems": [{ "maximum": 3 }] }
                ] }
            ]
        }),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "patternProperties": { "^(x|k)": { "type": "array", "items": [{ "type": "string" }], "additionalItems": { "type": "integer" } } },
            "additionalProperties": { "type": "object", "patternProperties": { "d$": { "maxProperties": 1 } } }
        }),
        // More than eight names, some whose schemas recurse: `properties` keeps them in two sorted groups, which
        // the plan's table sorts as one.
        json!({
            "$defs": { "list": { "type": "array", "items": { "$ref": "#/$defs/list" }, "maxItems": 1 } },
            "type": "object",
            "properties": {
                "a~/b": { "$ref": "#/$defs/list" },
                "id": { "type": "integer" },
                "items": { "$ref": "#/$defs/list" },
                "k1": { "type": "string" },
                "kids": { "$ref": "#/$defs/list" },
                "v": { "type": "boolean" },
                "w": { "type": "null" },
                "x": { "enum": [1, "a"] },
                "z": { "type": "string", "maxLength": 1 }
            }
        }),
        // Bursts of violations under shared frames (see `eval/paths.rs`): one shape reached by `$ref` from
        // sibling members and the items of arrays (so the same depth is left and entered again under another
        // name), arrays of arrays, a union of objects and an `allOf` of a `$ref` and more.
        json!({
            "$defs": {
                "pt": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "integer", "maximum": 3 },
                        "k1": { "type": "string", "maxLength": 1 },
                        "kids": { "type": "array", "items": { "$ref": "#/$defs/pt" } }
                    },
                    "required": ["id"],
                    "additionalProperties": false
                }
            },
            "type": "object",
            "properties": {
                "x": { "$ref": "#/$defs/pt" },
                "v": { "$ref": "#/$defs/pt" },
                "items": { "type": "array", "items": { "$ref": "#/$defs/pt" } },
                "kids": { "type": "array", "items": { "type": "array", "items": { "type": "integer", "minimum": 0 } } },
                "d": { "anyOf": [{ "$ref": "#/$defs/pt" }, { "type": "integer" }] },
                "z": { "allOf": [{ "$ref": "#/$defs/pt" }, { "properties": { "id": { "minimum": 2 } } }] }
            }
        }),
    ]
}

/// JSON text written directly (a name may repeat).
fn text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        (-3i64..12).prop_map(|n| n.to_string()),
        Just("2.5".to_owned()),
        prop::sample::select(vec!["\"a\"", "\"abcd\"", "\"\\u00e9\"", "\"k\\\"\""]).prop_map(str::to_owned),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "id", "items", "x", "v", "kids", "k1", "z", "a~/b", "xid", "d"
                    ]),
                    inner
                ),
                0..5
            )
            .prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(name, value)| format!("\"{name}\":{value}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// The pass answers for a well-formed text without repeats, with `validate`'s report on its value.
fn check(validator: &Validator, text: &str) {
    let collected = collect_str(validator.compiled(), text);
    let Ok(value) = parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true)) else {
        return;
    };
    let expected = validator.validate(&value).err();
    assert_eq!(
        validator.is_valid_bytes(text.as_bytes()),
        expected.is_none(),
        "verdict on {text}"
    );
    if crate::strict::numbers_keep_digits() {
        // serde_json's `arbitrary_precision` (unified in a workspace build): the pass does not answer, and
        // `validate_bytes` takes the value route, whose report is still `validate`'s.
        assert!(
            collected.is_none(),
            "an answer on {text} with numbers kept as digits"
        );
        let report = match validator.validate_bytes(text.as_bytes()) {
            Ok(()) => None,
            Err(crate::IncrementalError::Invalid(report)) => Some(report),
            Err(other) => panic!("{other} on {text}"),
        };
        assert_eq!(report, expected, "{text}");
        return;
    }
    let Some(found) = collected else {
        panic!("no answer on {text}")
    };
    let got = (!found.is_empty()).then(|| Violations::sorted(found));
    assert_eq!(got, expected, "{text}");
}

/// The pass's own list of violations (unsorted, repeats kept), whose paths each violation built from the last one's,
/// is the list whose paths were each built from scratch; and the report is `validate`'s.
fn check_kept_paths(validator: &Validator, text: &str) {
    let kept = collect_str(validator.compiled(), text);
    PATHS_FROM_SCRATCH.with(|from_scratch| from_scratch.set(true));
    let reference = collect_str(validator.compiled(), text);
    PATHS_FROM_SCRATCH.with(|from_scratch| from_scratch.set(false));
    assert_eq!(kept, reference, "{text}");
    check(validator, text);
}

#[test]
fn bursts_of_violations_under_shared_frames_keep_their_paths() {
    let texts = [
        // Siblings of one shape: the member's frame is left and the next entered at the same depth.
        r#"{"x": {"id": 9, "k1": "long", "q": 1}, "v": {"id": 8, "k1": "ab"}}"#,
        r#"{"items": [{"id": 9, "k1": "ab"}, {"id": 8}, {"k1": 1}, {"id": 7, "k1": "cd", "q": 0}]}"#,
        r#"{"kids": [[-1, -2, 3], [-4], [], [5, -6, -7]], "x": {"id": 4}}"#,
        r#"{"d": {"id": 9, "k1": "ab"}, "z": {"id": 1, "k1": "ab"}, "x": {"id": 9}, "d2": 1}"#,
        r#"{"x": {"kids": [{"id": 5, "kids": [{"id": 6}, {"k1": "ab"}]}, {"id": 7}]}, "v": {"kids": [{"id": 8}]}}"#,
        r#"{"items": [{"id": 4}, {"id": 5}], "v": {"id": 6}, "items2": [], "x": {"id": 7, "kids": [{"id": 8}]}}"#,
    ];
    for schema in schemas() {
        let validator = Validator::new(&schema).unwrap();
        for text in texts {
            check_kept_paths(&validator, text);
        }
    }
}

#[test]
fn the_report_of_each_planned_shape_is_validates() {
    let texts = [
        r#"{"id": "abc", "items": [{"id": 9, "x": 3, "y": 1}], "x": {"id": 1}, "v": [1, 2], "n": -1, "m": [1, 2]}"#,
        r#"{"items": [{"id": 1, "x": 1}, {"id": 2, "x": "a"}, {"x": 2}, {}]}"#,
        r#"{"v": 3, "kids": [{"v": 1}, {"kids": [{"v": 2}, {"v": 4}, {"v": 5}]}]}"#,
        r#"{"id": "a", "items": ["ab", "c", 1], "x": 2, "other": {}}"#,
        r#"{"id": 1.5, "items": [1, 2], "x": {"v": 2, "w": 1}, "k": 1}"#,
        r#"[{"id": 1}, {}, {"a": 1, "b": 2}, 3]"#,
        r#"{"items": [], "id": null}"#,
        "[]",
        "{}",
        "7",
    ];
    // A long way to the innermost violations, most of it shared by them.
    let deep = format!(
        "{}{{\"v\": 3, \"x\": 1}}{}",
        r#"{"v": 2, "kids": ["#.repeat(12),
        "]}".repeat(12)
    );
    for schema in schemas() {
        let validator = Validator::new(&schema).unwrap();
        for text in texts.iter().copied().chain([deep.as_str()]) {
            check_kept_paths(&validator, text);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_texts_report_as_validate(text in text(), schema in 0..10usize) {
        let validator = Validator::new(&schemas()[schema]).unwrap();
        check_kept_paths(&validator, &text);
    }
}

#[test]
fn a_reference_to_nothing_is_reported_where_it_is_reached() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": { "$ref": "https://nowhere.example/a.json" },
            "b": { "type": "array", "items": { "$ref": "https://nowhere.example/b.json" } },
            "c": { "type": "integer" }
        }
    });
    let validator = Validator::options()
        .defer_unresolved_references(true)
        .build(&schema)
        .unwrap();
    for text in [
        r#"{"a": 1}"#,
        r#"{"b": [1, {"x": 2}], "c": "no"}"#,
        r#"{"b": [], "c": 3}"#,
        r#"{"a": {"y": [1]}}"#,
    ] {
        check(&validator, text);
    }
}

/// Names no plan names, kept for repeats per object: a repeat in the same object ends the pass without an answer
/// (the value route refuses it), the same name in a nested or a later object does not; rejected names are each
/// reported with their own name.
#[test]
fn names_outside_the_plan_are_told_apart_per_object() {
    let strict = json!({
        "type": "object",
        "properties": { "id": { "type": "integer" }, "kid": { "$ref": "#" } },
        "additionalProperties": false
    });
    let open = json!({
        "type": "object",
        "properties": { "id": { "type": "integer" }, "kid": { "$ref": "#" } }
    });
    let many =
        |prefix: &str, n: usize| -> Vec<String> { (0..n).map(|i| format!("\"{prefix}{i}\": {i}")).collect() };
    let nested = |names: &[String], inner: &[String]| {
        format!(
            "{{{}, \"kid\": {{{}}}, \"id\": \"x\"}}",
            names.join(", "),
            inner.join(", ")
        )
    };
    for schema in [strict, open] {
        let validator = Validator::new(&schema).unwrap();
        for n in [1, 3, 16, 17, 40] {
            let names = many("n", n);
            // The same names one level down, and names after the nested object closed: no repeat.
            let mut after = names.clone();
            after.push("\"later\": 1".to_owned());
            let text = nested(&after, &names);
            check(&validator, &text);
            // (Under `arbitrary_precision` the pass never answers: `check` says what holds there.)
            assert_eq!(
                collect_str(validator.compiled(), &text).is_some(),
                !crate::strict::numbers_keep_digits(),
                "{n}: {text}"
            );
            // A repeat of the first name, as the object's last member (before and past the list's bound).
            let mut repeated = names.clone();
            repeated.push("\"n0\": 0".to_owned());
            let text = nested(&repeated, &names);
            assert!(collect_str(validator.compiled(), &text).is_none(), "{n}: {text}");
            // The repeat in the nested object only.
            let text = nested(&names, &repeated);
            assert!(collect_str(validator.compiled(), &text).is_none(), "{n}: {text}");
        }
    }
}
