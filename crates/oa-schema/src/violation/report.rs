//! [`Violations`]: every violation of one validation, in the documented order, repeats dropped, capped on request
//! with whole alternatives kept (`alternatives.rs`), rendered as text.

use super::Violation;
use std::fmt;

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
/// themselves); a larger one is sorted by comparing locations, so that its order costs no key per violation.
const KEYED_SORT_MAX: usize = 4096;

/// Every violation's key in one buffer ([`Location::push_sort_key`](oa_pointer::Location::push_sort_key)), for sorting a report out of order.
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
    pub(super) items: Vec<Violation>,
    /// How many violations a cap left out (see `ReportOptions::max_violations`).
    omitted: usize,
    /// What a cap cut of the failed unions (boxed: a report that was not capped, nearly every one, stays small,
    /// and so does every error that carries one).
    cut: Option<Box<UnionsCut>>,
    /// Duplicates reached through another keyword path (the same assertion through two union members), with the
    /// index of the violation they repeat: not violations of their own, but the text rendering lists the line
    /// under each alternative that reaches it. At most [`MAX_REACHED_ALSO`].
    pub(super) reached_also: Vec<(usize, Violation)>,
}

/// What a cap cut of a report's failed unions: how many alternatives of the unions still shown it left out, and
/// each union it cut (its true member count, the members kept).
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnionsCut {
    n_alternatives: usize,
    census: super::alternatives::Census,
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
    /// report out of order is sorted stably (which finds and merges the runs): by index on keys up to
    /// [`KEYED_SORT_MAX`] violations, past it the violations themselves by comparing locations, so that no key is
    /// held per violation (a report can hold hundreds of thousands of them).
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
            // after the members): sorted where it lies, without a key or an allocation. A report in order had every
            // pair of neighbours compared, so when no compared pair shared a location there is no repeat to look
            // for.
            //
            // A violation out of place (the one-pass report's arrive in text order, an object's members not in
            // name order) is put in place by a search of the part already sorted and one rotation, where stepping
            // back pair by pair compared it with every violation it passed. The search takes the place after its
            // equals, so the sort stays stable; the neighbours it did not compare are then checked for repeats.
            let mut items = items;
            let mut shared_location = false;
            let mut moved = false;
            for idx in 1..items.len() {
                let in_order = match (items.get(idx - 1), items.get(idx)) {
                    (Some(a), Some(b)) => match a.instance_location.cmp(&b.instance_location) {
                        std::cmp::Ordering::Equal => {
                            shared_location = true;
                            report_order(a, b).is_le()
                        }
                        by_location => by_location.is_le(),
                    },
                    _ => true,
                };
                if in_order {
                    continue;
                }
                moved = true;
                let Some((violation, before)) = items.get(..=idx).and_then(<[_]>::split_last) else {
                    continue;
                };
                // The one before it is greater: the place is before that one. Stepping back 1, 2, 4, ... places
                // brackets it (a violation a place or two out costs what stepping pair by pair did), then a binary
                // search finds it in the bracket.
                let not_after = |kept: &Violation| location_then_report_order(kept, violation).is_le();
                let mut greater = idx - 1;
                let mut step = 1;
                let from = loop {
                    let Some(probe) = greater.checked_sub(step) else {
                        break 0;
                    };
                    if before.get(probe).is_some_and(not_after) {
                        break probe + 1;
                    }
                    greater = probe;
                    step *= 2;
                };
                let at = from
                    + before
                        .get(from..greater)
                        .unwrap_or_default()
                        .partition_point(not_after);
                if let Some(moving) = items.get_mut(at..=idx) {
                    moving.rotate_right(1);
                }
            }
            if !shared_location && !moved {
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
        if items.len() > KEYED_SORT_MAX {
            // The violations themselves are sorted (the stable sort finds and merges the runs): the merges read
            // each run front to back, where sorting indices reached violations and their texts at random, and no
            // order is applied after. The sort's buffer holds handles (64 bytes each; the texts stay put): about
            // 8 MB, or half the report's handles past 250,000 violations (canada's 279,246: 8.9 MB, where sorting
            // indices held 16 bytes per violation, 4.5 MB).
            let mut items = items;
            items.sort_by(location_then_report_order);
            return Self::deduplicated(items);
        }
        // Decorate-sort: each location as one byte key ordered as the location, all in one buffer, so that
        // comparisons are `memcmp`s.
        let keys = KeyTable::of(&items);
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by(|&a, &b| {
            keys.key(a)
                .cmp(keys.key(b))
                .then_with(|| match (items.get(a), items.get(b)) {
                    (Some(a), Some(b)) => report_order(a, b),
                    _ => std::cmp::Ordering::Equal,
                })
        });
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

    /// Keeps at most `max` violations (at least one) and counts the rest, as
    /// [`ReportOptions::max_violations`](crate::ReportOptions::max_violations) does: for a report made without
    /// it (the incremental route's, which takes no options). Whole alternatives are kept: at each failed union, its
    /// members closest to valid first (fewest violations, then the deepest match), so the member holding the one
    /// real mistake is never the one cut; the text keeps each union's true member count.
    ///
    /// ```
    /// use oa_schema::{ReportOptions, Validator};
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "items": { "type": "string" } })).unwrap();
    /// let mut run = validator.incremental().without_value();
    /// run.feed(b"[1, 2, 3]").unwrap();
    /// let Err(oa_schema::IncrementalError::Invalid(report)) = run.finish() else { panic!("invalid") };
    /// let capped = report.capped(2);
    /// assert_eq!((capped.len(), capped.omitted()), (2, 1));
    /// let options = ReportOptions::new().max_violations(2);
    /// let direct = validator.validate_with(&json!([1, 2, 3]), &options).unwrap_err();
    /// assert_eq!(capped.error_message(), direct.error_message());
    /// ```
    #[must_use]
    pub fn capped(self, max: usize) -> Self {
        let keep = max.max(1);
        if self.items.len() <= keep {
            return self;
        }
        // The list the text renders: each violation, then the duplicates that reach it through other members.
        let rendered = self.rendered();
        let kept = super::alternatives::cap(&rendered, keep);
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
        let no_cut = super::alternatives::Census::new();
        let census = self.cut.as_ref().map_or(&no_cut, |cut| &cut.census);
        super::alternatives::lines(&items, census, &mut lines);
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
mod tests;
