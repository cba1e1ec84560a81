//! A short decimal instance (`12.34`, `-0.5`: digits, then maybe a point and digits, no exponent) against an
//! integer bound, compared from its digits: the integer part settles the comparison, and the fraction only says
//! whether it is zero. LLM schemas' `{"type": "number", "minimum": 0}` meets such numbers on every call, and reading
//! one as an `f64` or a [`super::Decimal`] cost more than the rest of the check.

use serde_json::Number;
use std::cmp::Ordering;

/// How `number` compares with `limit` (`Less`: below it), when it is written as at most 18 integer digits and maybe
/// a fraction; `None` for anything else (an exponent, longer digits), which the exact path decides.
#[cfg(feature = "arbitrary_precision")]
#[inline]
pub(crate) fn cmp_with_int(number: &Number, limit: i64) -> Option<Ordering> {
    let (negative, digits) = match number.as_str().as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        bytes => (false, bytes),
    };
    let mut whole: i64 = 0;
    let mut n_whole = 0;
    let mut bytes = digits.iter();
    // `Some(nonzero)` once a point was read: whether a fraction digit is not 0.
    let mut fraction = None;
    for &byte in bytes.by_ref() {
        match byte {
            b'0'..=b'9' if n_whole < 18 => {
                whole = whole * 10 + i64::from(byte - b'0');
                n_whole += 1;
            }
            b'.' if n_whole > 0 => {
                fraction = Some(false);
                break;
            }
            _ => return None,
        }
    }
    if n_whole == 0 {
        return None;
    }
    if fraction.is_some() {
        let mut n_fraction = 0;
        for &byte in bytes {
            match byte {
                b'0'..=b'9' => fraction = Some(fraction == Some(true) || byte != b'0'),
                _ => return None,
            }
            n_fraction += 1;
        }
        if n_fraction == 0 {
            return None;
        }
    }
    let whole = if negative { -whole } else { whole };
    let order = whole.cmp(&limit);
    Some(match (fraction, negative) {
        (None | Some(false), _) => order,
        // Positive: the value lies strictly between `whole` and `whole + 1`, integers both.
        (Some(true), false) if order == Ordering::Less => Ordering::Less,
        (Some(true), false) => Ordering::Greater,
        // Negative: strictly between `whole - 1` and `whole`.
        (Some(true), true) if order == Ordering::Greater => Ordering::Greater,
        (Some(true), true) => Ordering::Less,
    })
}

/// How `number` compares with `limit`. serde_json holds an integer as an `i64` or `u64` (compared exactly) and any
/// other number as its correctly rounded `f64`, which is the instance's value here: compared exactly with a limit
/// that `f64` holds exactly (at most 2^53 in magnitude), else `None` (the exact path decides). A float used to go
/// to the exact path always, about 80 instructions for `{"type": "number", "minimum": 0}` on `1.25`.
#[cfg(not(feature = "arbitrary_precision"))]
#[inline]
pub(crate) fn cmp_with_int(number: &Number, limit: i64) -> Option<Ordering> {
    if let Some(value) = number.as_i64() {
        return Some(value.cmp(&limit));
    }
    if number.is_u64() {
        // Above `i64::MAX`, so above every limit.
        return Some(Ordering::Greater);
    }
    // Exact: a limit of at most 2^53 in magnitude is an `f64` as it is, and `f64`s compare exactly.
    let value = number.as_f64()?;
    (limit.unsigned_abs() <= 1 << 53)
        .then(|| value.partial_cmp(&(limit as f64)))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::cmp_with_int;
    use crate::number::SchemaNumber;
    use proptest::prelude::*;
    use serde_json::Number;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// Every answer is the exact comparison's; plain short numbers always get one.
        #[test]
        fn agrees_with_the_exact_comparison(
            text in "-?(0|[1-9][0-9]{0,19})(\\.[0-9]{1,4})?([eE][-+]?[0-9])?",
            limit in prop_oneof![-3i64..3, any::<i64>(), -1_000i64..1_000],
        ) {
            let number: Number = serde_json::from_str(&text).unwrap();
            let exact = SchemaNumber::new(&Number::from(limit)).cmp_instance(&number);
            match cmp_with_int(&number, limit) {
                Some(order) => prop_assert_eq!(order, exact, "{} against {}", text, limit),
                None => prop_assert!(
                    cfg!(not(feature = "arbitrary_precision")) || text.len() > 18 || text.contains(['e', 'E']),
                    "no answer for {}", text
                ),
            }
        }
    }
}
