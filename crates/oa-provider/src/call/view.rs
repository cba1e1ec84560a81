//! What the mappings' typed views of a response body share ([`WireFormat::map_bytes`](crate::call::wire::WireFormat)).
//!
//! A view reads the body straight from its bytes and promises that the body would parse as a `Value` too, so the
//! response's `raw` can be parsed later, on demand. serde's `IgnoredAny` (what `#[derive(Deserialize)]` uses for
//! unknown members) cannot keep that promise: serde_json skips such values with no depth limit, so a body nested
//! past the limit a `Value` parse enforces would pass the view and then fail as `raw`. Members a view does not use
//! are read through [`Skip`] instead, which walks them as a `Value` parse does (same entry point, same limit, same
//! string and number checks) and keeps nothing.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

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

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    /// An object, or (under serde_json's `arbitrary_precision`) a number, which arrives as a one-member map.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }
}

/// A JSON string, borrowed from the body when it has no escapes (serde's own `Cow<str>` always copies).
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
/// not guess which one the reference mapping read, it declines the body.
pub(crate) fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
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
