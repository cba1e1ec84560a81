//! JSON numbers compared by value: schema bounds, `multipleOf`, integer tests.
//!
//! INTERFACE STUB (f64 only) — owned by the numbers/formats/regex work, which replaces the bodies with an exact
//! path (big integers and decimals beyond f64, exact decimal `multipleOf`) while keeping these signatures.

use serde_json::Number;
use std::cmp::Ordering;

/// A number taken from a schema (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`), compiled once.
#[derive(Debug, Clone)]
pub(crate) struct SchemaNumber {
    value: f64,
}

impl SchemaNumber {
    /// Compiles a schema number.
    pub(crate) fn new(number: &Number) -> Self {
        Self { value: number.as_f64().unwrap_or(f64::NAN) }
    }

    /// How `instance` compares with this bound: `Less` means the instance is below it.
    pub(crate) fn cmp_instance(&self, instance: &Number) -> Ordering {
        instance.as_f64().unwrap_or(f64::NAN).partial_cmp(&self.value).unwrap_or(Ordering::Equal)
    }
}

/// A compiled `multipleOf` divisor (the meta-schema guarantees it is > 0).
#[derive(Debug, Clone)]
pub(crate) struct MultipleOf {
    divisor: f64,
}

impl MultipleOf {
    /// Compiles a divisor.
    pub(crate) fn new(divisor: &Number) -> Self {
        Self { divisor: divisor.as_f64().unwrap_or(f64::NAN) }
    }

    /// Whether `instance` is an integer multiple of the divisor.
    pub(crate) fn is_multiple(&self, instance: &Number) -> bool {
        let quotient = instance.as_f64().unwrap_or(f64::NAN) / self.divisor;
        quotient.is_finite() && quotient.fract() == 0.0
    }
}

/// Whether a number is an integer by value (`1.0` is one).
pub(crate) fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Whether two numbers are equal by value (`1 == 1.0`).
pub(crate) fn numbers_equal(a: &Number, b: &Number) -> bool {
    a.as_f64() == b.as_f64()
}
