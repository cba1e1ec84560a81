//! The yes/no evaluator's walks over an object's members: `properties` and the fused shape.

use super::Flag;
use crate::ecma_regex::EcmaRegex;
use crate::eval::MAX_DEPTH;
use crate::flag::plan::{Check, STRING_KIND};
use crate::keywords::Shape;
use crate::keywords::names::NameIndex;
use crate::keywords::shape::{Lookup, Slot};
use crate::node::NodeId;
use serde_json::{Map, Value};

/// How many recursive members of an object a shape sets aside in its first pass (more take a second walk).
const DEFERRED: usize = 8;

/// An object's members whose schemas recurse, set aside while its cheap checks run (so that those fail a union
/// member before it descends): up to [`DEFERRED`]; past that, a second walk finds them.
#[derive(Default)]
struct Deferred<'v> {
    /// Filled on the first member set aside: most objects have none, and need not pay for the array.
    members: Option<[(NodeId, &'v Value); DEFERRED]>,
    n: usize,
}

impl<'v> Deferred<'v> {
    #[inline]
    fn push(&mut self, id: NodeId, value: &'v Value) {
        let members = self.members.get_or_insert([(id, value); DEFERRED]);
        if let Some(place) = members.get_mut(self.n) {
            *place = (id, value);
        }
        self.n += 1;
    }

    /// The members set aside, unless there were too many to keep.
    #[inline]
    fn kept(&self) -> Option<&[(NodeId, &'v Value)]> {
        match &self.members {
            Some(members) => members.get(..self.n),
            None => Some(&[]),
        }
    }
}

impl Flag<'_> {
    #[inline(never)]
    /// `properties`: the cheap members first, then those that recurse (see `compile::order_properties_cheap_first`).
    pub(super) fn properties(
        &mut self,
        entries: &[(Box<str>, NodeId)],
        by_name: &[(Box<str>, NodeId)],
        split: usize,
        object: &Map<String, Value>,
        depth: u32,
    ) -> bool {
        if !self.schema.sorted_maps {
            return entries.iter().all(|(name, id)| {
                object
                    .get(name.as_ref())
                    .is_none_or(|value| self.child(*id, value, depth))
            });
        }
        if crate::keywords::properties::few_names_many_members(entries.len(), object.len()) {
            return entries.iter().all(|(name, id)| {
                object
                    .get(name.as_ref())
                    .is_none_or(|value| self.child(*id, value, depth))
            });
        }
        let (cheap, rest) = by_name.split_at(split.min(by_name.len()));
        if crate::keywords::properties::few_names_many_members(object.len(), by_name.len()) {
            // A small object against a long list (a schema against its meta-schema): each member is looked up.
            return [cheap, rest].into_iter().all(|group| {
                object.iter().all(|(key, value)| {
                    match group.binary_search_by(|(name, _)| crate::text::cmp_names(name, key)) {
                        Ok(found) => self.child(group[found].1, value, depth),
                        Err(_) => true,
                    }
                })
            });
        }
        [cheap, rest].into_iter().all(|group| {
            let mut cursor = 0;
            for (key, value) in object {
                // Every name of the group is behind: the rest of the members have no schema here.
                if cursor >= group.len() {
                    break;
                }
                while let Some((name, id)) = group.get(cursor) {
                    if crate::text::same_name(name, key) {
                        cursor += 1;
                        if !self.child(*id, value, depth) {
                            return false;
                        }
                        break;
                    }
                    match crate::text::cmp_names(name, key) {
                        std::cmp::Ordering::Less => cursor += 1,
                        std::cmp::Ordering::Equal => {
                            cursor += 1;
                            if !self.child(*id, value, depth) {
                                return false;
                            }
                            break;
                        }
                        std::cmp::Ordering::Greater => break,
                    }
                }
            }
            true
        })
    }

    /// `propertyNames`: each name, as a string, against node `id`; all of them at once when that node (through up
    /// to four `$ref`s) takes any string and checks nothing of one (`{"$ref": "#/$defs/key"}` to `{"type": "string"}`).
    #[inline(never)]
    pub(super) fn property_names(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        if let Some(hops) = self.any_string_holds(id, depth) {
            // The hops the walk would have made, counted as it counts them (they set when memoizing starts).
            let names = u32::try_from(object.len()).unwrap_or(u32::MAX);
            self.ref_hops = self.ref_hops.saturating_add(hops.saturating_mul(names));
            return true;
        }
        // One string value for every name in turn: a fresh one per name was an allocation each.
        let mut name = Value::String(String::new());
        self.memo_suspended += 1;
        let valid = object.keys().all(|key| {
            if let Value::String(text) = &mut name {
                text.clear();
                text.push_str(key);
            }
            self.child(id, &name, depth)
        });
        self.memo_suspended -= 1;
        valid
    }

    /// The `$ref` hops from node `id` (a child of a node at `depth`) to a node that admits every string and has no
    /// check for one, if there is such a chain of at most four within the depth limit.
    fn any_string_holds(&self, mut id: NodeId, depth: u32) -> Option<u32> {
        for hops in 0..=4 {
            let plan = self.plans.get(id as usize)?;
            if depth + 1 + hops > MAX_DEPTH || !plan.types.admits_kind(STRING_KIND) {
                return None;
            }
            match plan.checks_for(STRING_KIND) {
                [] => return Some(hops),
                [Check::Ref(target)] => id = *target,
                _ => return None,
            }
        }
        None
    }

    /// `properties` of many names (keyword `index` of node `id`): a small object's members are looked up by name,
    /// the cheap schemas applied first as the merge applies them; a larger object runs the keyword as compiled.
    #[inline(never)]
    pub(super) fn indexed_properties(
        &mut self,
        names: &NameIndex<(NodeId, bool)>,
        (id, index): (NodeId, u16),
        instance: &Value,
        depth: u32,
    ) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        if !crate::keywords::names::worth_index(names.len(), object.len()) {
            return self.keyword_at(id, index, instance, depth);
        }
        let mut deferred = Deferred::default();
        for (key, value) in object {
            match names.get(key) {
                Some(&(node, true)) if !self.child(node, value, depth) => return false,
                Some(&(node, false)) => deferred.push(node, value),
                _ => {}
            }
        }
        match deferred.kept() {
            Some(kept) => kept.iter().all(|(node, value)| self.child(*node, value, depth)),
            None => object.iter().all(|(key, value)| match names.get(key) {
                Some(&(node, false)) => self.child(node, value, depth),
                _ => true,
            }),
        }
    }

    /// `properties`, `required`, `additionalProperties` and `patternProperties` fused (see [`Shape`]).
    #[inline(never)]
    pub(super) fn shape(&mut self, shape: &Shape, object: &Map<String, Value>, depth: u32) -> bool {
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
        if let Some(kept) = deferred.kept() {
            return kept.iter().all(|(id, value)| self.child(*id, value, depth));
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
