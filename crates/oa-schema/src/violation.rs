//! `Violation` and `Violations`: what failed, where in the instance, and which schema keyword said so.
//!
//! A violation is a failing assertion (`type`, `required`, `minimum`, ...), never the applicator around it. The
//! report is sorted and deduplicated so that its order is stable across runs and one failing assertion at one
//! instance location appears once, however many evaluation paths reached it.

use oa_pointer::Location;
use std::fmt;

/// Where in the schema a violation comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SchemaLocation {
    /// The keyword path followed from the root schema, through `$ref`s, as a JSON Pointer (`/properties/a/$ref/type`).
    keyword_path: String,
    /// The failing keyword's absolute location: resource URI and JSON Pointer fragment
    /// (`https://example.com/s#/$defs/a/type`). It is the same whichever path reached the keyword.
    absolute: String,
}

impl SchemaLocation {
    pub(crate) fn new(keyword_path: String, absolute: String) -> Self {
        Self {
            keyword_path,
            absolute,
        }
    }

    /// The keyword path from the root schema, through `$ref`s, as a JSON Pointer.
    pub fn keyword_path(&self) -> &str {
        &self.keyword_path
    }

    /// The failing keyword's absolute URI (resource URI plus JSON Pointer fragment).
    pub fn absolute(&self) -> &str {
        &self.absolute
    }
}

impl fmt::Display for SchemaLocation {
    /// Writes the absolute location, which does not depend on the evaluation path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.absolute)
    }
}

/// One failing assertion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub(crate) instance_location: Location,
    pub(crate) keyword: Option<&'static str>,
    pub(crate) schema_location: SchemaLocation,
    pub(crate) expected_types: Vec<&'static str>,
    pub(crate) missing_property: Option<String>,
    pub(crate) message: String,
}

impl Violation {
    /// Where in the instance the violation is. A missing required property is located at the place it would occupy;
    /// a property rejected by `additionalProperties` at the property itself. Render it with
    /// [`Location::to_fragment`] for the URI-fragment form (`#/rows/2`).
    pub fn instance_location(&self) -> &Location {
        &self.instance_location
    }

    /// The keyword that failed (`type`, `required`, ...); `"false"` for a `false` subschema reached other than
    /// through `additionalProperties`, `unevaluatedProperties`, `items` or `unevaluatedItems` (which report
    /// themselves). `None` only for a limit of the validator itself (the evaluation depth limit), which is no
    /// keyword.
    pub fn keyword(&self) -> Option<&str> {
        self.keyword
    }

    /// Where in the schema the failing keyword is.
    pub fn schema_location(&self) -> &SchemaLocation {
        &self.schema_location
    }

    /// The type names the schema expected, for a `type` violation (and for a union no member of which admits the
    /// instance's type); empty otherwise.
    pub fn expected_types(&self) -> &[&'static str] {
        &self.expected_types
    }

    /// The missing property's name, for `required` and `dependentRequired`.
    pub fn missing_property(&self) -> Option<&str> {
        self.missing_property.as_deref()
    }

    /// A human message naming the constraint that failed, without the instance's value.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Violation {
    /// One line: the instance location in URI-fragment form, then the message (`#/a: type: expected string, got
    /// integer`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.instance_location.to_fragment(), self.message)
    }
}

/// The order after the instance location: the failing keyword's absolute location, the missing property, the
/// message, then the keyword path.
fn report_order(a: &Violation, b: &Violation) -> std::cmp::Ordering {
    a.schema_location
        .absolute
        .cmp(&b.schema_location.absolute)
        .then_with(|| a.missing_property.cmp(&b.missing_property))
        .then_with(|| a.message.cmp(&b.message))
        .then_with(|| {
            a.schema_location
                .keyword_path
                .cmp(&b.schema_location.keyword_path)
        })
}

/// One token of an instance location, ordered as [`Location`] orders them: array indices (and keys that read as
/// canonical indices) numerically and before other keys, other keys by code point.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TokenKey<'a> {
    Index(usize),
    Key(std::borrow::Cow<'a, str>),
}

fn token_keys(location: &Location) -> Vec<TokenKey<'_>> {
    location
        .tokens()
        .map(|token| {
            let canonical_index = !token.is_empty()
                && token.bytes().all(|byte| byte.is_ascii_digit())
                && (token.len() == 1 || !token.starts_with('0'));
            match token.parse::<usize>() {
                Ok(index) if canonical_index => TokenKey::Index(index),
                _ => TokenKey::Key(token),
            }
        })
        .collect()
}

/// Every violation of one validation, non-empty.
///
/// Order: by instance location (token by token, array indices numerically, a parent before its children), then by
/// the failing keyword's absolute schema location, then by message. Duplicates (same instance location, same
/// absolute keyword location, same missing property) are reported once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations {
    items: Vec<Violation>,
    /// How many violations a cap left out (see `ReportOptions::max_violations`).
    omitted: usize,
}

impl Violations {
    /// Sorts and deduplicates; `items` must be non-empty.
    pub(crate) fn new(items: Vec<Violation>) -> Self {
        if items.len() < 2 {
            return Self { items, omitted: 0 };
        }
        // Decorate-sort: each location is split into comparable tokens once, rather than re-parsed at every
        // comparison (a report can hold hundreds of thousands of violations).
        let order = {
            let keys: Vec<Vec<TokenKey<'_>>> =
                items.iter().map(|v| token_keys(&v.instance_location)).collect();
            let mut order: Vec<usize> = (0..items.len()).collect();
            order.sort_by(|&a, &b| {
                keys[a]
                    .cmp(&keys[b])
                    .then_with(|| report_order(&items[a], &items[b]))
            });
            order
        };
        // Apply the order in place, one cycle at a time, instead of moving every violation into a second list: a
        // report of hundreds of thousands of violations would otherwise be held twice while it is sorted.
        let mut items = items;
        let mut placed = vec![false; items.len()];
        for start in 0..items.len() {
            let mut current = start;
            while !placed[current] {
                placed[current] = true;
                let next = order[current];
                if next == start {
                    break;
                }
                items.swap(current, next);
                current = next;
            }
        }
        Self::deduplicated(items)
    }

    /// Drops repeats from a sorted list.
    fn deduplicated(mut sorted: Vec<Violation>) -> Self {
        sorted.dedup_by(|b, a| {
            a.instance_location == b.instance_location
                && a.schema_location.absolute == b.schema_location.absolute
                && a.missing_property == b.missing_property
                && a.message == b.message
        });
        Self {
            items: sorted,
            omitted: 0,
        }
    }

    /// Keeps the first `max` violations (at least one) and counts the rest.
    pub(crate) fn capped(mut self, max: usize) -> Self {
        let keep = max.max(1);
        if self.items.len() > keep {
            self.omitted += self.items.len() - keep;
            self.items.truncate(keep);
        }
        self
    }

    /// How many violations a cap left out of this report (0 unless `ReportOptions::max_violations` was used).
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// How many violations.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Always false for a report returned by [`Validator::validate`](crate::Validator::validate).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The violations in the documented order.
    pub fn iter(&self) -> std::slice::Iter<'_, Violation> {
        self.items.iter()
    }

    /// The error message: one line per violation, in order, each `location: message` (and a last line
    /// `... and N more` when a cap left violations out).
    pub fn error_message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (idx, violation) in self.items.iter().enumerate() {
            if idx > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{violation}")?;
        }
        if self.omitted > 0 {
            write!(f, "\n... and {} more", self.omitted)?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

impl IntoIterator for Violations {
    type Item = Violation;
    type IntoIter = std::vec::IntoIter<Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a> IntoIterator for &'a Violations {
    type Item = &'a Violation;
    type IntoIter = std::slice::Iter<'a, Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The in-place permutation gives the order a plain sort gives.
        #[test]
        fn report_order_is_a_plain_sort(
            entries in prop::collection::vec(("(/0|/1|/10|/a|/b){0,3}", "#/(x|y|z)"), 0..40),
        ) {
            let items: Vec<Violation> = entries.iter().map(|(at, absolute)| violation(at, absolute)).collect();
            let mut expected = items.clone();
            expected.sort_by(|a, b| {
                token_keys(&a.instance_location)
                    .cmp(&token_keys(&b.instance_location))
                    .then_with(|| report_order(a, b))
            });
            expected.dedup_by(|b, a| a == b);
            if !items.is_empty() {
                prop_assert_eq!(Violations::new(items).items, expected);
            }
        }

        /// The decorated keys order locations as `Location` itself does.
        #[test]
        fn location_order_is_the_token_key_order(
            a in prop::collection::vec("(0|1|2|10|01|a|b|~|/|é|)", 0..4),
            b in prop::collection::vec("(0|1|2|10|01|a|b|~|/|é|)", 0..4),
        ) {
            let (a, b) = (Location::from_tokens(a.iter().map(String::as_str)), Location::from_tokens(b.iter().map(String::as_str)));
            prop_assert_eq!(a.cmp(&b), token_keys(&a).cmp(&token_keys(&b)), "{:?} {:?}", a, b);
        }
    }

    fn violation(location: &str, absolute: &str) -> Violation {
        Violation {
            instance_location: Location::parse(location).unwrap(),
            keyword: Some("type"),
            schema_location: SchemaLocation::new(String::new(), absolute.to_owned()),
            expected_types: Vec::new(),
            missing_property: None,
            message: "m".to_owned(),
        }
    }

    #[test]
    fn order_matches_location_order_and_dedups() {
        let locations = ["/b", "/a/10", "", "/a/2", "/a", "/a/x", "/a/2", "/10", "/9"];
        let report = Violations::new(locations.iter().map(|l| violation(l, "#/type")).collect());
        let got: Vec<String> = report.iter().map(|v| v.instance_location().to_string()).collect();
        let mut want: Vec<Location> = locations.iter().map(|l| Location::parse(l).unwrap()).collect();
        want.sort();
        want.dedup();
        let want: Vec<String> = want.iter().map(ToString::to_string).collect();
        assert_eq!(got, want);
        assert_eq!(got, ["", "/9", "/10", "/a", "/a/2", "/a/10", "/a/x", "/b"]);
    }
}
