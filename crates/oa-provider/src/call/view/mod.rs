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

mod members;
mod walk;

use std::borrow::Cow;
use std::fmt;

use serde::de::Deserialize;
use serde_json::Value;

pub(crate) use members::{AsBool, AsStr, Counter, First, NullOr};
pub(crate) use walk::{Skip, Text, drain_seq, next_member, once, scalars_answer};

use crate::model::ProviderError;

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

/// A mapping's two routes into its body view `$body`, both ending in its `$map`: `map_bytes` (the bytes route,
/// `None` when it declines) and `map_body` (a parsed body). The same two functions in each mapping's `view`.
macro_rules! routes {
    ($body:ident => $map:ident) => {
        /// Maps a body through the bytes route; `None` when it declines (see [`crate::call::view`]).
        pub(crate) fn map_bytes(
            body: &[u8],
            tools: &$crate::structured::CheckedTools<'_>,
        ) -> Option<Result<$crate::call::wire::Mapped, $crate::model::ProviderError>> {
            $crate::call::view::read_bytes::<$body<'_>>(body).map(|body| $map(body, tools))
        }

        /// Maps a parsed body (the route a body the bytes route declines takes).
        pub(crate) fn map_body(
            body: &serde_json::Value,
            tools: &$crate::structured::CheckedTools<'_>,
        ) -> Result<$crate::call::wire::Mapped, $crate::model::ProviderError> {
            $map($crate::call::view::read_value::<$body<'_>>(body)?, tools)
        }
    };
}
pub(crate) use routes;

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

#[cfg(test)]
mod tests {
    use super::*;

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
