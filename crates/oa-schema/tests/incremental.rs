//! The incremental route (`Validator::incremental`) against the whole-text route, under random chunking: the same
//! value or the same `MalformedJson` (kind, reason, line, column) as `parse_json_with` with repeated member names
//! refused, and at the end the same report as `validate`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/described.rs"]
mod described;

use described::described;
use oa_schema::{IncrementalError, MalformedKind, ParseOptions, Validator, parse_json_with};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The text fed in pieces cut at `cuts` (byte offsets, any order, out-of-range ones ignored).
fn chunks<'t>(text: &'t [u8], cuts: &[usize]) -> Vec<&'t [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().copied().filter(|&cut| cut <= text.len()).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for cut in cuts {
        pieces.push(&text[from..cut]);
        from = cut;
    }
    pieces.push(&text[from..]);
    pieces
}

/// The incremental outcome for `text` in pieces: feeding stops at the first error, as a caller would.
fn incremental(validator: &Validator, text: &[u8], cuts: &[usize]) -> Result<Value, IncrementalError> {
    let mut run = validator.incremental();
    for piece in chunks(text, cuts) {
        run.feed(piece)?;
    }
    run.finish_value()
}

/// What `parse_json_with` (repeats refused) and then `validate` give on the whole text.
fn whole(validator: &Validator, text: &str) -> Result<Value, IncrementalError> {
    let value = parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true))
        .map_err(IncrementalError::Malformed)?;
    validator.validate(&value).map_err(IncrementalError::Invalid)?;
    Ok(value)
}

/// The two outcomes agree: same value, same error, same report (message by message, location by location).
fn assert_agree(validator: &Validator, text: &str, cuts: &[usize]) {
    let expected = whole(validator, text);
    let got = incremental(validator, text.as_bytes(), cuts);
    match (&expected, &got) {
        (Ok(expected), Ok(got)) => assert_eq!(expected, got, "{text:?} cut at {cuts:?}"),
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::TooDeep { .. }))
            if expected.kind() == MalformedKind::TooDeep => {}
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::Malformed(got))) => {
            assert_eq!(expected, got, "{text:?} cut at {cuts:?}");
        }
        (Err(IncrementalError::Invalid(expected)), Err(IncrementalError::Invalid(got))) => {
            assert_eq!(expected.error_message(), got.error_message(), "{text:?}");
            assert_eq!(described(expected), described(got), "{text:?}");
        }
        _ => panic!("{text:?} cut at {cuts:?}: whole {expected:?}, incremental {got:?}"),
    }
}

/// As [`assert_agree`], on the route without the value (`without_value`), where a container complete in the bytes
/// at hand is judged in one step (skipped when valid, checked whole when not) and the others are read byte by byte:
/// the same error, the same verdict and report.
fn assert_agree_without_value(validator: &Validator, text: &str, cuts: &[usize]) {
    let expected = whole(validator, text);
    let mut run = validator.incremental().without_value();
    let got = chunks(text.as_bytes(), cuts)
        .into_iter()
        .try_for_each(|piece| run.feed(piece))
        .and_then(|()| run.finish());
    match (&expected, &got) {
        (Ok(_), Ok(())) => {}
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::TooDeep { .. }))
            if expected.kind() == MalformedKind::TooDeep => {}
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::Malformed(got))) => {
            assert_eq!(expected, got, "{text:?} cut at {cuts:?}");
        }
        (Err(IncrementalError::Invalid(expected)), Err(IncrementalError::Invalid(got))) => {
            assert_eq!(
                expected.error_message(),
                got.error_message(),
                "{text:?} cut at {cuts:?}"
            );
            assert_eq!(described(expected), described(got), "{text:?} cut at {cuts:?}");
        }
        _ => panic!("{text:?} cut at {cuts:?}: whole {expected:?}, without the value {got:?}"),
    }
}

/// Whether `violation` is in `report`: the same instance location, kind, absolute schema location and message (a
/// violation reached by two keyword paths is listed once, under the first path in report order; one found early
/// may have come by the other).
fn is_among(violation: &oa_schema::Violation, report: &[oa_schema::Violation]) -> bool {
    report.iter().any(|kept| {
        kept.instance_location() == violation.instance_location()
            && kept.kind() == violation.kind()
            && kept.schema_location().absolute() == violation.schema_location().absolute()
            && kept.message() == violation.message()
    })
}

/// A run that stops at its first certain violation (`first_violation_only`), cut at `cuts`, agrees with the whole
/// text: on a well-formed text, `is_valid`'s verdict, and when invalid one violation, among `validate`'s; on a
/// malformed one, the same error, unless a violation became certain before it (the run then stops there, and that
/// violation is among those the route without the value had found certain when it met the error).
fn assert_first_violation_agrees(validator: &Validator, text: &str, cuts: &[usize]) {
    let expected = whole(validator, text);
    let mut run = validator.incremental().first_violation_only();
    let mut stopped = false;
    let got = chunks(text.as_bytes(), cuts)
        .into_iter()
        .try_for_each(|piece| run.feed(piece))
        .and_then(|()| {
            // One violation at most, once certain, and feeding stops.
            assert!(
                run.violations().len() <= 1,
                "{text:?} cut at {cuts:?}: {:?}",
                run.violations()
            );
            stopped = !run.violations().is_empty();
            run.finish()
        });
    let at = format!("{text:?} cut at {cuts:?}");
    match (&expected, &got) {
        (Ok(value), Ok(())) => assert!(validator.is_valid(value), "{at}"),
        (Err(IncrementalError::Invalid(report)), Err(IncrementalError::Invalid(first))) => {
            let value = parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true)).unwrap();
            assert!(!validator.is_valid(&value), "{at}");
            assert_eq!(first.len(), 1, "{at}: {first:?}");
            let all: Vec<oa_schema::Violation> = report.iter().cloned().collect();
            assert!(
                is_among(first.iter().next().unwrap(), &all),
                "{at}: {first:?} not in {report:?}"
            );
        }
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::TooDeep { .. }))
            if expected.kind() == MalformedKind::TooDeep => {}
        // Stopped at a violation after a repeated name: the repeat (the rest, unread, may hold an error named first).
        (Err(IncrementalError::Malformed(_)), Err(IncrementalError::Malformed(got)))
            if stopped && got.kind() == MalformedKind::DuplicateKey => {}
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::Malformed(got))) => {
            assert_eq!(expected, got, "{at}");
        }
        (Err(IncrementalError::Malformed(_)), Err(IncrementalError::Invalid(first))) => {
            // Certain before the error: the route without the value found it too before refusing the text.
            let mut full = validator.incremental().without_value();
            let refused = chunks(text.as_bytes(), cuts)
                .into_iter()
                .try_for_each(|piece| full.feed(piece))
                .is_err();
            let early = full.violations().to_vec();
            assert_eq!(first.len(), 1, "{at}: {first:?}");
            assert!(
                is_among(first.iter().next().unwrap(), &early),
                "{at}: refused {refused}, {first:?} not among {early:?}"
            );
        }
        _ => panic!("{at}: whole {expected:?}, first violation only {got:?}"),
    }
}

/// A schema that `any_json`'s texts (names `a` to `c`) pass and fail in many ways, at many depths: streamed
/// containers, a captured one (`anyOf`), `additionalProperties`, `maxItems`, `maxLength`, `required`.
fn constraining_schema() -> Validator {
    Validator::new(&json!({
        "type": ["object", "array"],
        "properties": {
            "a": { "type": ["array", "object", "string"], "maxItems": 3, "items": { "$ref": "#" } },
            "b": { "anyOf": [{ "type": "array" }, { "type": "string", "maxLength": 4 }] },
            "c": { "required": ["a"], "additionalProperties": { "not": { "type": "null" } } }
        },
        "items": { "type": ["object", "array", "number", "boolean"], "properties": { "b": { "type": "object" } } },
        "additionalProperties": false
    }))
    .unwrap()
}

fn any_schema() -> Validator {
    Validator::new(&json!(true)).unwrap()
}

/// Texts `parse_json` refuses in every way it names, and some it accepts, each fed whole and cut at every byte.
#[test]
fn every_error_is_named_as_parse_json_names_it_wherever_the_text_is_cut() {
    let texts = [
        "",
        " ",
        "{'a': 1}",
        "[1, 2,]",
        "{\"a\": 1,}",
        "// c\n1",
        "NaN",
        "01",
        "[01]",
        "1.",
        "[1.]",
        "1.e5",
        "-",
        "[-]",
        "-x",
        "1e",
        "1e+",
        "[1e+]",
        "\"a\u{1}b\"",
        "\"a\nb\"",
        "[1] x",
        "\u{feff}1",
        "\u{feff}",
        "{\"a\" 1}",
        "tru",
        "trux",
        "[nul]",
        "[1 2]",
        "{\"a\":1 \"b\":2}",
        "{1:2}",
        "{\"a\":1,2}",
        "[",
        "{",
        "{\"a\"",
        "{\"a\":",
        "[1,",
        "{\"a\":1,",
        "\"abc",
        // A `//` inside a string, after a leading surrogate with no `\u` after it: text, not a comment
        // (the fuzz target's finding).
        "\"\\u00e9\\uD83f////x",
        "[\"\\uD83f//\"]",
        "\"a\\",
        "\"a\\x\"",
        "\"a\\u12g4\"",
        "\"\\ud800\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "[1, 2] // done",
        "{\n  // compiler options\n  \"a\": 1}",
        "{\"a\": /* one */ 1}",
        "{\"é\": 1, // c\n}",
        "{\"a\": 1 / 2}",
        "[1,/",
        "[1,\n// c\n]",
        "\"abc\n// x",
        "1e400",
        "-1e400",
        "[1e400]",
        "1E400 ",
        "{\"a\": {\"b\": 1, \"b\": 2}}",
        "{\"a\": 1, \"a\": 2} x",
        "{\"a\": 1, \"a\": 2",
        "[\"\\u00e9\", 1.5e3, -0, 0.1, true, false, null, {}, []]",
        "100000000000000000000000000001",
        "18446744073709551617",
        "-9223372036854775809",
        "0.30000000000000001",
        "1E+2",
        "1e-400",
        "  {\"x\": [ ] }\n",
        "\"\u{1F600}\u{e9}\"",
        "[1,]",
        "[,1]",
        "[1}",
        "{\"a\":1]",
        "{]",
        "nulll",
        "true false",
        "\u{2028}1",
        "\"\\/\"",
        "\t\r\n1\t\r\n",
        "-01",
        "-0.0e-0",
        "2.",
        "[2.,]",
        "/",
        "1/",
        "1//",
        "[\n",
        "{\n\"a\"\n:\n",
        "\"\u{7f}\"",
    ];
    let validator = any_schema();
    for text in texts {
        let nested_ok = format!("{}1{}", "[".repeat(127), "]".repeat(127));
        let nested_too_deep = format!("{}1{}", "[".repeat(128), "]".repeat(128));
        for text in [text, &nested_ok, &nested_too_deep] {
            assert_agree(&validator, text, &[]);
            // A run that stops at its first violation names them the same (no schema here can be violated).
            assert_first_violation_agrees(&validator, text, &[]);
            for cut in 0..=text.len() {
                assert_agree(&validator, text, &[cut]);
                assert_first_violation_agrees(&validator, text, &[cut]);
            }
            let every: Vec<usize> = (0..=text.len()).collect();
            assert_agree(&validator, text, &every);
            assert_first_violation_agrees(&validator, text, &every);
        }
    }
}

/// Depth is a limit of its own, configurable, and never malformed JSON; an error is final.
#[test]
fn depth_is_a_limit_of_its_own() {
    let validator = any_schema();
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let mut run = validator.incremental();
    let err = run.feed(deep.as_bytes()).unwrap_err();
    assert!(
        matches!(
            err,
            IncrementalError::TooDeep {
                limit: 127,
                line: 1,
                column: 128
            }
        ),
        "{err:?}"
    );
    // Told again, whatever follows.
    assert!(matches!(
        run.feed(b"]").unwrap_err(),
        IncrementalError::TooDeep { .. }
    ));
    let mut run = validator.incremental().max_depth(300);
    run.feed(deep.as_bytes()).unwrap();
    let value = run.finish_value().unwrap();
    assert!(value.is_array());
    // The ceiling.
    let deeper = "[".repeat(5000);
    let mut run = validator.incremental().max_depth(usize::MAX);
    assert!(matches!(
        run.feed(deeper.as_bytes()).unwrap_err(),
        IncrementalError::TooDeep { limit: 4096, .. }
    ));
}

/// JSON text with whitespace here and there.
fn any_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| Value::from(f).to_string()),
        "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
        any::<String>().prop_map(|s| Value::String(s).to_string()),
        "\"([a-z\u{e9}\u{1F600}]|\\\\[\"\\\\/bfnrt]|\\\\u00[0-7][0-9a-f]|\\\\ud83d\\\\ude00)*\"",
    ];
    let ws = "[ \t\r\n]{0,2}";
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            (prop::collection::vec((inner.clone(), ws, ws), 0..6)).prop_map(|items| {
                let items: Vec<String> = items
                    .into_iter()
                    .map(|(item, a, b)| format!("{a}{item}{b}"))
                    .collect();
                format!("[{}]", items.join(","))
            }),
            (prop::collection::vec(("[a-c]{1,2}", inner, ws), 0..6)).prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(name, value, w)| format!("\"{name}\"{w}:{w}{value}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// A text with a few characters changed: inserted, removed or replaced by ones that break JSON in its ways.
fn mutated() -> impl Strategy<Value = String> {
    let noise = prop_oneof![
        Just("/".to_owned()),
        Just("//".to_owned()),
        Just("/*".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("\n".to_owned()),
        Just("\u{1}".to_owned()),
        Just("\\".to_owned()),
        Just("\\u".to_owned()),
        Just("\"".to_owned()),
        Just(",".to_owned()),
        Just(":".to_owned()),
        Just("]".to_owned()),
        Just("}".to_owned()),
        Just("[".to_owned()),
        Just("{".to_owned()),
        Just("0".to_owned()),
        Just("-".to_owned()),
        Just(".".to_owned()),
        Just("e".to_owned()),
        Just("t".to_owned()),
        Just("é".to_owned()),
        Just("".to_owned()),
    ];
    (
        any_json(),
        prop::collection::vec((any::<prop::sample::Index>(), noise, any::<bool>()), 0..3),
    )
        .prop_map(|(text, edits)| {
            let mut chars: Vec<String> = text.chars().map(String::from).collect();
            for (at, noise, replace) in edits {
                let at = at.index(chars.len() + 1);
                if replace && at < chars.len() {
                    chars[at] = noise;
                } else {
                    chars.insert(at, noise);
                }
            }
            chars.concat()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Well-formed texts give the very value (digits included) `parse_json` gives, however they are cut.
    #[test]
    fn well_formed_texts_give_the_same_value(text in any_json(), cuts in prop::collection::vec(0usize..400, 0..8)) {
        assert_agree(&any_schema(), &text, &cuts);
    }

    /// Broken texts give the same error, however they are cut.
    #[test]
    fn broken_texts_give_the_same_error(text in mutated(), cuts in prop::collection::vec(0usize..400, 0..8)) {
        assert_agree(&any_schema(), &text, &cuts);
    }

    /// Without the value, containers complete in a chunk (whole texts, few cuts) are judged in one step and the rest
    /// read byte by byte (many cuts): the same verdict, report or error as the whole text's, well-formed or not.
    #[test]
    fn without_the_value_containers_judged_whole_agree(
        text in prop_oneof![any_json(), mutated()],
        cuts in prop::collection::vec(0usize..400, 0..4),
    ) {
        assert_agree_without_value(&constraining_schema(), &text, &cuts);
        assert_agree_without_value(&any_schema(), &text, &cuts);
    }

    /// Stopped at the first certain violation, however the text is cut: `is_valid`'s verdict, one of `validate`'s
    /// violations, and a malformed text's error as before (unless a violation was certain before it).
    #[test]
    fn the_first_violation_only_agrees(
        text in prop_oneof![any_json(), mutated()],
        cuts in prop::collection::vec(0usize..400, 0..4),
    ) {
        assert_first_violation_agrees(&constraining_schema(), &text, &cuts);
        assert_first_violation_agrees(&any_schema(), &text, &cuts);
    }
}

/// A run that stops at its first certain violation keeps that one, byte by byte or in one step, and reads nothing
/// after it (not even malformed text); a repeated name met before it is reported as `parse_json_with` reports it.
#[test]
fn the_first_violation_stops_the_run() {
    let validator = Validator::new(&json!({
        "properties": { "s": { "enum": ["low", "high"] }, "n": { "type": "integer" } },
        "required": ["s", "n", "m"]
    }))
    .unwrap();
    let text = br#"{"n": "x", "s": "urgent"}"#;
    // Byte by byte: `"x"` is certain at its first byte (a string where an integer must be).
    let mut run = validator.incremental().first_violation_only();
    for (at, byte) in text.iter().enumerate() {
        run.feed(std::slice::from_ref(byte)).unwrap();
        assert_eq!(run.violations().len(), usize::from(at >= 6), "after byte {at}");
    }
    run.feed(b"]]] not JSON").unwrap();
    let Err(IncrementalError::Invalid(report)) = run.finish() else {
        panic!("invalid")
    };
    assert_eq!(report.to_string(), "#/n: type: expected integer, got string");
    // In one step: the object is complete in the chunk, and the pass ends at its first violation.
    let mut whole = text.to_vec();
    whole.extend_from_slice(b"]]] not JSON");
    let mut run = validator.incremental().first_violation_only();
    run.feed(&whole).unwrap();
    assert_eq!(run.violations().len(), 1);
    let all = validator
        .validate(&serde_json::from_slice(text).unwrap())
        .unwrap_err();
    assert_eq!(all.len(), 3, "{all}");
    assert!(is_among(
        &run.violations()[0],
        &all.iter().cloned().collect::<Vec<_>>()
    ));
    // A repeat before the violation: the text is refused as `parse_json_with` refuses it.
    let mut run = validator.incremental().first_violation_only();
    run.feed(br#"{"m": 1, "m": 2, "s": "urgent""#).unwrap();
    assert_eq!(run.violations().len(), 1);
    let Err(IncrementalError::Malformed(err)) = run.finish() else {
        panic!("a repeat")
    };
    assert_eq!(err.kind(), MalformedKind::DuplicateKey);
}
