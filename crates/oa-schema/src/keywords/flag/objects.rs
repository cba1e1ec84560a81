//! The yes/no evaluator's walks over an object's members: `properties` and the fused shape.

use super::Flag;
use crate::ecma_regex::EcmaRegex;
use crate::eval::MAX_DEPTH;
use crate::keywords::Shape;
use crate::keywords::names::NameIndex;
use crate::keywords::plan::{Check, STRING_KIND};
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

#[cfg(test)]
mod tests {
    //! The walks that look members up in a name index (lists of eight names or more) against the collecting
    //! evaluator, which merges: objects small enough for the index and large enough for the merge.
    use crate::eval::Evaluator;
    use crate::keywords::plan::Check;
    use crate::validator::Validator;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Names of every length class the index reads differently (up to 3 bytes, 4 to 7, 8 to 16, longer), with
    /// shared heads and tails.
    const NAMES: [&str; 20] = [
        "a",
        "ab",
        "b",
        "id",
        "kind",
        "name",
        "names",
        "type",
        "typed",
        "base_url",
        "base_path",
        "base_path_env",
        "api_token",
        "api_token_env",
        "content_segmentation",
        "content_segmentations",
        "escape_quotes",
        "escape_special_characters",
        "é",
        "x-é-long-name-over-16",
    ];

    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            9 => prop::sample::select(NAMES.to_vec()).prop_map(str::to_owned),
            1 => "[a-z_]{0,20}",
        ]
    }

    /// Property schemas: cheap ones, and ones that recurse (set aside until the cheap ones have run).
    fn member_schema() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            prop::sample::select(vec!["null", "integer", "string", "array", "object"])
                .prop_map(|name| json!({ "type": name })),
            Just(json!({ "items": { "type": "integer" } })),
            Just(json!({ "properties": { "a": { "type": "string" } } })),
            Just(json!({ "$ref": "#/$defs/d" })),
        ]
    }

    fn member_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            (-2i64..2).prop_map(|n| json!(n)),
            "[ab]{0,2}".prop_map(Value::String),
            prop::collection::vec((0i64..2).prop_map(|n| json!(n)), 0..3).prop_map(Value::Array),
            Just(json!({ "a": "x" })),
            Just(json!({ "a": 1 })),
        ]
    }

    /// `properties` of 8 to 20 names alone or fused with `required`, `additionalProperties` and
    /// `patternProperties`, against objects of 0 to 5 members (looked up) and of up to 20 (merged).
    #[test]
    fn indexed_objects_agree_with_the_collecting_evaluator() {
        let schema = (
            prop::collection::btree_map(name(), member_schema(), 8..20),
            prop::collection::btree_set(name(), 0..4),
            prop::option::of(member_schema()),
            prop::option::of(member_schema()),
        )
            .prop_map(|(properties, required, additional, patterned)| {
                let mut schema =
                    json!({ "$defs": { "d": { "type": ["object", "integer"] } }, "properties": properties });
                if !required.is_empty() {
                    schema["required"] = json!(required);
                }
                if let Some(additional) = additional {
                    schema["additionalProperties"] = additional;
                }
                if let Some(patterned) = patterned {
                    schema["patternProperties"] = json!({ "^b": patterned });
                }
                schema
            });
        let instance = prop_oneof![
            prop::collection::btree_map(name(), member_value(), 0..6),
            prop::collection::btree_map(name(), member_value(), 6..20),
        ]
        .prop_map(|map| Value::Object(map.into_iter().collect()));
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2048));
        runner
            .run(&(schema, instance), |(schema, instance)| {
                indexed_and_agreeing(&schema, &instance, |check| match check {
                    Check::Properties { .. } => true,
                    Check::Shape(shape) => shape.index_for(false, 0).is_some(),
                    _ => false,
                })
            })
            .unwrap();
    }

    /// `schema` compiles to some check that `is` a name index, and both evaluators give `instance` one verdict.
    fn indexed_and_agreeing(
        schema: &Value,
        instance: &Value,
        is: impl Fn(&Check) -> bool,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let validator = Validator::new(schema).unwrap();
        let compiled = validator.compiled();
        prop_assert!(has_check(compiled, is), "no name index in {}", schema);
        let flag = crate::keywords::is_valid(compiled, instance);
        let collected = Evaluator::new(compiled, true).run(instance);
        prop_assert_eq!(flag, collected, "{} {}", schema, instance);
        Ok(())
    }

    /// Whether some plan has a check that `is` (for an object or a string instance).
    fn has_check(compiled: &crate::node::CompiledSchema, is: impl Fn(&Check) -> bool) -> bool {
        compiled
            .plans
            .iter()
            .any(|plan| [3, 5].iter().any(|kind| plan.checks_for(*kind).iter().any(&is)))
    }

    /// `propertyNames` whose schema takes every string (straight, or through `$ref`s: answered without a walk) or
    /// not, against objects with and without members.
    #[test]
    fn property_names_agree_with_the_collecting_evaluator() {
        let names_schema = prop::sample::select(vec![
            json!({ "type": "string" }),
            json!({ "$ref": "#/$defs/key" }),
            json!({ "$ref": "#/$defs/via" }),
            json!({ "$ref": "#/$defs/short" }),
            json!({ "type": ["string", "null"], "description": "a name" }),
            json!({ "type": "integer" }),
            json!({ "maxLength": 2 }),
            json!(true),
            json!(false),
        ]);
        let instance = prop::collection::btree_map(name(), member_value(), 0..6)
            .prop_map(|map| Value::Object(map.into_iter().collect()));
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(512));
        runner
            .run(&(names_schema, instance), |(names, instance)| {
                let schema = json!({
                    "$defs": {
                        "key": { "type": "string" },
                        "via": { "$ref": "#/$defs/key" },
                        "short": { "$ref": "#/$defs/key", "maxLength": 3 },
                    },
                    "propertyNames": names,
                });
                let validator = Validator::new(&schema).unwrap();
                let compiled = validator.compiled();
                let flag = crate::keywords::is_valid(compiled, &instance);
                let collected = Evaluator::new(compiled, true).run(&instance);
                prop_assert_eq!(flag, collected, "{} {}", schema, instance);
                Ok(())
            })
            .unwrap();
    }

    /// A long `enum` of strings, with and without other values, against strings it lists and does not, and other
    /// kinds.
    #[test]
    fn indexed_enums_agree_with_the_collecting_evaluator() {
        let options = (
            prop::collection::btree_set(name(), 8..20),
            prop::collection::vec(
                prop_oneof![Just(json!(null)), Just(json!(1)), Just(json!([1]))],
                0..3,
            ),
        )
            .prop_map(|(strings, others)| {
                let mut options: Vec<Value> = strings.into_iter().map(Value::String).collect();
                options.extend(others);
                json!({ "enum": options })
            });
        let instance = prop_oneof![
            name().prop_map(Value::String),
            Just(json!(null)),
            Just(json!(1.0)),
            Just(json!([1])),
            Just(json!(true)),
        ];
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
        runner
            .run(&(options, instance), |(schema, instance)| {
                indexed_and_agreeing(&schema, &instance, |check| matches!(check, Check::Strings(_)))
            })
            .unwrap();
    }
}
