//! `Violation` and `Violations`: what failed, where in the instance, and which schema keyword said so.
//!
//! A violation is a failing assertion (`type`, `required`, `minimum`, ...), never the applicator around it. The
//! report is sorted and deduplicated so that its order is stable across runs and one failing assertion at one
//! instance location appears once, however many evaluation paths reached it.

use crate::types::TypeSet;
use oa_pointer::Location;
use std::fmt;

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
    keyword: Option<&'static str>,
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
        keyword: Option<&'static str>,
        text: ViolationText,
        expected_types: TypeSet,
        has_missing_property: bool,
    ) -> Self {
        Self {
            instance_location,
            keyword,
            schema_location: text.into_location(),
            expected_types,
            has_missing_property,
            unresolved_reference: false,
        }
    }

    /// A violation saying that evaluation reached `reference`, written in `keyword`, which resolves to nothing.
    pub(crate) fn unresolved(
        instance_location: Location,
        keyword: &'static str,
        keyword_path: &str,
        absolute: &str,
        message: &str,
        reference: &str,
    ) -> Self {
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
        let mut violation = Self::new(instance_location, Some(keyword), text, TypeSet::default(), false);
        violation.unresolved_reference = true;
        violation
    }

    /// A violation that no keyword reports (the evaluation depth limit, an internal error): a message alone.
    pub(crate) fn without_keyword(
        instance_location: Location,
        keyword_path: &str,
        absolute: &str,
        message: &str,
    ) -> Self {
        let mut text = ViolationText::with_capacity(keyword_path.len() + absolute.len() + message.len());
        text.push(keyword_path);
        text.end_keyword_path();
        text.push(absolute);
        text.end_absolute();
        text.push(message);
        text.end_message();
        Self::new(instance_location, None, text, TypeSet::default(), false)
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
            .field("keyword", &self.keyword)
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
            && self.keyword == other.keyword
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

/// The order after the instance location: the failing keyword's absolute location, the missing property, the
/// message, then the keyword path.
fn report_order(a: &Violation, b: &Violation) -> std::cmp::Ordering {
    a.schema_location
        .absolute()
        .cmp(b.schema_location.absolute())
        .then_with(|| a.missing_property().cmp(&b.missing_property()))
        .then_with(|| a.message().cmp(b.message()))
        .then_with(|| {
            a.schema_location
                .keyword_path()
                .cmp(b.schema_location.keyword_path())
        })
}

/// Whether `violation` repeats `kept` (same instance location, absolute keyword location, missing property and
/// message): the report lists it once.
fn repeats(kept: &Violation, violation: &Violation) -> bool {
    kept.instance_location == violation.instance_location
        && kept.schema_location.absolute() == violation.schema_location.absolute()
        && kept.missing_property() == violation.missing_property()
        && kept.message() == violation.message()
}

/// The largest report sorted where it lies, by insertion.
const INSERTION_SORT_MAX: usize = 16;

/// The report's order: by instance location, then [`report_order`].
fn location_then_report_order(a: &Violation, b: &Violation) -> std::cmp::Ordering {
    a.instance_location
        .cmp(&b.instance_location)
        .then_with(|| report_order(a, b))
}

/// The largest report sorted on byte keys (one buffer of every location's key, about the size of the locations
/// themselves); a larger one is sorted by comparing locations, so that its order costs no memory per violation.
const KEYED_SORT_MAX: usize = 4096;

/// Every violation's key in one buffer ([`Location::push_sort_key`]), for sorting a report out of order.
struct KeyTable {
    bytes: Vec<u8>,
    /// Where each key ends in `bytes`.
    ends: Vec<usize>,
}

impl KeyTable {
    fn of(items: &[Violation]) -> Self {
        // A key is about as long as its location's text, plus a tag and terminator per token: sized once.
        let bytes = items
            .iter()
            .map(|violation| violation.instance_location.as_str().len() + 16)
            .sum();
        let mut table = Self {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(items.len()),
        };
        for violation in items {
            violation.instance_location.push_sort_key(&mut table.bytes);
            table.ends.push(table.bytes.len());
        }
        table
    }

    fn key(&self, idx: usize) -> &[u8] {
        let start = match idx.checked_sub(1) {
            Some(previous) => self.ends.get(previous).copied().unwrap_or_default(),
            None => 0,
        };
        let end = self.ends.get(idx).copied().unwrap_or_default();
        self.bytes.get(start..end).unwrap_or_default()
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
    /// How many violations a cap left out (see `ReportOptions::max_violations`).
    omitted: usize,
    /// What a cap cut of the failed unions (boxed: a report that was not capped, nearly every one, stays small,
    /// and so does every error that carries one).
    cut: Option<Box<UnionsCut>>,
    /// Duplicates reached through another keyword path (the same assertion through two union members), with the
    /// index of the violation they repeat: not violations of their own, but the text rendering lists the line
    /// under each alternative that reaches it. At most [`MAX_REACHED_ALSO`].
    reached_also: Vec<(usize, Violation)>,
}

/// What a cap cut of a report's failed unions: how many alternatives of the unions still shown it left out, and
/// each union it cut (its true member count, the members kept).
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnionsCut {
    n_alternatives: usize,
    census: crate::alternatives::Census,
}

/// The most duplicates kept for the text rendering: a report that repeats more is unreadable as text anyway, and
/// the bound keeps a report's memory at most about twice its violations'.
const MAX_REACHED_ALSO: usize = 10_000;

impl Violations {
    /// Sorts and deduplicates; `items` must be non-empty.
    #[cfg(test)]
    pub(crate) fn new(items: Vec<Violation>) -> Self {
        Self::sorted(items)
    }

    /// Sorts and deduplicates; `items` must be non-empty. The collecting walk records most reports in order, or as
    /// a few runs in order (a failed union reports each member in turn): the order is checked pair by pair, and a
    /// report out of order is sorted by index (a stable sort finds and merges the runs), so that no key or second
    /// copy is held per violation (a report can hold hundreds of thousands of them).
    pub(crate) fn sorted(items: Vec<Violation>) -> Self {
        if items.len() < 2 {
            return Self {
                items,
                omitted: 0,
                cut: None,
                reached_also: Vec::new(),
            };
        }
        if items.len() <= INSERTION_SORT_MAX {
            // A small report, nearly always in order or one violation out of place (a missing property reported
            // after the members): sorted where it lies, without a key or an allocation. Insertion compares every
            // pair that ends up side by side, so when no compared pair shared a location no two neighbours do, and
            // there is no repeat to look for.
            let mut items = items;
            let mut shared_location = false;
            for idx in 1..items.len() {
                let mut at = idx;
                while at > 0
                    && match (items.get(at - 1), items.get(at)) {
                        (Some(a), Some(b)) => match a.instance_location.cmp(&b.instance_location) {
                            std::cmp::Ordering::Equal => {
                                shared_location = true;
                                report_order(a, b).is_gt()
                            }
                            by_location => by_location.is_gt(),
                        },
                        _ => false,
                    }
                {
                    items.swap(at - 1, at);
                    at -= 1;
                }
            }
            if !shared_location {
                return Self {
                    items,
                    omitted: 0,
                    cut: None,
                    reached_also: Vec::new(),
                };
            }
            return Self::deduplicated(items);
        }
        if items.windows(2).all(|pair| match pair {
            [a, b] => location_then_report_order(a, b).is_le(),
            _ => true,
        }) {
            return Self::deduplicated(items);
        }
        let mut order: Vec<usize> = (0..items.len()).collect();
        if items.len() <= KEYED_SORT_MAX {
            // Decorate-sort: each location as one byte key ordered as the location, all in one buffer, so that
            // comparisons are `memcmp`s.
            let keys = KeyTable::of(&items);
            order.sort_by(|&a, &b| {
                keys.key(a)
                    .cmp(keys.key(b))
                    .then_with(|| match (items.get(a), items.get(b)) {
                        (Some(a), Some(b)) => report_order(a, b),
                        _ => std::cmp::Ordering::Equal,
                    })
            });
        } else {
            // No key per violation: locations compare from the token where they part.
            order.sort_by(|&a, &b| match (items.get(a), items.get(b)) {
                (Some(a), Some(b)) => location_then_report_order(a, b),
                _ => std::cmp::Ordering::Equal,
            });
        }
        // Apply the order in place, one cycle at a time, instead of moving every violation into a second list: a
        // report of hundreds of thousands of violations would otherwise be held twice while it is sorted. A placed
        // position is marked by pointing at itself.
        let mut items = items;
        for start in 0..items.len() {
            let mut current = start;
            loop {
                let next = order[current];
                order[current] = current;
                if next == start {
                    break;
                }
                items.swap(current, next);
                current = next;
            }
        }
        Self::deduplicated(items)
    }

    /// Drops repeats from a sorted list, keeping those reached through another keyword path aside for the text. A
    /// list without repeats (most reports) is kept as it is, without a second list.
    fn deduplicated(sorted: Vec<Violation>) -> Self {
        if !sorted.windows(2).any(|pair| match pair {
            [kept, violation] => repeats(kept, violation),
            _ => false,
        }) {
            return Self {
                items: sorted,
                omitted: 0,
                cut: None,
                reached_also: Vec::new(),
            };
        }
        let mut items: Vec<Violation> = Vec::with_capacity(sorted.len());
        let mut reached_also = Vec::new();
        for violation in sorted {
            match items.last() {
                Some(kept) if repeats(kept, &violation) => {
                    if reached_also.len() < MAX_REACHED_ALSO
                        && kept.schema_location.keyword_path() != violation.schema_location.keyword_path()
                    {
                        reached_also.push((items.len() - 1, violation));
                    }
                }
                _ => items.push(violation),
            }
        }
        Self {
            items,
            omitted: 0,
            cut: None,
            reached_also,
        }
    }

    /// Keeps at most `max` violations (at least one) and counts the rest. Whole alternatives are kept: at each
    /// failed union, its members closest to valid first (fewest violations, then the deepest match), so the member
    /// holding the one real mistake is never the one cut; the text keeps each union's true member count.
    pub(crate) fn capped(self, max: usize) -> Self {
        let keep = max.max(1);
        if self.items.len() <= keep {
            return self;
        }
        // The list the text renders: each violation, then the duplicates that reach it through other members.
        let rendered = self.rendered();
        let kept = crate::alternatives::cap(&rendered, keep);
        let mut selected = vec![false; rendered.len()];
        for &idx in &kept.lines {
            selected[idx] = true;
        }
        let n_items = self.items.len();
        let mut reached_also: Vec<Vec<Violation>> = vec![Vec::new(); n_items];
        for (kept_idx, duplicate) in self.reached_also {
            if let Some(slot) = reached_also.get_mut(kept_idx) {
                slot.push(duplicate);
            }
        }
        let mut items = Vec::with_capacity(keep);
        let mut kept_also = Vec::new();
        let mut at = 0;
        for (violation, duplicates) in self.items.into_iter().zip(reached_also) {
            let primary = selected[at];
            at += 1;
            let mut chosen: Vec<Violation> = Vec::new();
            for duplicate in duplicates {
                if selected[at] {
                    chosen.push(duplicate);
                }
                at += 1;
            }
            let mut chosen = chosen.into_iter();
            // A violation kept only through another member is kept as that member's line (they repeat each other).
            let Some(first) = (if primary { Some(violation) } else { chosen.next() }) else {
                continue;
            };
            items.push(first);
            kept_also.extend(chosen.map(|duplicate| (items.len() - 1, duplicate)));
        }
        let cut = (!kept.census.is_empty()).then(|| {
            Box::new(UnionsCut {
                n_alternatives: kept.n_alternatives_omitted,
                census: kept.census,
            })
        });
        Self {
            omitted: self.omitted + n_items - items.len(),
            cut,
            items,
            reached_also: kept_also,
        }
    }

    /// The violations the text renders, in order: each, then the duplicates that reach it through other members.
    fn rendered(&self) -> Vec<&Violation> {
        let mut also = self.reached_also.iter().peekable();
        let mut items: Vec<&Violation> = Vec::with_capacity(self.items.len() + self.reached_also.len());
        for (idx, violation) in self.items.iter().enumerate() {
            items.push(violation);
            while let Some((_, duplicate)) = also.next_if(|(kept, _)| *kept == idx) {
                items.push(duplicate);
            }
        }
        items
    }

    /// How many alternatives of the failed unions a cap left out (0 unless `ReportOptions::max_violations` cut
    /// one): the text's unions keep their true member count, and its last line says how many were not shown.
    pub fn omitted_alternatives(&self) -> usize {
        self.cut.as_ref().map_or(0, |cut| cut.n_alternatives)
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
    /// `... and N more` when a cap left violations out). Violations from inside a union none of whose members
    /// holds are grouped under one line naming the union, as its alternatives (`alternative 2:`, then that
    /// member's lines indented), when more than one member's violations reach the report: every violation is
    /// still there, and a reader sees that fixing one alternative is enough.
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let schema = json!({ "oneOf": [
    ///     { "properties": { "kind": { "const": "read" } }, "required": ["path"] },
    ///     { "properties": { "kind": { "const": "write" } }, "required": ["path", "text"] }
    /// ] });
    /// let validator = Validator::new(&schema).unwrap();
    /// let report = validator.validate(&json!({ "kind": "write" })).unwrap_err();
    /// assert_eq!(
    ///     report.error_message(),
    ///     "#: oneOf: one of these 2 alternatives must hold (/oneOf):\n  \
    ///      alternative 0:\n    \
    ///      #/kind: const: must equal \"read\"\n    \
    ///      #/path: required: required property \"path\" is missing\n  \
    ///      alternative 1:\n    \
    ///      #/path: required: required property \"path\" is missing\n    \
    ///      #/text: required: required property \"text\" is missing"
    /// );
    /// ```
    pub fn error_message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Each violation, then the duplicates that reach it through other members, so that every alternative
        // shows its own lines.
        let items = self.rendered();
        let mut lines = Vec::with_capacity(items.len());
        let no_cut = crate::alternatives::Census::new();
        let census = self.cut.as_ref().map_or(&no_cut, |cut| &cut.census);
        crate::alternatives::lines(&items, census, &mut lines);
        f.write_str(&lines.join("\n"))?;
        match (self.omitted, self.omitted_alternatives()) {
            (0, _) => {}
            (omitted, 0) => write!(f, "\n... and {omitted} more")?,
            (omitted, 1) => write!(f, "\n... and {omitted} more (1 alternative not shown)")?,
            (omitted, alternatives) => {
                write!(
                    f,
                    "\n... and {omitted} more ({alternatives} alternatives not shown)"
                )?;
            }
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
        /// The in-place permutation of the decorated sort gives the order a plain sort by `Location` gives, and
        /// duplicates go.
        #[test]
        fn report_order_is_a_plain_sort(
            entries in prop::collection::vec(
                ("(/0|/1|/10|/a|/b|/~0|/01){0,3}", "#/(x|y|z)", "(m|n)", prop::option::of("(p|q)")),
                0..40,
            ),
        ) {
            let items: Vec<Violation> = entries
                .iter()
                .map(|(at, absolute, message, missing)| violation_with(at, absolute, message, missing.as_deref()))
                .collect();
            let expected = plain_sort(&items);
            if !items.is_empty() {
                prop_assert_eq!(Violations::new(items).items, expected);
            }
        }

        /// A report comes out as a plain sort gives it whether it was recorded in order, in a few runs each in
        /// order (as failed unions record them), or scattered. Entries are cut into `pieces` runs, each sorted, some
        /// of them only by location (violations at one location out of report order).
        #[test]
        fn reports_in_runs_come_out_as_a_plain_sort(
            entries in prop::collection::vec(
                ("(/0|/1|/10|/a|/b|/~0|/01){0,3}", "#/(x|y|z)", "(m|n)", prop::option::of("(p|q)")),
                1..60,
            ),
            pieces in 1..24_usize,
            by_location_only in any::<bool>(),
        ) {
            let mut items: Vec<Violation> = entries
                .iter()
                .map(|(at, absolute, message, missing)| violation_with(at, absolute, message, missing.as_deref()))
                .collect();
            let piece_len = items.len().div_ceil(pieces);
            for piece in items.chunks_mut(piece_len) {
                if by_location_only {
                    piece.sort_by(|a, b| a.instance_location.cmp(&b.instance_location));
                } else {
                    piece.sort_by(|a, b| a.instance_location.cmp(&b.instance_location).then_with(|| report_order(a, b)));
                }
            }
            let expected = plain_sort(&items);
            prop_assert_eq!(Violations::sorted(items).items, expected);
        }

        /// The evaluator's reports come out sorted and deduplicated (a report sorted again does not change).
        #[test]
        fn evaluator_reports_are_in_location_order(instance in nested_instance()) {
            let schema = serde_json::json!({
                "$defs": {"n": {
                    "type": ["object", "array", "string"],
                    "maxLength": 1,
                    "required": ["10", "~"],
                    "additionalProperties": {"$ref": "#/$defs/n"},
                    "items": {"$ref": "#/$defs/n"}
                }},
                "$ref": "#/$defs/n"
            });
            let validator = crate::Validator::new(&schema).unwrap();
            if let Err(report) = validator.validate(&instance) {
                let rebuilt = Violations::new(report.items.clone());
                prop_assert_eq!(&report, &rebuilt);
                prop_assert!(report.items.windows(2).all(|pair| pair[0].instance_location <= pair[1].instance_location));
            }
        }

        /// On generated recursive unions (members reported in turn, escaped names, indices, missing and rejected
        /// properties) over generated instances: every violation's paths, built from the last one's, are those built
        /// from its own frame chain, in the same order; and the report is the raw list sorted stably by location
        /// and report order, repeats dropped after the first (those reached through another keyword path kept
        /// aside).
        #[test]
        fn evaluator_paths_and_order_match_the_references(
            union in prop_oneof![Just("oneOf"), Just("anyOf"), Just("allOf")],
            members in prop::collection::vec(0..MEMBERS.len(), 1..5),
            wrapped in any::<bool>(),
            instance in nested_instance(),
        ) {
            let members: Vec<serde_json::Value> = members
                .iter()
                .map(|&member| serde_json::from_str(MEMBERS[member]).unwrap())
                .collect();
            let node = serde_json::json!({ union: members });
            let schema = if wrapped {
                serde_json::json!({
                    "$defs": {"n": node},
                    "items": {"$ref": "#/$defs/n"},
                    "additionalProperties": {"$ref": "#/$defs/n"},
                })
            } else {
                serde_json::json!({ "$defs": {"n": node}, "$ref": "#/$defs/n" })
            };
            let validator = crate::Validator::new(&schema).unwrap();
            let collect = |from_scratch: bool| {
                let mut evaluator = crate::eval::Evaluator::new(validator.compiled(), true);
                evaluator.paths_from_scratch = from_scratch;
                let valid = evaluator.run(&instance);
                (valid, std::mem::take(&mut evaluator.violations))
            };
            let (valid, kept) = collect(false);
            let (reference_valid, reference) = collect(true);
            prop_assert_eq!(valid, reference_valid);
            prop_assert_eq!(&kept, &reference, "{} {}", schema, instance);
            if !kept.is_empty() {
                let (items, reached_also) = reference_report(&kept);
                let report = Violations::sorted(kept);
                prop_assert_eq!(&report.items, &items);
                prop_assert_eq!(&report.reached_also, &reached_also);
            }
        }

        /// Each text reads back as written, whatever the lengths.
        #[test]
        fn texts_read_back(
            keyword_path in "[/a-zé~]{0,6}",
            absolute in "[#/a-zé]{0,6}",
            message in "[ a-zé:]{0,6}",
            missing in prop::option::of("[a-zé]{0,4}"),
        ) {
            let violation = violation_parts(&keyword_path, &absolute, &message, missing.as_deref());
            prop_assert_eq!(violation.schema_location().keyword_path(), keyword_path.as_str());
            prop_assert_eq!(violation.schema_location().absolute(), absolute.as_str());
            prop_assert_eq!(violation.message(), message.as_str());
            prop_assert_eq!(violation.missing_property(), missing.as_deref());
        }
    }

    /// Union members for `evaluator_paths_and_order_match_the_references`: each recurses through `#/$defs/n` or
    /// fails in its own way, so that a failed union reports member after member.
    const MEMBERS: [&str; 8] = [
        r##"{"type": "object", "required": ["10", "~", "a/b"], "additionalProperties": {"$ref": "#/$defs/n"}}"##,
        r##"{"type": "array", "minItems": 3, "items": {"$ref": "#/$defs/n"}}"##,
        r##"{"prefixItems": [{"type": "string"}], "items": {"$ref": "#/$defs/n"}, "maxItems": 4}"##,
        r##"{"properties": {"~": {"$ref": "#/$defs/n"}, "/": {"maximum": 0}}, "patternProperties": {"^0": {"type": "integer"}}}"##,
        r##"{"type": ["string", "null"], "maxLength": 1}"##,
        r##"{"not": {"type": "null"}, "propertyNames": {"maxLength": 1}, "dependentRequired": {"a": ["2"]}}"##,
        r##"{"additionalProperties": false, "properties": {"2": true}}"##,
        r##"{"anyOf": [{"type": "integer"}, {"items": {"$ref": "#/$defs/n"}, "contains": {"type": "array"}}]}"##,
    ];

    /// The report by the plain route: a stable sort of a copy, then each repeat dropped after the first, those
    /// reached through another keyword path kept aside with the index of the one they repeat.
    #[allow(clippy::type_complexity)]
    fn reference_report(items: &[Violation]) -> (Vec<Violation>, Vec<(usize, Violation)>) {
        let mut sorted = items.to_vec();
        sorted.sort_by(location_then_report_order);
        let mut kept: Vec<Violation> = Vec::new();
        let mut reached_also = Vec::new();
        for violation in sorted {
            match kept.last() {
                Some(last) if repeats(last, &violation) => {
                    if last.schema_location.keyword_path() != violation.schema_location.keyword_path() {
                        reached_also.push((kept.len() - 1, violation));
                    }
                }
                _ => kept.push(violation),
            }
        }
        (kept, reached_also)
    }

    fn nested_instance() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            "(|a|ab)".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..12).prop_map(serde_json::Value::Array),
                prop::collection::btree_map("(0|2|10|01|~|~0|~1|/|a|\\x00)", inner, 0..4)
                    .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
            ]
        })
    }

    fn violation_parts(
        keyword_path: &str,
        absolute: &str,
        message: &str,
        missing: Option<&str>,
    ) -> Violation {
        let mut text = ViolationText::with_capacity(0);
        text.push(keyword_path);
        text.end_keyword_path();
        text.push(absolute);
        text.end_absolute();
        text.push(message);
        text.end_message();
        text.push(missing.unwrap_or_default());
        Violation::new(
            Location::root(),
            Some("type"),
            text,
            TypeSet::default(),
            missing.is_some(),
        )
    }

    fn violation_with(location: &str, absolute: &str, message: &str, missing: Option<&str>) -> Violation {
        let mut violation = violation_parts("", absolute, message, missing);
        violation.instance_location = Location::parse(location).unwrap();
        violation
    }

    /// The report order by a plain sort of a copy (the reference the sorting paths are checked against).
    fn plain_sort(items: &[Violation]) -> Vec<Violation> {
        let mut sorted = items.to_vec();
        sorted.sort_by(location_then_report_order);
        sorted.dedup_by(|b, a| a == b);
        sorted
    }

    fn violation(location: &str, absolute: &str) -> Violation {
        violation_with(location, absolute, "m", None)
    }

    /// Reports past `KEYED_SORT_MAX` are sorted without keys; each size class agrees with a plain sort, whether
    /// the report came in a few runs (as failed unions record them) or scattered.
    #[test]
    fn reports_of_every_size_class_sort_as_a_plain_sort() {
        let tokens = ["/0", "/1", "/10", "/a", "/b", "/~0", "/01", "/features", "/2"];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % bound
        };
        for len in [
            INSERTION_SORT_MAX + 1,
            KEYED_SORT_MAX,
            KEYED_SORT_MAX + 1,
            3 * KEYED_SORT_MAX,
        ] {
            for runs in [1, 3, len] {
                let mut items: Vec<Violation> = (0..len)
                    .map(|_| {
                        let depth = 1 + next(4);
                        let location: String = (0..depth).map(|_| tokens[next(tokens.len())]).collect();
                        let absolute = ["#/x", "#/y", "#/z"][next(3)];
                        violation_with(&location, absolute, ["m", "n"][next(2)], None)
                    })
                    .collect();
                for run in items.chunks_mut(len.div_ceil(runs)) {
                    run.sort_by(location_then_report_order);
                }
                let expected = plain_sort(&items);
                assert!(
                    Violations::sorted(items).items == expected,
                    "{len} violations in {runs} runs"
                );
            }
        }
    }

    #[test]
    fn locations_compare_by_their_parts() {
        let a = SchemaLocation::new("/a", "#/b");
        let b = SchemaLocation::new("/a#", "/b");
        assert_ne!(a, b);
        assert!(a < b);
        assert_eq!(a, SchemaLocation::new("/a", "#/b"));
        assert_eq!(
            format!("{a:?}"),
            r##"SchemaLocation { keyword_path: "/a", absolute: "#/b" }"##
        );
    }

    #[test]
    fn equality_sees_the_message_and_the_missing_property() {
        let base = violation_parts("/k", "#/k", "m", Some("p"));
        assert_eq!(base, violation_parts("/k", "#/k", "m", Some("p")));
        assert_ne!(base, violation_parts("/k", "#/k", "n", Some("p")));
        assert_ne!(base, violation_parts("/k", "#/k", "m", Some("q")));
        assert_ne!(base, violation_parts("/k", "#/k", "m", None));
        assert_ne!(base, violation_parts("/k", "#/k", "mp", None));
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
