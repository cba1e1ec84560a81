//! Mapping an answer back: where fitting changed how a property says "absent" (OpenAI's strict mode makes an optional
//! property required and nullable; the Anthropic union limit can make a required nullable property omittable), the
//! plan turns the provider's spelling back into the caller's before validation, so the caller's schema judges what
//! the caller would have received. The plan mirrors the fitted schema's shape: a node per object, array or union,
//! linked through properties, items and union branches (and through `$ref`s, so it may be cyclic).

use std::collections::{BTreeMap, BTreeSet};

use oa_pointer::Location;
use serde_json::Value;

/// An answer nested deeper than this is mapped back down to this depth only (deeper nulls are left for validation to
/// judge).
const MAX_ANSWER_DEPTH: usize = 256;

/// How many times mapping back validates the answer to take back an edit made inside a union that another branch
/// did not need (each check validates the whole answer); edits left unchecked past it stay made.
const MAX_TAKE_BACK_CHECKS: usize = 64;

/// How a property's absence is spelled differently on the provider's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// The provider writes `null` where the caller's schema may want the property left out (it is removed only where
    /// the caller's schema rejects that `null`).
    RemoveNull,
    /// The provider leaves the property out where the caller's schema wants `null`.
    InsertNull,
}

/// What fitting changed about how an answer is spelled, and how to undo it: empty for most fits.
///
/// ```
/// use oa_provider::Mapping;
/// use oa_provider::fit::fit;
/// use oa_schema::Validator;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"nick": {"type": "string"}},
///                     "additionalProperties": false});
/// let fitted = fit(&schema, Mapping::OpenAi).unwrap();
/// // OpenAI's strict mode needs every property required: `nick` becomes required and nullable ...
/// assert_eq!(fitted.schema()["properties"]["nick"]["type"], json!(["string", "null"]));
/// // ... and the null the model writes for "no nick" is removed before the caller's schema judges the answer.
/// let mut answer = json!({"nick": null});
/// let edits = fitted.map_back().apply(&mut answer, &Validator::new(&schema).unwrap());
/// assert_eq!((answer, edits[0].as_str()), (json!({}), "/nick"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct MapBack {
    nodes: Vec<PlanNode>,
    root: Option<usize>,
    n_edits: usize,
}

#[derive(Debug, Clone, Default)]
struct PlanNode {
    /// Whether the node describes objects (its property list is complete, even when empty).
    object: bool,
    properties: BTreeMap<String, PropertyPlan>,
    items: Vec<usize>,
    prefix: Vec<Vec<usize>>,
    alternatives: Vec<usize>,
}

#[derive(Debug, Clone, Default)]
struct PropertyPlan {
    edit: Option<Edit>,
    children: Vec<usize>,
}

impl MapBack {
    /// Whether mapping back never changes an answer.
    pub fn is_empty(&self) -> bool {
        self.n_edits == 0
    }

    /// Maps `answer` back to the caller's spelling, when the caller's schema (`caller`, compiled from the schema that
    /// was fitted) rejects it as the provider wrote it: a `null` the provider wrote for a property the fit made
    /// required is removed where the caller's schema rejects that `null` (never one it allows there), and a property
    /// the fit made omittable gets its `null` back where the caller's schema requires it. An answer the caller's
    /// schema already accepts is left alone. Returns where it changed the answer, in pointer order.
    ///
    /// Where a union's branches disagree on a property (one spells "absent" as `null`, another does not), its `null`
    /// is removed only when the edits the branches agree on leave the answer rejected, and only where the caller's
    /// schema rejects that `null`. Inside a union, a `null` one branch rejects may be one another branch accepts once
    /// the answer's other edits are made: when the edits leave the answer accepted, each edit made inside a union is
    /// taken back again if the answer stays accepted without it, so every edit left is one the caller's schema needs
    /// (up to 64 such checks, each validating the whole answer; past them the remaining edits stay).
    pub fn apply(&self, answer: &mut Value, caller: &oa_schema::Validator) -> Vec<Location> {
        let Some(root) = self.root else {
            return Vec::new();
        };
        if self.is_empty() {
            return Vec::new();
        }
        let mut edits = Vec::new();
        // First the edits every branch agrees on; only when the caller's schema still rejects the answer, a `null` some
        // branch spells "absent" with and the caller's schema rejects where it stands (union branches that disagree).
        for unanimous in [true, false] {
            let Err(violations) = caller.validate(answer) else {
                break;
            };
            // Where the caller's schema objects: a `null` it rejects where it stands, a property it requires that is
            // absent (a missing property is located where it would be).
            let mut rejected: BTreeSet<&str> = BTreeSet::new();
            let mut missing: BTreeSet<&str> = BTreeSet::new();
            for violation in &violations {
                let at = violation.instance_location().as_str();
                if violation.missing_property().is_some() && violation.keyword() == Some("required") {
                    missing.insert(at);
                } else {
                    rejected.insert(at);
                }
            }
            let objections = Objections {
                rejected: &rejected,
                missing: &missing,
                unanimous,
                in_union: false,
            };
            self.walk(answer, &[root], &mut Location::root(), &objections, &mut edits, 0);
        }
        take_back_unneeded(answer, &mut edits, caller);
        let mut edits: Vec<Location> = edits.into_iter().map(|made| made.at).collect();
        edits.sort();
        edits
    }

    fn walk(
        &self,
        value: &mut Value,
        ids: &[usize],
        at: &mut Location,
        objections: &Objections<'_>,
        edits: &mut Vec<Made>,
        depth: usize,
    ) {
        if depth > MAX_ANSWER_DEPTH {
            return;
        }
        let active = self.active(ids);
        match value {
            Value::Object(map) => {
                let objects: Vec<&PlanNode> = active
                    .iter()
                    .filter_map(|id| self.nodes.get(*id))
                    .filter(|node| node.object)
                    .collect();
                if objects.is_empty() {
                    return;
                }
                // More than one object plan here: the caller's schema has a union at or above this object, so an edit
                // one branch asks for may be one the branch the answer matches does not need.
                let in_union = objections.in_union || objects.len() > 1;
                let objections = &Objections {
                    in_union,
                    ..*objections
                };
                let names: Vec<String> = map.keys().cloned().collect();
                for name in names {
                    let plans: Vec<&PropertyPlan> = objects
                        .iter()
                        .filter_map(|node| node.properties.get(&name))
                        .collect();
                    let Some(member) = map.get_mut(&name) else {
                        continue;
                    };
                    let here = with_key(at, &name);
                    // Where union branches disagree (one made the property required and nullable, another kept it),
                    // the null goes only on the second pass, when the edits all branches agree on left the answer
                    // rejected; a null the caller's schema allows where it stands is never removed.
                    let removes = |plan: &&PropertyPlan| plan.edit == Some(Edit::RemoveNull);
                    let agreed = if objections.unanimous {
                        !plans.is_empty() && plans.iter().all(removes)
                    } else {
                        plans.iter().any(removes)
                    };
                    if member.is_null() && agreed && objections.rejected.contains(here.as_str()) {
                        map.remove(&name);
                        edits.push(Made {
                            at: here,
                            edit: Edit::RemoveNull,
                            in_union,
                        });
                        continue;
                    }
                    let mut children: Vec<usize> = plans
                        .iter()
                        .flat_map(|plan| plan.children.iter().copied())
                        .collect();
                    children.sort_unstable();
                    children.dedup();
                    if !children.is_empty() {
                        at.push_key(&name);
                        self.walk(member, &children, at, objections, edits, depth + 1);
                        at.pop();
                    }
                }
                let omittable: Vec<&String> = objects
                    .iter()
                    .flat_map(|node| node.properties.iter())
                    .filter(|(_, plan)| plan.edit == Some(Edit::InsertNull))
                    .map(|(name, _)| name)
                    .collect();
                for name in omittable {
                    let unanimous = objects.iter().all(|node| {
                        node.properties
                            .get(name)
                            .is_some_and(|plan| plan.edit == Some(Edit::InsertNull))
                    });
                    let here = with_key(at, name);
                    if unanimous && !map.contains_key(name) && objections.missing.contains(here.as_str()) {
                        map.insert(name.clone(), Value::Null);
                        edits.push(Made {
                            at: here,
                            edit: Edit::InsertNull,
                            in_union,
                        });
                    }
                }
            }
            Value::Array(items) => {
                for (idx, item) in items.iter_mut().enumerate() {
                    let mut children: Vec<usize> = active
                        .iter()
                        .filter_map(|id| self.nodes.get(*id))
                        .flat_map(|node| node.prefix.get(idx).unwrap_or(&node.items).iter().copied())
                        .collect();
                    children.sort_unstable();
                    children.dedup();
                    if !children.is_empty() {
                        at.push_index(idx);
                        self.walk(item, &children, at, objections, edits, depth + 1);
                        at.pop();
                    }
                }
            }
            _ => {}
        }
    }

    /// `ids` and every node reachable from them through union branches and references.
    fn active(&self, ids: &[usize]) -> Vec<usize> {
        let mut seen = vec![false; self.nodes.len()];
        let mut pending: Vec<usize> = ids.to_vec();
        let mut active = Vec::new();
        while let Some(id) = pending.pop() {
            if seen.get(id).copied().unwrap_or(true) {
                continue;
            }
            seen[id] = true;
            active.push(id);
            if let Some(node) = self.nodes.get(id) {
                pending.extend(node.alternatives.iter().copied());
            }
        }
        active
    }
}

/// An edit mapping back made.
struct Made {
    at: Location,
    edit: Edit,
    /// Whether it was made inside a union (more than one object plan at its object or above).
    in_union: bool,
}

/// Takes back each edit made inside a union that the caller's schema does not need once the others are made: while
/// the answer is accepted, an edit whose undoing leaves it accepted is undone, until none is (or the checks run out).
/// Outside unions an edit answers a violation of the one schema there, so it is needed and never checked.
fn take_back_unneeded(answer: &mut Value, edits: &mut Vec<Made>, caller: &oa_schema::Validator) {
    if !edits.iter().any(|made| made.in_union) || !caller.is_valid(answer) {
        return;
    }
    let mut checks = MAX_TAKE_BACK_CHECKS;
    loop {
        let mut taken_back = false;
        let mut idx = 0;
        while idx < edits.len() {
            if !edits[idx].in_union {
                idx += 1;
                continue;
            }
            if checks == 0 {
                return;
            }
            checks -= 1;
            undo(answer, &edits[idx]);
            if caller.is_valid(answer) {
                edits.remove(idx);
                taken_back = true;
            } else {
                redo(answer, &edits[idx]);
                idx += 1;
            }
        }
        if !taken_back {
            return;
        }
    }
}

/// Puts back what `made` changed: the removed `null`, or no inserted one.
fn undo(answer: &mut Value, made: &Made) {
    set_member(answer, &made.at, made.edit == Edit::RemoveNull);
}

fn redo(answer: &mut Value, made: &Made) {
    set_member(answer, &made.at, made.edit == Edit::InsertNull);
}

/// Makes the member at `at` a `null` (`present`) or removes it; its parent is the object the edit was made in.
fn set_member(answer: &mut Value, at: &Location, present: bool) {
    let (Some(parent), Some(name)) = (at.parent(), at.tokens().next_back()) else {
        return;
    };
    if let Some(Value::Object(object)) = answer.pointer_mut(parent.as_str()) {
        if present {
            object.insert(name.into_owned(), Value::Null);
        } else {
            object.remove(name.as_ref());
        }
    }
}

/// Where the caller's schema objects to an answer, by instance location.
#[derive(Clone, Copy)]
struct Objections<'a> {
    /// Locations with a violation other than a missing property.
    rejected: &'a BTreeSet<&'a str>,
    /// Where a required property is missing.
    missing: &'a BTreeSet<&'a str>,
    /// Whether a `null` is removed only where every branch's plan removes it (the first pass).
    unanimous: bool,
    /// Whether the walk is inside a union (more than one object plan at an enclosing object).
    in_union: bool,
}

fn with_key(at: &Location, name: &str) -> Location {
    let mut out = at.clone();
    out.push_key(name);
    out
}

/// Builds a [`MapBack`] while the fitted schema is built.
#[derive(Debug, Default)]
pub(crate) struct PlanBuilder {
    plan: MapBack,
}

impl PlanBuilder {
    /// A new, empty node.
    pub(crate) fn node(&mut self) -> usize {
        self.plan.nodes.push(PlanNode::default());
        self.plan.nodes.len() - 1
    }

    /// Marks `id` as describing objects.
    pub(crate) fn object(&mut self, id: usize) {
        if let Some(node) = self.plan.nodes.get_mut(id) {
            node.object = true;
        }
    }

    /// Declares a property of `id`, with its edit and the plan of its value.
    pub(crate) fn property(&mut self, id: usize, name: &str, edit: Option<Edit>, child: Option<usize>) {
        if edit.is_some() {
            self.plan.n_edits += 1;
        }
        if let Some(node) = self.plan.nodes.get_mut(id) {
            let plan = node.properties.entry(name.to_owned()).or_default();
            if edit.is_some() {
                plan.edit = edit;
            }
            plan.children.extend(child);
        }
    }

    /// The plan of every item of arrays `id` describes (after its prefix).
    pub(crate) fn items(&mut self, id: usize, child: usize) {
        if let Some(node) = self.plan.nodes.get_mut(id) {
            node.items.push(child);
        }
    }

    /// The plan of the item at `index`.
    pub(crate) fn prefix(&mut self, id: usize, index: usize, child: usize) {
        if let Some(node) = self.plan.nodes.get_mut(id) {
            if node.prefix.len() <= index {
                node.prefix.resize(index + 1, Vec::new());
            }
            node.prefix[index].push(child);
        }
    }

    /// A union branch or reference target of `id`.
    pub(crate) fn alternative(&mut self, id: usize, child: usize) {
        if let Some(node) = self.plan.nodes.get_mut(id) {
            node.alternatives.push(child);
        }
    }

    pub(crate) fn finish(mut self, root: usize) -> MapBack {
        self.plan.root = Some(root);
        self.plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An object with a removable `nick`, an omittable `age`, and a list of the same objects under `friends`.
    fn plan() -> MapBack {
        let mut builder = PlanBuilder::default();
        let root = builder.node();
        builder.object(root);
        builder.property(root, "nick", Some(Edit::RemoveNull), None);
        builder.property(root, "age", Some(Edit::InsertNull), None);
        let list = builder.node();
        builder.items(list, root);
        builder.property(root, "friends", None, Some(list));
        builder.finish(root)
    }

    fn caller() -> oa_schema::Validator {
        oa_schema::Validator::new(&json!({
            "$defs": {"person": {"type": "object", "properties": {
                "nick": {"type": "string"}, "age": {"type": ["integer", "null"]},
                "friends": {"type": "array", "items": {"$ref": "#/$defs/person"}}
            }, "required": ["age"]}},
            "$ref": "#/$defs/person"
        }))
        .unwrap()
    }

    #[test]
    fn nulls_and_absences_map_back_through_nesting() {
        let mut answer = json!({"nick": null, "friends": [{"nick": "x", "age": 3}, {"nick": null}]});
        let edits = plan().apply(&mut answer, &caller());
        assert_eq!(
            answer,
            json!({"age": null, "friends": [{"nick": "x", "age": 3}, {"age": null}]})
        );
        let edits: Vec<_> = edits.iter().map(Location::as_str).collect();
        assert_eq!(edits, ["/age", "/friends/1/age", "/friends/1/nick", "/nick"]);
    }

    #[test]
    fn an_answer_the_caller_accepts_is_left_alone() {
        let mut answer = json!({"age": 1, "friends": []});
        assert!(plan().apply(&mut answer, &caller()).is_empty());
        assert_eq!(answer, json!({"age": 1, "friends": []}));
    }

    /// Branches that disagree about a property: the null goes where the caller's schema rejects it, and stays where
    /// the caller's schema allows it.
    #[test]
    fn disagreeing_branches_remove_only_a_rejected_null() {
        let mut builder = PlanBuilder::default();
        let root = builder.node();
        let (left, right) = (builder.node(), builder.node());
        builder.object(left);
        builder.property(left, "k", Some(Edit::RemoveNull), None);
        builder.object(right);
        builder.property(right, "k", None, None);
        builder.alternative(root, left);
        builder.alternative(root, right);
        let plan = builder.finish(root);
        let strict = oa_schema::Validator::new(&json!({"properties": {"k": {"type": "string"}}})).unwrap();
        let mut answer = json!({"k": null});
        let edits = plan.apply(&mut answer, &strict);
        assert_eq!((answer, edits.len()), (json!({}), 1));
        let nullable = oa_schema::Validator::new(&json!({"properties": {"k": {"type": ["string", "null"]}},
                                                         "required": ["z"]}))
        .unwrap();
        let mut answer = json!({"k": null});
        assert!(
            plan.apply(&mut answer, &nullable).is_empty(),
            "a null the caller allows stays"
        );
        assert_eq!(answer, json!({"k": null}));
    }

    #[test]
    fn a_cyclic_plan_and_a_deep_answer_terminate() {
        let mut builder = PlanBuilder::default();
        let root = builder.node();
        builder.alternative(root, root);
        builder.object(root);
        builder.property(root, "next", Some(Edit::RemoveNull), Some(root));
        let plan = builder.finish(root);
        let mut answer = json!(null);
        for _ in 0..1_000 {
            answer = json!({"next": answer});
        }
        let never = oa_schema::Validator::new(&json!(false)).unwrap();
        // Only the innermost null is removable, and it is deeper than the walk goes.
        assert!(plan.apply(&mut answer, &never).is_empty());
    }
}
