//! JSON numbers compared by value: schema bounds, `multipleOf`, integer tests, exactly and beyond f64.
//!
//! Every number is read as an exact decimal `±mantissa × 10^exponent` (see [`Decimal`]): with serde_json's
//! `arbitrary_precision` (our default feature) from the digits as written, otherwise from the `i64`/`u64` or the
//! shortest decimal that round-trips the `f64`. Nothing here ever raises 10 to a power taken from the input, so an
//! exponent like `1e999999999` costs no more than `1e9`: comparisons look at decimal magnitudes first and only align
//! mantissas whose magnitudes agree (the shift is then bounded by the digits already held), and `multipleOf` is
//! decided by divisibility of the mantissas plus counts of the factors 2 and 5.
//!
//! Limit: exponents beyond ±4.6e18 saturate, so two numbers that differ only there compare equal. No JSON text a
//! parser accepts in practice comes near it.

use num_bigint::BigUint;
use serde_json::Number;
use std::cmp::Ordering;
use std::hash::Hasher;

/// A number taken from a schema (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`), compiled once.
#[derive(Debug, Clone)]
pub(crate) struct SchemaNumber {
    value: Decimal,
}

impl SchemaNumber {
    /// Compiles a schema number.
    pub(crate) fn new(number: &Number) -> Self {
        Self {
            value: Decimal::from_number(number),
        }
    }

    /// How `instance` compares with this bound: `Less` means the instance is below it.
    pub(crate) fn cmp_instance(&self, instance: &Number) -> Ordering {
        Decimal::from_number(instance).cmp(&self.value)
    }
}

/// A compiled `multipleOf` divisor (the meta-schema guarantees it is > 0).
///
/// The divisor `m × 10^e` is kept as `m = 2^twos × 5^fives × rest` with `rest` coprime to 10: an instance
/// `n × 10^f` is a multiple exactly when `rest` divides `n` and the factors 2 and 5 of `n × 10^(f-e)` cover
/// `twos` and `fives`.
#[derive(Debug, Clone)]
pub(crate) struct MultipleOf {
    /// `rest`, the divisor's mantissa without its factors 2 and 5; zero for a zero divisor (nothing is a multiple).
    rest: Mantissa,
    twos: u64,
    fives: u64,
    exponent: i64,
}

impl MultipleOf {
    /// Compiles a divisor.
    pub(crate) fn new(divisor: &Number) -> Self {
        let decimal = Decimal::from_number(divisor);
        let mut mantissa = decimal.mantissa.to_big();
        let twos = mantissa.trailing_zeros().unwrap_or(0);
        mantissa >>= twos;
        let mut fives = 0;
        let five = BigUint::from(5u32);
        while mantissa != BigUint::ZERO && (&mantissa % &five) == BigUint::ZERO {
            mantissa /= &five;
            fives += 1;
        }
        Self {
            rest: Mantissa::from_big(mantissa),
            twos,
            fives,
            exponent: decimal.exponent,
        }
    }

    /// Whether `instance` is an integer multiple of the divisor.
    pub(crate) fn is_multiple(&self, instance: &Number) -> bool {
        let value = Decimal::from_number(instance);
        if value.mantissa.is_zero() {
            return true;
        }
        if self.rest.is_zero() {
            return false;
        }
        // value / divisor = (n / (2^twos 5^fives rest)) × 10^shift.
        let shift = i128::from(value.exponent) - i128::from(self.exponent);
        if !value.mantissa.is_divisible_by(&self.rest) {
            return false;
        }
        // The instance's factors 2 and 5 plus `shift` of each (negative shift takes them away) must cover ours.
        let need_twos = i128::from(self.twos) - shift;
        let need_fives = i128::from(self.fives) - shift;
        value.mantissa.has_factor_power(2, need_twos) && value.mantissa.has_factor_power(5, need_fives)
    }
}

/// Whether a number is an integer by value (`1.0` and `1e400` are, `1.5` is not).
pub(crate) fn is_integer(number: &Number) -> bool {
    if number.is_i64() || number.is_u64() {
        return true;
    }
    Decimal::from_number(number).is_integer()
}

/// Whether two numbers are equal by value (`1 == 1.0`, and exactly so beyond f64).
pub(crate) fn numbers_equal(a: &Number, b: &Number) -> bool {
    Decimal::from_number(a) == Decimal::from_number(b)
}

/// Feeds a hash of the number's value into `hasher`: numbers equal under [`numbers_equal`] hash alike.
pub(crate) fn hash_number<H: Hasher>(number: &Number, hasher: &mut H) {
    Decimal::from_number(number).hash_into(hasher);
}

/// An exact decimal `(-1)^negative × mantissa × 10^exponent` in canonical form: the mantissa has no trailing zero
/// digit, zero is `+0 × 10^0`, so equal values have equal fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decimal {
    negative: bool,
    mantissa: Mantissa,
    exponent: i64,
    /// Decimal digits in the mantissa (0 for zero); with `exponent` it gives the magnitude without arithmetic.
    n_digits: u64,
}

/// Exponents are clamped here so that sums with digit counts never overflow.
const EXPONENT_LIMIT: i64 = i64::MAX / 2;

impl Decimal {
    /// The exact value of a serde_json number.
    pub(crate) fn from_number(number: &Number) -> Self {
        #[cfg(feature = "arbitrary_precision")]
        {
            if let Some(decimal) = Self::parse(number.as_str()) {
                return decimal;
            }
        }
        if let Some(unsigned) = number.as_u64() {
            return Self::from_parts(false, u128::from(unsigned), 0);
        }
        if let Some(signed) = number.as_i64() {
            return Self::from_parts(signed < 0, u128::from(signed.unsigned_abs()), 0);
        }
        match number.as_f64() {
            // `{:e}` prints the shortest decimal that round-trips, which is the number as the document wrote it
            // whenever the f64 could hold it. An f64 Number is always finite.
            Some(float) if float.is_finite() => Self::parse(&format!("{float:e}")).unwrap_or_else(Self::zero),
            _ => Self::zero(),
        }
    }

    /// Parses JSON number text (`-?digits(.digits)?([eE][+-]?digits)?`); `None` if it is not one.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        let mut pos = 0;
        let negative = bytes.first() == Some(&b'-');
        if negative {
            pos += 1;
        }
        let int_start = pos;
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        let int_digits = &bytes[int_start..pos];
        let mut frac_digits: &[u8] = &[];
        if bytes.get(pos) == Some(&b'.') {
            let frac_start = pos + 1;
            pos = frac_start;
            while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                pos += 1;
            }
            frac_digits = &bytes[frac_start..pos];
            if frac_digits.is_empty() {
                return None;
            }
        }
        if int_digits.is_empty() {
            return None;
        }
        let mut exponent: i64 = 0;
        if matches!(bytes.get(pos), Some(b'e' | b'E')) {
            pos += 1;
            let exp_negative = match bytes.get(pos) {
                Some(b'-') => {
                    pos += 1;
                    true
                }
                Some(b'+') => {
                    pos += 1;
                    false
                }
                _ => false,
            };
            let exp_start = pos;
            while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                exponent = exponent
                    .saturating_mul(10)
                    .saturating_add(i64::from(bytes[pos] - b'0'));
                exponent = exponent.min(EXPONENT_LIMIT);
                pos += 1;
            }
            if pos == exp_start {
                return None;
            }
            if exp_negative {
                exponent = -exponent;
            }
        }
        if pos != bytes.len() {
            return None;
        }
        // The digits int ++ frac scaled by 10^(exponent - frac_len), leading and trailing zeros dropped.
        let frac_len = i64::try_from(frac_digits.len()).unwrap_or(EXPONENT_LIMIT);
        let all = int_digits.iter().chain(frac_digits.iter()).copied();
        let n_total = int_digits.len() + frac_digits.len();
        let n_leading = all.clone().take_while(|&d| d == b'0').count();
        if n_leading == n_total {
            return Some(Self::zero());
        }
        let n_trailing = all.clone().rev().take_while(|&d| d == b'0').count();
        let significant = all.skip(n_leading).take(n_total - n_leading - n_trailing);
        let n_digits = (n_total - n_leading - n_trailing) as u64;
        let n_trailing = i64::try_from(n_trailing).unwrap_or(EXPONENT_LIMIT);
        let exponent = exponent
            .saturating_sub(frac_len)
            .saturating_add(n_trailing)
            .clamp(-EXPONENT_LIMIT, EXPONENT_LIMIT);
        let mantissa = if n_digits <= 38 {
            Mantissa::Small(significant.fold(0u128, |acc, d| acc * 10 + u128::from(d - b'0')))
        } else {
            let text: Vec<u8> = significant.collect();
            Mantissa::from_big(BigUint::parse_bytes(&text, 10)?)
        };
        Some(Self {
            negative,
            mantissa,
            exponent,
            n_digits,
        })
    }

    fn zero() -> Self {
        Self {
            negative: false,
            mantissa: Mantissa::Small(0),
            exponent: 0,
            n_digits: 0,
        }
    }

    /// Builds a canonical decimal from an integer mantissa (trailing zeros are moved to the exponent).
    fn from_parts(negative: bool, mut mantissa: u128, mut exponent: i64) -> Self {
        if mantissa == 0 {
            return Self::zero();
        }
        while mantissa.is_multiple_of(10) {
            mantissa /= 10;
            exponent += 1;
        }
        let n_digits = u64::from(mantissa.ilog10()) + 1;
        Self {
            negative,
            mantissa: Mantissa::Small(mantissa),
            exponent,
            n_digits,
        }
    }

    /// Whether the value is a whole number.
    pub(crate) fn is_integer(&self) -> bool {
        self.mantissa.is_zero() || self.exponent >= 0
    }

    /// The decimal magnitude: the exponent of the leading digit (`123` is 2, `0.05` is -2).
    fn magnitude(&self) -> i128 {
        i128::from(self.exponent) + i128::from(self.n_digits) - 1
    }

    fn cmp_abs(&self, other: &Self) -> Ordering {
        match (self.mantissa.is_zero(), other.mantissa.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        match self.magnitude().cmp(&other.magnitude()) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        // Same magnitude: the one with the smaller exponent has exactly that many more digits, so the shift is
        // bounded by digits we already hold.
        match self.exponent.cmp(&other.exponent) {
            Ordering::Equal => self.mantissa.cmp(&other.mantissa),
            Ordering::Greater => {
                let shift = (i128::from(self.exponent) - i128::from(other.exponent)) as u64;
                self.mantissa.shifted(shift).cmp(&other.mantissa)
            }
            Ordering::Less => {
                let shift = (i128::from(other.exponent) - i128::from(self.exponent)) as u64;
                self.mantissa.cmp(&other.mantissa.shifted(shift))
            }
        }
    }

    fn hash_into<H: Hasher>(&self, hasher: &mut H) {
        hasher.write_u8(u8::from(self.negative));
        hasher.write_i64(self.exponent);
        self.mantissa.hash_into(hasher);
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, false) => self.cmp_abs(other),
            (true, true) => other.cmp_abs(self),
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// An unsigned integer, inline when it fits in 128 bits. Canonical: `Big` only holds values above `u128::MAX`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mantissa {
    Small(u128),
    Big(BigUint),
}

impl Mantissa {
    fn from_big(big: BigUint) -> Self {
        match u128::try_from(&big) {
            Ok(small) => Self::Small(small),
            Err(_) => Self::Big(big),
        }
    }

    fn to_big(&self) -> BigUint {
        match self {
            Self::Small(small) => BigUint::from(*small),
            Self::Big(big) => big.clone(),
        }
    }

    fn is_zero(&self) -> bool {
        matches!(self, Self::Small(0))
    }

    /// `self × 10^shift`; callers bound `shift` by the digit count of a number they hold.
    fn shifted(&self, shift: u64) -> Self {
        if let Self::Small(small) = self {
            let power = u32::try_from(shift).ok().and_then(|s| 10u128.checked_pow(s));
            if let Some(result) = power.and_then(|p| small.checked_mul(p)) {
                return Self::Small(result);
            }
        }
        let exponent = u32::try_from(shift).unwrap_or(u32::MAX);
        Self::from_big(self.to_big() * BigUint::from(10u32).pow(exponent))
    }

    fn is_divisible_by(&self, divisor: &Self) -> bool {
        match (self, divisor) {
            (_, Self::Small(0)) => false,
            (Self::Small(n), Self::Small(d)) => n.is_multiple_of(*d),
            (Self::Small(_), Self::Big(_)) => false, // a nonzero value below the divisor
            (Self::Big(n), Self::Small(d)) => (n % BigUint::from(*d)) == BigUint::ZERO,
            (Self::Big(n), Self::Big(d)) => (n % d) == BigUint::ZERO,
        }
    }

    /// Whether `prime^need` divides `self` (`prime` is 2 or 5; `need <= 0` always holds). Bounded: it stops after
    /// `need` divisions, and a value has at most `log2(value)` such factors.
    fn has_factor_power(&self, prime: u32, need: i128) -> bool {
        if need <= 0 {
            return true;
        }
        if self.is_zero() {
            return true;
        }
        match self {
            Self::Small(n) => {
                let mut n = *n;
                let mut found: i128 = 0;
                let prime = u128::from(prime);
                while found < need && n.is_multiple_of(prime) {
                    n /= prime;
                    found += 1;
                }
                found >= need
            }
            Self::Big(n) => {
                if prime == 2 {
                    return i128::from(n.trailing_zeros().unwrap_or(0)) >= need;
                }
                let mut n = n.clone();
                let prime = BigUint::from(prime);
                let mut found: i128 = 0;
                while found < need && (&n % &prime) == BigUint::ZERO {
                    n /= &prime;
                    found += 1;
                }
                found >= need
            }
        }
    }

    fn hash_into<H: Hasher>(&self, hasher: &mut H) {
        match self {
            Self::Small(small) => hasher.write_u128(*small),
            Self::Big(big) => {
                for digit in big.iter_u64_digits() {
                    hasher.write_u64(digit);
                }
            }
        }
    }
}

impl Ord for Mantissa {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Small(a), Self::Small(b)) => a.cmp(b),
            (Self::Small(_), Self::Big(_)) => Ordering::Less,
            (Self::Big(_), Self::Small(_)) => Ordering::Greater,
            (Self::Big(a), Self::Big(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for Mantissa {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
#[path = "number/tests.rs"]
mod tests;
