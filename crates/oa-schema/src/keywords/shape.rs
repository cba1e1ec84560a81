//! An object's shape: `properties`, `required` and `additionalProperties` of one schema fused into one keyword.
//!
//! Evaluated apart, the three keywords walk the instance's members three times and compare every name three
//! times. The shape keeps one table of every name the three mention, sorted, and walks the members once (twice
//! when some property schema recurses, so that cheap checks still fail a union member before it descends). The
//! violations are the ones the separate keywords give: the same nodes are descended, a rejected member is reported
//! by the same function, and a missing required property sends the run back to `required` itself. When a sibling
//! `unevaluated*` needs to know what was evaluated, the original keywords run instead.

use super::Keyword;
use super::properties::Deferred;
use crate::ecma_regex::{ByteSet, EcmaRegex};
use crate::eval::{Evaluator, Frame, Step};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::node::{Body, Node, NodeId};
use crate::text::cmp_names;
use crate::typed::plan::{ObjectPlan, Others, PlannedName};
use crate::violation::ViolationKind;
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// The fused keyword.
#[derive(Debug)]
pub(crate) struct Shape {
    /// Every name of `properties` and `required`, sorted and without repeats.
    table: Box<[Slot]>,
    /// How many slots are required.
    n_required: usize,
    /// What `additionalProperties` does with a member the table lacks.
    additional: Additional,
    /// `patternProperties`: every pattern a member's name matches applies its schema, and such a member is not
    /// "additional". The collecting evaluator runs the original keywords when there are patterns; the yes/no
    /// evaluator walks the members once for all four keywords.
    patterns: Box<[(EcmaRegex, NodeId)]>,
    /// The first bytes of the names some pattern may match (`None`: any name may), so most names skip the
    /// patterns (`^x-` in OpenAPI documents sees only names that start with `x`).
    pattern_starts: Option<ByteSet>,
    /// The table's positions by name, when it is long enough to be worth an index (see [`Lookup::for_members`]).
    index: Option<super::names::NameIndex<usize>>,
    /// Whether some member must wait for the second pass (a recursive property schema, or an additional schema).
    deferred: bool,
    /// The keywords fused, in their evaluation order: they run when evaluated properties must be tracked, and
    /// `required` reports the missing names.
    pub(crate) originals: Box<[Keyword]>,
}

/// One name of the table.
#[derive(Debug)]
pub(crate) struct Slot {
    name: Box<str>,
    /// The name's first eight bytes as a big-endian number (see [`prefix_key`]).
    prefix: u64,
    /// The `properties` schema for the name, if any.
    pub(crate) node: Option<NodeId>,
    /// Whether `required` lists the name.
    pub(crate) required: bool,
    /// Whether the property schema only checks the value in hand (it runs in the first pass).
    pub(crate) cheap: bool,
}

impl Slot {
    /// The property name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

impl Shape {
    /// The names, sorted.
    pub(crate) fn table(&self) -> &[Slot] {
        &self.table
    }

    /// The index of the table when it is worth using for an object of `members` members: always when members
    /// come unsorted (it beats a binary search), else when the object is small beside the table.
    pub(crate) fn index_for(&self, sorted: bool, members: usize) -> Option<&super::names::NameIndex<usize>> {
        self.index
            .as_ref()
            .filter(|_| !sorted || super::names::worth_index(self.table.len(), members))
    }

    /// How many names are required.
    pub(crate) fn n_required(&self) -> usize {
        self.n_required
    }

    /// Whether `additionalProperties: false` rejects members not named by `properties`.
    pub(crate) fn rejects_others(&self) -> bool {
        matches!(self.additional, Additional::Reject)
    }

    /// `patternProperties`' patterns and schemas.
    pub(crate) fn patterns(&self) -> &[(EcmaRegex, NodeId)] {
        &self.patterns
    }

    /// Whether some pattern may match `name` (when false, none does).
    #[inline]
    pub(crate) fn may_pattern(&self, name: &str) -> bool {
        match self.pattern_starts {
            None => true,
            Some(starts) => name.as_bytes().first().is_some_and(|byte| starts.contains(*byte)),
        }
    }

    /// The `additionalProperties` schema, when it is one.
    pub(crate) fn other_schema(&self) -> Option<NodeId> {
        match self.additional {
            Additional::Schema(id) => Some(id),
            Additional::Any | Additional::Reject => None,
        }
    }
}

/// `additionalProperties`, as the shape applies it.
#[derive(Debug, Clone, Copy)]
enum Additional {
    /// Absent (or `true`): other members are allowed.
    Any,
    /// `false`: other members are rejected by name.
    Reject,
    /// A schema for other members.
    Schema(NodeId),
}

/// Fuses each node's `properties`, `required`, `additionalProperties` and `patternProperties` (any two of them)
/// into a [`Shape`]. Runs after the keywords are ordered and each `properties` split into cheap and recursive
/// members (`order_properties_cheap_first`).
pub(crate) fn fuse(nodes: &mut [Node]) {
    let is_false: Vec<bool> = nodes
        .iter()
        .map(|node| matches!(node.body, Body::Bool(false)))
        .collect();
    let is_true: Vec<bool> = nodes
        .iter()
        .map(|node| matches!(node.body, Body::Bool(true)))
        .collect();
    for node in nodes.iter_mut() {
        let Body::Keywords(keywords) = &mut node.body else {
            continue;
        };
        let fusable = |keyword: &Keyword| {
            matches!(
                keyword,
                Keyword::Properties { .. }
                    | Keyword::Required(_)
                    | Keyword::AdditionalProperties { .. }
                    | Keyword::PatternProperties(_)
            )
        };
        let n_fusable = keywords.iter().filter(|keyword| fusable(keyword)).count();
        if n_fusable < 2 {
            continue;
        }
        // Where the shape runs: in the place of `properties` (after the scalar checks), else of the earliest.
        let at = keywords
            .iter()
            .position(|keyword| matches!(keyword, Keyword::Properties { .. }))
            .or_else(|| keywords.iter().position(fusable))
            .unwrap_or(0);
        let mut kept = Vec::with_capacity(keywords.len() - n_fusable + 1);
        let mut originals = Vec::with_capacity(n_fusable);
        let mut place = 0;
        for (keyword_idx, keyword) in std::mem::take(keywords).into_vec().into_iter().enumerate() {
            if keyword_idx == at {
                place = kept.len();
            }
            if fusable(&keyword) {
                originals.push(keyword);
            } else {
                kept.push(keyword);
            }
        }
        let shape = build(originals, &is_false, &is_true);
        kept.insert(place, Keyword::Shape(std::sync::Arc::new(shape)));
        *keywords = kept.into_boxed_slice();
    }
}

fn build(originals: Vec<Keyword>, is_false: &[bool], is_true: &[bool]) -> Shape {
    let flag = |table: &[bool], id: NodeId| table.get(id as usize).copied().unwrap_or(false);
    let mut table: Vec<Slot> = Vec::new();
    let mut additional = Additional::Any;
    let mut patterns: Box<[(EcmaRegex, NodeId)]> = Box::new([]);
    for keyword in &originals {
        match keyword {
            Keyword::PatternProperties(entries) => patterns = entries.clone(),
            Keyword::Properties { by_name, split, .. } => {
                table.extend(by_name.iter().enumerate().map(|(entry_idx, (name, id))| Slot {
                    name: name.clone(),
                    prefix: prefix_key(name),
                    node: Some(*id),
                    required: false,
                    cheap: entry_idx < *split,
                }));
            }
            Keyword::Required(names) => table.extend(names.iter().map(|name| Slot {
                name: name.clone(),
                prefix: prefix_key(name),
                node: None,
                required: true,
                cheap: true,
            })),
            Keyword::AdditionalProperties { node, .. } => {
                additional = if flag(is_false, *node) {
                    Additional::Reject
                } else if flag(is_true, *node) {
                    Additional::Any
                } else {
                    Additional::Schema(*node)
                };
            }
            _ => {}
        }
    }
    // One slot per name: a required name takes the property schema of the same name.
    table.sort_by(|a, b| a.name.cmp(&b.name));
    let mut merged: Vec<Slot> = Vec::with_capacity(table.len());
    for slot in table {
        match merged.last_mut() {
            Some(last) if last.name == slot.name => {
                last.required |= slot.required;
                if slot.node.is_some() {
                    last.node = slot.node;
                    last.cheap = slot.cheap;
                }
            }
            _ => merged.push(slot),
        }
    }
    let n_required = merged.iter().filter(|slot| slot.required).count();
    let deferred = matches!(additional, Additional::Schema(_))
        || merged.iter().any(|slot| slot.node.is_some() && !slot.cheap);
    Shape {
        index: super::names::NameIndex::new(
            merged
                .iter()
                .enumerate()
                .map(|(position, slot)| (slot.name.as_ref(), position)),
        ),
        table: merged.into_boxed_slice(),
        n_required,
        additional,
        pattern_starts: patterns
            .iter()
            .try_fold(ByteSet::default(), |starts, (regex, _)| {
                regex.first_bytes().map(|first| starts.union(first))
            }),
        patterns,
        deferred,
        originals: originals.into_boxed_slice(),
    }
}

/// Finds members' slots: by merging when the instance's members come sorted, else by binary search; or by the
/// shape's index when it has one and the object is small beside the table.
pub(crate) struct Lookup<'t> {
    table: &'t [Slot],
    cursor: usize,
    sorted: bool,
    index: Option<&'t super::names::NameIndex<usize>>,
}

impl<'t> Lookup<'t> {
    pub(crate) fn new(table: &'t [Slot], sorted: bool) -> Self {
        Self {
            table,
            cursor: 0,
            sorted,
            index: None,
        }
    }

    /// The lookup for an object of `members` members.
    pub(crate) fn for_members(shape: &'t Shape, sorted: bool, members: usize) -> Self {
        Self {
            index: shape.index_for(sorted, members),
            ..Self::new(&shape.table, sorted)
        }
    }

    /// The slot of member `key`, if the shape names it. Inlined: a call's set-up costs as much as the usual step.
    #[inline(always)]
    pub(crate) fn find(&mut self, key: &str) -> Option<&'t Slot> {
        self.find_indexed(key).map(|(_, slot)| slot)
    }

    /// The slot of member `key` and its index in the table, if the shape names it.
    #[inline(always)]
    pub(crate) fn find_indexed(&mut self, key: &str) -> Option<(usize, &'t Slot)> {
        if let Some(index) = self.index {
            let position = *index.get(key)?;
            return self.table.get(position).map(|slot| (position, slot));
        }
        if !self.sorted {
            return self
                .table
                .binary_search_by(|slot| cmp_names(&slot.name, key))
                .ok()
                .and_then(|found| self.table.get(found).map(|slot| (found, slot)));
        }
        // The key's prefix is only needed when a step ties on the first byte: computed then, once.
        let mut prefix = None;
        while let Some(slot) = self.table.get(self.cursor) {
            // Members usually are the next name: test for that first, without a call.
            if crate::text::same_name(&slot.name, key) {
                self.cursor += 1;
                return Some((self.cursor - 1, slot));
            }
            let order = match (slot.name.as_bytes().first(), key.as_bytes().first()) {
                (Some(ours), Some(theirs)) if ours != theirs => ours.cmp(theirs),
                // A tie on the first byte: most are settled by the eight-byte prefixes, without a `memcmp`.
                _ => match slot.prefix.cmp(prefix.get_or_insert_with(|| prefix_key(key))) {
                    Ordering::Equal => slot.name.as_ref().cmp(key),
                    unequal => unequal,
                },
            };
            match order {
                Ordering::Less => self.cursor += 1,
                Ordering::Equal => {
                    self.cursor += 1;
                    return Some((self.cursor - 1, slot));
                }
                Ordering::Greater => return None,
            }
        }
        None
    }
}

/// A name's first eight bytes, zero-padded, as a big-endian number: when two names' keys differ they order as the
/// names do (a name that ends early pads with zeros, and a shorter name that is a prefix of another sorts first),
/// so a merge compares one number per step and compares bytes only when the keys tie.
#[inline]
fn prefix_key(name: &str) -> u64 {
    let bytes = name.as_bytes();
    if let Some(head) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    let mut key = 0_u64;
    for (position, byte) in bytes.iter().enumerate() {
        key |= u64::from(*byte) << (56 - 8 * position);
    }
    key
}

/// Evaluates the shape.
pub(crate) fn evaluate<'v>(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    if evaluated.is_some() || !shape.patterns.is_empty() {
        return originals(ev, shape, node, instance, frame, evaluated);
    }
    let Value::Object(object) = instance else {
        return true;
    };
    let mut valid = first_pass(ev, shape, node, object, frame);
    if !valid && !ev.collect {
        return false;
    }
    // A collecting walk took every member in the first pass, in the instance's order (see `first_pass`).
    if shape.deferred && !ev.collect && !second_pass(ev, shape, object, frame) {
        valid = false;
    }
    valid
}

/// The original keywords, in order (when evaluated properties are tracked).
fn originals<'v>(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let mut valid = true;
    for keyword in shape.originals.iter() {
        let part_valid = super::evaluate(ev, keyword, node, instance, frame, evaluated);
        fail_part!(ev, valid, part_valid);
    }
    valid
}

/// Counts required members, rejects members `additionalProperties: false` forbids, and applies the cheap property
/// schemas; when collecting, every property and `additionalProperties` schema too, so that violations are recorded
/// in the instance's order (a report already in order is not sorted again) and no second pass is needed.
fn first_pass<'v>(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    node: &Node,
    object: &'v Map<String, Value>,
    frame: &Frame<'_, 'v>,
) -> bool {
    let schema = ev.schema;
    let mut lookup = Lookup::new(&shape.table, schema.sorted_maps);
    let mut n_present = 0;
    // The required slots met, by index (the first 64), so that a report names the missing ones from the table.
    let mut present: u64 = 0;
    let mut valid = true;
    let in_order = ev.collect;
    for (key, value) in object {
        let member_valid = match lookup.find_indexed(key) {
            Some((index, slot)) => {
                n_present += usize::from(slot.required);
                if slot.required && index < 64 {
                    present |= 1 << index;
                }
                match slot.node {
                    Some(id) if slot.cheap || in_order => {
                        let relative = schema.nodes[id as usize].relative();
                        ev.descend(frame, id, value, Some(Step::Key(key)), relative, None)
                    }
                    Some(_) => true,
                    // Named only by `required`: still an additional property.
                    None => additional_first(ev, shape, (key, value), node, frame),
                }
            }
            None => additional_first(ev, shape, (key, value), node, frame),
        };
        fail_part!(ev, valid, member_valid);
    }
    if n_present < shape.n_required {
        valid = false;
        if ev.collect {
            if shape.table.len() <= 64 {
                // In name order, as `required` (its names sorted) reports them.
                for (index, slot) in shape.table.iter().enumerate() {
                    if slot.required && present & (1 << index) == 0 {
                        super::object::missing(ev, ViolationKind::Required, &slot.name, None, node, frame);
                    }
                }
            } else {
                report_missing(ev, shape, node, object, frame);
            }
        }
    }
    valid
}

/// `additionalProperties` in the first pass: `false` decides here; a schema waits for the second pass, unless the
/// walk is collecting (see `first_pass`).
#[inline]
fn additional_first<'v>(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    (key, value): (&'v str, &'v Value),
    node: &Node,
    frame: &Frame<'_, 'v>,
) -> bool {
    match shape.additional {
        Additional::Reject => super::rejected(
            ev,
            ViolationKind::AdditionalProperties,
            Step::Key(key),
            node,
            frame,
        ),
        Additional::Schema(id) if ev.collect => {
            let relative = ev.schema.nodes[id as usize].relative();
            ev.descend(frame, id, value, Some(Step::Key(key)), relative, None)
        }
        Additional::Any | Additional::Schema(_) => true,
    }
}

/// Lets `required` itself name every missing property.
#[cold]
fn report_missing<'v>(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    node: &Node,
    object: &'v Map<String, Value>,
    frame: &Frame<'_, 'v>,
) {
    for keyword in shape.originals.iter() {
        if let Keyword::Required(names) = keyword {
            super::object::evaluate_required_in(ev, names, node, object, frame);
        }
    }
}

/// Applies the property schemas that recurse, and the `additionalProperties` schema.
fn second_pass<'v>(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    object: &'v Map<String, Value>,
    frame: &Frame<'_, 'v>,
) -> bool {
    let schema = ev.schema;
    let mut lookup = Lookup::new(&shape.table, schema.sorted_maps);
    let mut valid = true;
    for (key, value) in object {
        let target = match (
            lookup
                .find(key)
                .and_then(|slot| slot.node.map(|id| (id, slot.cheap))),
            shape.additional,
        ) {
            (Some((id, false)), _) => id,
            (Some((_, true)), _) => continue,
            // Not a `properties` name (perhaps only a `required` one): an additional property.
            (None, Additional::Schema(id)) => id,
            (None, Additional::Any | Additional::Reject) => continue,
        };
        let relative = schema.nodes[target as usize].relative();
        let part_valid = ev.descend(frame, target, value, Some(Step::Key(key)), relative, None);
        fail_part!(ev, valid, part_valid);
    }
    valid
}

/// The fused shape in the yes/no evaluator.
impl Flag<'_> {
    /// `properties`, `required`, `additionalProperties` and `patternProperties` fused (see [`Shape`]).
    #[inline(never)]
    pub(crate) fn shape(&mut self, shape: &Shape, object: &Map<String, Value>, depth: u32) -> bool {
        // Too few members to hold every required name: no need to look at them.
        if object.len() < shape.n_required() {
            return false;
        }
        let sorted = self.schema.sorted_maps;
        let table = shape.table();
        let mut deferred = Deferred::default();
        // The same first pass in two copies, each with its own way to find a member's slot: by the shape's index
        // (a small object against a long table), or by a merge with the table (no branch between them per member).
        let first = match shape.index_for(sorted, object.len()) {
            Some(index) => self.first_pass(shape, object, depth, &mut deferred, |key| {
                index.get(key).and_then(|position| table.get(*position))
            }),
            None => {
                let mut lookup = Lookup::new(table, sorted);
                self.first_pass(shape, object, depth, &mut deferred, |key| lookup.find(key))
            }
        };
        if !first {
            return false;
        }
        if let Some(holds) = deferred.all_kept(|id, value| self.child(id, value, depth)) {
            return holds;
        }
        // Second pass: the property schemas that recurse, and the `additionalProperties` schema (the patterns
        // all ran in the first pass and matched without exceeding the budget, or it returned).
        let others = shape.other_schema();
        let patterns = shape.patterns();
        let mut lookup = Lookup::for_members(shape, sorted, object.len());
        object.iter().all(|(key, value)| {
            let target = match lookup
                .find(key)
                .and_then(|slot| slot.node.map(|id| (id, slot.cheap)))
            {
                Some((id, false)) => Some(id),
                Some((_, true)) => None,
                None => others.filter(|_| {
                    !shape.may_pattern(key)
                        || !patterns.iter().any(|(regex, _)| regex.is_match(key) == Ok(true))
                }),
            };
            target.is_none_or(|id| self.child(id, value, depth))
        })
    }

    /// A shape's first pass: counts required names, rejects what `additionalProperties: false` forbids, applies
    /// the cheap schemas and sets aside the members whose schemas recurse. Whether all of that held.
    #[inline(always)]
    fn first_pass<'v, 't>(
        &mut self,
        shape: &Shape,
        object: &'v Map<String, Value>,
        depth: u32,
        deferred: &mut Deferred<'v>,
        mut find: impl FnMut(&str) -> Option<&'t Slot>,
    ) -> bool {
        let others = shape.other_schema();
        let patterns = shape.patterns();
        let mut n_present = 0;
        for (key, value) in object {
            let slot = find(key);
            // `patternProperties`: every pattern the name matches applies; such a member is not additional.
            let patterned = if patterns.is_empty() || !shape.may_pattern(key) {
                false
            } else {
                match self.patterns(patterns, key, value, depth) {
                    Some(patterned) => patterned,
                    None => return false,
                }
            };
            let additional = if patterned {
                (true, None)
            } else {
                (!shape.rejects_others(), others)
            };
            let (valid, later) = match slot {
                Some(slot) => {
                    n_present += usize::from(slot.required);
                    match slot.node {
                        Some(id) if slot.cheap => (self.child(id, value, depth), None),
                        Some(id) => (true, Some(id)),
                        None => additional,
                    }
                }
                None => additional,
            };
            if !valid {
                return false;
            }
            if let Some(id) = later {
                deferred.push(id, value);
            }
        }
        n_present >= shape.n_required()
    }

    /// Applies every pattern `key` matches to `value`: whether one matched, `None` when one failed (or a match
    /// exceeded the regex budget).
    #[inline(never)]
    fn patterns(
        &mut self,
        patterns: &[(EcmaRegex, NodeId)],
        key: &str,
        value: &Value,
        depth: u32,
    ) -> Option<bool> {
        let mut patterned = false;
        for (regex, id) in patterns {
            match regex.is_match(key) {
                Ok(false) => {}
                Ok(true) => {
                    patterned = true;
                    if !self.child(*id, value, depth) {
                        return None;
                    }
                }
                Err(_) => return None,
            }
        }
        Some(patterned)
    }
}

impl Shape {
    /// The shape as the typed route's object plan.
    pub(crate) fn typed_object(&self) -> ObjectPlan {
        let others = if self.rejects_others() {
            Others::Reject
        } else {
            self.other_schema().map_or(Others::Any, Others::Schema)
        };
        ObjectPlan {
            names: self
                .table()
                .iter()
                .map(|slot| PlannedName {
                    name: slot.name().into(),
                    node: slot.node,
                    required: slot.required,
                })
                .collect(),
            n_required: self.n_required(),
            patterns: self.patterns.clone(),
            others,
            keys: Box::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// A fused shape names exactly the missing required properties, each once, with `required`'s violation,
        /// whether it names them from its table (up to 64 names) or lets `required` walk the object (more).
        #[test]
        fn missing_required_properties_are_each_named_once(
            n_names in 1..90_usize,
            present in prop::collection::vec(any::<bool>(), 90),
            with_schemas in any::<bool>(),
        ) {
            let names: Vec<String> = (0..n_names).map(|idx| format!("p{idx:02}")).collect();
            let properties: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .filter(|_| with_schemas)
                .map(|name| (name.clone(), serde_json::json!({"type": "integer"})))
                .collect();
            // Without property schemas, `additionalProperties: false` would reject every member: `true` then.
            let schema = serde_json::json!({
                "type": "object",
                "required": names,
                "properties": properties,
                "additionalProperties": !with_schemas
            });
            let instance: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .zip(&present)
                .filter(|(_, here)| **here)
                .map(|(name, _)| (name.clone(), serde_json::json!(1)))
                .collect();
            let expected: Vec<&str> = names
                .iter()
                .zip(&present)
                .filter(|(_, here)| !**here)
                .map(|(name, _)| name.as_str())
                .collect();
            let validator = crate::Validator::new(&schema).unwrap();
            match validator.validate(&serde_json::Value::Object(instance)) {
                Ok(()) => prop_assert!(expected.is_empty()),
                Err(report) => {
                    let named: Vec<&str> = report.iter().filter_map(|violation| violation.missing_property()).collect();
                    prop_assert_eq!(&named, &expected);
                    for violation in report.iter() {
                        prop_assert_eq!(violation.keyword(), Some("required"));
                        prop_assert_eq!(violation.schema_location().keyword_path(), "/required");
                        prop_assert_eq!(
                            violation.instance_location().as_str(),
                            format!("/{}", violation.missing_property().unwrap_or_default())
                        );
                    }
                }
            }
        }

        /// Unequal prefix keys order as the names do (names drawn so that shared prefixes, NULs, non-ASCII and
        /// lengths around eight bytes are common).
        #[test]
        fn prefix_keys_order_as_names(a in "[ab\\x00é]{0,10}", b in "[ab\\x00é]{0,10}") {
            let (key_a, key_b) = (super::prefix_key(&a), super::prefix_key(&b));
            if key_a != key_b {
                prop_assert_eq!(key_a.cmp(&key_b), a.cmp(&b));
            }
            if a == b {
                prop_assert_eq!(key_a, key_b);
            }
        }
    }
}
