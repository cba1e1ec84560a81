//! The whole-slice entry points (`Validator::is_valid_bytes`, `validate_bytes`) against their definition: the
//! incremental route without the value, fed the whole text and finished. Every text below runs through schemas the
//! validating deserializer plans (its fast read decides), schemas it does not (the value route or the incremental
//! route answers), and texts over 1 MiB (the incremental route answers where the fast read does not). The official
//! suite's cases run through them too (tests/suite.rs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{IncrementalError, Validator};
use serde_json::{Value, json};

/// The definition: the incremental route fed `bytes` whole.
fn reference(validator: &Validator, bytes: &[u8]) -> Result<(), IncrementalError> {
    let mut run = validator.incremental().without_value();
    run.feed(bytes)?;
    run.finish()
}

/// Both entry points agree with the definition on `bytes` (errors compared as printed, with their kind).
fn agrees(validator: &Validator, bytes: &[u8]) {
    let expected = reference(validator, bytes);
    let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
    assert_eq!(
        validator.is_valid_bytes(bytes),
        expected.is_ok(),
        "is_valid_bytes on {shown:?}: expected {expected:?}"
    );
    let got = validator.validate_bytes(bytes);
    assert_eq!(
        format!("{got:?}"),
        format!("{expected:?}"),
        "validate_bytes on {shown:?}"
    );
}

fn schemas() -> Vec<Value> {
    vec![
        // Planned by the validating deserializer: its read decides.
        json!({
            "type": "object",
            "properties": {
                "id": { "type": "integer", "minimum": 0 },
                "tags": { "type": "array", "items": { "type": "string", "maxLength": 3 }, "maxItems": 3 },
                "nested": { "type": "object", "properties": { "x": { "enum": [1, 2] } } }
            },
            "required": ["id"],
            "additionalProperties": false
        }),
        // Not planned (a union at a container, `patternProperties`, `unevaluatedProperties`): another route answers.
        json!({
            "anyOf": [
                { "type": "object", "required": ["id"] },
                { "type": "array", "items": { "type": "integer" } }
            ]
        }),
        json!({
            "type": "object",
            "patternProperties": { "^t": { "type": "array", "maxItems": 3 } },
            "properties": { "id": { "type": "integer", "minimum": 0 } },
            "unevaluatedProperties": { "type": ["integer", "object", "array"] }
        }),
        // A dynamic scope (the fast read never answers).
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$dynamicAnchor": "node",
            "type": ["object", "array", "integer"],
            "items": { "$dynamicRef": "#node" },
            "properties": { "id": { "minimum": 0 } }
        }),
        json!(true),
        json!(false),
    ]
}

fn texts() -> Vec<Vec<u8>> {
    let mut texts: Vec<Vec<u8>> = [
        r#"{"id": 1, "tags": ["a", "bc"], "nested": {"x": 1}}"#,
        r#"{"id": -1, "tags": ["abcd", 3, "a", "b"], "nested": {"x": 3}, "extra": true}"#,
        r#"{"tags": []}"#,
        "[1, 2, 3]",
        "[1, \"two\", 3.5, null, true, {}]",
        "1",
        "-0.0e+1",
        "\"\\u00e9\\ud83d\\ude00\"",
        "   {\"id\": 1}   \n",
        // Malformed, named as the incremental route names it.
        "",
        "   ",
        "[1, 2,]",
        "{\"id\": 1,}",
        "{\"id\" 1}",
        "{id: 1}",
        "[1 2]",
        "// a comment\n{}",
        "{\"id\": 1} /* trailing */",
        "{\"id\": 1} x",
        "[01]",
        "[1.]",
        "[-]",
        "[tru]",
        "\"\\ud800\"",
        "\"\\x\"",
        "\"a\tb\"",
        "{\"id\": 1",
        "[\"open",
        "\u{feff}{}",
        // Repeated member names: refused as malformed, at any depth.
        r#"{"id": 1, "id": 2}"#,
        r#"{"nested": {"x": 1, "x": 3}, "id": 0}"#,
        r#"[{"a": 1, "b": 2, "a": 3}]"#,
    ]
    .iter()
    .map(|text| text.as_bytes().to_vec())
    .collect();
    // Not UTF-8, inside and outside a string.
    texts.push(b"[\"\xff\"]".to_vec());
    texts.push(b"[1, \xc3]".to_vec());
    // Nesting: 127 open containers are read, 128 are too deep.
    for depth in [126, 127, 128, 200] {
        texts.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes());
        texts.push(format!("{}1{}", "{\"id\":".repeat(depth), "}".repeat(depth)).into_bytes());
    }
    // Over 1 MiB: a long array of objects, valid for the first schema, then with one bad item near its end.
    let item = r#"{"id": 7, "tags": ["a"], "nested": {"x": 2}}"#;
    let items = vec![item; 30_000].join(",\n");
    texts.push(
        format!("{{\"id\": 1, \"nested\": {{\"x\": 1}}, \"tags\": [], \"more\": [{items}]}}").into_bytes(),
    );
    texts.push(format!("[{items}]").into_bytes());
    texts.push(format!("[{items}, {{\"id\": \"x\"}}, {item}]").into_bytes());
    texts.push(format!("[{items}, {{\"id\": 1, \"id\": 2}}]").into_bytes());
    texts.push(format!("[{items}, ]").into_bytes());
    texts
}

#[test]
fn the_bytes_entry_points_answer_as_the_incremental_route() {
    let texts = texts();
    for schema in schemas() {
        let validator = Validator::new(&schema).unwrap();
        for text in &texts {
            agrees(&validator, text);
        }
    }
}

#[test]
fn the_report_is_validates_on_the_parsed_value() {
    let validator = Validator::new(&schemas()[0]).unwrap();
    let text = r#"{"id": -1, "tags": ["abcd", 3, "a", "b"], "nested": {"x": 3}, "extra": true}"#;
    let Err(IncrementalError::Invalid(got)) = validator.validate_bytes(text.as_bytes()) else {
        panic!("invalid")
    };
    let expected = validator
        .validate(&oa_schema::parse_json(text).unwrap())
        .unwrap_err();
    assert_eq!(got.error_message(), expected.error_message());
    assert_eq!(got.len(), 6, "{}", got.error_message());
}

#[test]
fn the_verdict_over_many_generated_instances_is_is_valids() {
    // Values of every kind at every position, against a planned and an unplanned schema.
    let validator_planned = Validator::new(&schemas()[0]).unwrap();
    let validator_union = Validator::new(&schemas()[1]).unwrap();
    let scalars = [
        json!(null),
        json!(true),
        json!(-3),
        json!(2.5),
        json!("ab"),
        json!("abcd"),
    ];
    let mut checked = 0;
    for a in &scalars {
        for b in &scalars {
            for instance in [
                json!({ "id": a, "tags": [b] }),
                json!({ "id": 0, "tags": [a, b], "nested": { "x": a } }),
                json!([a, b]),
                json!({ "id": a, b.to_string(): b }),
            ] {
                let text = serde_json::to_vec(&instance).unwrap();
                for validator in [&validator_planned, &validator_union] {
                    assert_eq!(
                        validator.is_valid_bytes(&text),
                        validator.is_valid(&instance),
                        "{instance}"
                    );
                    agrees(validator, &text);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 6 * 6 * 4 * 2);
}

mod generated {
    //! Random documents (with repeated names, and cut short or spliced into malformed text) against schemas the
    //! typed read plans and schemas it reads whole: both entry points answer as the incremental route.
    use super::{agrees, schemas};
    use oa_schema::Validator;
    use proptest::prelude::*;

    /// JSON text written directly, so that an object may repeat a name.
    fn text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            (-3i64..12).prop_map(|n| n.to_string()),
            Just("2.5".to_owned()),
            Just("1e400".to_owned()),
            prop::sample::select(vec!["\"a\"", "\"abcd\"", "\"\\u00e9\"", "\"\\ud800\""])
                .prop_map(str::to_owned),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
                prop::collection::vec(
                    (
                        prop::sample::select(vec!["id", "tags", "nested", "x", "t1"]),
                        inner
                    ),
                    0..4
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn both_entry_points_answer_as_the_incremental_route(
            text in text(),
            schema in 0..6usize,
            cut in any::<prop::sample::Index>(),
            broken in any::<bool>(),
        ) {
            let validator = Validator::new(&schemas()[schema]).unwrap();
            agrees(&validator, text.as_bytes());
            if broken {
                // Cut short, or with a stray byte spliced in.
                let at = cut.index(text.len() + 1);
                agrees(&validator, &text.as_bytes()[..at]);
                let mut spliced = text.clone().into_bytes();
                spliced.insert(at, b',');
                agrees(&validator, &spliced);
            }
        }
    }
}
