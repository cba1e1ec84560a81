//! Number keywords through the public API: exact answers where `f64` rounding would tie or mislead.
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
fn multiple_of_integers_and_decimals() {
    assert!(valid(r#"{"multipleOf": 3}"#, "-9"));
    assert!(!valid(r#"{"multipleOf": 3}"#, "10"));
    assert!(valid(r#"{"multipleOf": 0.0001}"#, "0.0075"));
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
