//! Reading JSON strictly through serde, in one place: [`Walk`], which reads a value as a `serde_json::Value`
//! parse reads it and keeps nothing, so a reader that builds no `Value` can still promise that one would parse.
//! `parse_json`'s duplicate check is a [`Walk`], and so is oa-provider's walk of the response members its views
//! do not read. Within the crate: serde_json's private tokens and whether this build shows numbers as digits,
//! and the member names of one object (a repeat refused), which the typed route notes in `MemberNames`.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

/// The key serde_json (with `arbitrary_precision`) gives a number it cannot visit as `u64` or `i64`: a one-member
/// map from this key to the number's digits.
pub(crate) const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// What the names of serde_json's private newtypes (`RawValue`, the number token) start with.
pub(crate) const PRIVATE_PREFIX: &str = "$serde_json::private::";

/// Whether serde_json keeps a number's digits in this build: its `arbitrary_precision`, on with ours, and possibly
/// turned on by another crate of the build without ours (features unify). When it does, a number that is not a
/// 64-bit integer arrives as its digits (a [`NUMBER_TOKEN`] map) or, read as `f64`, rounded; when it does not, it
/// arrives as the very `f64` a parsed `Value` holds.
pub(crate) fn numbers_keep_digits() -> bool {
    #[cfg(feature = "arbitrary_precision")]
    {
        true
    }
    #[cfg(not(feature = "arbitrary_precision"))]
    {
        static KEEP_DIGITS: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
            "1.10"
                .parse::<serde_json::Number>()
                .is_ok_and(|number| number.to_string() == "1.10")
        });
        *KEEP_DIGITS
    }
}

/// How many names [`MemberNames`] compares one by one before it hashes them.
const COMPARED_NAMES: usize = 64;

/// The member names of one object met so far: a name met twice is a repeat, which RFC 8259 allows but a `Value`
/// resolves by keeping the last, so a strict reader refuses it. Few names are compared in a list (no hashing, no
/// table for the usual small object); many are hashed.
#[derive(Debug, Default)]
pub(crate) struct MemberNames {
    few: Vec<String>,
    /// Every name, once there are more than [`COMPARED_NAMES`] (made then: a hash set's keys cost a little to set
    /// up, on every object).
    many: Option<HashSet<String>>,
}

impl MemberNames {
    /// Notes `name`; `false` when it was met before.
    pub(crate) fn insert(&mut self, name: &str) -> bool {
        let many = match &mut self.many {
            Some(many) => many,
            None => {
                if self.few.iter().any(|seen| seen == name) {
                    return false;
                }
                if self.few.len() < COMPARED_NAMES {
                    self.few.push(name.to_owned());
                    return true;
                }
                self.many.insert(self.few.drain(..).collect())
            }
        };
        many.insert(name.to_owned())
    }

    /// How many names were noted.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.few.len() + self.many.as_ref().map_or(0, HashSet::len)
    }
}

/// Walks one JSON value as a `serde_json::Value` parse reads it and keeps nothing: what a walk accepts, a `Value`
/// parse of the same text accepts. Reading from serde_json, it takes the same entry point as a `Value` parse
/// (`deserialize_any`), so the same nesting limit (128), string and number checks apply; serde's `IgnoredAny` skips
/// without that limit. A number serde_json hands over as its digits (under its `arbitrary_precision` feature: a
/// one-member map from a private token) is checked as a `Value` parse checks it.
///
/// Two refusals on request: [`refusing_repeats`](Self::refusing_repeats) refuses an object with a member name met
/// twice (RFC 8259 allows it; a `Value` keeps the last); [`declining_tokens`](Self::declining_tokens) refuses an
/// object whose first member is named as one of serde_json's private tokens where the build may read it as
/// something other than an object (a reader that must agree with a `Value` parse without parsing one declines
/// such text rather than guess). The walk is a [`DeserializeSeed`]; [`map`](Self::map) and [`seq`](Self::seq)
/// walk the rest of an object or array a caller's own visitor was handed.
///
/// ```
/// use oa_schema::strict::Walk;
/// use serde::de::DeserializeSeed;
///
/// fn walk(text: &str, walk: Walk) -> Result<(), serde_json::Error> {
///     let mut deserializer = serde_json::Deserializer::from_str(text);
///     walk.deserialize(&mut deserializer)?;
///     deserializer.end()
/// }
///
/// let repeated = r#"{"a": {"b": 1, "b": 2}}"#;
/// assert!(walk(repeated, Walk::new()).is_ok());
/// assert!(walk(repeated, Walk::new().refusing_repeats()).is_err());
/// // Deeper than a `Value` parse reads: refused, as there.
/// let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
/// assert!(walk(&deep, Walk::new()).is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Walk {
    refuse_repeats: bool,
    decline_tokens: bool,
}

/// How [`Walk`]'s error for a repeated member name begins.
pub(crate) const REPEAT_PREFIX: &str = "duplicate member name";

/// The key serde_json's `raw_value` feature reads specially.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl Walk {
    /// A walk that accepts what a `Value` parse accepts, repeated member names included.
    pub const fn new() -> Self {
        Self {
            refuse_repeats: false,
            decline_tokens: false,
        }
    }

    /// This walk, refusing an object with a member name met twice; the error begins `duplicate member name` and
    /// names it.
    pub const fn refusing_repeats(self) -> Self {
        Self {
            refuse_repeats: true,
            ..self
        }
    }

    /// This walk, refusing an object whose first member is named as serde_json's raw-value token, or as its number
    /// token where this build does not read numbers as digits: a `Value` parse's reading of those depends on
    /// serde_json's features.
    pub const fn declining_tokens(self) -> Self {
        Self {
            decline_tokens: true,
            ..self
        }
    }

    /// Walks the rest of an array handed to a visitor's `visit_seq`.
    ///
    /// # Errors
    /// What the deserializer finds wrong with an element, or this walk's refusal.
    pub fn seq<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    /// Walks the rest of a map handed to a visitor's `visit_map`: an object, or under `arbitrary_precision` a
    /// number shown as its digits, which is returned (checked as a `Value` parse checks it).
    ///
    /// # Errors
    /// What the deserializer finds wrong with a member, or this walk's refusal.
    pub fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Option<serde_json::Number>, A::Error> {
        let Some(first) = map.next_key_seed(Name)? else {
            return Ok(None);
        };
        if first.starts_with(PRIVATE_PREFIX) {
            if first == NUMBER_TOKEN && numbers_keep_digits() {
                let digits = map.next_value_seed(Name)?;
                let number = digits.parse::<serde_json::Number>().map_err(de::Error::custom)?;
                if map.next_key_seed(Name)?.is_some() {
                    return Err(de::Error::custom("a number token with more members"));
                }
                return Ok(Some(number));
            }
            if self.decline_tokens && (first == NUMBER_TOKEN || first == RAW_VALUE_TOKEN) {
                return Err(de::Error::custom(format!(
                    "a member named as serde_json's token {first:?}"
                )));
            }
        }
        let mut names = MemberNames::default();
        let mut name = first;
        loop {
            if self.refuse_repeats && !names.insert(&name) {
                return Err(de::Error::custom(format!("{REPEAT_PREFIX} {name:?}")));
            }
            map.next_value_seed(self)?;
            match map.next_key_seed(Name)? {
                Some(next) => name = next,
                None => return Ok(None),
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.map(map).map(drop)
    }
}

/// A `serde_json::Value` read in one pass with repeated member names refused: the value `parse_json_with(..,
/// reject_duplicate_keys(true))` gives, without its second walk over the text. A member named as one of serde_json's
/// private tokens (whatever its place), and so a number shown as its digits, is declined, as is a repeat: `declined`
/// is then set, and the caller takes the two-pass route, which names the fault.
#[derive(Clone, Copy)]
pub(crate) struct StrictValue<'a> {
    pub(crate) declined: &'a std::cell::Cell<bool>,
}

impl StrictValue<'_> {
    fn decline<E: de::Error>(self, why: &str) -> E {
        self.declined.set(true);
        E::custom(why)
    }

    /// The rest of an array handed to a visitor's `visit_seq`, as a value.
    pub(crate) fn seq<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<serde_json::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }

    /// The rest of an object handed to a visitor's `visit_map`, as a value.
    pub(crate) fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<serde_json::Value, A::Error> {
        let mut members = serde_json::Map::new();
        while let Some(name) = map.next_key::<String>()? {
            if name.starts_with(PRIVATE_PREFIX) {
                return Err(self.decline("a member named as a serde_json token"));
            }
            match members.entry(name) {
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(map.next_value_seed(self)?);
                }
                serde_json::map::Entry::Occupied(slot) => {
                    return Err(self.decline(&format!("{REPEAT_PREFIX} {:?}", slot.key())));
                }
            }
        }
        Ok(serde_json::Value::Object(members))
    }
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = serde_json::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_> {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        // As serde_json's own `Value` visitor (JSON text has no infinities or NaN).
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(serde_json::Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(serde_json::Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.map(map)
    }
}

/// A member name (or a number's digits), borrowed from the text where it has no escapes.
pub(crate) struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

#[cfg(test)]
mod tests {
    use super::{MemberNames, Walk, numbers_keep_digits};
    use serde::de::DeserializeSeed;

    fn walk(text: &str, refuse_repeats: bool) -> Result<(), serde_json::Error> {
        let walk = if refuse_repeats {
            Walk::new().refusing_repeats()
        } else {
            Walk::new()
        };
        let mut deserializer = serde_json::Deserializer::from_str(text);
        walk.deserialize(&mut deserializer)?;
        deserializer.end()
    }

    #[test]
    fn member_names_refuse_a_repeat_before_and_after_they_hash() {
        let mut names = MemberNames::default();
        for idx in 0..200 {
            assert!(names.insert(&format!("n{idx}")), "{idx}");
            // A repeat of the first name and of the one just noted, on both sides of the switch to hashing.
            assert!(!names.insert("n0"));
            assert!(!names.insert(&format!("n{idx}")));
        }
        assert_eq!(names.len(), 200);
    }

    #[test]
    fn serde_json_tokens_as_first_members_are_read_as_a_value_parse_reads_them_or_declined() {
        let walk_of = |text: &str, walk: Walk| {
            let mut deserializer = serde_json::Deserializer::from_str(text);
            walk.deserialize(&mut deserializer)
                .and_then(|()| deserializer.end())
                .is_ok()
        };
        let number = r#"{"$serde_json::private::Number":"12"}"#;
        // The build decides (serde_json's arbitrary_precision, which features unify), and the test agrees with it.
        let value_reads_a_number =
            serde_json::from_str::<serde_json::Value>(number).is_ok_and(|value| value.is_number());
        assert_eq!(numbers_keep_digits(), value_reads_a_number);
        assert!(walk_of(number, Walk::new()));
        assert_eq!(
            walk_of(number, Walk::new().declining_tokens()),
            value_reads_a_number
        );
        let raw = r#"{"$serde_json::private::RawValue":"1"}"#;
        assert!(!walk_of(raw, Walk::new().declining_tokens()));
        assert!(walk_of(&format!("[{raw}]"), Walk::new()));
        assert!(!walk_of(&format!("[{raw}]"), Walk::new().declining_tokens()));
        // A token further in is only a name.
        assert!(walk_of(
            r#"{"a":1,"$serde_json::private::RawValue":"1"}"#,
            Walk::new().declining_tokens()
        ));
        // Whatever is declined or not, what a walk reads, a Value parse reads.
        for text in [
            number,
            raw,
            r#"{"$serde_json::private::Number":"x"}"#,
            r#"{"$serde_json::private::Number":"12","x":1}"#,
            r#"{"$serde_json::private::Number":12}"#,
        ] {
            for walk in [Walk::new(), Walk::new().declining_tokens().refusing_repeats()] {
                if walk_of(text, walk) {
                    assert!(serde_json::from_str::<serde_json::Value>(text).is_ok(), "{text}");
                }
            }
        }
    }

    #[test]
    fn a_walk_reads_as_a_value_parse_and_refuses_repeats_when_asked() {
        let nested = "{\"a\": [1, 2.5, {\"b\": null, \"c\": \"\\u00e9\"}], \"d\": true}";
        assert!(walk(nested, true).is_ok());
        let repeated = "{\"a\": {\"b\": 1, \"b\": 2}}";
        assert!(walk(repeated, false).is_ok());
        let err = walk(repeated, true).unwrap_err();
        assert!(
            err.to_string().starts_with("duplicate member name \"b\""),
            "{err}"
        );
        // What a `Value` parse refuses, a walk refuses.
        for bad in ["[1,]", "{\"a\" 1}", "\"\u{1}\"", &"[".repeat(200), "[1] x"] {
            assert_eq!(
                walk(bad, true).is_ok(),
                serde_json::from_str::<serde_json::Value>(bad).is_ok(),
                "{bad:?}"
            );
        }
    }
}
