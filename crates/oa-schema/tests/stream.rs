//! `Validator::deserialize_str`, the validating deserializer: its contract against the full route (`parse_json`,
//! `validate`, the type from the value), and each refusal by name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{FallbackReason, ParseOptions, Validator, parse_json, parse_json_with};
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};

/// The full route: the value when the text parses and validates.
fn full_route(validator: &Validator, text: &str) -> Option<Value> {
    let value = parse_json(text).ok()?;
    validator.validate(&value).ok().map(|()| value)
}

/// Whether the text holds a number written as a float (a fraction or an exponent, or `-0`) whose `f64` is
/// integral: an `f64` target under bounds reads it without its digits, and the typed route does not decide a tie
/// with a limit from the rounded value (it falls back, undecided). The order schema's limits are integers.
fn has_integral_float(text: &str) -> bool {
    fn walk(value: &Value) -> bool {
        match value {
            Value::Number(number) => {
                let digits = number.to_string();
                (digits.contains(['.', 'e', 'E']) || digits.starts_with("-0"))
                    && digits.parse::<f64>().is_ok_and(|x| x.fract() == 0.0)
            }
            Value::Array(items) => items.iter().any(walk),
            Value::Object(members) => members.values().any(walk),
            _ => false,
        }
    }
    parse_json(text).is_ok_and(|value| walk(&value))
}

fn has_duplicate_keys(text: &str) -> bool {
    parse_json(text).is_ok()
        && parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true)).is_err()
}

/// The contract for `T = Value`: `Ok` only with the full route's value; and where the plan covers the schema, a
/// fall back on text the full route accepts only for a repeated name.
fn check_contract(schema: &Value, text: &str) -> Result<(), TestCaseError> {
    let validator = Validator::new(schema).map_err(|err| TestCaseError::fail(format!("{err}")))?;
    let expected = full_route(&validator, text);
    match validator.deserialize_str::<Value>(text) {
        Ok(value) => {
            prop_assert_eq!(Some(&value), expected.as_ref(), "schema {} text {}", schema, text);
        }
        Err(fallback) => {
            if expected.is_some() && validator.streams_every_container() {
                // A repeated name is undecided, or its first value (checked before the repeat is seen) invalid.
                prop_assert!(
                    matches!(
                        fallback.reason(),
                        FallbackReason::Undecided | FallbackReason::Invalid
                    ) && has_duplicate_keys(text),
                    "fell back ({:?}) on valid text: schema {} text {}",
                    fallback.reason(),
                    schema,
                    text
                );
            }
            // A repeated name's first value is checked as it comes, before the repeat is seen (a `Value` keeps
            // the last): there, `Invalid` may name the first.
            if fallback.reason() == FallbackReason::Invalid && !has_duplicate_keys(text) {
                prop_assert!(
                    expected.is_none(),
                    "called invalid: schema {} text {}",
                    schema,
                    text
                );
            }
        }
    }
    Ok(())
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "minLength": 2, "maxLength": 3})),
        Just(json!({"type": "string", "pattern": "^a"})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"type": "string", "format": "email"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": "integer", "minimum": 0, "maximum": 10})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "number", "exclusiveMinimum": 0})),
        Just(json!({"type": "number", "multipleOf": 0.5})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"const": 1})),
        Just(json!({})),
        Just(json!(false)),
        Just(json!({"not": {"type": "string"}})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    nested_schema().prop_flat_map(|schema| {
        prop_oneof![
            Just(schema.clone()),
            // A `$ref` to `$defs` at the root (a nested one would resolve against the root too).
            Just(json!({"$defs": {"d": schema}, "$ref": "#/$defs/d"})),
        ]
    })
}

fn nested_schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(3, 24, 4, |inner| {
        let names = prop::sample::subsequence(vec!["a", "b", "c"], 0..=3);
        prop_oneof![
            (
                prop::collection::vec(inner.clone(), 3),
                names.clone(),
                names,
                prop_oneof![Just(json!(false)), Just(json!(true)), inner.clone()],
                any::<bool>(),
            )
                .prop_map(|(members, named, required, others, with_others)| {
                    let mut properties = serde_json::Map::new();
                    for (name, member) in named.iter().zip(members) {
                        properties.insert((*name).to_owned(), member);
                    }
                    let mut object =
                        json!({"type": "object", "properties": properties, "required": required});
                    if with_others {
                        object["additionalProperties"] = others;
                    }
                    object
                }),
            (inner.clone(), 0..3u64, 1..4u64).prop_map(|(items, min, max)| {
                json!({"type": "array", "items": items, "minItems": min, "maxItems": max})
            }),
            inner
                .clone()
                .prop_map(|member| json!({"anyOf": [member, {"type": "null"}]})),
            // `prefixItems` then `items` (the array-form `items` before 2020-12 is in typed/collect/tests.rs).
            (prop::collection::vec(inner.clone(), 1..3), inner.clone(), 0..3u64).prop_map(
                |(prefix, items, min)| {
                    json!({"type": "array", "prefixItems": prefix, "items": items, "minItems": min})
                }
            ),
            // `patternProperties`, alone and beside `properties` (a name may meet both, or two patterns) and
            // `additionalProperties`.
            inner
                .clone()
                .prop_map(|member| json!({"type": "object", "patternProperties": {"^a": member}})),
            (
                inner.clone(),
                inner.clone(),
                prop_oneof![Just(json!(false)), inner.clone()],
                any::<bool>()
            )
                .prop_map(|(named, patterned, others, with_required)| {
                    let mut object = json!({
                        "properties": {"a": named, "c": {"type": "integer"}},
                        "patternProperties": {"^a": patterned, "b|a$": {"type": ["string", "object"]}},
                        "additionalProperties": others
                    });
                    if with_required {
                        object["required"] = json!(["a", "d"]);
                    }
                    object
                }),
            // `allOf`: several plans at once, beside the node's own keywords and through a `$ref`.
            inner.clone().prop_map(|member| json!({"allOf": [member]})),
            (inner.clone(), inner.clone(), any::<bool>()).prop_map(|(first, second, own)| {
                let mut all = json!({"allOf": [first, {"allOf": [second, {"required": ["b"]}]}]});
                if own {
                    all["properties"] = json!({"a": {"type": "integer"}});
                    all["maxProperties"] = json!(2);
                    all["maxItems"] = json!(2);
                }
                all
            }),
            // Outside the plan: these fall back when a container meets them.
            inner
                .clone()
                .prop_map(|member| json!({"oneOf": [member, {"type": "string"}]})),
            Just(json!({"type": "array", "uniqueItems": true})),
        ]
    })
}

/// JSON text, written directly so that it can hold repeated names and numbers beyond `f64`.
fn text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        (-3i64..12).prop_map(|n| n.to_string()),
        Just("-0".to_owned()),
        Just("1.0".to_owned()),
        Just("0.5".to_owned()),
        Just("0.1".to_owned()),
        Just("2.5E1".to_owned()),
        Just("1e400".to_owned()),
        Just("123456789012345678901234567890".to_owned()),
        Just("-123456789012345678901234567890".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just(r#""a""#.to_owned()),
        Just(r#""b""#.to_owned()),
        Just(r#""""#.to_owned()),
        Just(r#""abc""#.to_owned()),
        Just(r#""a\u00e9\n""#.to_owned()),
        Just(r#""x@y""#.to_owned()),
        Just(r#""$serde_json::private::Number""#.to_owned()),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let name = prop_oneof![
            Just("a"),
            Just("b"),
            Just("c"),
            Just("d"),
            Just("a\\u0062"),
            Just("$serde_json::private::Number"),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec((name, inner), 0..4).prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(name, value)| format!("\"{name}\": {value}"))
                    .collect();
                format!("{{{}}}", members.join(", "))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn ok_only_with_the_full_routes_value(schema in schema(), text in text()) {
        check_contract(&schema, &text)?;
    }

    #[test]
    fn valid_instances_of_generated_schemas_stream(schema in schema(), seed in text()) {
        // The instances the schema accepts are rare among random text: also try the text's members one by one.
        if let Ok(Value::Object(members)) = parse_json(&seed) {
            for value in members.values() {
                check_contract(&schema, &value.to_string())?;
            }
        }
        check_contract(&schema, &seed)?;
    }
}

/// A typed target with what serde lets a type do: optional fields, nested vectors, skipped members, a unit enum.
#[derive(Debug, Deserialize, PartialEq)]
struct Order {
    id: String,
    qty: Option<i64>,
    lines: Vec<Vec<f64>>,
    #[serde(default)]
    tier: Option<Tier>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Free,
    Pro,
}

fn order_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^PO-"},
            "qty": {"type": ["integer", "null"], "minimum": 1},
            "lines": {"type": "array", "items": {"type": "array", "items": {"type": "number", "maximum": 100}}},
            "tier": {"enum": ["free", "pro", "gold"]},
            "note": {"type": "string", "maxLength": 3}
        },
        "required": ["id", "lines"]
    })
}

fn order_text() -> impl Strategy<Value = String> {
    let id = prop_oneof![Just(r#""PO-1""#), Just(r#""X-1""#), Just("7")];
    let qty = prop_oneof![
        Just("null"),
        Just("0"),
        Just("3"),
        Just("2.0"),
        Just("1e400"),
        Just("99999999999999999999")
    ];
    let number = prop_oneof![
        Just("1"),
        Just("1.5"),
        Just("100"),
        Just("100.5"),
        Just("100.0"),
        Just("99.5e0"),
        Just("99.99999999999999999"),
        Just("100.00000000000000001"),
        Just("-0"),
        Just("1e2"),
        Just("1e400")
    ];
    let lines = prop::collection::vec(prop::collection::vec(number, 0..3), 0..3).prop_map(|rows| {
        let rows: Vec<String> = rows
            .into_iter()
            .map(|row| format!("[{}]", row.join(",")))
            .collect();
        format!("[{}]", rows.join(","))
    });
    let tier = prop_oneof![
        Just(r#""free""#),
        Just(r#""gold""#),
        Just(r#""other""#),
        Just("null")
    ];
    let note = prop_oneof![Just(r#""ok""#), Just(r#""too long""#), Just("5")];
    let other = prop_oneof![Just(r#"{"x": 1}"#), Just(r#"{"x": 1, "x": 2}"#), Just("[1, 2.5]")];
    (
        id,
        prop::option::of(qty),
        lines,
        prop::option::of(tier),
        prop::option::of(note),
        prop::option::of(other),
        any::<bool>(),
    )
        .prop_map(|(id, qty, lines, tier, note, other, repeat)| {
            let mut members = vec![format!(r#""id": {id}"#), format!(r#""lines": {lines}"#)];
            members.extend(qty.map(|qty| format!(r#""qty": {qty}"#)));
            members.extend(tier.map(|tier| format!(r#""tier": {tier}"#)));
            members.extend(note.map(|note| format!(r#""note": {note}"#)));
            members.extend(other.map(|other| format!(r#""other": {other}"#)));
            if repeat {
                members.push(r#""id": "PO-2""#.to_owned());
            }
            format!("{{{}}}", members.join(", "))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_typed_target_gets_what_the_full_route_gives(text in order_text()) {
        let validator = Validator::new(&order_schema()).unwrap();
        let expected = full_route(&validator, &text).map(|value| Order::deserialize(&value));
        match validator.deserialize_str::<Order>(&text) {
            Ok(order) => {
                let Some(Ok(expected)) = expected else {
                    return Err(TestCaseError::fail(format!("Ok where the full route is {expected:?}: {text}")));
                };
                prop_assert_eq!(order, expected);
            }
            Err(fallback) => {
                // Valid, typed, no repeated name, no float the rounded value cannot settle: the typed route must
                // have decided. (Without `arbitrary_precision` every float is the parsed value's own: no exception.)
                if matches!(expected, Some(Ok(_))) {
                    prop_assert!(
                        has_duplicate_keys(&text)
                            || (cfg!(feature = "arbitrary_precision")
                                && fallback.reason() == FallbackReason::Undecided
                                && has_integral_float(&text)),
                        "fell back ({:?}) on {}", fallback.reason(), text
                    );
                }
            }
        }
    }
}

fn reason<T: serde::de::DeserializeOwned + std::fmt::Debug>(schema: &Value, text: &str) -> FallbackReason {
    Validator::new(schema)
        .unwrap()
        .deserialize_str::<T>(text)
        .unwrap_err()
        .reason()
}

#[test]
fn a_repeated_member_name_falls_back() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    assert_eq!(
        reason::<Value>(&schema, r#"{"a": 1, "a": 2}"#),
        FallbackReason::Undecided
    );
    assert_eq!(
        reason::<Value>(&schema, r#"{"b": 1, "b": 2}"#),
        FallbackReason::Undecided
    );
    assert_eq!(
        reason::<Value>(&json!({}), r#"{"b": 1, "b": 2}"#),
        FallbackReason::Undecided
    );
    // The same name written with an escape is the same name.
    assert_eq!(
        reason::<Value>(&schema, r#"{"a": 1, "\u0061": 2}"#),
        FallbackReason::Undecided
    );
}

#[test]
fn an_integer_beyond_64_bits_is_kept_exactly_or_refused_by_the_type() {
    let validator = Validator::new(&json!({"type": "integer", "maximum": 1e30})).unwrap();
    let text = "123456789012345678901234567890";
    assert_eq!(
        validator.deserialize_str::<Value>(text).unwrap(),
        parse_json(text).unwrap()
    );
    assert_eq!(
        validator.deserialize_str::<i64>(text).unwrap_err().reason(),
        FallbackReason::Deserialize
    );
    assert_eq!(
        validator
            .deserialize_str::<Value>("1234567890123456789012345678901")
            .unwrap_err()
            .reason(),
        FallbackReason::Invalid
    );
}

#[cfg(feature = "arbitrary_precision")]
#[test]
fn a_number_is_checked_from_its_digits() {
    // 1.0000000000000000001 is 1.0 as an f64, but not an integer, and above a maximum of 1. Under an integer-only
    // `type` the digits are read (whatever the target); an `f64` target under bounds alone reads the rounded
    // value, which ties the limit: the typed route leaves it to the full route, which reports it.
    let schema = json!({"type": "integer"});
    assert_eq!(
        reason::<f64>(&schema, "1.0000000000000000001"),
        FallbackReason::Invalid
    );
    assert_eq!(
        reason::<Value>(&json!({"maximum": 1}), "1.0000000000000000001"),
        FallbackReason::Invalid
    );
    assert_eq!(
        reason::<f64>(&json!({"maximum": 1}), "1.0000000000000000001"),
        FallbackReason::Undecided
    );
    let validator = Validator::new(&json!({"maximum": 1})).unwrap();
    assert!(full_route(&validator, "1.0000000000000000001").is_none());
    assert_eq!(
        Validator::new(&schema)
            .unwrap()
            .deserialize_str::<f64>("1.0")
            .unwrap(),
        1.0
    );
    // Under a keyword the rounded value cannot settle, the digits are read and checked exactly.
    let cents = Validator::new(&json!({"type": "number", "multipleOf": 0.01})).unwrap();
    assert_eq!(cents.deserialize_str::<f64>("10.25").unwrap(), 10.25);
    assert_eq!(
        cents.deserialize_str::<f64>("10.255").unwrap_err().reason(),
        FallbackReason::Invalid
    );
}

/// A priced order line: bounds on floats, a nullable float, an integer-only `type`.
fn line_validator() -> Validator {
    Validator::new(&json!({
        "type": "object",
        "properties": {
            "price": {"type": "number", "minimum": 0, "exclusiveMaximum": 10.5},
            "discount": {"anyOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}]},
            "count": {"type": "integer"}
        }
    }))
    .unwrap()
}

#[derive(Debug, Deserialize, PartialEq)]
struct Line {
    price: f64,
    discount: Option<f64>,
    #[serde(default)]
    count: Option<f64>,
}

/// Without `arbitrary_precision` serde_json shows a float as the very `f64` a parsed value holds, so the typed route
/// decides every float as the full route does, ties and integer-only `type`s included, whatever the target.
#[cfg(not(feature = "arbitrary_precision"))]
#[test]
fn without_arbitrary_precision_a_float_is_checked_as_the_parsed_value_holds_it() {
    let validator = line_validator();
    for text in [
        r#"{"price": 10.49999, "discount": 0.25}"#,
        r#"{"price": 10.6, "discount": null}"#,
        r#"{"price": -0.5, "discount": null}"#,
        r#"{"price": 1, "discount": 1.5}"#,
        r#"{"price": 1, "discount": null, "count": 2.5}"#,
        r#"{"price": 1, "discount": null, "count": 2.0}"#,
        r#"{"price": 10.5, "discount": null}"#,
        r#"{"price": 0.0, "discount": null}"#,
        r#"{"price": 1, "discount": 1.0}"#,
        r#"{"price": 10.4999999999999999999, "discount": null}"#,
    ] {
        let typed = validator.deserialize_str::<Line>(text);
        match full_route(&validator, text) {
            Some(value) => assert_eq!(
                typed.unwrap(),
                serde_json::from_value::<Line>(value).unwrap(),
                "{text}"
            ),
            None => assert_eq!(typed.unwrap_err().reason(), FallbackReason::Invalid, "{text}"),
        }
    }
    // 1.0000000000000000001 is 1.0 as an f64, which is what the parsed value holds: an integer, at a maximum of 1.
    for schema in [json!({"type": "integer"}), json!({"maximum": 1})] {
        let validator = Validator::new(&schema).unwrap();
        assert!(full_route(&validator, "1.0000000000000000001").is_some());
        assert_eq!(
            validator.deserialize_str::<f64>("1.0000000000000000001").unwrap(),
            1.0
        );
        assert_eq!(
            validator.deserialize_str::<f32>("1.0000000000000000001").unwrap(),
            1.0
        );
        assert_eq!(
            validator
                .deserialize_str::<Value>("1.0000000000000000001")
                .unwrap(),
            json!(1.0)
        );
    }
    let cents = Validator::new(&json!({"type": "number", "multipleOf": 0.01})).unwrap();
    assert_eq!(cents.deserialize_str::<f64>("10.25").unwrap(), 10.25);
    assert_eq!(
        cents.deserialize_str::<f64>("10.255").unwrap_err().reason(),
        FallbackReason::Invalid
    );
    // A member named as serde_json's number token is an ordinary member here, as the parsed value reads it.
    let token = r#"{"$serde_json::private::Number": "1"}"#;
    let any = Validator::new(&json!({"type": "object"})).unwrap();
    assert_eq!(
        any.deserialize_str::<Value>(token).unwrap(),
        parse_json(token).unwrap()
    );
    assert_eq!(
        any.deserialize_str::<f64>(token).unwrap_err().reason(),
        FallbackReason::Deserialize
    );
}

#[cfg(feature = "arbitrary_precision")]
#[test]
fn a_float_read_as_f64_is_decided_from_its_rounded_value_unless_it_ties() {
    let validator = line_validator();
    let decided = validator
        .deserialize_str::<Line>(r#"{"price": 10.49999, "discount": 0.25}"#)
        .unwrap();
    assert_eq!(
        decided,
        Line {
            price: 10.49999,
            discount: Some(0.25),
            count: None
        }
    );
    let reason = |text: &str| validator.deserialize_str::<Line>(text).unwrap_err().reason();
    // Beyond a bound by more than rounding: refused from the rounded value, as the full route refuses it.
    assert_eq!(
        reason(r#"{"price": 10.6, "discount": null}"#),
        FallbackReason::Invalid
    );
    assert_eq!(
        reason(r#"{"price": -0.5, "discount": null}"#),
        FallbackReason::Invalid
    );
    assert_eq!(
        reason(r#"{"price": 1, "discount": 1.5}"#),
        FallbackReason::Invalid
    );
    // Under an integer-only `type` the digits are read: 2.5 is refused, 2.0 is an integer.
    assert_eq!(
        reason(r#"{"price": 1, "discount": null, "count": 2.5}"#),
        FallbackReason::Invalid
    );
    assert_eq!(
        validator
            .deserialize_str::<Line>(r#"{"price": 1, "discount": null, "count": 2.0}"#)
            .unwrap()
            .count,
        Some(2.0)
    );
    // On a limit the rounded value cannot tell: the full route decides.
    for text in [
        r#"{"price": 10.5, "discount": null}"#,
        r#"{"price": 0.0, "discount": null}"#,
        r#"{"price": 1, "discount": 1.0}"#,
    ] {
        assert_eq!(reason(text), FallbackReason::Undecided, "{text}");
    }
    for (text, valid) in [
        (r#"{"price": 10.6, "discount": null}"#, false),
        (r#"{"price": 10.5, "discount": null}"#, false),
        (r#"{"price": 0.0, "discount": null}"#, true),
        (r#"{"price": 1, "discount": null, "count": 2.0}"#, true),
        (r#"{"price": 1, "discount": null, "count": 2.5}"#, false),
    ] {
        assert_eq!(full_route(&validator, text).is_some(), valid, "{text}");
    }
}

proptest! {
    // The typed route's f64 is serde_json's (with float_roundtrip); the full route's is `str::parse` of the
    // digits the value keeps. They must be the same number, bit for bit.
    #[test]
    fn serde_json_reads_floats_as_str_parse_rounds_them(
        mantissa in "[1-9][0-9]{0,24}",
        point in 0usize..26,
        exponent in -330i32..310,
        negative in any::<bool>(),
    ) {
        let point = point.min(mantissa.len());
        let text = format!(
            "{}{}.{}e{}",
            if negative { "-" } else { "" },
            &mantissa[..point.max(1)],
            if point.max(1) < mantissa.len() { &mantissa[point.max(1)..] } else { "0" },
            exponent
        );
        let expected: f64 = text.parse().unwrap();
        match serde_json::from_str::<f64>(&text) {
            Ok(read) => prop_assert_eq!(read.to_bits(), expected.to_bits(), "{}", text),
            // serde_json refuses what overflows; str::parse gives infinity.
            Err(_) => prop_assert!(expected.is_infinite(), "{}", text),
        }
    }
}

#[test]
fn text_that_is_not_json_falls_back_as_invalid() {
    for text in ["{", "[1,]", "{\"a\": 1} x", "NaN", "01", "\"\u{1}\""] {
        assert_eq!(
            reason::<Value>(&json!({}), text),
            FallbackReason::Invalid,
            "{text}"
        );
    }
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(
        Validator::new(&json!({}))
            .unwrap()
            .deserialize_str::<Value>(&deep)
            .is_err()
    );
}

#[test]
fn a_schema_violation_falls_back_as_invalid() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "maxLength": 2}},
        "required": ["a"],
        "additionalProperties": false
    });
    assert_eq!(
        reason::<Value>(&schema, r#"{"a": "abc"}"#),
        FallbackReason::Invalid
    );
    assert_eq!(reason::<Value>(&schema, r#"{}"#), FallbackReason::Invalid);
    assert_eq!(
        reason::<Value>(&schema, r#"{"a": "ab", "b": 1}"#),
        FallbackReason::Invalid
    );
    assert_eq!(reason::<Value>(&schema, r#"[]"#), FallbackReason::Invalid);
}

#[test]
fn a_member_the_type_skips_is_still_checked() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)] // Read by Debug only: the point is the member it lacks.
    struct OnlyA {
        a: String,
    }
    let schema = json!({"properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}}});
    assert_eq!(
        reason::<OnlyA>(&schema, r#"{"a": "x", "b": [1, "no"]}"#),
        FallbackReason::Invalid
    );
    assert_eq!(
        reason::<OnlyA>(&schema, r#"{"a": "x", "b": [1, 2.5]}"#),
        FallbackReason::Invalid
    );
    assert!(
        Validator::new(&schema)
            .unwrap()
            .deserialize_str::<OnlyA>(r#"{"a": "x", "b": [1, 2]}"#)
            .is_ok()
    );
}

#[test]
fn a_value_the_type_refuses_falls_back_as_deserialize() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Count {
        n: u8,
    }
    assert_eq!(
        reason::<Count>(&json!({}), r#"{"n": 300}"#),
        FallbackReason::Deserialize
    );
    assert_eq!(reason::<Count>(&json!({}), r#"{}"#), FallbackReason::Deserialize);
}

#[test]
fn a_container_under_a_keyword_outside_the_plan_is_read_whole_and_checked_there() {
    // Where serde_json shows numbers as digits (`arbitrary_precision`, which features unify), such a container
    // falls back as unplanned instead: its value would not be the one a parse builds.
    let keeps_digits = "1.10"
        .parse::<serde_json::Number>()
        .is_ok_and(|number| number.to_string() == "1.10");
    let schema = json!({"anyOf": [{"type": "object", "required": ["b"]}, {"type": "string"}]});
    assert!(!Validator::new(&schema).unwrap().streams_every_container());
    // `allOf`, `prefixItems` and `patternProperties` are planned; where numbers keep their digits, a value two
    // schemas check (two `allOf` parts, a name and a pattern) is undecided, so such plans do not cover every
    // container there.
    for (planned, overlaps) in [
        (
            json!({"allOf": [{"type": "object", "required": ["b"]}, {"properties": {"b": {"type": "array"}}}]}),
            true,
        ),
        (
            json!({"prefixItems": [{"type": "object"}], "items": {"type": "array"}}),
            false,
        ),
        (
            json!({"patternProperties": {"^a": {"type": "object"}}, "additionalProperties": {"items": false}}),
            false,
        ),
        (
            json!({"properties": {"ab": {"type": "object"}}, "patternProperties": {"^a": {"type": "object"}}}),
            true,
        ),
    ] {
        assert_eq!(
            Validator::new(&planned).unwrap().streams_every_container(),
            !(overlaps && keeps_digits),
            "{planned}"
        );
    }
    let decided = |schema: &Value, text: &str| Validator::new(schema).unwrap().deserialize_str::<Value>(text);
    let text = r#"{"b": 1.5, "a": [1, {"c": null}]}"#;
    if keeps_digits {
        assert_eq!(reason::<Value>(&schema, text), FallbackReason::Unplanned);
    } else {
        assert_eq!(decided(&schema, text).unwrap(), parse_json(text).unwrap());
    }
    // Invalid there (the yes/no evaluator at the node); a repeated name inside is undecided.
    let invalid_there = if keeps_digits {
        FallbackReason::Unplanned
    } else {
        FallbackReason::Invalid
    };
    assert_eq!(reason::<Value>(&schema, r#"{"a": 1}"#), invalid_there);
    if !keeps_digits {
        assert_eq!(
            reason::<Value>(&schema, r#"{"b": 1, "b": 2}"#),
            FallbackReason::Undecided
        );
        assert_eq!(
            reason::<Value>(&schema, r#"{"b": {"c": 1, "c": 2}}"#),
            FallbackReason::Undecided
        );
        // Malformed inside: invalid, as anywhere.
        assert_eq!(
            reason::<Value>(&schema, r#"{"b": [1,]}"#),
            FallbackReason::Invalid
        );
        // A type read from the captured value, as the full route reads it from the parsed one.
        #[derive(Debug, Deserialize, PartialEq)]
        struct B {
            b: u32,
        }
        let validator = Validator::new(&schema).unwrap();
        assert_eq!(validator.deserialize_str::<B>(r#"{"b": 7}"#).unwrap(), B { b: 7 });
        assert_eq!(
            validator
                .deserialize_str::<B>(r#"{"b": "x"}"#)
                .unwrap_err()
                .reason(),
            FallbackReason::Deserialize
        );
        let union = json!({"anyOf": [{"type": "array", "maxItems": 1}, {"type": "object"}]});
        assert_eq!(decided(&union, "[[]]").unwrap(), json!([[]]));
        assert_eq!(reason::<Value>(&union, "[1, 2]"), FallbackReason::Invalid);
    }
    // Scalars under it are decided in every build.
    assert_eq!(reason::<Value>(&schema, "1"), FallbackReason::Invalid);
}

#[test]
fn enums_with_data_and_byte_strings_are_undecided() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Circle(f64),
    }
    assert_eq!(
        reason::<Shape>(&json!({}), r#"{"Circle": 1}"#),
        FallbackReason::Undecided
    );
    assert_eq!(
        reason::<serde_bytes_like::Bytes>(&json!({}), r#""ab""#),
        FallbackReason::Undecided
    );
}

/// A byte-string target without a dependency.
mod serde_bytes_like {
    #[derive(Debug)]
    pub(super) struct Bytes;

    impl<'de> serde::Deserialize<'de> for Bytes {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visit;
            impl serde::de::Visitor<'_> for Visit {
                type Value = Bytes;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E>(self, _: &[u8]) -> Result<Bytes, E> {
                    Ok(Bytes)
                }
            }
            deserializer.deserialize_bytes(Visit)
        }
    }
}

#[test]
fn a_unit_enum_and_options_read_as_from_the_value() {
    let validator = Validator::new(&order_schema()).unwrap();
    let text = r#"{"id": "PO-1", "qty": null, "lines": [[1, 2.5], []], "tier": "pro", "note": "ok", "z": {"q": [1]}}"#;
    let order: Order = validator.deserialize_str(text).unwrap();
    assert_eq!(
        order,
        Order {
            id: "PO-1".to_owned(),
            qty: None,
            lines: vec![vec![1.0, 2.5], vec![]],
            tier: Some(Tier::Pro),
        }
    );
    // `gold` passes the schema, not the type.
    assert_eq!(
        validator
            .deserialize_str::<Order>(&text.replace("\"pro\"", "\"gold\""))
            .unwrap_err()
            .reason(),
        FallbackReason::Deserialize
    );
}

#[test]
fn recursion_through_refs_is_planned_and_bounded() {
    let schema = json!({
        "$defs": {"node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}}, "additionalProperties": false}},
        "$ref": "#/$defs/node"
    });
    let validator = Validator::new(&schema).unwrap();
    assert!(validator.streams_every_container());
    let text = format!("{}null{}", r#"{"next": "#.repeat(100), "}".repeat(100));
    assert_eq!(
        validator.deserialize_str::<Value>(&text).unwrap(),
        parse_json(&text).unwrap()
    );
    // A reference to itself never reaches a plan.
    let endless = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    assert!(
        Validator::new(&endless)
            .unwrap()
            .deserialize_str::<Value>("{}")
            .is_err()
    );
}

#[test]
fn repeats_are_seen_beyond_the_first_64_names() {
    let properties: serde_json::Map<String, Value> = (0..70)
        .map(|n| (format!("p{n:02}"), json!({"type": "integer"})))
        .collect();
    let validator =
        Validator::new(&json!({"properties": properties, "additionalProperties": false})).unwrap();
    assert!(validator.streams_every_container());
    let all: Vec<String> = (0..70).map(|n| format!("\"p{n:02}\": {n}")).collect();
    let text = format!("{{{}}}", all.join(", "));
    assert_eq!(
        validator.deserialize_str::<Value>(&text).unwrap(),
        parse_json(&text).unwrap()
    );
    for repeated in ["p03", "p68"] {
        let text = format!("{{{}, \"{repeated}\": 1}}", all.join(", "));
        assert_eq!(
            validator.deserialize_str::<Value>(&text).unwrap_err().reason(),
            FallbackReason::Undecided,
            "{repeated}"
        );
    }
}

#[test]
fn an_object_with_many_members_outside_the_plan_is_decided_and_a_repeat_among_them_is_not() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "integer"}});
    let members: Vec<String> = (0..200).map(|n| format!("\"m{n}\": {n}")).collect();
    let text = format!("{{{}}}", members.join(", "));
    let validator = Validator::new(&schema).unwrap();
    assert_eq!(
        validator.deserialize_str::<Value>(&text).unwrap(),
        parse_json(&text).unwrap()
    );
    let repeated = format!("{{{}, \"m150\": 1}}", members.join(", "));
    assert_eq!(reason::<Value>(&schema, &repeated), FallbackReason::Undecided);
    let invalid = format!("{{{}, \"m200\": \"x\"}}", members.join(", "));
    assert_eq!(reason::<Value>(&schema, &invalid), FallbackReason::Invalid);
}
