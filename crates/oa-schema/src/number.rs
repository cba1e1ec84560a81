//! JSON numbers compared by value: schema bounds, `multipleOf`, integer tests, exactly and beyond f64.
//!
//! Every number is read as an exact decimal `±mantissa × 10^exponent` (see [`Decimal`]): with serde_json's
//! `arbitrary_precision` (our opt-in feature) from the digits as written, otherwise from the `i64`/`u64` or the
//! shortest decimal that round-trips the `f64` (the decimal the document wrote, up to 15 significant digits). Mantissas of up to 38 digits live in a `u128`; longer ones stay a
//! digit string, never a big integer, so reading a number is linear in its length. Nothing here raises 10 to a
//! power taken from the input, so an exponent like `1e999999999` costs no more than `1e9`: comparisons look at
//! decimal magnitudes first, then at the digits; `multipleOf` reduces the divisor by the powers of 10 the instance
//! carries and takes the instance's digits modulo what is left (time linear in the instance's digits, times the
//! divisor's length).
//!
//! Limit: exponents beyond ±4.6e18 saturate, so two numbers that differ only there compare equal. No JSON text a
//! parser accepts in practice comes near it.

use num_bigint::BigUint;
use serde_json::Number;
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::hash::Hasher;

mod short;

pub(crate) use short::cmp_with_int;

/// A number taken from a schema (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`), compiled once.
#[derive(Debug, Clone)]
pub(crate) struct SchemaNumber {
    value: Decimal,
    /// The bound as serde_json holds it, when that is an `i64` or an `f64` (only without `arbitrary_precision`,
    /// where instances are held the same way and compare exactly without building a [`Decimal`]).
    #[cfg(not(feature = "arbitrary_precision"))]
    plain: Plain,
}

/// A number as serde_json holds it without `arbitrary_precision`.
#[cfg(not(feature = "arbitrary_precision"))]
#[derive(Debug, Clone, Copy)]
enum Plain {
    Int(i64),
    Float(f64),
    Other,
}

#[cfg(not(feature = "arbitrary_precision"))]
impl Plain {
    fn of(number: &Number) -> Self {
        if let Some(int) = number.as_i64() {
            Self::Int(int)
        } else if number.is_f64() {
            number.as_f64().map_or(Self::Other, Self::Float)
        } else {
            Self::Other
        }
    }
}

impl SchemaNumber {
    /// Compiles a schema number.
    pub(crate) fn new(number: &Number) -> Self {
        Self {
            value: Decimal::from_number(number),
            #[cfg(not(feature = "arbitrary_precision"))]
            plain: Plain::of(number),
        }
    }

    /// How `instance` compares with this bound: `Less` means the instance is below it.
    pub(crate) fn cmp_instance(&self, instance: &Number) -> Ordering {
        // Fast path: two i64s, or two f64s (serde_json's f64s are finite, and comparing them is exact).
        #[cfg(not(feature = "arbitrary_precision"))]
        match (Plain::of(instance), self.plain) {
            (Plain::Int(a), Plain::Int(b)) => return a.cmp(&b),
            (Plain::Float(a), Plain::Float(b)) => return a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            _ => {}
        }
        Decimal::from_number(instance).cmp(&self.value)
    }
}

/// A compiled `multipleOf` divisor (the meta-schema guarantees it is > 0).
///
/// The divisor `m × 10^e` is kept as `m = 2^twos × 5^fives × rest` with `rest` coprime to 10. An instance
/// `n × 10^f` (canonical: `n` has no trailing zero) is a multiple exactly when `f >= e` and `n` is divisible by
/// `m / gcd(m, 10^(f-e)) = rest × 2^max(0, twos-(f-e)) × 5^max(0, fives-(f-e))`. (With `f < e`, `n` would need a
/// factor 10, which a canonical mantissa has not.)
#[derive(Debug, Clone)]
pub(crate) struct MultipleOf {
    /// `rest`; zero for a zero divisor, of which nothing is a multiple.
    rest: BigUint,
    twos: u64,
    fives: u64,
    exponent: i64,
}

impl MultipleOf {
    /// Compiles a divisor.
    pub(crate) fn new(divisor: &Number) -> Self {
        let decimal = Decimal::from_number(divisor);
        let mut rest = decimal.mantissa.to_big();
        let twos = rest.trailing_zeros().unwrap_or(0);
        rest >>= twos;
        let mut fives = 0;
        let five = BigUint::from(5u32);
        while rest != BigUint::ZERO && (&rest % &five) == BigUint::ZERO {
            rest /= &five;
            fives += 1;
        }
        Self {
            rest,
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
        if self.rest == BigUint::ZERO || value.exponent < self.exponent {
            return false;
        }
        // The powers of 10 the instance carries beyond the divisor's cancel the divisor's factors 2 and 5.
        let shift = u64::try_from(i128::from(value.exponent) - i128::from(self.exponent)).unwrap_or(u64::MAX);
        let twos = u32::try_from(self.twos.saturating_sub(shift)).unwrap_or(u32::MAX);
        let fives = u32::try_from(self.fives.saturating_sub(shift)).unwrap_or(u32::MAX);
        let modulus = &self.rest * BigUint::from(2u32).pow(twos) * BigUint::from(5u32).pow(fives);
        value.mantissa.is_divisible_by(&modulus)
    }
}

/// The number as an `i64` when it is written as a plain integer of at most 18 digits (always in range), read
/// without `str::parse`'s overflow checks; `None` for anything else (which may still be an integer by value).
/// Integer bounds and `type: integer` ask this of every instance number.
#[inline]
pub(crate) fn as_short_i64(number: &Number) -> Option<i64> {
    #[cfg(feature = "arbitrary_precision")]
    {
        let (negative, digits) = match number.as_str().as_bytes() {
            [b'-', rest @ ..] => (true, rest),
            bytes => (false, bytes),
        };
        if digits.is_empty() || digits.len() > 18 {
            return None;
        }
        let mut value: i64 = 0;
        for byte in digits {
            if !byte.is_ascii_digit() {
                return None;
            }
            value = value * 10 + i64::from(byte - b'0');
        }
        Some(if negative { -value } else { value })
    }
    #[cfg(not(feature = "arbitrary_precision"))]
    {
        number.as_i64()
    }
}

/// Whether a number is an integer by value (`1.0` and `1e400` are, `1.5` is not).
pub(crate) fn is_integer(number: &Number) -> bool {
    #[cfg(not(feature = "arbitrary_precision"))]
    {
        // The f64 is the value itself here, so its fractional part decides exactly.
        number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|float| float.fract() == 0.0)
    }
    #[cfg(feature = "arbitrary_precision")]
    {
        // One pass over the digits as written (`is_i64` would parse them again).
        Decimal::from_number(number).is_integer()
    }
}

/// The number as the nearest `f64`, as `Number::as_f64` gives it, reading short decimals (at most 15 significant
/// digits, no exponent) directly: their digits make an integer below 2^53 and the power of ten is exact, so one
/// correctly rounded division gives the correctly rounded value (Clinger's fast path). Bounds compare every
/// instance number this way, and with `arbitrary_precision` the general parser costs several times more.
#[inline]
pub(crate) fn to_f64(number: &Number) -> Option<f64> {
    #[cfg(feature = "arbitrary_precision")]
    if let Some(value) = short_decimal(number.as_str()) {
        return Some(value);
    }
    number.as_f64()
}

/// The fast path of [`to_f64`]: `-?digits(.digits)?` with at most 15 digits in all.
#[cfg(feature = "arbitrary_precision")]
fn short_decimal(text: &str) -> Option<f64> {
    const POWERS: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        bytes => (false, bytes),
    };
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut n_digits = 0;
    let mut n_fraction: Option<usize> = None;
    for byte in digits {
        match byte {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(byte - b'0');
                n_digits += 1;
                if let Some(n) = n_fraction.as_mut() {
                    *n += 1;
                }
            }
            b'.' if n_fraction.is_none() => n_fraction = Some(0),
            _ => return None,
        }
    }
    if n_digits > 15 || n_digits == 0 {
        return None;
    }
    #[allow(clippy::cast_precision_loss)] // Below 10^15 < 2^53: exact.
    let value = mantissa as f64 / POWERS.get(n_fraction.unwrap_or(0)).copied()?;
    Some(if negative { -value } else { value })
}

/// Whether two numbers are equal by value (`1 == 1.0`, and exactly so beyond f64).
pub(crate) fn numbers_equal(a: &Number, b: &Number) -> bool {
    #[cfg(feature = "arbitrary_precision")]
    {
        // The common cases without parsing: the same digits, or two different plain integers.
        let (x, y) = (a.as_str(), b.as_str());
        if crate::text::same_name(x, y) {
            return true;
        }
        if is_plain_integer(x) && is_plain_integer(y) {
            return false;
        }
    }
    #[cfg(not(feature = "arbitrary_precision"))]
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    Decimal::from_number(a) == Decimal::from_number(b)
}

/// Whether a number is a plain integer of at most 15 digits (see [`is_short_integer`]).
pub(crate) fn is_short_integer_number(number: &Number) -> bool {
    #[cfg(feature = "arbitrary_precision")]
    {
        is_short_integer(number.as_str())
    }
    #[cfg(not(feature = "arbitrary_precision"))]
    {
        number
            .as_i64()
            .is_some_and(|value| value.unsigned_abs() < 1_000_000_000_000_000)
    }
}

/// Whether `text` is a plain integer of at most 15 digits: its `f64` is exact.
pub(crate) fn is_short_integer(text: &str) -> bool {
    is_plain_integer(text) && text.trim_start_matches('-').len() <= 15
}

/// Whether `text` is an integer in canonical form (optional minus, digits without a leading zero, not `-0`), so
/// that two such texts are equal by value exactly when they are equal as strings.
fn is_plain_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.bytes().all(|byte| byte.is_ascii_digit())
        && (digits.len() == 1 || !digits.starts_with('0'))
        && text != "-0"
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

/// A float's `{:e}` text, written without allocating: at most 24 bytes (`-1.7976931348623157e308`), so 32 hold any.
#[derive(Default)]
struct ShortText {
    bytes: [u8; 32],
    len: usize,
}

impl ShortText {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are written in, so the bytes are UTF-8.
        std::str::from_utf8(self.bytes.get(..self.len).unwrap_or_default()).unwrap_or_default()
    }
}

impl std::fmt::Write for ShortText {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let end = self.len + text.len();
        self.bytes
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Mantissas of at most this many digits are held in a `u128` (whose maximum has 39 digits).
const MAX_SMALL_DIGITS: u64 = 38;

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
            // whenever the f64 could hold it (every decimal of at most 15 significant digits in its range). An f64
            // Number is always finite. Written on the stack: `is_valid` allocates nothing on valid instances.
            Some(float) if float.is_finite() => {
                let mut text = ShortText::default();
                match write!(text, "{float:e}") {
                    Ok(()) => Self::parse(text.as_str()).unwrap_or_else(Self::zero),
                    Err(_) => Self::zero(),
                }
            }
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
        let mantissa = if n_digits <= MAX_SMALL_DIGITS {
            Mantissa::Small(significant.fold(0u128, |acc, d| acc * 10 + u128::from(d - b'0')))
        } else {
            Mantissa::Digits(significant.collect())
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
    #[cfg_attr(not(feature = "arbitrary_precision"), allow(dead_code))] // Only the exact path asks.
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
        // Same magnitude: the leading digits line up, so compare digit by digit. Without trailing zeros, when one
        // digit string is a prefix of the other, the longer one is larger.
        if let (Mantissa::Small(a), Mantissa::Small(b)) = (&self.mantissa, &other.mantissa)
            && self.exponent == other.exponent
        {
            return a.cmp(b);
        }
        self.mantissa
            .digits()
            .as_bytes()
            .cmp(other.mantissa.digits().as_bytes())
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

/// A canonical mantissa: no trailing zero digit, `Small` exactly when it has at most [`MAX_SMALL_DIGITS`] digits,
/// so equal values have equal representations.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mantissa {
    Small(u128),
    /// ASCII digits, most significant first, no leading or trailing zero.
    Digits(Box<[u8]>),
}

impl Mantissa {
    fn is_zero(&self) -> bool {
        matches!(self, Self::Small(0))
    }

    fn to_big(&self) -> BigUint {
        match self {
            Self::Small(small) => BigUint::from(*small),
            Self::Digits(digits) => BigUint::parse_bytes(digits, 10).unwrap_or_default(),
        }
    }

    /// The decimal digits, most significant first.
    fn digits(&self) -> DigitString<'_> {
        match self {
            Self::Small(small) => {
                let mut buffer = [0u8; 39];
                let mut value = *small;
                let mut start = buffer.len();
                loop {
                    start -= 1;
                    buffer[start] = b'0' + (value % 10) as u8;
                    value /= 10;
                    if value == 0 {
                        break;
                    }
                }
                DigitString::Inline { buffer, start }
            }
            Self::Digits(digits) => DigitString::Borrowed(digits),
        }
    }

    /// Whether `modulus` divides the mantissa: Horner's rule over the digits, in `u128` when the modulus allows.
    fn is_divisible_by(&self, modulus: &BigUint) -> bool {
        if let Ok(small_modulus) = u64::try_from(modulus) {
            let small_modulus = u128::from(small_modulus.max(1));
            if let Self::Small(value) = self {
                return value % small_modulus == 0;
            }
            let remainder = self.digits().as_bytes().iter().fold(0u128, |remainder, digit| {
                (remainder * 10 + u128::from(digit - b'0')) % small_modulus
            });
            return remainder == 0;
        }
        let ten = BigUint::from(10u32);
        let mut remainder = BigUint::ZERO;
        for digit in self.digits().as_bytes() {
            remainder = (remainder * &ten + BigUint::from(digit - b'0')) % modulus;
        }
        remainder == BigUint::ZERO
    }

    fn hash_into<H: Hasher>(&self, hasher: &mut H) {
        match self {
            Self::Small(small) => hasher.write_u128(*small),
            Self::Digits(digits) => hasher.write(digits),
        }
    }
}

/// Digits of a mantissa without allocating: inline for a `u128`, borrowed for a digit string.
enum DigitString<'a> {
    Inline { buffer: [u8; 39], start: usize },
    Borrowed(&'a [u8]),
}

impl DigitString<'_> {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { buffer, start } => &buffer[*start..],
            Self::Borrowed(digits) => digits,
        }
    }
}

#[cfg(test)]
#[path = "number/tests.rs"]
mod tests;
