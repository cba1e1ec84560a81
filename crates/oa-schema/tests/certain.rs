//! Certain violations on the incremental route (`Incremental::violations`): each is reported at the `feed` that
//! holds the text deciding it, is in `validate`'s report at the end, and none fires on a valid document, however
//! the text is cut; and without the value (`Incremental::without_value`), the same report as `validate`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{IncrementalError, Validator, Violation, ViolationKind};
use proptest::prelude::*;
use serde_json::{Value, json};

/// An LLM-style schema: an enum, bounded strings and numbers, a tuple, an array of `$ref`s, a closed nested
/// object, a union and an `allOf`.
fn schema() -> Value {
    json!({
        "$defs": { "tag": { "type": "string", "maxLength": 5 } },
        "type": "object",
        "properties": {
            "severity": { "enum": ["low", "high"] },
            "title": { "type": "string", "maxLength": 8 },
            "count": { "type": "integer", "minimum": 0, "maximum": 10 },
            "tags": { "type": "array", "items": { "$ref": "#/$defs/tag" }, "minItems": 1, "maxItems": 3 },
            "pair": { "type": "array", "prefixItems": [{ "type": "integer" }, { "type": "string" }], "items": false },
            "owner": {
                "type": "object",
                "properties": { "name": { "type": "string" }, "id": { "const": 7 } },
                "required": ["name"],
                "additionalProperties": false
            },
            "either": { "anyOf": [{ "type": "string" }, { "type": "object", "required": ["x"] }] },
            "rest": { "allOf": [{ "type": "array" }, { "items": { "type": "boolean" } }] }
        },
        "patternProperties": { "^x-": { "type": "string" } },
        "required": ["severity", "title"],
        "additionalProperties": false
    })
}

fn validator() -> Validator {
    Validator::new(&schema()).unwrap()
}

/// The text fed in pieces cut at `cuts`; the certain violations known after each piece, and the outcome.
fn run(
    validator: &Validator,
    text: &[u8],
    cuts: &[usize],
) -> (Vec<Vec<Violation>>, Result<(), IncrementalError>) {
    let mut cuts: Vec<usize> = cuts.iter().copied().filter(|&cut| cut <= text.len()).collect();
    cuts.sort_unstable();
    cuts.push(text.len());
    let mut run = validator.incremental();
    let mut seen = Vec::new();
    let mut from = 0;
    for cut in cuts {
        if let Err(err) = run.feed(&text[from..cut]) {
            return (seen, Err(err));
        }
        seen.push(run.violations().to_vec());
        from = cut;
    }
    (seen, run.finish())
}

/// `early` is in `report`: the same instance location, kind, absolute location and message (the keyword path too,
/// unless the report lists that violation once under another path to the same schema location).
fn in_report(early: &Violation, report: &[Violation]) -> bool {
    report.iter().any(|kept| {
        kept.instance_location() == early.instance_location()
            && kept.kind() == early.kind()
            && kept.schema_location().absolute() == early.schema_location().absolute()
            && kept.message() == early.message()
    })
}

/// The outcome of a run without the value (`without_value`) on `text` cut at `cuts`.
fn without_value(validator: &Validator, text: &[u8], cuts: &[usize]) -> Result<(), IncrementalError> {
    let mut cuts: Vec<usize> = cuts.iter().copied().filter(|&cut| cut <= text.len()).collect();
    cuts.sort_unstable();
    cuts.push(text.len());
    let mut run = validator.incremental().without_value();
    let mut from = 0;
    for cut in cuts {
        run.feed(&text[from..cut])?;
        from = cut;
    }
    run.finish()
}

/// Checks the promises on one text cut at `cuts`.
fn check(validator: &Validator, text: &str, cuts: &[usize]) {
    // Without the value, the same report, violation by violation.
    let value: Value = serde_json::from_str(text).unwrap();
    match (
        validator.validate(&value),
        without_value(validator, text.as_bytes(), cuts),
    ) {
        (Ok(()), Ok(())) => {}
        (Err(expected), Err(IncrementalError::Invalid(got))) => {
            assert_eq!(
                expected.error_message(),
                got.error_message(),
                "{text:?} without the value"
            );
            assert!(expected.iter().eq(got.iter()), "{text:?} without the value");
        }
        (expected, got) => panic!("{text:?} without the value: validate {expected:?}, incremental {got:?}"),
    }
    let (seen, outcome) = run(validator, text.as_bytes(), cuts);
    // Reports only grow.
    for pair in seen.windows(2) {
        assert!(
            pair[1].starts_with(&pair[0]),
            "{text:?}: certain violations changed"
        );
    }
    let early = seen.last().cloned().unwrap_or_default();
    let value: Value = serde_json::from_str(text).unwrap();
    match (validator.validate(&value), outcome) {
        (Ok(()), Ok(())) => assert!(
            early.is_empty(),
            "{text:?}: certain violations on a valid document: {early:?}"
        ),
        (Err(expected), Err(IncrementalError::Invalid(got))) => {
            assert_eq!(expected.error_message(), got.error_message(), "{text:?}");
            let report: Vec<Violation> = expected.iter().cloned().collect();
            for violation in &early {
                assert!(
                    in_report(violation, &report),
                    "{text:?}: {violation:?} not in {report:?}"
                );
            }
        }
        (expected, got) => panic!("{text:?}: validate {expected:?}, incremental {got:?}"),
    }
}

/// A member of the schema's object: mostly valid values, sometimes not.
fn member() -> impl Strategy<Value = (String, Value)> {
    let string = prop_oneof![
        Just(json!("a")),
        Just(json!("abcdefghijk")),
        Just(json!("lo\u{e9}w")),
        Just(json!(""))
    ];
    let any_scalar = prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(3)),
        Just(json!(1.5)),
        string.clone()
    ];
    let tag = prop_oneof![string.clone(), Just(json!(4))];
    prop_oneof![
        prop_oneof![
            Just(json!("low")),
            Just(json!("high")),
            Just(json!("urgent")),
            Just(json!(2))
        ]
        .prop_map(|value| ("severity".to_owned(), value)),
        prop_oneof![string.clone(), Just(json!(["x"]))].prop_map(|value| ("title".to_owned(), value)),
        prop_oneof![
            Just(json!(3)),
            Just(json!(11)),
            Just(json!(-1)),
            Just(json!(2.5)),
            Just(json!("3"))
        ]
        .prop_map(|value| ("count".to_owned(), value)),
        prop::collection::vec(tag, 0..5).prop_map(|tags| ("tags".to_owned(), Value::Array(tags))),
        prop::collection::vec(any_scalar.clone(), 0..4)
            .prop_map(|items| ("pair".to_owned(), Value::Array(items))),
        (
            prop::option::of(string.clone()),
            prop::option::of(any_scalar.clone()),
            any::<bool>()
        )
            .prop_map(|(name, id, extra)| {
                let mut owner = serde_json::Map::new();
                if let Some(name) = name {
                    owner.insert("name".to_owned(), name);
                }
                if let Some(id) = id {
                    owner.insert("id".to_owned(), id);
                }
                if extra {
                    owner.insert("nick".to_owned(), json!("n"));
                }
                ("owner".to_owned(), Value::Object(owner))
            }),
        prop_oneof![
            string.clone(),
            Just(json!({ "x": [1, 2] })),
            Just(json!({ "y": 1 })),
            Just(json!(5))
        ]
        .prop_map(|value| ("either".to_owned(), value)),
        prop::collection::vec(prop_oneof![Just(json!(true)), Just(json!(0))], 0..3)
            .prop_map(|items| ("rest".to_owned(), Value::Array(items))),
        any_scalar.prop_map(|value| ("x-note".to_owned(), value)),
        Just(("extra".to_owned(), json!({ "deep": [1, { "a": "b" }] }))),
    ]
}

/// A document for the schema: its required members (usually), then some others.
fn document() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop::collection::vec(member(), 0..6),
        any::<bool>(),
    )
        .prop_map(|(base, members, pretty)| {
            let mut object = serde_json::Map::new();
            if base {
                object.insert("severity".to_owned(), json!("low"));
                object.insert("title".to_owned(), json!("t"));
            }
            for (name, value) in members {
                object.insert(name, value);
            }
            let value = Value::Object(object);
            if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                value.to_string()
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Every certain violation is in the final report, and none fires on a valid document, however the text is cut.
    #[test]
    fn certain_violations_are_in_the_report_and_never_on_valid_documents(
        text in document(),
        cuts in prop::collection::vec(0usize..300, 0..12),
    ) {
        check(&validator(), &text, &cuts);
    }
}

/// What is certain after `text` alone has been fed (the text need not be a whole document).
fn certain_after(text: &str) -> Vec<(String, ViolationKind)> {
    let validator = validator();
    let mut run = validator.incremental();
    run.feed(text.as_bytes()).unwrap();
    run.violations()
        .iter()
        .map(|violation| (violation.instance_location().to_string(), violation.kind()))
        .collect()
}

#[test]
fn an_enum_violation_in_the_first_field_is_reported_before_the_rest_is_fed() {
    let validator = validator();
    let mut run = validator.incremental();
    run.feed(br#"{"severity": "urgent", "x-note": ""#).unwrap();
    let early: Vec<(String, ViolationKind)> = run
        .violations()
        .iter()
        .map(|violation| (violation.instance_location().to_string(), violation.kind()))
        .collect();
    assert_eq!(early, [("/severity".to_owned(), ViolationKind::Enum)]);
    // The rest of a long answer changes nothing about it.
    let filler = "word ".repeat(200_000);
    run.feed(filler.as_bytes()).unwrap();
    assert_eq!(run.violations().len(), 1);
    run.feed(b"\"}").unwrap();
    let early = run.violations()[0].clone();
    let Err(IncrementalError::Invalid(report)) = run.finish() else {
        panic!("invalid")
    };
    let report: Vec<Violation> = report.iter().cloned().collect();
    assert!(report.contains(&early), "{early:?} in {report:?}");
}

#[test]
fn each_kind_of_certain_violation_is_found_where_the_text_decides_it() {
    // A type mismatch at the value's first byte.
    assert_eq!(
        certain_after(r#"{"title": ["#),
        [("/title".to_owned(), ViolationKind::Type)]
    );
    assert_eq!(
        certain_after(r#"{"owner": ""#),
        [("/owner".to_owned(), ViolationKind::Type)]
    );
    // A member name `additionalProperties: false` rejects, before its value.
    assert_eq!(
        certain_after(r#"{"nick""#),
        [("/nick".to_owned(), ViolationKind::AdditionalProperties)]
    );
    // A name `patternProperties` declares is not rejected.
    assert_eq!(certain_after(r#"{"x-a": "#), []);
    // `maxItems` at the extra item's first byte (not at the comma: `]` may follow); `items: false` at the item beyond the tuple.
    assert_eq!(
        certain_after(r#"{"tags": ["a", "b", "c", ""#),
        [("/tags".to_owned(), ViolationKind::MaxItems)]
    );
    assert_eq!(
        certain_after(r#"{"pair": [1, "a", n"#),
        [("/pair/2".to_owned(), ViolationKind::Items)]
    );
    // `maxLength` passed while the string is read (through `$ref` too), escapes counted as characters.
    assert_eq!(certain_after(r#"{"title": "abcdefgh"#), []);
    assert_eq!(
        certain_after(r#"{"title": "abcdefg\u00e9\n\t"#),
        [("/title".to_owned(), ViolationKind::MaxLength)]
    );
    assert_eq!(
        certain_after(r#"{"tags": ["abcdef"#),
        [("/tags/0".to_owned(), ViolationKind::MaxLength)]
    );
    // A completed scalar: `const`, bounds.
    assert_eq!(
        certain_after(r#"{"owner": {"id": 8,"#),
        [("/owner/id".to_owned(), ViolationKind::Const)]
    );
    assert_eq!(
        certain_after(r#"{"count": 11 "#),
        [("/count".to_owned(), ViolationKind::Maximum)]
    );
    // A number is judged when it ends: more digits may come.
    assert_eq!(certain_after(r#"{"count": 11"#), []);
    // `required` when the object closes, not before (located where the missing member would be).
    assert_eq!(certain_after(r#"{"owner": {"id": 7"#), []);
    assert_eq!(
        certain_after(r#"{"owner": {"id": 7}"#),
        [("/owner/name".to_owned(), ViolationKind::Required)]
    );
    // What can still change waits: `minItems` before the close, a union's member inside an unfinished value.
    assert_eq!(certain_after(r#"{"tags": ["#), []);
    assert_eq!(
        certain_after(r#"{"tags": []"#),
        [("/tags".to_owned(), ViolationKind::MinItems)]
    );
    assert_eq!(certain_after(r#"{"either": {"y": 1"#), []);
    // The union is decided once its value is whole: an object at its close (reported as its member whose type
    // admits it), a scalar when it ends.
    assert_eq!(
        certain_after(r#"{"either": {"y": 1}"#),
        [("/either/x".to_owned(), ViolationKind::Required)]
    );
    assert_eq!(
        certain_after(r#"{"either": 5,"#),
        [("/either".to_owned(), ViolationKind::AnyOf)]
    );
    // Through `allOf`.
    assert_eq!(
        certain_after(r#"{"rest": [true, 0,"#),
        [("/rest/1".to_owned(), ViolationKind::Type)]
    );
}

/// Valid documents, cut at every byte: nothing is ever certain.
#[test]
fn valid_documents_cut_anywhere_give_no_certain_violation() {
    let validator = validator();
    let documents = [
        json!({ "severity": "low", "title": "t" }),
        json!({
            "severity": "high", "title": "abcdefgh", "count": 10, "tags": ["a", "abcde"], "pair": [1, "x"],
            "owner": { "name": "n", "id": 7 }, "either": { "x": [1, { "y": "z" }] }, "rest": [true, false],
            "x-note": "\u{e9}\n"
        }),
        json!({ "title": "\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}", "severity": "low", "either": "s" }),
    ];
    for document in documents {
        assert!(validator.is_valid(&document));
        for text in [
            document.to_string(),
            serde_json::to_string_pretty(&document).unwrap(),
        ] {
            for cut in 0..=text.len() {
                check(&validator, &text, &[cut]);
            }
        }
    }
}

/// A container complete in the bytes fed is read in one step (skipped when valid, else read and checked whole):
/// the violations inside it are certain at that `feed`, with the value kept or not, under a captured container
/// (a union needs its value) or not, and the report at the end is `validate`'s.
#[test]
fn violations_inside_a_container_complete_in_one_feed_are_certain_at_that_feed() {
    let schema = json!({
        "type": "object",
        "properties": {
            "owners": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": { "name": { "type": "string", "maxLength": 4 }, "id": { "const": 7 } },
                    "required": ["name"]
                }
            },
            "unique": { "type": "array", "uniqueItems": true, "items": { "properties": { "n": { "enum": [1, 2] } } } }
        }
    });
    let validator = Validator::new(&schema).unwrap();
    let text = r#"{"owners": [{"name": "Ada", "id": 7}, {"name": "Grace", "id": 8}, {"id": 7}], "unique": [{"n": 1}, {"n": 3}]}"#;
    let expected = validator
        .validate(&serde_json::from_str(text).unwrap())
        .unwrap_err();
    // The text up to the end of each container of interest, then the rest.
    let cut_after = |needle: &str| text.find(needle).unwrap() + needle.len();
    for keep in [false, true] {
        let run = || {
            if keep {
                validator.incremental()
            } else {
                validator.incremental().without_value()
            }
        };
        let mut whole = run();
        whole.feed(text.as_bytes()).unwrap();
        let mut early = run();
        let owners_done = cut_after(r#"{"id": 7}]"#);
        early.feed(&text.as_bytes()[..owners_done]).unwrap();
        let found: Vec<(String, ViolationKind)> = early
            .violations()
            .iter()
            .map(|violation| (violation.instance_location().to_string(), violation.kind()))
            .collect();
        // The second owner's two violations and the third's missing name, before the object closes.
        for wanted in [
            ("/owners/1/name", ViolationKind::MaxLength),
            ("/owners/1/id", ViolationKind::Const),
            ("/owners/2/name", ViolationKind::Required),
        ] {
            assert!(
                found.contains(&(wanted.0.to_owned(), wanted.1)),
                "keep {keep}: {wanted:?} in {found:?}"
            );
        }
        // Inside an array captured for `uniqueItems` (its items kept): the second item, complete, is read whole
        // and checked at its node, before the array closes.
        let item_done = cut_after(r#"{"n": 3}"#);
        early.feed(&text.as_bytes()[owners_done..item_done]).unwrap();
        assert!(
            early.violations().iter().any(|violation| {
                violation.instance_location().to_string() == "/unique/1/n"
                    && violation.kind() == ViolationKind::Enum
            }),
            "keep {keep}: {:?}",
            early.violations()
        );
        early.feed(&text.as_bytes()[item_done..]).unwrap();
        for run in [whole, early] {
            for violation in run.violations() {
                assert!(
                    in_report(violation, &expected.iter().cloned().collect::<Vec<_>>()),
                    "keep {keep}: {violation:?}"
                );
            }
            let Err(IncrementalError::Invalid(report)) = run.finish() else {
                panic!("invalid")
            };
            assert_eq!(report.error_message(), expected.error_message(), "keep {keep}");
        }
    }
}
