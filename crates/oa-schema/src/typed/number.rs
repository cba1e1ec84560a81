//! Numbers' digits: read as the target asked (its hint) where serde_json keeps them (the [`NUMBER_TOKEN`] map), so
//! that the target gets what it would from the parsed value.

use crate::strict::NUMBER_TOKEN;
use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use std::fmt;

/// The numeric hints a target may give, so that a number seen only as digits is read as the target asked.
#[derive(Clone, Copy)]
pub(super) enum NumberHint {
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
}

/// A deserializer that gives its value only when serde_json shows it as an owned string, which is how it shows a
/// number's digits (a real member's string value comes borrowed or as `visit_str`).
pub(super) struct OnlyString<D>(pub(super) D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for OnlyString<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(OwnedOnly(visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct OwnedOnly<V>(pub(super) V);

impl<'de, V: Visitor<'de>> Visitor<'de> for OwnedOnly<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number's digits")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        // A member's string value, not a number's digits.
        Err(E::invalid_type(de::Unexpected::Str(v), &self))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_string(v)
    }
}

/// The seed of a number's digits.
pub(super) struct OwnedDigits;

impl<'de> DeserializeSeed<'de> for OwnedDigits {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        de::Deserialize::deserialize(OnlyString(deserializer))
    }
}

/// Reads a number's digits as the target asked, as serde_json's `Number` does for such digits (`str::parse` into
/// the asked type, "invalid number" when it does not fit), so that `T` gets what it would from the parsed value.
pub(super) fn by_hint<'de, V: Visitor<'de>, E: de::Error>(
    digits: &str,
    hint: NumberHint,
    visitor: V,
) -> Result<V::Value, E> {
    fn parsed<N: std::str::FromStr, E: de::Error>(digits: &str) -> Result<N, E> {
        digits.parse().map_err(|_| E::custom("invalid number"))
    }
    match hint {
        NumberHint::I8 => visitor.visit_i8(parsed(digits)?),
        NumberHint::I16 => visitor.visit_i16(parsed(digits)?),
        NumberHint::I32 => visitor.visit_i32(parsed(digits)?),
        NumberHint::I64 => visitor.visit_i64(parsed(digits)?),
        NumberHint::I128 => visitor.visit_i128(parsed(digits)?),
        NumberHint::U8 => visitor.visit_u8(parsed(digits)?),
        NumberHint::U16 => visitor.visit_u16(parsed(digits)?),
        NumberHint::U32 => visitor.visit_u32(parsed(digits)?),
        NumberHint::U64 => visitor.visit_u64(parsed(digits)?),
        NumberHint::U128 => visitor.visit_u128(parsed(digits)?),
        NumberHint::F32 => visitor.visit_f32(parsed(digits)?),
        NumberHint::F64 => visitor.visit_f64(parsed(digits)?),
    }
}

/// The seed of a number map's key: whether it is [`NUMBER_TOKEN`] (read without a copy).
pub(super) struct IsNumberToken;

impl<'de> DeserializeSeed<'de> for IsNumberToken {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for IsNumberToken {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == NUMBER_TOKEN)
    }
}
