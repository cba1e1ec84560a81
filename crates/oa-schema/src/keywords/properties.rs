//! `properties`, `patternProperties`, `additionalProperties`, `propertyNames` and `dependentSchemas`.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::ecma_regex::EcmaRegex;
use crate::error::SchemaError;
use crate::eval::MAX_DEPTH;
use crate::eval::{Detail, Evaluator, Extra, Frame, Step};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::flag::plan::{Check, STRING_KIND};
use crate::keywords::names::NameIndex;
use crate::node::Body;
use crate::node::{Node, NodeId};
use crate::typed::plan::{ObjectPlan, Others, PlannedName};
use crate::violation::ViolationKind;
use serde_json::{Map, Value};
use std::sync::Arc;

fn schema_map<'a>(
    cx: &NodeCompiler<'_, '_>,
    keyword: &str,
    value: &'a Value,
) -> Result<&'a Map<String, Value>, SchemaError> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(cx.invalid(keyword, "expected an object of schemas")),
    }
}

pub(crate) fn compile_properties(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let map = schema_map(cx, "properties", value)?;
    let entries: Box<[(Box<str>, NodeId)]> = map
        .keys()
        .map(|name| (Box::from(name.as_str()), cx.child(&["properties", name])))
        .collect();
    let mut by_name: Box<[(Box<str>, NodeId)]> = entries.clone();
    by_name.sort_by(|a, b| a.0.cmp(&b.0));
    // One group until `compile::order_properties_cheap_first` splits it.
    Ok(Keyword::Properties {
        entries,
        by_name,
        split: 0,
    })
}

pub(crate) fn compile_pattern_properties(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let map = schema_map(cx, "patternProperties", value)?;
    let mut entries = Vec::with_capacity(map.len());
    for pattern in map.keys() {
        entries.push((
            cx.regex("patternProperties", pattern)?,
            cx.child(&["patternProperties", pattern]),
        ));
    }
    Ok(Keyword::PatternProperties(entries.into_boxed_slice()))
}

pub(crate) fn compile_additional_properties(
    cx: &mut NodeCompiler<'_, '_>,
    object: &Map<String, Value>,
) -> Result<Keyword, SchemaError> {
    let mut names: Vec<Box<str>> = match object.get("properties") {
        Some(Value::Object(map)) => map.keys().map(|name| Box::from(name.as_str())).collect(),
        _ => Vec::new(),
    };
    names.sort();
    let mut patterns = Vec::new();
    if let Some(Value::Object(map)) = object.get("patternProperties") {
        for pattern in map.keys() {
            patterns.push(cx.regex("patternProperties", pattern)?);
        }
    }
    Ok(Keyword::AdditionalProperties {
        node: cx.child(&["additionalProperties"]),
        names: names.into_boxed_slice(),
        patterns: patterns.into_boxed_slice(),
    })
}

/// `propertyNames`: a subschema every member name (as a string) must hold.
pub(crate) fn compile_property_names(cx: &mut NodeCompiler<'_, '_>) -> Keyword {
    Keyword::PropertyNames(cx.child(&["propertyNames"]))
}

pub(crate) fn compile_dependent_schemas(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let map = schema_map(cx, "dependentSchemas", value)?;
    let entries = map
        .keys()
        .map(|name| (Box::from(name.as_str()), cx.child(&["dependentSchemas", name])))
        .collect();
    Ok(Keyword::DependentSchemas(entries))
}

pub(crate) fn evaluate_properties<'v>(
    ev: &mut Evaluator<'_>,
    entries: &[(Box<str>, NodeId)],
    groups: [&[(Box<str>, NodeId)]; 2],
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    if ev.schema.sorted_maps && !few_names_many_members(entries.len(), object.len()) {
        let mut valid = true;
        for group in groups {
            if group.is_empty() {
                continue;
            }
            let part_valid = evaluate_properties_merged(ev, group, object, frame, evaluated);
            fail_part!(ev, valid, part_valid);
        }
        return valid;
    }
    // Walk whichever side is much smaller: the schema's list (looking members up in the instance) or the instance
    // (looking names up in the sorted list). Meta-schema checks meet small objects against long lists.
    if object.len() * 4 < entries.len() {
        let schema = ev.schema;
        let mut valid = true;
        for (key, value) in object {
            let Some(id) = groups.iter().find_map(|group| {
                group
                    .binary_search_by(|(name, _)| crate::text::cmp_names(name, key))
                    .ok()
                    .map(|found| group[found].1)
            }) else {
                continue;
            };
            if let Some(evaluated) = evaluated.as_mut() {
                evaluated.properties.insert(key.as_str());
            }
            let relative = schema.nodes[id as usize].relative();
            let part_valid = ev.descend(frame, id, value, Some(Step::Key(key)), relative, None);
            fail_part!(ev, valid, part_valid);
        }
        return valid;
    }
    let schema = ev.schema;
    let mut valid = true;
    for (name, id) in entries {
        let Some((key, value)) = object.get_key_value(name.as_ref()) else {
            continue;
        };
        if let Some(evaluated) = evaluated.as_mut() {
            evaluated.properties.insert(key.as_str());
        }
        let relative = schema.nodes[*id as usize].relative();
        let part_valid = ev.descend(frame, *id, value, Some(Step::Key(key)), relative, None);
        fail_part!(ev, valid, part_valid);
    }
    valid
}

pub(crate) fn evaluate_pattern_properties<'v>(
    ev: &mut Evaluator<'_>,
    entries: &[(EcmaRegex, NodeId)],
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let mut valid = true;
    for (key, value) in object {
        for (regex, id) in entries {
            let item_valid = match regex.is_match(key) {
                Ok(false) => continue,
                Ok(true) => {
                    if let Some(evaluated) = evaluated.as_mut() {
                        evaluated.properties.insert(key.as_str());
                    }
                    let relative = schema.nodes[*id as usize].relative();
                    ev.descend(frame, *id, value, Some(Step::Key(key)), relative, None)
                }
                Err(_) => budget_exceeded(ev, key, node, frame),
            };
            fail_part!(ev, valid, item_valid);
        }
    }
    valid
}

#[cold]
fn budget_exceeded(ev: &mut Evaluator<'_>, key: &str, node: &Node, frame: &Frame<'_, '_>) -> bool {
    let mut detail = Detail::parts(&["matching the property name exceeded the regex budget"]);
    detail.extra = Some(Extra::Key(key));
    ev.fail(frame, node, ViolationKind::PatternProperties, detail)
}

/// Whether a property is covered by `properties` or `patternProperties`; a pattern that exceeds its budget counts
/// as not matching (the `patternProperties` keyword reports the budget itself).
pub(crate) fn is_declared(key: &str, names: &[Box<str>], patterns: &[EcmaRegex]) -> bool {
    names
        .binary_search_by(|name| crate::text::cmp_names(name, key))
        .is_ok()
        || patterns.iter().any(|regex| regex.is_match(key).unwrap_or(false))
}

#[allow(clippy::too_many_arguments)] // The evaluator's common arguments plus the keyword's siblings.
pub(crate) fn evaluate_additional_properties<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    names: &[Box<str>],
    patterns: &[EcmaRegex],
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let sorted = ev.schema.sorted_maps;
    let mut cursor = 0;
    let undeclared = object
        .iter()
        .filter(|(key, _)| {
            let declared = if sorted {
                // Merge with the sorted names: each member costs one comparison forward.
                let mut named = false;
                while let Some(name) = names.get(cursor) {
                    match crate::text::cmp_names(name, key) {
                        std::cmp::Ordering::Less => cursor += 1,
                        std::cmp::Ordering::Equal => {
                            named = true;
                            break;
                        }
                        std::cmp::Ordering::Greater => break,
                    }
                }
                named || patterns.iter().any(|regex| regex.is_match(key).unwrap_or(false))
            } else {
                is_declared(key, names, patterns)
            };
            !declared
        })
        .map(|(key, value)| (Step::Key(key), value));
    let valid = super::apply_to_entries(
        ev,
        (id, ViolationKind::AdditionalProperties),
        node,
        frame,
        undeclared,
    );
    if let Some(evaluated) = evaluated {
        evaluated.all_properties = true;
    }
    valid
}

pub(crate) fn evaluate_property_names<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    let mut valid = true;
    for key in object.keys() {
        // Violations about a name are located at the property it names.
        let name = Value::String(key.clone());
        ev.memo_suspended += 1;
        let name_valid = ev.descend(frame, id, &name, Some(Step::Key(key)), relative, None);
        ev.memo_suspended -= 1;
        fail_part!(ev, valid, name_valid);
    }
    valid
}

pub(crate) fn evaluate_dependent_schemas<'v>(
    ev: &mut Evaluator<'_>,
    entries: &[(Box<str>, NodeId)],
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let mut valid = true;
    for (name, id) in entries {
        if !object.contains_key(name.as_ref()) {
            continue;
        }
        let relative = schema.nodes[*id as usize].relative();
        let part_valid = ev.descend(frame, *id, instance, None, relative, evaluated.as_mut());
        fail_part!(ev, valid, part_valid);
    }
    valid
}

/// `properties` over a map that iterates in key order: one merge pass of the sorted names with the members.
/// Whether a `properties` of `n_names` names meets an object of `n_members` so much larger that looking each name
/// up beats walking every member (the `if: {properties: {type: {const: …}}}` clauses of a large `allOf`).
#[inline]
pub(crate) fn few_names_many_members(n_names: usize, n_members: usize) -> bool {
    n_names.saturating_mul(8) <= n_members
}

fn evaluate_properties_merged<'v>(
    ev: &mut Evaluator<'_>,
    by_name: &[(Box<str>, NodeId)],
    object: &'v serde_json::Map<String, Value>,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let schema = ev.schema;
    let mut cursor = 0;
    let mut valid = true;
    for (key, value) in object {
        let mut found = None;
        while let Some((name, id)) = by_name.get(cursor) {
            match crate::text::cmp_names(name, key) {
                std::cmp::Ordering::Less => cursor += 1,
                std::cmp::Ordering::Equal => {
                    found = Some(*id);
                    cursor += 1;
                    break;
                }
                std::cmp::Ordering::Greater => break,
            }
        }
        let Some(id) = found else { continue };
        if let Some(evaluated) = evaluated.as_mut() {
            evaluated.properties.insert(key.as_str());
        }
        let relative = schema.nodes[id as usize].relative();
        let part_valid = ev.descend(frame, id, value, Some(Step::Key(key)), relative, None);
        fail_part!(ev, valid, part_valid);
    }
    valid
}

/// How many recursive members of an object a shape sets aside in its first pass (more take a second walk).
const DEFERRED: usize = 8;

/// An object's members whose schemas recurse, set aside while its cheap checks run (so that those fail a union
/// member before it descends): up to [`DEFERRED`]; past that, a second walk finds them.
#[derive(Default)]
pub(crate) struct Deferred<'v> {
    /// The first member set aside, in place: most objects that set one aside set aside one (a tree node's
    /// children), and filling the array for it was 16 stores.
    first: Option<(NodeId, &'v Value)>,
    /// The others, filled on the second member set aside.
    rest: Option<[(NodeId, &'v Value); DEFERRED - 1]>,
    n: usize,
}

impl<'v> Deferred<'v> {
    #[inline]
    pub(crate) fn push(&mut self, id: NodeId, value: &'v Value) {
        match self.n {
            0 => self.first = Some((id, value)),
            n => {
                let rest = self.rest.get_or_insert([(id, value); DEFERRED - 1]);
                if let Some(place) = rest.get_mut(n - 1) {
                    *place = (id, value);
                }
            }
        }
        self.n += 1;
    }

    /// Whether `holds` holds for every member set aside, in order; `None` when there were too many to keep.
    #[inline]
    pub(crate) fn all_kept(&self, mut holds: impl FnMut(NodeId, &'v Value) -> bool) -> Option<bool> {
        if self.n > DEFERRED {
            return None;
        }
        let Some((id, value)) = self.first else {
            return Some(true);
        };
        if !holds(id, value) {
            return Some(false);
        }
        Some(match &self.rest {
            Some(rest) => rest
                .get(..self.n - 1)
                .unwrap_or_default()
                .iter()
                .all(|(id, value)| holds(*id, value)),
            None => true,
        })
    }
}

/// The object applicators in the yes/no evaluator.
impl Flag<'_> {
    /// `properties` of one name.
    #[inline(never)]
    pub(crate) fn property(&mut self, name: &str, node: NodeId, instance: &Value, depth: u32) -> bool {
        match instance {
            Value::Object(object) => object
                .get(name)
                .is_none_or(|value| self.child(node, value, depth)),
            _ => true,
        }
    }

    #[inline(never)]
    pub(crate) fn pattern_properties(
        &mut self,
        entries: &[(EcmaRegex, NodeId)],
        instance: &Value,
        depth: u32,
    ) -> bool {
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
    pub(crate) fn additional_properties(
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
            crate::keywords::properties::is_declared(key, names, patterns) || self.child(id, value, depth)
        })
    }

    #[inline(never)]
    pub(crate) fn dependent_schemas(
        &mut self,
        entries: &[(Box<str>, NodeId)],
        instance: &Value,
        depth: u32,
    ) -> bool {
        let Value::Object(object) = instance else {
            return true;
        };
        entries
            .iter()
            .all(|(name, id)| !object.contains_key(name.as_ref()) || self.child(*id, instance, depth))
    }

    #[inline(never)]
    /// `properties`: the cheap members first, then those that recurse (see `compile::order_properties_cheap_first`).
    pub(crate) fn properties(
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
    pub(crate) fn property_names(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
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
    pub(crate) fn indexed_properties(
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
        match deferred.all_kept(|node, value| self.child(node, value, depth)) {
            Some(holds) => holds,
            None => object.iter().all(|(key, value)| match names.get(key) {
                Some(&(node, false)) => self.child(node, value, depth),
                _ => true,
            }),
        }
    }
}

/// `properties`' check in the yes/no evaluator's plan (keyword `index`): one name's member looked up, or many names
/// through a name index; `None` for the merge the keyword runs as compiled.
pub(crate) fn plan(
    entries: &[(Box<str>, NodeId)],
    by_name: &[(Box<str>, NodeId)],
    split: usize,
    index: u16,
) -> Option<Check> {
    if let [(name, node)] = entries {
        return Some(Check::Property {
            name: name.clone(),
            node: *node,
        });
    }
    NameIndex::new(
        by_name
            .iter()
            .enumerate()
            .map(|(position, (name, node))| (name.as_ref(), (*node, position < split))),
    )
    .map(|names| Check::Properties {
        index,
        names: Arc::new(names),
    })
}

/// `properties` alone as the typed route's object plan.
pub(crate) fn typed_object(by_name: &[(Box<str>, NodeId)]) -> ObjectPlan {
    ObjectPlan {
        names: by_name
            .iter()
            .map(|(name, id)| PlannedName {
                name: name.clone(),
                node: Some(*id),
                required: false,
            })
            .collect(),
        n_required: 0,
        patterns: Box::default(),
        others: Others::Any,
        keys: Box::default(),
    }
}

/// `additionalProperties` as the typed route's object plan applies it.
pub(crate) fn typed_others(nodes: &[Node], others: NodeId) -> Others {
    match nodes.get(others as usize).map(|node| &node.body) {
        Some(Body::Bool(false)) => Others::Reject,
        Some(Body::Bool(true)) => Others::Any,
        _ => Others::Schema(others),
    }
}
