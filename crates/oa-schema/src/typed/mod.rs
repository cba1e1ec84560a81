//! The validating deserializer: JSON text read into the caller's type through serde_json's `Deserializer`, each
//! value checked against the compiled schema node for its position as it goes by, no `Value` built.
//!
//! The adaptor wraps the deserializer, its visitors and its map and sequence accesses (the manner of
//! `serde_path_to_error`), so it sees every value the text holds, also those the target type skips (they are
//! driven through a checking visitor that discards). Scalars are checked by the yes/no evaluator at their node,
//! which answers exactly as validating the whole value would; containers by the node's [`TypedNode`] plan, and a
//! container whose node has no plan is read whole into a value (repeated names refused) and checked as a scalar is. It
//! answers `Ok` only when the text is JSON `parse_json` accepts, the schema accepts it, and the type deserializes
//! from it; anything else, and anything it cannot decide cheaply, is a [`Fallback`], after which the caller takes
//! the full route (`parse_json`, `validate`, the type from the value), which reports every violation.

use crate::flag::{answer_at, float_holds_at, floats_settle_at};
use crate::node::{CompiledSchema, NodeId};
use crate::strict::numbers_keep_digits;
use plan::{Container, Others, Part, Parts, TypedNode, TypedPlan};
use serde::de;
use serde_json::Value;
use std::cell::Cell;
use value::Checked;

mod collect;
mod members;
mod number;
pub(crate) mod plan;
mod value;

pub(crate) use collect::{collect_at, collect_str};

/// How many `$ref`s (or nullable unions) a container may follow before its plan is reached.
const MAX_REDIRECTS: u32 = 32;

/// Why [`Validator::deserialize_str`](crate::Validator::deserialize_str) did not decide: the caller then takes the
/// full route (parse, validate, deserialize from the value), which gives the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no typed answer ({reason:?}): parse and validate instead")]
pub struct Fallback {
    reason: FallbackReason,
}

impl Fallback {
    /// Why.
    pub fn reason(&self) -> FallbackReason {
        self.reason
    }
}

/// Why the validating deserializer fell back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FallbackReason {
    /// A container met a node whose keywords the container plan does not cover (or the schema's dynamic scope
    /// matters).
    Unplanned,
    /// The text is not JSON, or the schema rejects it: the full route reports why. (Where a member name repeats,
    /// its first value is checked as it comes, and may be the one rejected, though a `Value` keeps the last.)
    Invalid,
    /// The target type refused the value (the schema says less than the type).
    Deserialize,
    /// Something the route does not decide: a duplicate member name, a key or value the target read in a way the
    /// adaptor does not follow (byte strings, raw values, non-string map keys, enums with data).
    Undecided,
}

/// The state shared by every wrapper of one run.
pub(crate) struct Run<'s> {
    pub(super) schema: &'s CompiledSchema,
    pub(super) plan: &'s TypedPlan,
    pub(super) reason: Cell<Option<FallbackReason>>,
    /// A string value reused for every string the evaluator checks (one allocation per run, not per string).
    pub(super) scratch: std::cell::RefCell<Value>,
}

impl<'s> Run<'s> {
    /// Records why the run stops (the first reason wins) and makes the error that unwinds the deserializer.
    pub(super) fn stop<E: de::Error>(&self, reason: FallbackReason) -> E {
        if self.reason.get().is_none() {
            self.reason.set(Some(reason));
        }
        E::custom("oa-schema: the validating deserializer stopped")
    }

    /// Checks a scalar at `node` (none: any value).
    pub(super) fn scalar<E: de::Error>(
        &self,
        node: Option<NodeId>,
        depth: u32,
        value: &Value,
    ) -> Result<(), E> {
        match node {
            Some(id) => match answer_at(self.schema, id, value, depth) {
                Some(true) => Ok(()),
                Some(false) => Err(self.stop(FallbackReason::Invalid)),
                // The depth limit reached: the verdict is the collecting evaluator's (see `flag::is_valid`).
                None => Err(self.stop(FallbackReason::Undecided)),
            },
            None => Ok(()),
        }
    }

    /// Checks a string, building its `Value` only when the node has string checks.
    #[inline]
    pub(super) fn string<E: de::Error>(&self, node: Option<NodeId>, depth: u32, text: &str) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        if self.trivial(id, crate::flag::plan::STRING_KIND) {
            return Ok(());
        }
        let Ok(mut scratch) = self.scratch.try_borrow_mut() else {
            return self.scalar(node, depth, &Value::String(text.to_owned()));
        };
        if let Value::String(buffer) = &mut *scratch {
            buffer.clear();
            buffer.push_str(text);
        } else {
            *scratch = Value::String(text.to_owned());
        }
        self.scalar(node, depth, &scratch)
    }

    /// Checks an integer that fits `u64` or `i64`.
    pub(super) fn integer<E: de::Error>(
        &self,
        node: Option<NodeId>,
        depth: u32,
        number: serde_json::Number,
    ) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        let plan = self.schema.plans.get(id as usize);
        if plan.is_some_and(|plan| {
            plan.always
                || (plan.types.admits_integers()
                    && plan.checks_for(crate::flag::plan::NUMBER_KIND).is_empty())
        }) {
            return Ok(());
        }
        self.scalar(node, depth, &Value::Number(number))
    }

    /// Checks a number serde_json showed as its digits. The number is the one `parse_json` would hold: its
    /// `Value` reads such digits with `Number::from_str` too.
    pub(super) fn digits<E: de::Error>(
        &self,
        node: Option<NodeId>,
        depth: u32,
        digits: &str,
    ) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        if self.trivial(id, crate::flag::plan::NUMBER_KIND) {
            return Ok(());
        }
        let number: serde_json::Number = digits
            .parse()
            .map_err(|_| self.stop::<E>(FallbackReason::Undecided))?;
        self.scalar(node, depth, &Value::Number(number))
    }

    /// Checks a float serde_json showed as `f64`. Where it keeps digits, `x` is the digits rounded: decided from
    /// it where that is exact (see `float_holds_at`), else undecided. Where it does not, `x` is the number a parsed
    /// `Value` holds, checked as that value is.
    pub(super) fn float<E: de::Error>(&self, node: Option<NodeId>, depth: u32, x: f64) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        if !numbers_keep_digits() {
            if self.trivial(id, crate::flag::plan::NUMBER_KIND) {
                return Ok(());
            }
            let number =
                serde_json::Number::from_f64(x).ok_or_else(|| self.stop::<E>(FallbackReason::Undecided))?;
            return self.scalar(node, depth, &Value::Number(number));
        }
        match float_holds_at(self.schema, id, x, depth) {
            Some(true) => Ok(()),
            Some(false) => Err(self.stop(FallbackReason::Invalid)),
            None => Err(self.stop(FallbackReason::Undecided)),
        }
    }

    /// Whether a float at `node` may be read without its digits (see `floats_settle_at`, which a node without
    /// checks for numbers passes).
    pub(super) fn reads_floats_rounded(&self, node: Option<NodeId>, depth: u32) -> bool {
        node.is_none_or(|id| floats_settle_at(self.schema, id, depth))
    }

    /// Whether every instance of `kind` passes node `id` without looking at it.
    pub(super) fn trivial(&self, id: NodeId, kind: usize) -> bool {
        self.schema.plans.get(id as usize).is_some_and(|plan| {
            plan.always || (plan.types.admits_kind(kind) && plan.checks_for(kind).is_empty())
        })
    }

    /// Whether a container of `kind` (object or array) at `node` meets, after its redirects, a node without a plan:
    /// it is then read whole into a value and checked there by the yes/no evaluator, as a scalar is (see
    /// `Checking::capture` in `value.rs`). Not where serde_json shows numbers as digits: the value would not
    /// be the one a parse builds.
    #[inline]
    pub(super) fn captures(&self, node: Option<NodeId>, kind: usize) -> bool {
        let Some(mut id) = node else { return false };
        if numbers_keep_digits() {
            return false;
        }
        for _ in 0..MAX_REDIRECTS {
            let plan = self.schema.plans.get(id as usize);
            if !plan.is_some_and(|plan| plan.always || plan.types.admits_kind(kind)) {
                return false;
            }
            match self.plan.get(id) {
                TypedNode::Unplanned => return true,
                TypedNode::Redirect(target) => id = *target,
                TypedNode::Container(_) => return false,
                TypedNode::All(_) => return self.parts_unplanned(id, kind),
            }
        }
        false
    }

    /// Whether a container of `kind` at node `id` (one with `allOf`) meets a part without a plan.
    #[cold]
    #[inline(never)]
    fn parts_unplanned(&self, id: NodeId, kind: usize) -> bool {
        self.plan.parts(self.schema, id, kind, true, &mut Vec::new()) == Parts::Unplanned
    }

    /// The plans a container of `kind` meets at node `id` (one with `allOf`).
    #[cold]
    #[inline(never)]
    fn several<E: de::Error>(&self, id: NodeId, kind: usize) -> Result<Option<Plans<'s>>, E> {
        let mut parts = Vec::new();
        match self.plan.parts(self.schema, id, kind, true, &mut parts) {
            Parts::Planned => Ok(Some(Plans::Several(parts))),
            Parts::Refused => Err(self.stop(FallbackReason::Invalid)),
            Parts::Unplanned => Err(self.stop(FallbackReason::Unplanned)),
        }
    }

    /// The container plan that applies at `node` to an instance of `kind` (object or array), after its redirects;
    /// `None` when any container passes (no node).
    pub(super) fn container<E: de::Error>(
        &self,
        node: Option<NodeId>,
        kind: usize,
    ) -> Result<Option<Plans<'s>>, E> {
        let Some(mut id) = node else { return Ok(None) };
        for _ in 0..MAX_REDIRECTS {
            let plan = self.schema.plans.get(id as usize);
            if !plan.is_some_and(|plan| plan.always || plan.types.admits_kind(kind)) {
                return Err(self.stop(FallbackReason::Invalid));
            }
            match self.plan.get(id) {
                TypedNode::Unplanned => return Err(self.stop(FallbackReason::Unplanned)),
                TypedNode::Redirect(target) => id = *target,
                TypedNode::Container(container) if container.rejects => {
                    return Err(self.stop(FallbackReason::Invalid));
                }
                TypedNode::Container(container) => return Ok(Some(Plans::One(id, container))),
                TypedNode::All(_) => return self.several(id, kind),
            }
        }
        Err(self.stop(FallbackReason::Unplanned))
    }
}

/// The plans a container meets at its node.
pub(super) enum Plans<'s> {
    /// One node's.
    One(NodeId, &'s Container),
    /// Several at once (a node with `allOf`): each part's checks apply.
    Several(Vec<Part<'s>>),
}

/// Reads `text` into `T`, checking it against `schema` (see the module docs).
pub(crate) fn deserialize_str<T: de::DeserializeOwned>(
    schema: &CompiledSchema,
    text: &str,
) -> Result<T, Fallback> {
    deserialize_at(schema, Some(schema.root), 0, text)
}

/// Reads `text` into `T`, checking it against node `node` (`None`: any value) reached at evaluator depth `depth`:
/// [`deserialize_str`] at the root; the incremental route judges a complete container at its nodes this way.
pub(crate) fn deserialize_at<T: de::DeserializeOwned>(
    schema: &CompiledSchema,
    node: Option<NodeId>,
    depth: u32,
    text: &str,
) -> Result<T, Fallback> {
    if schema.dynamic_scope_matters {
        return Err(Fallback {
            reason: FallbackReason::Unplanned,
        });
    }
    let plan = schema.typed.get_or_init(|| TypedPlan::build(schema));
    let run = Run {
        schema,
        plan,
        reason: Cell::new(None),
        scratch: std::cell::RefCell::new(Value::String(String::new())),
    };
    let mut inner = serde_json::Deserializer::from_str(text);
    let checked = Checked {
        inner: &mut inner,
        run: &run,
        node,
        depth,
    };
    let outcome = T::deserialize(checked).and_then(|value| inner.end().map(|()| value));
    match (outcome, run.reason.get()) {
        (Ok(value), None) => Ok(value),
        (_, Some(reason)) => Err(Fallback { reason }),
        (Err(err), None) => Err(Fallback {
            reason: if err.is_data() {
                FallbackReason::Deserialize
            } else {
                FallbackReason::Invalid
            },
        }),
    }
}

/// Whether an array or object at the root is read whole into a value (its node has no plan): the typed read of
/// such a document costs what a parse costs.
pub(crate) fn reads_root_whole(schema: &CompiledSchema) -> bool {
    if schema.dynamic_scope_matters || numbers_keep_digits() {
        return false;
    }
    let plan = schema.typed.get_or_init(|| TypedPlan::build(schema));
    let mut id = schema.root;
    for _ in 0..MAX_REDIRECTS {
        match plan.get(id) {
            TypedNode::Unplanned => return true,
            TypedNode::Redirect(target) => id = *target,
            TypedNode::Container(_) => return false,
            TypedNode::All(_) => {
                return plan.parts(schema, id, OBJECT_KIND, false, &mut Vec::new()) != Parts::Planned;
            }
        }
    }
    false
}

/// [`kind_of`](crate::flag::plan::kind_of) an array.
pub(super) const ARRAY_KIND: usize = 4;

/// [`kind_of`](crate::flag::plan::kind_of) an object.
pub(super) const OBJECT_KIND: usize = 5;

/// Whether every node reachable from the root through container plans and redirects is planned.
pub(crate) fn plans_every_container(schema: &CompiledSchema) -> bool {
    if schema.dynamic_scope_matters {
        return false;
    }
    let plan = schema.typed.get_or_init(|| TypedPlan::build(schema));
    let mut seen = vec![false; schema.nodes.len()];
    let mut stack = vec![schema.root];
    while let Some(id) = stack.pop() {
        match seen.get_mut(id as usize) {
            Some(seen) if !*seen => *seen = true,
            _ => continue,
        }
        match plan.get(id) {
            // A node no container passes by type is never asked for a plan.
            TypedNode::Unplanned
                if schema.plans.get(id as usize).is_some_and(|plan| {
                    !plan.always
                        && !plan.types.admits_kind(ARRAY_KIND)
                        && !plan.types.admits_kind(OBJECT_KIND)
                }) => {}
            TypedNode::Unplanned => return false,
            // Where serde_json shows numbers as digits, a value several schemas check (two `allOf` parts, a name
            // and a pattern, two patterns) is not read whole (see `Run::captures`): undecided there.
            TypedNode::All(_) if numbers_keep_digits() => return false,
            TypedNode::Container(container)
                if numbers_keep_digits()
                    && container.object.as_ref().is_some_and(|object| {
                        !object.patterns.is_empty() && (object.patterns.len() > 1 || !object.names.is_empty())
                    }) =>
            {
                return false;
            }
            TypedNode::Redirect(target) => stack.push(*target),
            TypedNode::All(all) => {
                stack.extend(all.members.iter().copied());
                push_children(&all.own, &mut stack);
            }
            TypedNode::Container(container) => push_children(container, &mut stack),
        }
    }
    true
}

/// The nodes a container plan checks members and items with.
fn push_children(container: &Container, stack: &mut Vec<NodeId>) {
    stack.extend(container.items);
    stack.extend(container.prefix.iter().copied());
    if let Some(object) = &container.object {
        stack.extend(object.names.iter().filter_map(|planned| planned.node));
        stack.extend(object.patterns.iter().map(|(_, node)| *node));
        if let Others::Schema(node) = object.others {
            stack.push(node);
        }
    }
}

/// Whether the validating deserializer reads an object (`object`) or array at `node` whole into a value and asks
/// the yes/no evaluator there (its node, after redirects, has no plan): reading the value directly costs the same.
pub(crate) fn reads_whole_at(schema: &CompiledSchema, node: NodeId, object: bool) -> bool {
    if schema.dynamic_scope_matters {
        return false;
    }
    let plan = schema.typed.get_or_init(|| TypedPlan::build(schema));
    let run = Run {
        schema,
        plan,
        reason: Cell::new(None),
        scratch: std::cell::RefCell::new(Value::Null),
    };
    run.captures(Some(node), if object { OBJECT_KIND } else { ARRAY_KIND })
}
