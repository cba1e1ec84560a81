//! Tests for exact number comparison: suite cases on numeric keywords, edge cases, and laws against f64.

use super::*;
use crate::format::suite::{self, Case};
use proptest::prelude::*;
use serde_json::Value;

fn number(text: &str) -> Number {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Number(number)) => number,
        other => panic!("{text} is not a JSON number: {other:?}"),
    }
}

/// Interprets a schema made only of numeric keywords (`type` integer/number, bounds, `multipleOf`); `None` when the
/// schema holds anything else, so the caller can count what it ran.
fn interpret(schema: &Value, instance: &Value) -> Option<bool> {
    let object = schema.as_object()?;
    let mut valid = true;
    for (keyword, argument) in object {
        let number = instance.as_number();
        valid &= match (keyword.as_str(), number) {
            ("$schema", _) => true,
            ("type", _) => match argument.as_str()? {
                "integer" => number.is_some_and(is_integer),
                "number" => number.is_some(),
                "string" => instance.is_string(),
                _ => return None,
            },
            ("minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf", None) => true,
            ("minimum", Some(n)) => {
                SchemaNumber::new(argument.as_number()?).cmp_instance(n) != Ordering::Less
            }
            ("maximum", Some(n)) => {
                SchemaNumber::new(argument.as_number()?).cmp_instance(n) != Ordering::Greater
            }
            ("exclusiveMinimum", Some(n)) => {
                SchemaNumber::new(argument.as_number()?).cmp_instance(n) == Ordering::Greater
            }
            ("exclusiveMaximum", Some(n)) => {
                SchemaNumber::new(argument.as_number()?).cmp_instance(n) == Ordering::Less
            }
            ("multipleOf", Some(n)) => MultipleOf::new(argument.as_number()?).is_multiple(n),
            _ => return None,
        };
    }
    Some(valid)
}

fn run_files(files: &[&str]) -> (usize, Vec<String>) {
    let mut n_run = 0;
    let mut failures = Vec::new();
    for file in files {
        for case in suite::load(file) {
            let Case {
                ref schema,
                ref data,
                valid,
                ..
            } = case;
            if let Some(got) = interpret(schema, data) {
                n_run += 1;
                if got != valid {
                    failures.push(case.name());
                }
            }
        }
    }
    (n_run, failures)
}

#[test]
fn suite_numeric_keywords() {
    let (n_run, failures) = run_files(&[
        "minimum.json",
        "maximum.json",
        "exclusiveMinimum.json",
        "exclusiveMaximum.json",
        "multipleOf.json",
        "optional/bignum.json",
        "optional/float-overflow.json",
    ]);
    assert!(failures.is_empty(), "failing cases:\n{}", failures.join("\n"));
    // Every case of these files has a schema of numeric keywords only; a drop means cases were silently skipped.
    assert_eq!(n_run, 48, "every case of these files must run");
}

#[test]
fn suite_integer_type() {
    let mut n_run = 0;
    for case in suite::load("type.json") {
        if case.schema.get("type") == Some(&Value::from("integer")) {
            n_run += 1;
            assert_eq!(
                interpret(&case.schema, &case.data),
                Some(case.valid),
                "{}",
                case.name()
            );
        }
    }
    assert!(n_run >= 9, "only {n_run} cases ran");
}

// Needs the digits as written: without arbitrary_precision serde_json rejects 1e400.
#[cfg(feature = "arbitrary_precision")]
#[test]
fn exact_decimal_multiples() {
    let check = |value: &str, divisor: &str, want: bool| {
        assert_eq!(
            MultipleOf::new(&number(divisor)).is_multiple(&number(value)),
            want,
            "{value} multipleOf {divisor}"
        );
    };
    check("0.0075", "0.0001", true);
    check("0.00751", "0.0001", false);
    check("1e308", "0.123456789", false);
    check("1e308", "0.5", true);
    check("1e400", "0.5", true);
    check("1e-400", "1e-401", true);
    check("1e-401", "1e-400", false);
    check("12345678901234567890123456789012345678901234567890", "10", true);
    check("12345678901234567890123456789012345678901234567893", "3", true);
    check("12345678901234567890123456789012345678901234567892", "3", false);
    check("0", "7", true);
    check("-14", "7", true);
    check("19.5", "1.5", true);
    check("19.6", "1.5", false);
    check("4.5e999999999", "3", true);
    check("1e999999999999999999999999", "7", false);
}

// Needs the digits as written: without arbitrary_precision serde_json rejects 1e400.
#[cfg(feature = "arbitrary_precision")]
#[test]
fn exact_comparison_beyond_f64() {
    let cmp = |a: &str, b: &str| Decimal::from_number(&number(a)).cmp(&Decimal::from_number(&number(b)));
    assert_eq!(cmp("1e400", "1e399"), Ordering::Greater);
    assert_eq!(cmp("-1e400", "1e-400"), Ordering::Less);
    assert_eq!(cmp("1.0", "1"), Ordering::Equal);
    assert_eq!(cmp("-0", "0.0"), Ordering::Equal);
    assert_eq!(cmp("100e-2", "0.01e2"), Ordering::Equal);
    assert_eq!(
        cmp("18446744073709551616", "18446744073709551615"),
        Ordering::Greater
    );
    assert_eq!(cmp("9007199254740993", "9007199254740992"), Ordering::Greater);
    assert_eq!(cmp("0.30000000000000000001", "0.3"), Ordering::Greater);
    assert_eq!(cmp("1e999999999999999999999", "1e9"), Ordering::Greater);
    assert_eq!(cmp("1e-999999999999999999999", "0"), Ordering::Greater);
    assert!(is_integer(&number("1.0")));
    assert!(is_integer(&number("1e400")));
    assert!(is_integer(&number("-0.0")));
    assert!(!is_integer(&number("1.5")));
    assert!(!is_integer(&number("1e-400")));
    assert!(numbers_equal(&number("1"), &number("1.0")));
    assert!(!numbers_equal(&number("1"), &number("1.0000000000000000000001")));
}

// Needs the digits as written: without arbitrary_precision serde_json reads this as an f64 infinity error.
#[cfg(feature = "arbitrary_precision")]
#[test]
fn long_numbers_cost_linear_work() {
    // 200,000 digits: a quadratic big-integer parse would take seconds; digit strings and Horner's rule do not.
    // (2,000 under Miri, which interprets every step about a thousand times slower.)
    let zeros = if cfg!(miri) { 1_998 } else { 199_998 };
    let digits = format!("1{}", "0".repeat(zeros) + "5");
    let long = number(&digits);
    let longer = number(&format!("{digits}1e-1"));
    assert!(is_integer(&long));
    assert!(!is_integer(&longer));
    assert_eq!(
        Decimal::from_number(&long).cmp(&Decimal::from_number(&longer)),
        Ordering::Less
    );
    assert!(MultipleOf::new(&number("5")).is_multiple(&long));
    assert!(!MultipleOf::new(&number("2")).is_multiple(&long));
    assert!(MultipleOf::new(&number("0.5")).is_multiple(&long));
    assert!(
        MultipleOf::new(&number("123456789012345678901234567890123"))
            .is_multiple(&number("246913578024691357802469135780246e10"))
    );
    assert!(numbers_equal(&long, &number(&format!("{digits}.000"))));
}

#[test]
fn parse_rejects_non_numbers() {
    for text in ["", "-", "1.", ".5", "1e", "1e+", "abc", "1.2.3", "01x"] {
        assert_eq!(Decimal::parse(text), None, "{text:?}");
    }
    assert_eq!(Decimal::parse("120"), Decimal::parse("1.2e2"));
}

#[test]
fn the_longest_f64_texts_read_back() {
    for float in [-2.225_073_858_507_201_4e-308, f64::MIN, -5e-324, f64::MAX] {
        assert_eq!(
            Some(decimal_of_f64(float)),
            Decimal::parse(&format!("{float:e}")),
            "{float:e}"
        );
    }
    assert_eq!(format!("{:e}", -2.225_073_858_507_201_4e-308).len(), 24);
}

fn decimal_of_f64(float: f64) -> Decimal {
    Decimal::from_number(&Number::from_f64(float).unwrap())
}

/// The tie that made ryu's text and `{:e}`'s differ: both are shortest, both give the float back.
#[test]
fn a_tie_between_two_shortest_decimals_reads_as_a_shortest_one() {
    let float = f64::from_bits(4_833_250_375_265_465_381);
    assert_eq!(format!("{float:e}"), "1.3478936810734173e15");
    let read = decimal_of_f64(float);
    assert_eq!(read.n_digits, 17);
    assert!(
        read == Decimal::parse("1347893681073417.3").unwrap()
            || read == Decimal::parse("1347893681073417.2").unwrap()
    );
}

proptest! {
    #[test]
    fn comparison_agrees_with_f64(a in -1e30f64..1e30, b in -1e30f64..1e30) {
        prop_assert_eq!(decimal_of_f64(a).cmp(&decimal_of_f64(b)), a.partial_cmp(&b).unwrap());
    }

    /// A number written with at most 15 significant digits, within `f64`'s normal range, reads as exactly the
    /// decimal written, with or without `arbitrary_precision`: without it, the correctly rounded `f64`'s shortest
    /// round-trip decimal is that decimal (15 digits are fewer than an `f64` tells apart).
    #[test]
    fn short_decimals_read_as_written(
        negative: bool,
        digits in "[1-9][0-9]{0,14}",
        point in 0usize..16,
        exponent in -290i32..290,
    ) {
        let point = point.min(digits.len());
        let (int, fraction) = digits.split_at(point);
        let int = if int.is_empty() { "0" } else { int };
        let fraction = if fraction.is_empty() { String::new() } else { format!(".{fraction}") };
        let text = format!("{}{int}{fraction}e{exponent}", if negative { "-" } else { "" });
        prop_assert_eq!(Some(Decimal::from_number(&number(&text))), Decimal::parse(&text), "{}", text);
    }

    /// Any finite `f64` reads as a shortest round-trip decimal (written on the stack; the longest, 24 bytes, fits):
    /// the decimal gives the float back and has as few digits as `{:e}`'s. Without `arbitrary_precision` it is
    /// `{:e}`'s own. With it, serde_json keeps ryu's text, and where two shortest decimals are equally near the
    /// float (1347893681073417.25 lies halfway between ...17.2 and ...17.3) ryu and `{:e}` may pick different ones.
    #[test]
    fn every_f64_reads_as_a_shortest_decimal(bits: u64) {
        let float = f64::from_bits(bits);
        prop_assume!(float.is_finite());
        let number = Number::from_f64(float).unwrap();
        let read = Decimal::from_number(&number);
        let shortest = Decimal::parse(&format!("{float:e}")).unwrap();
        if cfg!(feature = "arbitrary_precision") {
            let kept = Decimal::parse(&number.to_string());
            prop_assert_eq!(Some(&read), kept.as_ref(), "{}", number);
            prop_assert_eq!(number.to_string().parse::<f64>().ok(), Some(float), "{}", number);
            prop_assert_eq!(read.n_digits, shortest.n_digits, "{} against {:e}", number, float);
        } else {
            prop_assert_eq!(read, shortest, "{:e}", float);
        }
    }

    #[test]
    fn comparison_agrees_with_i64(a: i64, b: i64) {
        prop_assert_eq!(Decimal::from_number(&Number::from(a)).cmp(&Decimal::from_number(&Number::from(b))), a.cmp(&b));
    }

    /// The short integer reading is `as_i64` wherever it answers, and answers every plain integer of up to 18
    /// digits.
    #[test]
    fn short_integers_read_as_i64(text in "-?(0|[1-9][0-9]{0,19})(\\.[0-9]{1,3})?(e[0-9])?") {
        let number: Number = serde_json::from_str(&text).unwrap();
        let short = super::as_short_i64(&number);
        if let Some(value) = short {
            prop_assert_eq!(Some(value), number.as_i64());
        }
        let digits = text.trim_start_matches('-');
        if digits.len() <= 18 && digits.bytes().all(|byte| byte.is_ascii_digit()) {
            prop_assert_eq!(short, number.as_i64());
        }
    }

    #[test]
    fn multiple_of_agrees_with_integers(a: i64, b in 1i64..1_000_000) {
        prop_assert_eq!(MultipleOf::new(&Number::from(b)).is_multiple(&Number::from(a)), a % b == 0);
    }

    // Without arbitrary_precision the numbers are the f64s serde_json parsed, correctly rounded (its
    // `float_roundtrip`), read back as their shortest decimals: at most 11 significant digits here, so exact.
    #[test]
    fn scaled_integers_are_multiples(a in -1_000_000i64..1_000_000, b in 1i64..10_000, scale in 0u32..30) {
        // a*b × 10^-scale is a multiple of b × 10^-scale, exactly, however small the scale makes them.
        let divisor = number(&format!("{b}e-{scale}"));
        let value = number(&format!("{}e-{scale}", i128::from(a) * i128::from(b)));
        prop_assert!(MultipleOf::new(&divisor).is_multiple(&value));
    }

    #[test]
    fn parse_never_panics(text in "[-+.eE0-9]{0,40}") {
        let _ = Decimal::parse(&text);
    }
}

#[test]
fn numbers_equal_fast_paths_agree_with_exact_values() {
    for (a, b, equal) in [
        ("4", "4", true),
        ("4", "5", false),
        ("-0", "0", true),
        ("0", "-0", true),
        ("1", "1.0", true),
        ("10", "1e1", true),
        ("-3", "3", false),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890",
            true,
        ),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567891",
            // Without the digits, both are the same `f64` (the README's "Numbers").
            !cfg!(feature = "arbitrary_precision"),
        ),
        ("2.50", "2.5", true),
    ] {
        assert_eq!(numbers_equal(&number(a), &number(b)), equal, "{a} vs {b}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// The short-decimal fast path gives exactly what serde_json's parser gives, sign and rounding included.
    #[test]
    fn to_f64_agrees_with_as_f64(text in "-?(0|[1-9][0-9]{0,17})(\\.[0-9]{1,17})?([eE][+-]?[0-9]{1,2})?") {
        let number: Number = serde_json::from_str(&text).unwrap();
        let fast = super::to_f64(&number).map(f64::to_bits);
        proptest::prop_assert_eq!(fast, number.as_f64().map(f64::to_bits), "{}", text);
    }
}

#[test]
fn to_f64_reads_short_decimals() {
    for (text, expected) in [
        ("36", 36.0),
        ("-0.97", -0.97),
        ("1.65", 1.65),
        ("0.1", 0.1),
        ("123456789012345", 123_456_789_012_345.0),
    ] {
        let number: Number = serde_json::from_str(text).unwrap();
        assert_eq!(super::to_f64(&number), Some(expected), "{text}");
    }
}
