//! The member types of a view: each read from the body's bytes by its `Deserialize` and from a parsed `Value` by
//! [`Member::from_value`], by one rule, the rule of the `Value` accessor the mappings read that member with
//! (`as_str`, `as_bool`, `as_u64`, `as_array()?.first()`, `null` or a `T`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::walk::{Text, drain_map, drain_seq};
use super::{Member, Refusal, scalars_answer};

impl<'de> Member<'de> for Text<'de> {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        value
            .as_str()
            .map(|text| Text(Cow::Borrowed(text)))
            .ok_or(Refusal::Mismatch)
    }
}

/// One JSON value as the `Value` accessors the mappings use see it (`as_str`, `as_bool`, `as_u64`): a string, a
/// boolean or a number, or anything else (read as [`Skip`] reads it). [`AsStr`], [`AsBool`] and [`Counter`] each
/// keep their accessor's answer.
enum Scalar<'de> {
    Str(Text<'de>),
    Bool(bool),
    /// An unsigned integer of 64 bits, as serde_json visits one without `arbitrary_precision`.
    U64(u64),
    /// A number under `arbitrary_precision` (serde_json hands it over as its digits).
    Number(serde_json::Number),
    Other,
}

impl Scalar<'_> {
    /// What `Value::as_u64` answers.
    fn as_u64(&self) -> Option<u64> {
        match self {
            Self::U64(value) => Some(*value),
            Self::Number(number) => number.as_u64(),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(value))
    }

    /// A negative integer (`as_u64` says none).
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(Scalar::U64(value))
    }

    /// A float (`as_u64` says none).
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Text(Cow::Borrowed(text))))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Text(Cow::Owned(text.to_owned()))))
    }

    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Text(Cow::Owned(text))))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| Scalar::Other)
    }

    /// An object, or under `arbitrary_precision` a number.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(drain_map(map)?.map_or(Scalar::Other, Scalar::Number))
    }
}

/// A member read as `Value::as_str` reads it: the string, or `None` for any other value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AsStr<'de>(pub(crate) Option<Text<'de>>);

impl<'de> AsStr<'de> {
    /// The string, borrowed.
    pub(crate) fn as_str(&self) -> Option<&str> {
        self.0.as_ref().map(|text| text.0.as_ref())
    }

    /// The string of a member that may be absent.
    pub(crate) fn of(slot: Option<Self>) -> Option<Cow<'de, str>> {
        slot.and_then(|Self(text)| text).map(|Text(text)| text)
    }
}

impl<'de> Deserialize<'de> for AsStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Scalar::deserialize(deserializer).map(|scalar| match scalar {
            Scalar::Str(text) => AsStr(Some(text)),
            _ => AsStr(None),
        })
    }
}

impl<'de> Member<'de> for AsStr<'de> {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        Ok(AsStr(value.as_str().map(|text| Text(Cow::Borrowed(text)))))
    }
}

/// A member read as `Value::as_bool` reads it: the boolean, or `None` for any other value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AsBool(pub(crate) Option<bool>);

impl<'de> Deserialize<'de> for AsBool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Scalar::deserialize(deserializer).map(|scalar| match scalar {
            Scalar::Bool(value) => AsBool(Some(value)),
            _ => AsBool(None),
        })
    }
}

impl<'de> Member<'de> for AsBool {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        Ok(AsBool(value.as_bool()))
    }
}

/// A usage counter, read strictly (§7 *Malformed usage counter*) as `Value::as_u64` reads it: a non-negative
/// integer of 64 bits, else `None` (not reported).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counter(pub(crate) Option<u64>);

impl Counter {
    /// The count of a member that may be absent.
    pub(crate) fn of(slot: Option<Self>) -> Option<u64> {
        slot.and_then(|Self(count)| count)
    }
}

impl<'de> Deserialize<'de> for Counter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Scalar::deserialize(deserializer).map(|scalar| Counter(scalar.as_u64()))
    }
}

impl<'de> Member<'de> for Counter {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        Ok(Counter(value.as_u64()))
    }
}

/// `null`, or a `T`: anything else is of another shape (`T`'s refusal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NullOr<T>(pub(crate) Option<T>);

impl<T> NullOr<T> {
    /// The `T` of a member that may be absent or `null`.
    pub(crate) fn of(slot: Option<Self>) -> Option<T> {
        slot.and_then(|Self(value)| value)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NullOr<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // serde_json's `deserialize_option` reads `null` as none and hands anything else to `T`.
        Option::<T>::deserialize(deserializer).map(NullOr)
    }
}

impl<'de, T: Member<'de>> Member<'de> for NullOr<T> {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        match value {
            Value::Null => Ok(NullOr(None)),
            value => T::from_value(value).map(|value| NullOr(Some(value))),
        }
    }
}

/// An array of `T`s; any other value is of another shape.
impl<'de, T: Member<'de>> Member<'de> for Vec<T> {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        value
            .as_array()
            .ok_or(Refusal::Mismatch)?
            .iter()
            .map(T::from_value)
            .collect()
    }
}

/// A member kept as the `Value` it is (a tool call's arguments object, which the mapping writes out canonically).
impl<'de> Member<'de> for Value {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        Ok(value.clone())
    }
}

/// An array's first element read as `T`, the rest walked as [`Skip`] walks them; `None` when the array is empty
/// or the value is not an array (as `value.as_array()?.first()` reads a `Value`): `choices[0]`, `candidates[0]`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct First<T>(pub(crate) Option<T>);

impl<T> First<T> {
    /// The first element of a member that may be absent.
    pub(crate) fn of(slot: Option<Self>) -> Option<T> {
        slot.and_then(|Self(first)| first)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for First<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FirstVisitor(std::marker::PhantomData))
    }
}

impl<'de, T: Member<'de>> Member<'de> for First<T> {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        match value.as_array().and_then(|items| items.first()) {
            Some(first) => T::from_value(first).map(|first| First(Some(first))),
            None => Ok(First(None)),
        }
    }
}

struct FirstVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for FirstVisitor<T> {
    type Value = First<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    scalars_answer!(Ok::<_, Refusal>(First(None)));

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<First<T>, A::Error> {
        let first = seq.next_element::<T>()?;
        drain_seq(seq)?;
        Ok(First(first))
    }

    /// An object, or under `arbitrary_precision` a number: no first element.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map).map(|_| First(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_strings_read_as_the_value_accessors_read() {
        for text in [
            "0",
            "7",
            "-0",
            "-3",
            "3.0",
            "1e2",
            "18446744073709551615",
            "18446744073709551616",
            "\"7\"",
            "null",
            "[1]",
            "{\"a\":1}",
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let counter: Counter = serde_json::from_str(text).unwrap();
            assert_eq!(counter.0, value.as_u64(), "{text}");
            let as_str: AsStr<'_> = serde_json::from_str(text).unwrap();
            assert_eq!(as_str.as_str(), value.as_str(), "{text}");
        }
    }

    /// Both readings of `T` on `text`: from the bytes, and from the parsed `Value`.
    fn both<'de, T: Member<'de> + fmt::Debug + PartialEq>(text: &'de str, value: &'de Value) {
        let bytes = serde_json::from_str::<T>(text).ok();
        let parsed = T::from_value(value).ok();
        assert_eq!(bytes, parsed, "{} on {text}", std::any::type_name::<T>());
    }

    const VALUES: [&str; 16] = [
        "0",
        "7",
        "-3",
        "3.0",
        "1e400",
        "18446744073709551616",
        "\"7\"",
        "\"a\\nb\"",
        "\"\"",
        "true",
        "null",
        "[]",
        "[1,\"x\"]",
        "[\"x\",2]",
        "{}",
        "{\"a\":1}",
    ];

    #[test]
    fn each_member_type_reads_the_bytes_as_it_reads_a_value() {
        for text in VALUES {
            // 1e400 is a Value only under arbitrary_precision; a body that is no Value never takes that route.
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            both::<Text<'_>>(text, &value);
            both::<AsStr<'_>>(text, &value);
            both::<AsBool>(text, &value);
            both::<Counter>(text, &value);
            both::<NullOr<Text<'_>>>(text, &value);
            both::<First<Counter>>(text, &value);
            both::<First<Text<'_>>>(text, &value);
            both::<Vec<Counter>>(text, &value);
            both::<Value>(text, &value);
        }
    }
}
