//! What reading JSON strictly through serde shares, in one place: serde_json's private tokens and whether this
//! build shows numbers as digits, the member names of one object (a repeat refused), and [`Walk`], which reads a
//! value as a `Value` parse reads it and keeps nothing. `parse_json`'s duplicate check is a [`Walk`]; the typed
//! route notes each object's other member names in [`MemberNames`] and reads numbers by the same token.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
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
    pub(crate) fn len(&self) -> usize {
        self.few.len() + self.many.as_ref().map_or(0, HashSet::len)
    }
}

/// Any JSON value, read as a `Value` parse reads it (serde_json's `deserialize_any`, with its nesting limit and its
/// string and number checks), and dropped. With `refuse_repeats`, an object with a member name met twice is an
/// error that begins with [`REPEAT_PREFIX`] and names it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Walk {
    pub(crate) refuse_repeats: bool,
}

/// How [`Walk`]'s error for a repeated member name begins.
pub(crate) const REPEAT_PREFIX: &str = "duplicate member name";

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

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    /// An object, or (under `arbitrary_precision`) a number shown as a [`NUMBER_TOKEN`] map, whose one member is
    /// walked like any other.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut names = MemberNames::default();
        while let Some(name) = map.next_key::<String>()? {
            if self.refuse_repeats && !names.insert(&name) {
                return Err(de::Error::custom(format!("{REPEAT_PREFIX} {name:?}")));
            }
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{MemberNames, Walk};
    use serde::de::DeserializeSeed;

    fn walk(text: &str, refuse_repeats: bool) -> Result<(), serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        Walk { refuse_repeats }.deserialize(&mut deserializer)?;
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
