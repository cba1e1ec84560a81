//! What the views share to read a body's members strictly: members no view reads walked and dropped by oa-schema's
//! strict walker ([`oa_schema::strict::Walk`], as a `serde_json::Value` parse reads them: same entry point, same
//! depth limit, same string and number checks; [`Skip`], [`drain_seq`], [`drain_map`]), and the members a view
//! reads refused where a `Value` might read them differently (a repeated member, [`once`]; serde_json's private
//! tokens as member names, [`next_member`]).

use std::borrow::Cow;
use std::fmt;

use oa_schema::strict::Walk;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

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

/// Any JSON value, read as strictly as a `serde_json::Value` parse reads it, and dropped; an object that starts
/// with a member named as one of serde_json's tokens, which a `Value` parse may read as something else, is
/// declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Skip;

/// The walk [`Skip`], [`drain_seq`] and [`drain_map`] take.
const WALK: Walk = Walk::new().declining_tokens();

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        WALK.deserialize(deserializer).map(|()| Skip)
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

/// The prefix of serde_json's private tokens (the keys its `arbitrary_precision` and `raw_value` features read
/// specially).
const TOKEN_PREFIX: &str = "$serde_json::private::";

/// Walks the rest of an array as [`Skip`] walks its elements.
pub(crate) fn drain_seq<'de, A: SeqAccess<'de>>(seq: A) -> Result<(), A::Error> {
    WALK.seq(seq)
}

/// Reads a map handed to `visit_map` as a `Value` parse would and keeps nothing but, when it was a number (under
/// serde_json's `arbitrary_precision`, a one-member map from its number token to the digits), the number. What
/// [`Skip`] declines is an error, so the view declines.
pub(super) fn drain_map<'de, A: MapAccess<'de>>(map: A) -> Result<Option<serde_json::Number>, A::Error> {
    WALK.map(map)
}

/// An object's next key, refused when named as one of serde_json's tokens (a `Value` parse may read the object as
/// something else); views match members on the returned text.
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
    use serde_json::Value;

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
        assert_eq!(
            value_reads_a_number,
            serde_json::from_slice::<Skip>(cases[0]).is_ok()
        );
        assert_eq!(
            serde_json::from_slice::<Counter>(cases[0]).ok(),
            value_reads_a_number.then_some(Counter(Some(12)))
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
