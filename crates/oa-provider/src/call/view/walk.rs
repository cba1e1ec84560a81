//! The strict member walker the views share: a body's members read as a `serde_json::Value` parse reads them (same
//! entry points, same depth limit, same string and number checks), anything a `Value` might read differently
//! refused (a repeated member, serde_json's private tokens as member names), and members no view reads walked
//! and dropped ([`Skip`]).

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Implements a visitor's scalar methods (bool, integer, float, string, null) as one answer, a `Result` whose
/// error is `Display`: for a reading that takes a value of any type and only looks inside objects (as
/// `Value::get` finds members of objects only) or arrays, and for [`Skip`].
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

    scalars_answer!(Ok::<_, std::convert::Infallible>(Skip));

    fn visit_i128<E>(self, _: i128) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u128<E>(self, _: u128) -> Result<Skip, E> {
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
pub(super) fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Option<serde_json::Number>, A::Error> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::view::Counter;

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
}
