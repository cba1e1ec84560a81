//! `anyOf` and `oneOf`, with the reporting rules of proposal 0126.
//!
//! A union no member of which is satisfied reports the failing assertions of every member whose type admits the
//! instance, after resolving references (a member's `type` met with that of the schemas its `$ref`,
//! `$dynamicRef` or `$recursiveRef` lead to; a member with no type anywhere counts); when no member admits it, one
//! violation at the union names the members' types. Members are first probed without collecting, so a satisfied
//! union costs no report at all.
//!
//! The yes/no evaluator lays out a union without a discriminator by the kinds of instance its members' own `type`
//! may admit ([`ByKind`]), and tries only those, without the walk over the others or the keyword's dispatch:
//! `oneOf: [{"type": "string"}, {"type": "array", ...}, {"type": "null"}]` is a common way to say "one of these
//! forms", and walking it tested every member's type in turn. The members tried, their order, and the points where
//! the run starts memoizing are those of the walk (`Flag::any_of`, `Flag::one_of`), so verdicts do not change. An
//! `anyOf` of a schema and `{"type": "null"}` (an optional value, as LLM schemas write it) is laid out as that
//! schema or null.

use super::{Discriminator, Keyword};
use crate::compile::NodeCompiler;
use crate::equal::json_equal;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame, MAX_DEPTH, push_usize};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::flag::plan::Check;
use crate::flag::plan::{KIND_TYPES, NUMBER_KIND, kind_of};
use crate::node::{Body, CompiledSchema, Node, NodeId};
use crate::types::{JsonType, TypeSet};
use crate::violation::ViolationKind;
use serde_json::Value;
use std::sync::Arc;

/// `anyOf` or `oneOf` (`name`); discriminators are found once every node is compiled.
pub(crate) fn compile(
    cx: &mut NodeCompiler<'_, '_>,
    name: &str,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let members = super::schema_list(cx, name, value)?;
    Ok(if name == "anyOf" {
        Keyword::AnyOf(members, None)
    } else {
        Keyword::OneOf(members, None)
    })
}

pub(crate) fn evaluate_any_of<'v>(
    ev: &mut Evaluator<'_>,
    nodes: &[NodeId],
    discriminator: Option<&Discriminator>,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let schema = ev.schema;
    let mut any_valid = false;
    let tag = discriminator.and_then(|discriminator| discriminator.tag(instance));
    let candidates = discriminator.and_then(|discriminator| discriminator.string_candidates(tag));
    let n_tries = candidates.map_or(nodes.len(), <[_]>::len);
    for position in 0..n_tries {
        if position == 1 {
            ev.memo_enabled = true;
        }
        let member_idx = candidates.map_or(position, |candidates| candidates[position].1);
        if discriminator.is_some_and(|discriminator| discriminator.excludes(member_idx, tag)) {
            continue;
        }
        let id = &nodes[member_idx];
        let member = &schema.nodes[*id as usize];
        if rejects_by_type(member, instance) {
            continue;
        }
        let relative = member.relative();
        match evaluated.as_mut() {
            // Annotations are wanted: every satisfied member contributes, so all members run.
            Some(evaluated) => {
                let mut member = Evaluated::default();
                if ev.probe(frame, *id, instance, None, relative, Some(&mut member)) {
                    any_valid = true;
                    evaluated.merge(member);
                }
            }
            None => {
                if ev.probe(frame, *id, instance, None, relative, None) {
                    return true;
                }
            }
        }
    }
    if any_valid {
        return true;
    }
    report_union(
        ev,
        ViolationKind::AnyOf,
        (nodes, discriminator),
        node,
        instance,
        frame,
    )
}

pub(crate) fn evaluate_one_of<'v>(
    ev: &mut Evaluator<'_>,
    nodes: &[NodeId],
    discriminator: Option<&Discriminator>,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let schema = ev.schema;
    // The first two satisfied members are enough to name in a report; no allocation on the valid path.
    let mut n_satisfied = 0_usize;
    let mut named = [0_usize; 2];
    let mut kept = None;
    if nodes.len() > 1 {
        ev.memo_enabled = true;
    }
    let tag = discriminator.and_then(|discriminator| discriminator.tag(instance));
    let candidates = discriminator.and_then(|discriminator| discriminator.string_candidates(tag));
    let n_tries = candidates.map_or(nodes.len(), <[_]>::len);
    for position in 0..n_tries {
        let member_idx = candidates.map_or(position, |candidates| candidates[position].1);
        if discriminator.is_some_and(|discriminator| discriminator.excludes(member_idx, tag)) {
            continue;
        }
        let id = &nodes[member_idx];
        if rejects_by_type(&schema.nodes[*id as usize], instance) {
            continue;
        }
        let relative = schema.nodes[*id as usize].relative();
        let mut member = evaluated.is_some().then(Evaluated::default);
        if ev.probe(frame, *id, instance, None, relative, member.as_mut()) {
            if n_satisfied < 2 {
                named[n_satisfied] = member_idx;
            }
            n_satisfied += 1;
            kept = member;
            if n_satisfied > 1 && !ev.collect {
                return false;
            }
        }
    }
    match n_satisfied {
        1 => {
            if let (Some(evaluated), Some(kept)) = (evaluated.as_mut(), kept) {
                evaluated.merge(kept);
            }
            true
        }
        0 => report_union(
            ev,
            ViolationKind::OneOf,
            (nodes, discriminator),
            node,
            instance,
            frame,
        ),
        _ => {
            if !ev.collect {
                return false;
            }
            let mut message = ev.message_of(&["must match exactly one schema, but matches "]);
            push_usize(&mut message, n_satisfied);
            message.push_str(" (members ");
            push_usize(&mut message, named[0]);
            message.push_str(" and ");
            push_usize(&mut message, named[1]);
            message.push_str(" among them)");
            ev.fail(frame, node, ViolationKind::OneOf, Detail::message(message))
        }
    }
}

/// Whether a union member's own `type` rejects the instance, so probing it (a frame, its keyword loop) can be
/// skipped: the member cannot be satisfied, and a failed probe records nothing, so skipping it changes no outcome.
#[inline]
pub(crate) fn rejects_by_type(member: &Node, instance: &Value) -> bool {
    member.own_type.is_some_and(|types| !types.admits(instance))
}

/// Reports a union none of whose members is satisfied, by the type-admission rule.
#[cold]
fn report_union<'v>(
    ev: &mut Evaluator<'_>,
    kind: ViolationKind,
    (nodes, discriminator): (&[NodeId], Option<&Discriminator>),
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
) -> bool {
    if !ev.collect {
        return false;
    }
    let schema = ev.schema;
    let admitting: Vec<NodeId> = nodes
        .iter()
        .copied()
        .filter(|id| member_type(schema, frame, *id).is_none_or(|types| types.admits(instance)))
        .collect();
    if admitting.is_empty() {
        let types = nodes
            .iter()
            .filter_map(|id| member_type(schema, frame, *id))
            .fold(TypeSet::default(), TypeSet::union);
        let mut message = ev.message_of(&["expected "]);
        types.push_description(&mut message);
        message.push_str(", got ");
        message.push_str(JsonType::of(instance).name());
        let mut detail = Detail::message(message);
        detail.expected_types = types;
        return ev.fail(frame, node, kind, detail);
    }
    let mut admitting = admitting;
    if ev.discriminators {
        // Opt-in view: set aside members pinned by `const`/`enum` on a property the instance contradicts, unless
        // that would set aside every member. When the union has a discriminating property (one that several
        // members pin), only that property counts: a member whose other `enum` the instance breaks (FHIR's
        // Patient with a wrong `gender`) is the member to report, not one to set aside.
        let tag = discriminator.and_then(|discriminator| discriminator.view_tag(instance));
        let consistent: Vec<NodeId> = admitting
            .iter()
            .copied()
            .filter(|id| match discriminator {
                Some(discriminator) => nodes
                    .iter()
                    .position(|member| member == id)
                    .is_none_or(|member_idx| !discriminator.view_excludes(member_idx, tag)),
                None => !discriminator_contradicts(ev, *id, instance, 0),
            })
            .collect();
        if !consistent.is_empty() {
            admitting = consistent;
        }
    }
    for id in admitting {
        let relative = schema.nodes[id as usize].relative();
        ev.descend(frame, id, instance, None, relative, None);
    }
    false
}

/// How many schemas to visit when resolving a union member's type through references (a cycle of references
/// without a type ends there).
const MAX_TYPE_HOPS: usize = 64;

/// A union member's type by 0126's rule, "after resolving references": its own `type`, met with the type of every
/// schema its `$ref`, `$dynamicRef` or `$recursiveRef` leads to (dynamic ones resolved in `frame`'s dynamic scope),
/// through chains of them. `None` when none of them has a `type`: such a member counts as matching. Other
/// applicators are not looked into: a member that is a composite has no type of its own.
fn member_type(schema: &CompiledSchema, frame: &Frame<'_, '_>, id: NodeId) -> Option<TypeSet> {
    let member = &schema.nodes[id as usize];
    if !member.refers {
        return member.own_type;
    }
    let mut found: Option<TypeSet> = None;
    // A member refers to one schema at a time, nearly always: the next one is kept in hand, and only a schema with
    // both `$ref` and `$dynamicRef` puts one aside (so a failed union allocates nothing here).
    let mut next = Some(id);
    let mut aside = Vec::new();
    let mut visited = 0;
    while let Some(id) = next.take().or_else(|| aside.pop()) {
        visited += 1;
        if visited > MAX_TYPE_HOPS {
            break;
        }
        let node = &schema.nodes[id as usize];
        let Body::Keywords(keywords) = &node.body else {
            continue;
        };
        if let Some(own) = node.own_type {
            found = Some(found.map_or(own, |types| types.meet(own)));
        }
        if !node.refers {
            continue;
        }
        for keyword in keywords.iter() {
            let target = match keyword {
                Keyword::Ref(target) => *target,
                Keyword::DynamicRef { target, anchor, .. } => {
                    super::ref_::dynamic_target(schema, frame, *target, anchor.as_deref())
                }
                _ => continue,
            };
            match next {
                None => next = Some(target),
                Some(_) => aside.push(target),
            }
        }
    }
    found
}

/// How many `$ref`/`allOf` hops to follow when looking for a member's discriminating properties.
const MAX_DISCRIMINATOR_HOPS: u32 = 4;

/// Whether a union member pins a property with `const`/`enum` (directly, through `$ref` or `allOf`) that the
/// instance has with another value.
fn discriminator_contradicts(ev: &Evaluator<'_>, id: NodeId, instance: &Value, hops: u32) -> bool {
    let Value::Object(object) = instance else {
        return false;
    };
    let schema = ev.schema;
    let Body::Keywords(keywords) = &schema.nodes[id as usize].body else {
        return false;
    };
    keywords
        .iter()
        .flat_map(Keyword::parts)
        .any(|keyword| match keyword {
            Keyword::Properties { entries, .. } => entries.iter().any(|(name, child)| {
                let Some(value) = object.get(name.as_ref()) else {
                    return false;
                };
                let Body::Keywords(pins) = &schema.nodes[*child as usize].body else {
                    return false;
                };
                pins.iter().any(|pin| match pin {
                    Keyword::Const(expected) => !json_equal(expected, value),
                    Keyword::Enum(options) => !options.iter().any(|option| json_equal(option, value)),
                    _ => false,
                })
            }),
            Keyword::Ref(target) if hops < MAX_DISCRIMINATOR_HOPS => {
                discriminator_contradicts(ev, *target, instance, hops + 1)
            }
            Keyword::AllOf(members) if hops < MAX_DISCRIMINATOR_HOPS => members
                .iter()
                .any(|member| discriminator_contradicts(ev, *member, instance, hops + 1)),
            _ => false,
        })
}

/// A union laid out by kind (see the module's documentation).
#[derive(Debug)]
pub(crate) struct ByKind {
    /// `oneOf` (else `anyOf`).
    one: bool,
    /// How many members the union has.
    n_members: usize,
    /// Per kind, the range of `members` whose own `type` may admit it.
    ranges: [(u16, u16); KIND_TYPES.len()],
    /// Members as (position in the union, node), kind by kind, each kind's in member order.
    members: Box<[(usize, NodeId)]>,
}

impl ByKind {
    /// The layout of a union over `ids`, when some member's own `type` sets it aside for some kind.
    pub(crate) fn of(one: bool, ids: &[NodeId], nodes: &[Node]) -> Option<Arc<Self>> {
        let admits = |id: NodeId, kind: usize| {
            nodes
                .get(id as usize)
                .and_then(|node| node.own_type)
                .is_none_or(|types| {
                    types.contains(KIND_TYPES[kind])
                        || (kind == NUMBER_KIND && types.contains(JsonType::Integer))
                })
        };
        let mut members = Vec::new();
        let mut ranges = [(0_u16, 0_u16); KIND_TYPES.len()];
        for (kind, range) in ranges.iter_mut().enumerate() {
            let start = u16::try_from(members.len()).ok()?;
            members.extend(
                ids.iter()
                    .enumerate()
                    .filter(|(_, id)| admits(**id, kind))
                    .map(|(position, id)| (position, *id)),
            );
            *range = (start, u16::try_from(members.len()).ok()?);
        }
        (members.len() < ids.len() * KIND_TYPES.len()).then(|| {
            Arc::new(Self {
                one,
                n_members: ids.len(),
                ranges,
                members: members.into_boxed_slice(),
            })
        })
    }

    /// The members whose own `type` may admit an instance of kind `kind`.
    #[inline]
    fn candidates(&self, kind: usize) -> &[(usize, NodeId)] {
        let (start, end) = self.ranges.get(kind).copied().unwrap_or((0, 0));
        self.members
            .get(usize::from(start)..usize::from(end))
            .unwrap_or(&[])
    }
}

/// The other member of an `anyOf` of two whose one member is only `{"type": "null"}`.
pub(crate) fn nullable_value(ids: &[NodeId], nodes: &[Node]) -> Option<NodeId> {
    let is_null = |id: &NodeId| is_null_only(nodes, *id);
    match ids {
        [value, other] | [other, value] if is_null(other) && !is_null(value) => Some(*value),
        _ => None,
    }
}

/// `anyOf` and `oneOf` in the yes/no evaluator.
impl Flag<'_> {
    /// `anyOf` of a schema and `{"type": "null"}`: the null member holds within the limit (at it, the union runs as
    /// compiled, keyword `index` of node `id`).
    #[inline(never)]
    pub(crate) fn nullable(
        &mut self,
        value: NodeId,
        (id, index): (NodeId, u16),
        instance: &Value,
        depth: u32,
    ) -> bool {
        if depth >= MAX_DEPTH {
            return self.keyword_at(id, index, instance, depth);
        }
        instance.is_null() || self.child(value, instance, depth)
    }

    #[inline(never)]
    pub(crate) fn any_of(
        &mut self,
        ids: &[NodeId],
        discriminator: Option<&crate::keywords::Discriminator>,
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
            // Candidates found by the tag all pin it: only a walk over every member needs the test.
            if candidates.is_none()
                && discriminator.is_some_and(|discriminator| discriminator.excludes(member_idx, tag))
            {
                continue;
            }
            let id = ids[member_idx];
            if rejects_by_type(&schema.nodes[id as usize], instance) {
                continue;
            }
            if self.child(id, instance, depth) {
                return true;
            }
        }
        false
    }

    #[inline(never)]
    pub(crate) fn one_of(
        &mut self,
        ids: &[NodeId],
        discriminator: Option<&crate::keywords::Discriminator>,
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
            // Candidates found by the tag all pin it: only a walk over every member needs the test.
            if candidates.is_none()
                && discriminator.is_some_and(|discriminator| discriminator.excludes(member_idx, tag))
            {
                continue;
            }
            let id = ids[member_idx];
            if rejects_by_type(&schema.nodes[id as usize], instance) {
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

    /// A union laid out by kind: as `any_of` and `one_of` answer it, trying only the members that may admit the
    /// instance's kind.
    #[inline(never)]
    pub(crate) fn union_by_kind(&mut self, union: &ByKind, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        let candidates = union.candidates(kind_of(instance));
        let rejects = |id: NodeId| {
            schema
                .nodes
                .get(id as usize)
                .is_none_or(|member| rejects_by_type(member, instance))
        };
        if union.one {
            if union.n_members > 1 {
                self.memo_enabled = true;
            }
            let mut n_satisfied = 0_usize;
            for &(_, id) in candidates {
                if !rejects(id) && self.child(id, instance, depth) {
                    n_satisfied += 1;
                    if n_satisfied > 1 {
                        return false;
                    }
                }
            }
            return n_satisfied == 1;
        }
        for &(position, id) in candidates {
            // The walk starts memoizing when it reaches the second member.
            if position > 0 {
                self.memo_enabled = true;
            }
            if !rejects(id) && self.child(id, instance, depth) {
                return true;
            }
        }
        if union.n_members > 1 {
            self.memo_enabled = true;
        }
        false
    }
}

/// The check of an `anyOf` (`one` false) or `oneOf` without a discriminator (keyword `index`) in the yes/no
/// evaluator's plan: a nullable value, or the members by kind; `None` for the walk as compiled.
pub(crate) fn plan(one: bool, ids: &[NodeId], index: u16, nodes: &[Node]) -> Option<Check> {
    let nullable = if one { None } else { nullable_value(ids, nodes) };
    match nullable {
        Some(value) => Some(Check::Nullable { value, index }),
        None => ByKind::of(one, ids, nodes).map(Check::UnionByKind),
    }
}

/// Where the typed route sends a container met at an `anyOf`/`oneOf` of a schema and `{"type": "null"}` (which no
/// container satisfies on the null side): the other member; `None` for any other union (not planned).
pub(crate) fn typed_redirect(members: &[NodeId], nodes: &[Node]) -> Option<NodeId> {
    match members {
        [a, b] if is_null_only(nodes, *b) => Some(*a),
        [a, b] if is_null_only(nodes, *a) => Some(*b),
        _ => None,
    }
}

/// Whether a node is exactly `{"type": "null"}`.
fn is_null_only(nodes: &[Node], id: NodeId) -> bool {
    let mut null = TypeSet::default();
    null.insert(JsonType::Null);
    nodes.get(id as usize).and_then(|node| node.only_type) == Some(null)
}
