//! The mappings' views of a response body, and what they share: each mapping lists, in a member table
//! ([`view!`]), the members it reads and the type each is read as; the macro writes both readings from that one
//! table, so a response field has one home.
//!
//! - **The bytes route** ([`WireFormat::map_bytes`](crate::call::wire::WireFormat)): the body read straight from
//!   its bytes, strings borrowed where they have no escapes, no `Value` built. It promises that the body would
//!   parse as a `Value` too, so the response's `raw` can be parsed later, on demand. serde's `IgnoredAny` (what
//!   `#[derive(Deserialize)]` uses for unknown members) cannot keep that promise: serde_json skips such values with
//!   no depth limit, so a body nested past the limit a `Value` parse enforces would pass the view and then fail as
//!   `raw`. Members a view does not use are read through [`Skip`] instead, which walks them as a `Value` parse does
//!   (same entry point, same limit, same string and number checks) and keeps nothing. Whatever a `Value` might
//!   read differently is an error, so the view declines and the driver takes the `Value` route: a repeated member
//!   (a `Value` keeps the last), a member named as one of serde_json's private tokens, a member of another shape.
//! - **The `Value` route** ([`Member::from_value`]): the same members of a parsed body, each read by the same
//!   type's rule, a member of another shape refused in the words the mapping gives it ([`Refusal`]), which become
//!   the `provider_invalid_response` error.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::ProviderError;

/// Why a reading refused a value: it was of another shape than the member's type ([`Mismatch`](Self::Mismatch),
/// named by the member or view that holds it), or the refusal says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Another shape; the holder names it.
    Mismatch,
    /// What was wrong, in the words of the `provider_invalid_response` error.
    Says(Cow<'static, str>),
}

impl Refusal {
    /// A refusal in these words.
    pub(crate) fn says(text: impl Into<Cow<'static, str>>) -> Self {
        Self::Says(text.into())
    }

    /// A mismatch named `label`, when there is one; any other refusal as it is.
    pub(crate) fn or(self, label: Option<&'static str>) -> Self {
        match (self, label) {
            (Self::Mismatch, Some(label)) => Self::says(label),
            (refusal, _) => refusal,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mismatch => f.write_str("a value of another shape"),
            Self::Says(text) => f.write_str(text),
        }
    }
}

/// A member type of a view: read from the body's bytes by its `Deserialize`, and from a parsed `Value` by
/// [`from_value`](Self::from_value), by one rule. The views [`view!`] writes are members too.
pub(crate) trait Member<'de>: Deserialize<'de> {
    /// The member read from a parsed `Value`, as `Deserialize` reads it from the bytes.
    fn from_value(value: &'de Value) -> Result<Self, Refusal>;
}

/// Reads a body's bytes as the view `V` reads them; `None` when it declines (see the module doc).
pub(crate) fn read_bytes<'de, V: Deserialize<'de>>(body: &'de [u8]) -> Option<V> {
    serde_json::from_slice(body).ok()
}

/// Reads a parsed body as the view `V` reads it; a refusal is the `provider_invalid_response` error it says.
pub(crate) fn read_value<'de, V: Member<'de>>(body: &'de Value) -> Result<V, ProviderError> {
    V::from_value(body).map_err(|refusal| ProviderError::invalid_response(refusal.to_string()))
}

/// Writes a view from its member table: the type's `Deserialize` (the bytes route: each listed member read once
/// as its type, every other member walked as [`Skip`], a repeated member or one named as a serde_json token
/// refused) and its [`Member::from_value`] (the `Value` route: each listed member looked up in the parsed object
/// and read by the same type's rule), both ending in one `finish` that makes the view from the members found.
///
/// ```text
/// view! {
///     View<'de>: object else "the words for a view of another shape" {
///         slot: Type = "member" else "the words for a member of another shape",
///         …
///     } => finish   // each slot an Option<Type> (None: absent); a Result<View, Refusal>
/// }
/// ```
///
/// `object`: a value of another type is refused; `any`: it is read as an object without members (as
/// `Value::get` finds members of objects only). The `else` words name a [`Refusal::Mismatch`] of the member
/// (or, on the view, of the view and of its members without words of their own); where there are none, the
/// holder names it.
macro_rules! view {
    (
        $name:ident $(<$lt:lifetime>)? : $kind:ident $(else $refused:literal)? {
            $($slot:ident : $ty:ty = $key:literal $(else $member_refused:expr)?),+ $(,)?
        } => $finish:expr
    ) => {
        impl<'de> $name $(<$lt>)? {
            /// The view from the members found (`None`: absent).
            #[allow(clippy::too_many_arguments, reason = "one argument per row of the member table")]
            #[inline]
            fn finish($($slot: Option<$ty>),+) -> Result<Self, $crate::call::view::Refusal> {
                $finish
            }
        }

        impl<'de> serde::Deserialize<'de> for $name $(<$lt>)? {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Members;

                impl<'de> serde::de::Visitor<'de> for Members {
                    type Value = $name $(<$lt>)?;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($crate::call::view::view!(@expecting $kind))
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Self::Value, A::Error> {
                        $(let mut $slot: Option<$ty> = None;)+
                        while let Some(key) = $crate::call::view::next_member(&mut map)? {
                            match key.0.as_ref() {
                                $($key => $crate::call::view::once(&mut $slot, map.next_value::<$ty>()?, $key)?,)+
                                _ => {
                                    map.next_value::<$crate::call::view::Skip>()?;
                                }
                            }
                        }
                        <$name $(<$lt>)?>::finish($($slot),+).map_err(serde::de::Error::custom)
                    }

                    $crate::call::view::view!(@scalars $kind <$name $(<$lt>)?>::finish($(None::<$ty>),+));
                }

                $crate::call::view::view!(@entry $kind deserializer Members)
            }
        }

        impl<'de> $crate::call::view::Member<'de> for $name $(<$lt>)? {
            fn from_value(value: &'de serde_json::Value) -> Result<Self, $crate::call::view::Refusal> {
                let read = || -> Result<Self, $crate::call::view::Refusal> {
                    let object = $crate::call::view::view!(@object $kind value)?;
                    $(let $slot = match object.and_then(|object| object.get($key)) {
                        Some(member) => Some(
                            <$ty as $crate::call::view::Member<'de>>::from_value(member).map_err(|refusal| {
                                refusal.or($crate::call::view::view!(@label $($member_refused)?))
                            })?,
                        ),
                        None => None,
                    };)+
                    Self::finish($($slot),+)
                };
                read().map_err(|refusal| refusal.or($crate::call::view::view!(@label $($refused)?)))
            }
        }
    };
    (@expecting object) => { "a JSON object" };
    (@expecting any) => { "any JSON value" };
    (@entry object $deserializer:ident $visitor:ident) => { $deserializer.deserialize_map($visitor) };
    (@entry any $deserializer:ident $visitor:ident) => { $deserializer.deserialize_any($visitor) };
    (@object object $value:ident) => {
        $value.as_object().map(Some).ok_or($crate::call::view::Refusal::Mismatch)
    };
    (@object any $value:ident) => { Ok::<_, $crate::call::view::Refusal>($value.as_object()) };
    (@scalars object $answer:expr) => {};
    (@scalars any $answer:expr) => {
        $crate::call::view::scalars_answer!($answer);

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            $crate::call::view::drain_seq(seq)?;
            $answer.map_err(serde::de::Error::custom)
        }
    };
    (@label) => { None };
    (@label $label:expr) => { Some($label) };
}
pub(crate) use view;

/// Implements a visitor's scalar methods (bool, integer, float, string, null) as one answer, a
/// `Result<_, Refusal>`: for a reading that takes a value of any type and only looks inside objects (as
/// `Value::get` finds members of objects only) or arrays.
macro_rules! scalars_answer {
    ($answer:expr) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            $answer.map_err(E::custom)
        }

        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            $answer.map_err(E::custom)
        }

        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            $answer.map_err(E::custom)
        }

        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            $answer.map_err(E::custom)
        }

        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            $answer.map_err(E::custom)
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            $answer.map_err(E::custom)
        }
    };
}
pub(crate) use scalars_answer;

/// Any JSON value, read as strictly as a `serde_json::Value` parse reads it, and dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i128<E>(self, _: i128) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u128<E>(self, _: u128) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Skip, D::Error> {
        Skip::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skip, A::Error> {
        drain_seq(seq).map(|()| Skip)
    }

    /// An object, or (under serde_json's `arbitrary_precision`) a number, which arrives as a one-member map.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skip, A::Error> {
        drain_map(map).map(|_| Skip)
    }
}

/// A JSON string, borrowed from the body when it has no escapes (serde's own `Cow<str>` always copies); any other
/// value is of another shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text<'de>(pub(crate) Cow<'de, str>);

impl<'de> Text<'de> {
    /// The text, owned (a copy only when it was borrowed).
    pub(crate) fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

impl<'de> Member<'de> for Text<'de> {
    fn from_value(value: &'de Value) -> Result<Self, Refusal> {
        value
            .as_str()
            .map(|text| Text(Cow::Borrowed(text)))
            .ok_or(Refusal::Mismatch)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E>(self, text: String) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(text)))
    }
}

/// Sets a member's slot, refusing a member seen twice: a `Value` keeps the last of repeated keys, and a view does
/// not guess which one the `Value` route would read, it declines the body.
pub(crate) fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

/// The key serde_json gives a number under its `arbitrary_precision` feature: `deserialize_any` hands the number
/// over as a one-member map from this key to the number's digits. A `Value` parse reads a JSON object whose first
/// key is this text the same way (a number, if its one member is a numeric string; else an error).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// The key serde_json's `raw_value` feature reads specially; a view declines an object that starts with it.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The prefix of serde_json's private tokens ([`NUMBER_TOKEN`], [`RAW_VALUE_TOKEN`]).
const TOKEN_PREFIX: &str = "$serde_json::private::";

/// Whether this build's serde_json has `arbitrary_precision` (features unify across the build, so the crate
/// cannot know at compile time): then `deserialize_any` hands numbers over as [`NUMBER_TOKEN`] maps.
fn numbers_arrive_as_maps() -> bool {
    static ARBITRARY_PRECISION: LazyLock<bool> = LazyLock::new(|| {
        serde_json::from_str::<Value>(r#"{"$serde_json::private::Number":"1"}"#)
            .is_ok_and(|value| value.is_number())
    });
    *ARBITRARY_PRECISION
}

/// Walks the rest of an array as [`Skip`] walks its elements.
pub(crate) fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Skip>()?.is_some() {}
    Ok(())
}

/// Reads a map handed to `visit_map` as a `Value` parse would and keeps nothing but, when it was a number (see
/// [`NUMBER_TOKEN`]), the number. Anything a `Value` parse might read differently is an error, so the view
/// declines: the token key in a build without `arbitrary_precision`, the raw-value token.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Option<serde_json::Number>, A::Error> {
    let Some(first) = map.next_key::<Text<'de>>()? else {
        return Ok(None);
    };
    match first.0.as_ref() {
        NUMBER_TOKEN => {
            if !numbers_arrive_as_maps() {
                return Err(de::Error::custom("a member named as serde_json's number token"));
            }
            let digits: Text<'de> = map.next_value()?;
            let number = digits
                .0
                .parse::<serde_json::Number>()
                .map_err(de::Error::custom)?;
            if map.next_key::<Skip>()?.is_some() {
                return Err(de::Error::custom("a number token with more members"));
            }
            Ok(Some(number))
        }
        RAW_VALUE_TOKEN => Err(de::Error::custom(
            "a member named as serde_json's raw-value token",
        )),
        _ => {
            map.next_value::<Skip>()?;
            while map.next_key::<Skip>()?.is_some() {
                map.next_value::<Skip>()?;
            }
            Ok(None)
        }
    }
}

/// An object's next key, refused when a `Value` parse would read the object as something else (see
/// [`NUMBER_TOKEN`]); views match members on the returned text.
pub(crate) fn next_member<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Text<'de>>, A::Error> {
    let key = map.next_key::<Text<'de>>()?;
    if let Some(Text(text)) = &key
        && text.starts_with(TOKEN_PREFIX)
    {
        return Err(de::Error::custom("a member named as one of serde_json's tokens"));
    }
    Ok(key)
}

/// One JSON value as the `Value` accessors the mappings use see it (`as_str`, `as_bool`, `as_u64`): a string, a
/// boolean or a number, or anything else (read as [`Skip`] reads it). [`AsStr`], [`AsBool`] and [`Counter`] each
/// keep their accessor's answer.
enum Scalar<'de> {
    Str(Text<'de>),
    Bool(bool),
    /// An unsigned integer of 64 bits, as serde_json visits one without `arbitrary_precision`.
    U64(u64),
    /// A number under `arbitrary_precision` (see [`NUMBER_TOKEN`]).
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

    fn agrees(body: &[u8]) {
        let skipped = serde_json::from_slice::<Skip>(body).is_ok();
        let value = serde_json::from_slice::<Value>(body).is_ok();
        assert_eq!(skipped, value, "{}", String::from_utf8_lossy(body));
    }

    #[test]
    fn skip_accepts_exactly_what_a_value_parse_accepts() {
        let deep_ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
        let too_deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        let cases: Vec<&[u8]> = vec![
            br#"{"a":[1,-2,3.5,1e3,true,null,"x\u00e9"],"b":{"c":{}}}"#,
            b"18446744073709551616",
            b"1e400",
            b"-0",
            br#""\ud800""#,
            br#""\ud83d\ude00""#,
            b"\"\xff\"",
            b"{\"a\":1,}",
            b"[1 2]",
            b"{\"a\":1} x",
            b"\"tab\there\"",
            deep_ok.as_bytes(),
            too_deep.as_bytes(),
        ];
        for body in cases {
            agrees(body);
        }
        // The limit is the one that matters: past it, a Value parse fails, and so does Skip (IgnoredAny does not).
        assert!(serde_json::from_slice::<Skip>(too_deep.as_bytes()).is_err());
        assert!(serde_json::from_slice::<de::IgnoredAny>(too_deep.as_bytes()).is_ok());
    }

    #[test]
    fn serde_json_tokens_as_member_names_never_pass_where_a_value_parse_fails() {
        let cases: [&[u8]; 5] = [
            br#"{"$serde_json::private::Number":"12"}"#,
            br#"{"$serde_json::private::Number":"x"}"#,
            br#"{"$serde_json::private::Number":"12","x":1}"#,
            br#"{"$serde_json::private::Number":12}"#,
            br#"{"$serde_json::private::RawValue":"1"}"#,
        ];
        for body in cases {
            // The promise runs one way: what Skip reads, a Value parse reads (declining more is allowed).
            if serde_json::from_slice::<Skip>(body).is_ok() {
                assert!(
                    serde_json::from_slice::<Value>(body).is_ok(),
                    "{}",
                    String::from_utf8_lossy(body)
                );
            }
        }
        // The build decides (serde_json's arbitrary_precision, which features unify): with it, a lone numeric token
        // member is a number, as a Value parse reads it; without it, an object of one oddly named member, which the
        // view declines (a Value parse would read the object, and no reading of the reference looks at such names).
        let value_reads_a_number =
            serde_json::from_slice::<Value>(cases[0]).is_ok_and(|value| value.is_number());
        assert_eq!(numbers_arrive_as_maps(), value_reads_a_number);
        assert_eq!(
            numbers_arrive_as_maps(),
            serde_json::from_slice::<Skip>(cases[0]).is_ok()
        );
        assert_eq!(
            serde_json::from_slice::<Counter>(cases[0]).ok(),
            numbers_arrive_as_maps().then_some(Counter(Some(12)))
        );
    }

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

    #[test]
    fn text_borrows_unless_it_had_escapes() {
        let plain: Text<'_> = serde_json::from_str(r#""plain""#).unwrap();
        assert!(matches!(plain.0, Cow::Borrowed("plain")));
        let escaped: Text<'_> = serde_json::from_str(r#""a\nb""#).unwrap();
        assert!(matches!(escaped.0, Cow::Owned(ref text) if text == "a\nb"));
        assert!(serde_json::from_str::<Text<'_>>("7").is_err());
    }

    #[test]
    fn once_refuses_a_second_member() {
        let mut slot = None;
        once::<_, serde_json::Error>(&mut slot, 1, "a").unwrap();
        assert!(once::<_, serde_json::Error>(&mut slot, 2, "a").is_err());
        assert_eq!(slot, Some(1));
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

    /// A view written by the macro: one member of each kind, words on the view and on one member.
    #[derive(Debug, PartialEq)]
    struct Sample<'de> {
        name: Option<Cow<'de, str>>,
        count: Option<u64>,
        tags: Vec<Text<'de>>,
        inner: Option<u64>,
    }

    view! {
        Sample<'de>: object else "not a sample" {
            name: AsStr<'de> = "name",
            count: Counter = "count",
            tags: NullOr<Vec<Text<'de>>> = "tags" else "tags are not strings",
            inner: Inner = "inner",
        } => Ok(Sample {
            name: AsStr::of(name),
            count: Counter::of(count),
            tags: NullOr::of(tags).unwrap_or_default(),
            inner: inner.and_then(|Inner(count)| count),
        })
    }

    /// An `any` view: a value of another type reads as an object without members.
    #[derive(Debug, PartialEq)]
    struct Inner(Option<u64>);

    view! {
        Inner: any {
            count: Counter = "count",
        } => Ok(Inner(Counter::of(count)))
    }

    #[test]
    fn a_view_reads_its_table_from_the_bytes_as_from_a_value() {
        let read = |text: &str| {
            let bytes = serde_json::from_str::<Sample<'_>>(text).ok();
            let value: Value = serde_json::from_str(text).unwrap();
            let parsed = Sample::from_value(&value);
            (
                bytes.map(|sample| format!("{sample:?}")),
                parsed.map(|sample| format!("{sample:?}")),
            )
        };
        let same = |text: &str| {
            let (bytes, parsed) = read(text);
            assert_eq!(bytes, parsed.ok(), "{text}");
        };
        same(r#"{"name":"n","count":3,"tags":["a","b\u00e9"],"inner":{"count":2},"other":[[{}]]}"#);
        same(r#"{"name":5,"count":-1,"tags":null,"inner":"x"}"#);
        same(r#"{"\u006eame":"escaped key","inner":[1]}"#);
        same("{}");
        // Refused in the table's words: a view of another shape, a member of another shape.
        assert_eq!(read("[1]").1, Err(Refusal::says("not a sample")));
        assert_eq!(
            read(r#"{"tags":"x"}"#).1,
            Err(Refusal::says("tags are not strings"))
        );
        // A member without words of its own takes the view's.
        assert_eq!(
            read(r#"{"tags":[1]}"#).1,
            Err(Refusal::says("tags are not strings"))
        );
        // What only the bytes show is declined there: a repeated member, serde_json's tokens as names.
        assert_eq!(read(r#"{"count":1,"count":2}"#).0, None);
        assert_eq!(read(r#"{"$serde_json::private::RawValue":1}"#).0, None);
        assert_eq!(read(r#"{"inner":{"count":1,"count":1}}"#).0, None);
    }
}
