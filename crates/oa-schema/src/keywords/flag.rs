//! The yes/no evaluator behind `is_valid`: the same compiled nodes and the same verdicts as the collecting
//! evaluator, without what only a report needs.
//!
//! The collecting evaluator links a frame per step (for instance locations and keyword paths), carries what each
//! subschema evaluated (for `unevaluated*`) and passes all of it to every keyword. A yes/no answer needs none of
//! that, and `is_valid` sits on the hot path of every structured-output call, so this evaluator walks nodes with
//! just the instance and a depth. Scalar keywords share their checks with the collecting evaluator (which never
//! reads a frame when not collecting); applicators are re-walked here. Two things it hands back to the collecting
//! evaluator: a schema whose `$dynamicRef` depends on the dynamic scope (the whole run), and a node with
//! `unevaluated*` (that subtree), since both need what frames carry.

use super::{Keyword, Shape, array, enum_, format, numeric, object, string};
use crate::ecma_regex::EcmaRegex;
use crate::eval::{Evaluator, Frame, MAX_DEPTH, MEMO_AFTER_HOPS, MemoHasher};
use crate::node::{Body, CompiledSchema, Node, NodeId};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// How many recursive members of an object a shape sets aside in its first pass (more take a second walk).
const DEFERRED: usize = 8;

/// Whether `instance` is valid against `schema`.
pub(crate) fn is_valid(schema: &CompiledSchema, instance: &Value) -> bool {
    if schema.dynamic_scope_matters {
        return Evaluator::new(schema, false).run(instance);
    }
    let mut flag = Flag {
        ev: Evaluator::new(schema, false),
        schema,
        scalar_frame: Frame::detached(schema.nodes[schema.root as usize].resource, 0),
        memo: HashMap::default(),
        memo_enabled: false,
        memo_suspended: 0,
        ref_hops: 0,
    };
    flag.node(schema.root, instance, 0)
}

/// One yes/no run.
struct Flag<'s> {
    /// A non-collecting evaluator, for the scalar keywords' shared checks and for subtrees handed back.
    ev: Evaluator<'s>,
    schema: &'s CompiledSchema,
    /// The frame the scalar checks are given: they only read it to report, which a yes/no run never does.
    scalar_frame: Frame<'static, 'static>,
    /// Outcomes of reference hops by (node, instance address), as the collecting evaluator keeps them: once a union
    /// has fallen back to a second member and the run has made [`MEMO_AFTER_HOPS`] hops, so that unions whose
    /// members recurse into the same children stay polynomial.
    memo: HashMap<(NodeId, usize), bool, BuildHasherDefault<MemoHasher>>,
    memo_enabled: bool,
    /// Non-zero while evaluating property names, whose values are temporary and must not be memoized.
    memo_suspended: u32,
    ref_hops: u32,
}

impl Flag<'_> {
    /// Evaluates a node reached at `depth` steps from the root.
    fn node(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        let node = &schema.nodes[id as usize];
        let keywords = match &node.body {
            Body::Bool(verdict) => return *verdict,
            Body::Keywords(keywords) => keywords,
        };
        if depth > MAX_DEPTH {
            return false;
        }
        if node.tracks_evaluated {
            return self.handed_back(id, instance, depth);
        }
        keywords.iter().all(|keyword| match keyword {
            // The commonest keyword, answered without the call.
            Keyword::Type(types) => types.admits(instance),
            other => self.keyword(other, id, node, instance, depth),
        })
    }

    /// A subtree that needs what frames carry (`unevaluated*`), evaluated by the collecting evaluator in flag mode,
    /// its depth counted on from here.
    #[cold]
    fn handed_back(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        let node = &schema.nodes[id as usize];
        let frame = Frame::detached(node.resource, depth.saturating_sub(1));
        self.ev.descend(&frame, id, instance, None, "", None)
    }

    /// Evaluates a subschema of the node at `depth`: a lone `type` is answered in place.
    #[inline]
    fn child(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let node = &self.schema.nodes[id as usize];
        if let Some(types) = node.only_type
            && depth < MAX_DEPTH
        {
            return types.admits(instance);
        }
        self.node(id, instance, depth + 1)
    }

    /// Follows a reference, memoized as the collecting evaluator does.
    fn follow(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        self.ref_hops = self.ref_hops.saturating_add(1);
        if !(self.memo_enabled && self.ref_hops > MEMO_AFTER_HOPS && self.memo_suspended == 0) {
            return self.child(id, instance, depth);
        }
        let key = (id, std::ptr::from_ref(instance) as usize);
        if let Some(known) = self.memo.get(&key) {
            return *known;
        }
        let valid = self.child(id, instance, depth);
        self.memo.insert(key, valid);
        valid
    }

    /// Evaluates one keyword of `node`.
    fn keyword(&mut self, keyword: &Keyword, id: NodeId, node: &Node, instance: &Value, depth: u32) -> bool {
        let ev = &mut self.ev;
        let frame = &self.scalar_frame;
        match keyword {
            Keyword::Type(types) => types.admits(instance),
            Keyword::Ref(target) | Keyword::DynamicRef { target, .. } => {
                self.follow(*target, instance, depth)
            }
            Keyword::Const(expected) => enum_::evaluate_const(ev, expected, node, instance, frame),
            Keyword::Enum(options) => enum_::evaluate_enum(ev, options, node, instance, frame),
            Keyword::Bound {
                bound,
                limit,
                approx,
                text,
            } => numeric::evaluate_bound(ev, *bound, (limit, *approx), text, node, instance, frame),
            Keyword::MultipleOf {
                divisor,
                integer,
                text,
            } => numeric::evaluate_multiple_of(ev, (divisor, *integer), text, node, instance, frame),
            Keyword::MaxLength(limit) => string::evaluate_max_length(ev, *limit, node, instance, frame),
            Keyword::MinLength(limit) => string::evaluate_min_length(ev, *limit, node, instance, frame),
            Keyword::Pattern { regex, pattern } => {
                string::evaluate_pattern(ev, regex, pattern, node, instance, frame)
            }
            Keyword::Format { check, name } => format::evaluate(ev, *check, name, node, instance, frame),
            Keyword::MaxItems(limit) => array::evaluate_max_items(ev, *limit, node, instance, frame),
            Keyword::MinItems(limit) => array::evaluate_min_items(ev, *limit, node, instance, frame),
            Keyword::UniqueItems => array::evaluate_unique_items(ev, node, instance, frame),
            Keyword::MaxProperties(limit) => {
                object::evaluate_max_properties(ev, *limit, node, instance, frame)
            }
            Keyword::MinProperties(limit) => {
                object::evaluate_min_properties(ev, *limit, node, instance, frame)
            }
            Keyword::Required(names) => object::evaluate_required(ev, names, node, instance, frame),
            Keyword::DependentRequired(rules) => {
                object::evaluate_dependent_required(ev, "dependentRequired", rules, node, instance, frame)
            }
            Keyword::Dependencies { required, schemas } => {
                object::evaluate_dependent_required(ev, "dependencies", required, node, instance, frame)
                    && self.dependent_schemas(schemas, instance, depth)
            }
            Keyword::PrefixItems(ids) => self.prefix_items(ids, instance, depth),
            Keyword::Items { node: id, skip } => self.items(*id, *skip, instance, depth),
            Keyword::Contains {
                node: id, min, max, ..
            } => self.contains(*id, *min, *max, instance, depth),
            Keyword::Properties {
                entries,
                by_name,
                split,
            } => match instance {
                Value::Object(object) => self.properties(entries, by_name, *split, object, depth),
                _ => true,
            },
            Keyword::PatternProperties(entries) => self.pattern_properties(entries, instance, depth),
            Keyword::AdditionalProperties {
                node: id,
                names,
                patterns,
            } => self.additional_properties(*id, names, patterns, instance, depth),
            Keyword::PropertyNames(id) => self.property_names(*id, instance, depth),
            Keyword::DependentSchemas(entries) => self.dependent_schemas(entries, instance, depth),
            Keyword::AllOf(ids) => self.all_of(ids, instance, depth),
            Keyword::AnyOf(ids, discriminator) => self.any_of(ids, discriminator.as_deref(), instance, depth),
            Keyword::OneOf(ids, discriminator) => self.one_of(ids, discriminator.as_deref(), instance, depth),
            Keyword::Not(id) => !self.child(*id, instance, depth),
            Keyword::If { if_, then, else_ } => self.if_(*if_, *then, *else_, instance, depth),
            Keyword::Shape(shape) => match instance {
                Value::Object(object) => self.shape(shape, object, depth),
                _ => true,
            },
            // A node with these is handed back whole before its keywords run (see `node`).
            Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_) => {
                self.handed_back(id, instance, depth)
            }
        }
    }

    // The applicators below are kept out of `keyword` so that its stack frame stays small: a recursion of
    // `MAX_DEPTH` nested schemas must fit in a 2 MiB thread stack, unoptimized builds included.

    #[inline(never)]
    fn prefix_items(&mut self, ids: &[NodeId], instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        items
            .iter()
            .zip(ids)
            .all(|(item, id)| self.child(*id, item, depth))
    }

    #[inline(never)]
    fn items(&mut self, id: NodeId, skip: usize, instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        // A lone `type` for every item (`{"type": "number"}` in coordinate arrays): one tight loop.
        if let Some(types) = self.schema.nodes[id as usize].only_type
            && depth < MAX_DEPTH
        {
            return items.iter().skip(skip).all(|item| types.admits(item));
        }
        items.iter().skip(skip).all(|item| self.child(id, item, depth))
    }

    #[inline(never)]
    fn pattern_properties(&mut self, entries: &[(EcmaRegex, NodeId)], instance: &Value, depth: u32) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        object.iter().all(|(key, value)| {
            entries.iter().all(|(regex, id)| match regex.is_match(key) {
                Ok(false) => true,
                Ok(true) => self.child(*id, value, depth),
                Err(_) => false,
            })
        })
    }

    #[inline(never)]
    fn additional_properties(
        &mut self,
        id: NodeId,
        names: &[Box<str>],
        patterns: &[EcmaRegex],
        instance: &Value,
        depth: u32,
    ) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        object.iter().all(|(key, value)| {
            super::properties::is_declared(key, names, patterns) || self.child(id, value, depth)
        })
    }

    #[inline(never)]
    fn property_names(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        object.keys().all(|key| {
            let name = Value::String(key.clone());
            self.memo_suspended += 1;
            let valid = self.child(id, &name, depth);
            self.memo_suspended -= 1;
            valid
        })
    }

    #[inline(never)]
    fn all_of(&mut self, ids: &[NodeId], instance: &Value, depth: u32) -> bool {
        ids.iter().all(|id| self.child(*id, instance, depth))
    }

    #[inline(never)]
    fn if_(
        &mut self,
        if_: NodeId,
        then: Option<NodeId>,
        else_: Option<NodeId>,
        instance: &Value,
        depth: u32,
    ) -> bool {
        let branch = if self.child(if_, instance, depth) {
            then
        } else {
            else_
        };
        branch.is_none_or(|id| self.child(id, instance, depth))
    }

    #[inline(never)]
    fn contains(&mut self, id: NodeId, min: u64, max: Option<u64>, instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        let mut matched: u64 = 0;
        for item in items {
            if self.child(id, item, depth) {
                matched += 1;
                if max.is_none() && matched >= min {
                    return true;
                }
            }
        }
        matched >= min && max.is_none_or(|max| matched <= max)
    }

    #[inline(never)]
    fn dependent_schemas(&mut self, entries: &[(Box<str>, NodeId)], instance: &Value, depth: u32) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        entries
            .iter()
            .all(|(name, id)| !object.contains_key(name.as_ref()) || self.child(*id, instance, depth))
    }

    #[inline(never)]
    /// `properties`: the cheap members first, then those that recurse (see `compile::order_properties_cheap_first`).
    fn properties(
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
        let (cheap, rest) = by_name.split_at(split.min(by_name.len()));
        [cheap, rest].into_iter().all(|group| {
            let mut cursor = 0;
            object.iter().all(|(key, value)| {
                while let Some((name, id)) = group.get(cursor) {
                    if super::same_name(name, key) {
                        cursor += 1;
                        return self.child(*id, value, depth);
                    }
                    match super::cmp_names(name, key) {
                        std::cmp::Ordering::Less => cursor += 1,
                        std::cmp::Ordering::Equal => {
                            cursor += 1;
                            return self.child(*id, value, depth);
                        }
                        std::cmp::Ordering::Greater => break,
                    }
                }
                true
            })
        })
    }

    #[inline(never)]
    fn shape(&mut self, shape: &Shape, object: &Map<String, Value>, depth: u32) -> bool {
        // Too few members to hold every required name: no need to look at them.
        if object.len() < shape.n_required() {
            return false;
        }
        let sorted = self.schema.sorted_maps;
        // First pass: count required names, reject what `additionalProperties: false` forbids, apply cheap schemas,
        // and set aside the members whose schemas recurse (up to a few; past that, a second walk finds them).
        let mut lookup = super::shape::Lookup::new(shape.table(), sorted);
        let others = shape.other_schema();
        let mut n_present = 0;
        let mut deferred: [(NodeId, Option<&Value>); DEFERRED] = [(0, None); DEFERRED];
        let mut n_deferred = 0;
        for (key, value) in object {
            let (valid, later) = match lookup.find(key) {
                Some(slot) => {
                    n_present += usize::from(slot.required);
                    match slot.node {
                        Some(id) if slot.cheap => (self.child(id, value, depth), None),
                        Some(id) => (true, Some(id)),
                        None => (!shape.rejects_others(), others),
                    }
                }
                None => (!shape.rejects_others(), others),
            };
            if !valid {
                return false;
            }
            if let Some(id) = later {
                if let Some(place) = deferred.get_mut(n_deferred) {
                    *place = (id, Some(value));
                }
                n_deferred += 1;
            }
        }
        if n_present < shape.n_required() {
            return false;
        }
        if n_deferred <= DEFERRED {
            return deferred[..n_deferred]
                .iter()
                .all(|(id, value)| value.is_none_or(|value| self.child(*id, value, depth)));
        }
        // Second pass: the property schemas that recurse, and the `additionalProperties` schema.
        let mut lookup = super::shape::Lookup::new(shape.table(), sorted);
        object.iter().all(|(key, value)| {
            let target = match lookup
                .find(key)
                .and_then(|slot| slot.node.map(|id| (id, slot.cheap)))
            {
                Some((id, false)) => Some(id),
                Some((_, true)) => None,
                None => others,
            };
            target.is_none_or(|id| self.child(id, value, depth))
        })
    }

    #[inline(never)]
    fn any_of(
        &mut self,
        ids: &[NodeId],
        discriminator: Option<&super::Discriminator>,
        instance: &Value,
        depth: u32,
    ) -> bool {
        let schema = self.schema;
        let tag = discriminator.and_then(|discriminator| discriminator.tag(instance));
        let candidates = discriminator.and_then(|discriminator| discriminator.string_candidates(tag));
        let n_tries = candidates.map_or(ids.len(), <[_]>::len);
        for position in 0..n_tries {
            if position == 1 {
                self.memo_enabled = true;
            }
            let member_idx = candidates.map_or(position, |candidates| candidates[position].1);
            if discriminator.is_some_and(|discriminator| discriminator.excludes(member_idx, tag)) {
                continue;
            }
            let id = ids[member_idx];
            if super::applicators::rejects_by_type(&schema.nodes[id as usize], instance) {
                continue;
            }
            if self.child(id, instance, depth) {
                return true;
            }
        }
        false
    }

    #[inline(never)]
    fn one_of(
        &mut self,
        ids: &[NodeId],
        discriminator: Option<&super::Discriminator>,
        instance: &Value,
        depth: u32,
    ) -> bool {
        let schema = self.schema;
        if ids.len() > 1 {
            self.memo_enabled = true;
        }
        let tag = discriminator.and_then(|discriminator| discriminator.tag(instance));
        let candidates = discriminator.and_then(|discriminator| discriminator.string_candidates(tag));
        let n_tries = candidates.map_or(ids.len(), <[_]>::len);
        let mut n_satisfied = 0_usize;
        for position in 0..n_tries {
            let member_idx = candidates.map_or(position, |candidates| candidates[position].1);
            if discriminator.is_some_and(|discriminator| discriminator.excludes(member_idx, tag)) {
                continue;
            }
            let id = ids[member_idx];
            if super::applicators::rejects_by_type(&schema.nodes[id as usize], instance) {
                continue;
            }
            if self.child(id, instance, depth) {
                n_satisfied += 1;
                if n_satisfied > 1 {
                    return false;
                }
            }
        }
        n_satisfied == 1
    }
}

#[cfg(test)]
mod tests {
    //! The yes/no evaluator against the collecting one, on generated object shapes, unions and references: the
    //! places where it walks on its own.
    use crate::eval::Evaluator;
    use crate::validator::Validator;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn any_instance() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(|n| json!(n)),
            "[a-c]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-d]", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    fn any_schema() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            prop::sample::select(vec!["null", "integer", "string", "array", "object"])
                .prop_map(|name| json!({ "type": name })),
            (-2i64..2).prop_map(|n| json!({ "minimum": n })),
            Just(json!({ "enum": ["a", 1, null] })),
            Just(json!({ "$ref": "#/$defs/d" })),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            let names = prop::sample::subsequence(vec!["a", "b", "c"], 0..3);
            let additional = prop_oneof![
                Just(None),
                Just(Some(json!(false))),
                Just(Some(json!(true))),
                inner.clone().prop_map(Some),
            ];
            prop_oneof![
                (
                    prop::collection::btree_map("[a-c]", inner.clone(), 0..3),
                    names,
                    additional
                )
                    .prop_map(|(properties, required, additional)| {
                        let mut schema = json!({ "properties": properties, "required": required });
                        if let Some(additional) = additional {
                            schema["additionalProperties"] = additional;
                        }
                        schema
                    }),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "anyOf": members })),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|members| json!({ "oneOf": members })),
                inner
                    .clone()
                    .prop_map(|member| json!({ "items": member, "contains": member })),
                (inner.clone(), inner).prop_map(|(a, rest)| {
                    json!({ "allOf": [{ "properties": { "a": a } }], "unevaluatedProperties": rest })
                }),
            ]
        })
    }

    #[test]
    fn verdicts_agree_with_the_collecting_evaluator() {
        // Building these nested strategies is stack-hungry in unoptimized builds: run on a roomy thread.
        let run = || {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1024));
            let strategy = (any_schema(), any_schema(), any_instance());
            runner
                .run(&strategy, |(root, defined, instance)| {
                    let schema = json!({ "$defs": { "d": defined }, "allOf": [root] });
                    let validator = Validator::new(&schema).unwrap();
                    let compiled = validator.compiled();
                    let flag = super::is_valid(compiled, &instance);
                    let collected = Evaluator::new(compiled, true).run(&instance);
                    prop_assert_eq!(flag, collected, "{} {}", schema, instance);
                    let old_flag = Evaluator::new(compiled, false).run(&instance);
                    prop_assert_eq!(flag, old_flag, "{} {}", schema, instance);
                    Ok(())
                })
                .unwrap();
        };
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}
