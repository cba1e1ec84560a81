//! Number keywords through the public API: exact answers where `f64` rounding would tie or mislead, and (without the
//! `arbitrary_precision` feature) what the README's "Numbers" section says differs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::Validator;
use serde_json::Value;

fn valid(schema: &str, instance: &str) -> bool {
    let schema: Value = serde_json::from_str(schema).unwrap();
    let instance: Value = serde_json::from_str(instance).unwrap();
    let validator = Validator::new(&schema).unwrap();
    let flag = validator.is_valid(&instance);
    assert_eq!(flag, validator.validate(&instance).is_ok());
    flag
}

/// Needs the digits as written (`arbitrary_precision`): every pair here is one `f64` apart or less.
#[cfg(feature = "arbitrary_precision")]
#[test]
fn bounds_are_exact_when_f64_ties() {
    // Both sides round to the same f64: the exact path decides.
    assert!(!valid(r#"{"minimum": 0.1000000000000000000001}"#, "0.1"));
    assert!(valid(r#"{"maximum": 0.1000000000000000000001}"#, "0.1"));
    assert!(!valid(
        r#"{"exclusiveMaximum": 9007199254740993}"#,
        "9007199254740993"
    ));
    assert!(valid(
        r#"{"exclusiveMaximum": 9007199254740993}"#,
        "9007199254740992"
    ));
    assert!(!valid(
        r#"{"minimum": 18446744073709551617}"#,
        "18446744073709551616"
    ));
    assert!(valid(r#"{"minimum": 1e-400}"#, "1e-399"));
    assert!(!valid(r#"{"maximum": 1e308}"#, "1e400"));
    assert!(valid(r#"{"minimum": -0.0}"#, "0"));
}

#[test]
fn bounds_on_short_decimals() {
    // Decimals of at most 15 significant digits compare as written, with or without the feature.
    assert!(valid(r#"{"maximum": 0.3}"#, "0.3"));
    assert!(!valid(r#"{"exclusiveMaximum": 0.3}"#, "0.3"));
    assert!(!valid(r#"{"maximum": 0.3}"#, "0.30000000000001"));
    assert!(valid(r#"{"minimum": 1e-300}"#, "1.5e-300"));
    assert!(valid(r#"{"minimum": -0.0}"#, "0"));
    assert!(valid(
        r#"{"exclusiveMaximum": 9007199254740993}"#,
        "9007199254740992"
    ));
}

#[test]
fn multiple_of_integers_and_decimals() {
    assert!(valid(r#"{"multipleOf": 3}"#, "-9"));
    assert!(!valid(r#"{"multipleOf": 3}"#, "10"));
    assert!(valid(r#"{"multipleOf": 0.0001}"#, "0.0075"));
    // `f64` division says 19.99 / 0.01 = 1998.9999999999998: the decimals decide, with or without the feature.
    assert!(valid(r#"{"multipleOf": 0.01}"#, "19.99"));
    assert!(!valid(r#"{"multipleOf": 0.01}"#, "19.999"));
    assert!(valid(r#"{"multipleOf": 0.1}"#, "0.3"));
    assert!(!valid(r#"{"multipleOf": 2}"#, "1.5"));
    assert!(valid(r#"{"multipleOf": 2}"#, "4.0"));
    assert!(valid(r#"{"multipleOf": 7}"#, "-9223372036854775807"));
}

#[test]
fn integers_by_value() {
    assert!(valid(r#"{"type": "integer"}"#, "1.0"));
    assert!(valid(r#"{"type": "integer"}"#, "1e2"));
    assert!(!valid(r#"{"type": "integer"}"#, "1.5"));
    assert!(valid(r#"{"type": "integer"}"#, "123456789012345678901234567890"));
}

/// What differs without `arbitrary_precision` (the README's "Numbers"): a number is the `f64` serde_json parsed,
/// so digits beyond the 15th (or 17th) are lost, integers beyond 64 bits are their nearest `f64`, a magnitude
/// beyond `f64` is not JSON serde_json can hold, and one below its smallest is zero.
#[cfg(not(feature = "arbitrary_precision"))]
#[test]
fn without_arbitrary_precision_numbers_are_their_f64() {
    // One `f64` apart or less: they tie.
    assert!(valid(r#"{"minimum": 0.1000000000000000000001}"#, "0.1"));
    assert!(valid(r#"{"maximum": 0.3}"#, "0.30000000000000001"));
    // Integers that fit 64 bits stay exact, however far beyond 2^53.
    assert!(!valid(
        r#"{"exclusiveMaximum": 9007199254740993}"#,
        "9007199254740993"
    ));
    assert!(!valid(r#"{"multipleOf": 2}"#, "9007199254740993"));
    assert!(valid(
        r#"{"minimum": 18446744073709551617}"#,
        "18446744073709551616"
    ));
    // An integer beyond 64 bits is still an integer (its f64 has no fraction), and a multiple of what its f64 is.
    assert!(valid(r#"{"type": "integer"}"#, "123456789012345678901234567890"));
    assert!(valid(r#"{"multipleOf": 2}"#, "123456789012345678901234567891"));
    // Beyond f64's range: serde_json refuses the text, and parse_json says so.
    let error = oa_schema::parse_json("1e400").unwrap_err();
    assert_eq!(error.reason(), "number out of range");
    // Below its smallest: zero.
    assert!(!valid(r#"{"exclusiveMinimum": 0}"#, "1e-400"));
}
