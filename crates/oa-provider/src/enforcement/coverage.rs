//! Which keywords a probe verdict speaks for: the canary shows a route enforces an enum, a required property and a
//! closed object; a per-keyword probe shows it for one keyword. A call's `schema_mode` is `enforced` only when a fresh
//! verdict covers every keyword the schema it sent uses (the enforcement chapter: "it says nothing about whether your
//! production schema ... is enforced in every clause").

use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::enforcement::probe::{PROBED_KEYWORDS, canary_schema, keywords_used};

/// A set of the probed keywords ([`PROBED_KEYWORDS`](crate::enforcement::PROBED_KEYWORDS)): the ones a verdict
/// covers. A keyword no probe exists for is never in it, so a schema using one is never covered. Serialized as the
/// list of keyword names (an unknown name read back is left out).
///
/// ```
/// use oa_provider::enforcement::KeywordSet;
///
/// let set = KeywordSet::of(["enum", "maxLength", "no-such-keyword"]);
/// assert!(set.contains("maxLength") && !set.contains("pattern"));
/// assert_eq!(set.iter().collect::<Vec<_>>(), ["enum", "maxLength"]);
/// assert!(KeywordSet::canary().contains("required"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KeywordSet(u32);

impl KeywordSet {
    /// No keyword.
    pub const EMPTY: Self = Self(0);

    /// The probed keywords among `keywords` (`format:NAME` for a format).
    pub fn of<'a>(keywords: impl IntoIterator<Item = &'a str>) -> Self {
        keywords
            .into_iter()
            .filter_map(bit)
            .fold(Self::EMPTY, |set, bit| Self(set.0 | bit))
    }

    /// The keywords the canary schema uses: what a canary verdict covers.
    pub fn canary() -> Self {
        Self::of(keywords_used(&canary_schema()))
    }

    /// Whether `keyword` is in the set.
    pub fn contains(self, keyword: &str) -> bool {
        bit(keyword).is_some_and(|bit| self.0 & bit != 0)
    }

    /// Both sets' keywords.
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Whether the set is empty.
    #[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The keywords, in [`PROBED_KEYWORDS`](crate::enforcement::PROBED_KEYWORDS) order.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        PROBED_KEYWORDS
            .iter()
            .enumerate()
            .filter(move |(at, _)| self.0 & (1 << at) != 0)
            .map(|(_, keyword)| *keyword)
    }

    /// The set as bits, for a cache key.
    pub(crate) fn bits(self) -> u32 {
        self.0
    }
}

fn bit(keyword: &str) -> Option<u32> {
    PROBED_KEYWORDS
        .iter()
        .position(|known| *known == keyword)
        .map(|at| 1 << at)
}

impl fmt::Debug for KeywordSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for KeywordSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for keyword in self.iter() {
            seq.serialize_element(keyword)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for KeywordSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> Visitor<'de> for Names {
            type Value = KeywordSet;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of keyword names")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeywordSet, A::Error> {
                let mut set = KeywordSet::EMPTY;
                while let Some(name) = seq.next_element::<String>()? {
                    set = set.union(KeywordSet::of([name.as_str()]));
                }
                Ok(set)
            }
        }
        deserializer.deserialize_seq(Names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_round_trips_as_names_and_ignores_unknown_ones() {
        let set = KeywordSet::of(["format:email", "enum", "uniqueItems"]);
        let text = serde_json::to_string(&set).unwrap();
        assert_eq!(text, r#"["enum","uniqueItems","format:email"]"#);
        let read: KeywordSet =
            serde_json::from_str(r#"["enum","uniqueItems","format:email","nope"]"#).unwrap();
        assert_eq!(read, set);
        assert_eq!(
            KeywordSet::canary().iter().collect::<Vec<_>>(),
            ["enum", "required", "additionalProperties", "type"]
        );
        assert!(KeywordSet::EMPTY.is_empty() && !set.is_empty());
        assert_eq!(set.union(KeywordSet::canary()).iter().count(), 6);
        assert_eq!(format!("{set:?}"), r#"{"enum", "uniqueItems", "format:email"}"#);
        assert!(PROBED_KEYWORDS.len() <= 32, "the set is 32 bits");
    }
}
