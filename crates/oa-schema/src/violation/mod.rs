//! `Violation`: what failed ([`ViolationKind`]), where in the instance, and which schema keyword said so; the
//! report of them all is [`Violations`] (`report.rs`).
//!
//! A violation is a failing assertion (`type`, `required`, `minimum`, ...), never the applicator around it. The
//! report is sorted and deduplicated so that its order is stable across runs and one failing assertion at one
//! instance location appears once, however many evaluation paths reached it.

use crate::types::TypeSet;
use oa_pointer::Location;
use std::fmt;

mod alternatives;
mod kind;
mod report;

pub use kind::ViolationKind;
pub use report::Violations;

/// Where in the schema a violation comes from.
///
/// Equality, hashing and order are those of the pair (keyword path, absolute location).
#[derive(Clone)]
pub struct SchemaLocation {
    /// The keyword path, then the absolute location, then (in a [`Violation`]) the violation's message and missing
    /// property: a violation's texts share one allocation.
    text: Box<str>,
    /// Where the keyword path, the absolute location and the message end in `text` (32 bits: a report can hold
    /// hundreds of thousands of violations, and each byte of a violation counts in its list).
    ends: [u32; 3],
}

impl SchemaLocation {
    /// A location with no message, for tests and for reports built outside the evaluator.
    #[cfg(test)]
    pub(crate) fn new(keyword_path: &str, absolute: &str) -> Self {
        let mut text = ViolationText::with_capacity(keyword_path.len() + absolute.len());
        text.push(keyword_path);
        text.end_keyword_path();
        text.push(absolute);
        text.end_absolute();
        text.end_message();
        text.into_location()
    }

    /// The keyword path from the root schema, through `$ref`s, as a JSON Pointer.
    pub fn keyword_path(&self) -> &str {
        self.part(0, self.ends[0])
    }

    /// The failing keyword's absolute URI (resource URI plus JSON Pointer fragment).
    pub fn absolute(&self) -> &str {
        self.part(self.ends[0], self.ends[1])
    }

    fn message(&self) -> &str {
        self.part(self.ends[1], self.ends[2])
    }

    /// What follows the message: the missing property, if the violation has one.
    fn tail(&self) -> &str {
        self.text.get(self.ends[2] as usize..).unwrap_or_default()
    }

    fn part(&self, start: u32, end: u32) -> &str {
        self.text.get(start as usize..end as usize).unwrap_or_default()
    }
}

impl fmt::Display for SchemaLocation {
    /// Writes the absolute location, which does not depend on the evaluation path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.absolute())
    }
}

impl fmt::Debug for SchemaLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaLocation")
            .field("keyword_path", &self.keyword_path())
            .field("absolute", &self.absolute())
            .finish()
    }
}

impl PartialEq for SchemaLocation {
    fn eq(&self, other: &Self) -> bool {
        self.keyword_path() == other.keyword_path() && self.absolute() == other.absolute()
    }
}

impl Eq for SchemaLocation {}

impl std::hash::Hash for SchemaLocation {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.keyword_path().hash(state);
        self.absolute().hash(state);
    }
}

impl PartialOrd for SchemaLocation {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SchemaLocation {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.keyword_path()
            .cmp(other.keyword_path())
            .then_with(|| self.absolute().cmp(other.absolute()))
    }
}

/// A violation's texts written into one buffer, part after part: keyword path, absolute location, message, then
/// the missing property. The evaluator sizes it once from the parts' lengths.
#[derive(Debug)]
pub(crate) struct ViolationText {
    text: String,
    ends: [usize; 3],
}

impl ViolationText {
    /// An empty buffer with room for `bytes` bytes (the sum of the parts' lengths: then no reallocation happens).
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            ends: [0; 3],
        }
    }

    /// A buffer of these three parts, sized for them; what is pushed after is the missing property.
    pub(crate) fn of(keyword_path: &str, absolute: &str, message: &str) -> Self {
        let mut text = Self::with_capacity(keyword_path.len() + absolute.len() + message.len());
        text.push(keyword_path);
        text.end_keyword_path();
        text.push(absolute);
        text.end_absolute();
        text.push(message);
        text.end_message();
        text
    }

    /// Appends to the current part.
    pub(crate) fn push(&mut self, part: &str) {
        self.text.push_str(part);
    }

    /// The buffer, for writers that append to the current part themselves.
    pub(crate) fn buffer(&mut self) -> &mut String {
        &mut self.text
    }

    /// Ends the keyword path.
    pub(crate) fn end_keyword_path(&mut self) {
        self.ends = [self.text.len(); 3];
    }

    /// Ends the absolute location.
    pub(crate) fn end_absolute(&mut self) {
        self.ends[1] = self.text.len();
        self.ends[2] = self.text.len();
    }

    /// Ends the message; what is pushed after it is the missing property.
    pub(crate) fn end_message(&mut self) {
        self.ends[2] = self.text.len();
    }

    fn into_location(self) -> SchemaLocation {
        // A violation's texts past 4 GiB (a member name that long) read as empty parts rather than wrong ones.
        let narrow = |end: usize| u32::try_from(end).unwrap_or(u32::MAX);
        SchemaLocation {
            text: self.text.into_boxed_str(),
            ends: self.ends.map(narrow),
        }
    }
}

/// One failing assertion.
#[derive(Clone)]
pub struct Violation {
    instance_location: Location,
    /// What failed (its keyword's name is read from it: one byte rather than a 16-byte string).
    kind: ViolationKind,
    /// Also holds the message and the missing property (see [`SchemaLocation::text`]).
    schema_location: SchemaLocation,
    /// Held as the set (one byte) rather than its names (a 16-byte slice): see [`SchemaLocation::ends`].
    expected_types: TypeSet,
    has_missing_property: bool,
    /// Whether the violation says an unresolved reference was reached (its texts' tail is then the reference).
    unresolved_reference: bool,
}

impl Violation {
    /// Assembles a violation from its texts (`has_missing_property`: whether `text` has a part after the message).
    pub(crate) fn new(
        instance_location: Location,
        kind: ViolationKind,
        text: ViolationText,
        expected_types: TypeSet,
        has_missing_property: bool,
    ) -> Self {
        Self {
            instance_location,
            kind,
            schema_location: text.into_location(),
            expected_types,
            has_missing_property,
            unresolved_reference: false,
        }
    }

    /// A violation saying that evaluation reached `reference`, written in the keyword of `kind` (`$ref`,
    /// `$dynamicRef`, `$recursiveRef`), which resolves to nothing.
    pub(crate) fn unresolved(
        instance_location: Location,
        kind: ViolationKind,
        keyword_path: &str,
        absolute: &str,
        message: &str,
        reference: &str,
    ) -> Self {
        let keyword = kind.name();
        let mut text = ViolationText::with_capacity(
            keyword_path.len() + absolute.len() + keyword.len() + 2 + message.len() + reference.len(),
        );
        text.push(keyword_path);
        text.end_keyword_path();
        text.push(absolute);
        text.end_absolute();
        text.push(keyword);
        text.push(": ");
        text.push(message);
        text.end_message();
        text.push(reference);
        let mut violation = Self::new(instance_location, kind, text, TypeSet::default(), false);
        violation.unresolved_reference = true;
        violation
    }

    /// A violation that no keyword reports (`kind` is the evaluation depth limit or an internal error): a message
    /// alone.
    pub(crate) fn without_keyword(
        instance_location: Location,
        kind: ViolationKind,
        keyword_path: &str,
        absolute: &str,
        message: &str,
    ) -> Self {
        let text = ViolationText::of(keyword_path, absolute, message);
        Self::new(instance_location, kind, text, TypeSet::default(), false)
    }

    /// Where in the instance the violation is. A missing required property is located at the place it would occupy;
    /// a property rejected by `additionalProperties` at the property itself. Render it with
    /// [`Location::to_fragment`] for the URI-fragment form (`#/rows/2`).
    pub fn instance_location(&self) -> &Location {
        &self.instance_location
    }

    /// The keyword that failed (`type`, `required`, ...); `"false"` for a `false` subschema reached other than
    /// through `additionalProperties`, `unevaluatedProperties`, `items` or `unevaluatedItems` (which report
    /// themselves). `None` only for a limit of the validator itself (the evaluation depth limit), which is no
    /// keyword. The same as `self.kind().keyword()`.
    pub fn keyword(&self) -> Option<&str> {
        self.kind.keyword()
    }

    /// What failed, as a type to match on (the keyword, or a limit of the validator).
    pub fn kind(&self) -> ViolationKind {
        self.kind
    }

    /// Where in the schema the failing keyword is.
    pub fn schema_location(&self) -> &SchemaLocation {
        &self.schema_location
    }

    /// The type names the schema expected, for a `type` violation (and for a union no member of which admits the
    /// instance's type); empty otherwise.
    pub fn expected_types(&self) -> &[&'static str] {
        self.expected_types.static_names()
    }

    /// The missing property's name, for `required` and `dependentRequired`.
    pub fn missing_property(&self) -> Option<&str> {
        self.has_missing_property.then(|| self.schema_location.tail())
    }

    /// The reference as written, when this violation says that evaluation reached a reference that resolves to no
    /// schema (only with [`ValidatorOptions::defer_unresolved_references`](crate::ValidatorOptions::defer_unresolved_references)):
    /// then the instance has no verdict, only this outcome. Its keyword is the one that holds the reference
    /// (`$ref`), its schema location where that sits.
    pub fn unresolved_reference(&self) -> Option<&str> {
        self.unresolved_reference.then(|| self.schema_location.tail())
    }

    /// A human message naming the constraint that failed, without the instance's value.
    pub fn message(&self) -> &str {
        self.schema_location.message()
    }
}

impl fmt::Debug for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Violation")
            .field("instance_location", &self.instance_location)
            .field("keyword", &self.keyword())
            .field("kind", &self.kind)
            .field("schema_location", &self.schema_location)
            .field("expected_types", &self.expected_types())
            .field("missing_property", &self.missing_property())
            .field("message", &self.message())
            .finish()
    }
}

impl PartialEq for Violation {
    fn eq(&self, other: &Self) -> bool {
        self.instance_location == other.instance_location
            && self.kind == other.kind
            && self.schema_location == other.schema_location
            && self.expected_types == other.expected_types
            && self.missing_property() == other.missing_property()
            && self.message() == other.message()
    }
}

impl Eq for Violation {}

impl fmt::Display for Violation {
    /// One line: the instance location in URI-fragment form, then the message (`#/a: type: expected string, got
    /// integer`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.instance_location.to_fragment(), self.message())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_violation_is_64_bytes() {
        // A report can hold hundreds of thousands: the kind is one byte where the keyword's name was a 16-byte
        // string.
        assert_eq!(std::mem::size_of::<super::Violation>(), 64);
    }
}
