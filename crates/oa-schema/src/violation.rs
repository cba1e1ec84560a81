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

    /// The keyword that failed (`type`, `required`, ...). `None` only for a limit of the validator itself (the
    /// evaluation depth limit), which is no keyword.
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

/// Every violation of one validation, non-empty.
///
/// Order: by instance location (token by token, array indices numerically, a parent before its children), then by
/// the failing keyword's absolute schema location, then by message. Duplicates (same instance location, same
/// absolute keyword location, same missing property) are reported once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations {
    items: Vec<Violation>,
}

impl Violations {
    /// Sorts and deduplicates; `items` must be non-empty.
    pub(crate) fn new(mut items: Vec<Violation>) -> Self {
        items.sort_by(|a, b| {
            a.instance_location
                .cmp(&b.instance_location)
                .then_with(|| a.schema_location.absolute.cmp(&b.schema_location.absolute))
                .then_with(|| a.missing_property.cmp(&b.missing_property))
                .then_with(|| a.message.cmp(&b.message))
                .then_with(|| {
                    a.schema_location
                        .keyword_path
                        .cmp(&b.schema_location.keyword_path)
                })
        });
        items.dedup_by(|b, a| {
            a.instance_location == b.instance_location
                && a.schema_location.absolute == b.schema_location.absolute
                && a.missing_property == b.missing_property
                && a.message == b.message
        });
        Self { items }
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

    /// The error message: one line per violation, in order, each `location: message`.
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
