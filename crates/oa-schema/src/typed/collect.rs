//! The validating deserializer's collecting mode: one pass over JSON text that reports every violation, as
//! [`validate`](crate::Validator::validate) reports them on the parsed value, without building that value.
//!
//! It walks the text as the verdict mode does (scalars asked of the yes/no evaluator at their node, containers
//! member by member through their [`TypedNode`] plan), but where the verdict mode stops, it records and reads on:
//!
//! - a scalar that fails its node is evaluated there by the collecting evaluator, with the frames the whole walk
//!   builds on its way (`eval/at.rs`): the same violations at the same locations, keyword paths and messages;
//! - a container whose node has no plan (or fails at its first byte: its type, an `enum` of scalars, a `false`
//!   schema, a union) is read whole into a value and evaluated there, as a scalar is;
//! - a planned container's own keywords (`required`, the count bounds, `additionalProperties: false`) are told
//!   from the names and counts as in the verdict mode, and only where one fails is the keyword itself evaluated,
//!   over a proxy that holds what it looks at (the names seen, the count: see `incremental/certain.rs`).
//!
//! The way is a stack of frames in a reused buffer (member names copied into one string); a violation's paths are
//! built from it only when one is recorded. Whatever it cannot follow exactly (a repeated member name, one of
//! serde_json's private tokens, numbers shown as digits, a dynamic scope, a way near the depth limit, malformed
//! text) ends the pass without an answer, and the caller takes the value route.

use super::members::Seen;
use super::plan::{
    Container, Member, ObjectPlan, Others, OwnCheck, Part, Parts, TypedNode, TypedPlan, admits, is_lone_ref,
    own_keywords,
};
use super::{ARRAY_KIND, MAX_REDIRECTS, OBJECT_KIND};
use crate::eval::{Evaluator, Reached, STAMPED, Step, Way};
use crate::flag::holds_at;
use crate::node::{Body, CompiledSchema, NodeId, ResourceId};
use crate::strict::{MemberNames, Name, PRIVATE_PREFIX, StrictValue, Walk, numbers_keep_digits};
use crate::violation::{Violation, ViolationKind};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The most frames the way may hold: past it the evaluator's depth limit is near, and the value route answers.
const WAY_MAX: usize = 256;

/// The way's and the member names' first capacities (a usual document's way and names fit: they are made once a
/// pass, where growing them from one frame and an empty string reallocated each a few times).
const FRAMES_AT_FIRST: usize = 16;
const KEYS_AT_FIRST: usize = 128;

/// Every violation of `text` against `schema`, as `validate` reports them on its value (unsorted, repeats
/// possible); `None` where this pass does not answer (see the module docs).
pub(crate) fn collect_str(schema: &CompiledSchema, text: &str) -> Option<Vec<Violation>> {
    let root = schema.nodes.get(schema.root as usize)?;
    let way = [Reached {
        step: None,
        schema_step: "",
        resource: root.resource,
        stamp: UNSTAMPED,
    }];
    collect_at(schema, &way, schema.root, text, false)
}

/// As [`collect_str`], for a value inside a document (the incremental route's complete containers): `text` is
/// checked at node `id`, reached by `way` (the frames the whole walk builds on its way there, outermost first, the
/// node's last), so the violations are those the whole walk records under it. With `first`, the pass ends at the
/// first evaluation that records a violation and gives what that one found (a verdict, and the violation that
/// proves it).
pub(crate) fn collect_at<'s>(
    schema: &'s CompiledSchema,
    way: &[Reached<'s>],
    id: NodeId,
    text: &str,
    first: bool,
) -> Option<Vec<Violation>> {
    if schema.dynamic_scope_matters || numbers_keep_digits() || way.is_empty() || way.len() >= WAY_MAX {
        return None;
    }
    let plan = schema.typed.get_or_init(|| TypedPlan::build(schema));
    let mut keys = String::with_capacity(KEYS_AT_FIRST);
    let mut frames = Vec::with_capacity(FRAMES_AT_FIRST.max(way.len()));
    frames.extend(way.iter().map(|reached| Frame {
        step: match reached.step {
            None => FrameStep::None,
            Some(Step::Index(index)) => FrameStep::Index(index),
            Some(Step::Key(key)) => {
                let start = keys.len();
                keys.push_str(key);
                FrameStep::Key {
                    start,
                    end: keys.len(),
                }
            }
        },
        schema_step: reached.schema_step,
        resource: reached.resource,
        stamp: UNSTAMPED,
    }));
    #[cfg_attr(not(test), allow(unused_mut))]
    let mut ev = Evaluator::new(schema, true);
    #[cfg(test)]
    {
        ev.paths_from_scratch = tests::PATHS_FROM_SCRATCH.with(std::cell::Cell::get);
    }
    let mut collector = Collector {
        schema,
        plan,
        frames,
        keys,
        ev,
        stopped: false,
        scratch: Value::String(String::new()),
        first,
        decided: false,
        nodes: Vec::new(),
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = Val {
        c: &mut collector,
        node: id,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    if collector.decided {
        return Some(collector.ev.into_found());
    }
    if read.is_err() || collector.stopped {
        return None;
    }
    Some(collector.ev.into_found())
}

/// One frame of the way: the instance step, the keyword path segment, the resource of the node reached.
#[derive(Clone, Copy)]
struct Frame<'s> {
    step: FrameStep,
    schema_step: &'s str,
    resource: ResourceId,
    /// The count of violations recorded at the first evaluation started below it, marked (see `eval/paths.rs`):
    /// the evaluator's frames made for it carry it, and so build a violation's paths on those the last violation
    /// kept below this frame. [`UNSTAMPED`] before that evaluation.
    stamp: usize,
}

/// A frame's stamp before its first evaluation (no stamp: they carry [`STAMPED`]).
const UNSTAMPED: usize = 0;

/// The way as the evaluator reads it ([`Way`]): the frames and the member names they point into.
struct Frames<'a, 's> {
    frames: &'a [Frame<'s>],
    keys: &'a str,
}

impl<'a: 'v, 'v> Way<'v> for Frames<'a, '_> {
    fn frames(&self) -> usize {
        self.frames.len()
    }

    fn frame(&self, index: usize) -> Option<Reached<'v>> {
        let frame = self.frames.get(index)?;
        Some(Reached {
            step: match frame.step {
                FrameStep::None => None,
                FrameStep::Key { start, end } => {
                    Some(Step::Key(self.keys.get(start..end).unwrap_or_default()))
                }
                FrameStep::Index(index) => Some(Step::Index(index)),
            },
            schema_step: frame.schema_step,
            resource: frame.resource,
            stamp: frame.stamp,
        })
    }
}

/// An instance step, its member name kept in [`Collector::keys`] (from `start` to the frame's end).
#[derive(Clone, Copy)]
enum FrameStep {
    None,
    Key { start: usize, end: usize },
    Index(usize),
}

/// The state of one pass.
struct Collector<'s> {
    schema: &'s CompiledSchema,
    plan: &'s TypedPlan,
    frames: Vec<Frame<'s>>,
    keys: String,
    /// The collecting evaluator, one run for the whole pass: its report is the pass's.
    ev: Evaluator<'s>,
    stopped: bool,
    /// The string value reused for every string checked.
    scratch: Value,
    /// Whether the pass ends at the first violation recorded ([`collect_at`]).
    first: bool,
    /// A violation was recorded with `first`: the pass unwinds and answers.
    decided: bool,
    /// The nodes of a member's value, reused (see [`ObjectPlan::member_nodes`]).
    nodes: Vec<NodeId>,
}

/// What a container meets at its node.
enum Planned<'s> {
    /// Read whole and evaluated at the node.
    Capture,
    /// Walked through its plan.
    Walk(Walked<'s>),
    /// Walked through several plans at once (a node with `allOf`), reached through `redirects` `$ref` frames.
    Parts { parts: Vec<Part<'s>>, redirects: usize },
}

/// A container walked through `container`, the plan of node `id`, reached through `redirects` `$ref` frames.
struct Walked<'s> {
    id: NodeId,
    container: &'s Container,
    redirects: usize,
}

impl<'s> Collector<'s> {
    /// Ends the pass without an answer.
    fn stop<E: de::Error>(&mut self) -> E {
        self.stopped = true;
        E::custom("oa-schema: the collecting pass stopped")
    }

    /// Ends the pass without an answer, passing `err` on.
    fn stop_with<E>(&mut self, err: E) -> E {
        self.stopped = true;
        err
    }

    /// The node depth of the current frame, as the evaluator counts it.
    fn depth(&self) -> u32 {
        u32::try_from(self.frames.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    fn push<E: de::Error>(
        &mut self,
        step: FrameStep,
        id: NodeId,
        schema_step: Option<&'s str>,
    ) -> Result<(), E> {
        if self.frames.len() >= WAY_MAX {
            return Err(self.stop());
        }
        let schema = self.schema;
        let Some(node) = schema.nodes.get(id as usize) else {
            return Err(self.stop());
        };
        self.frames.push(Frame {
            step,
            schema_step: schema_step.unwrap_or_else(|| node.relative()),
            resource: node.resource,
            stamp: UNSTAMPED,
        });
        Ok(())
    }

    fn push_key<E: de::Error>(&mut self, name: &str, id: NodeId) -> Result<(), E> {
        let start = self.keys.len();
        self.keys.push_str(name);
        let end = self.keys.len();
        self.push(FrameStep::Key { start, end }, id, None)
    }

    fn pop(&mut self) {
        if let Some(Frame {
            step: FrameStep::Key { start, .. },
            ..
        }) = self.frames.pop()
        {
            self.keys.truncate(start);
        }
    }

    /// Whether every instance of `kind` passes node `id` without looking at it.
    fn trivial(&self, id: NodeId, kind: usize) -> bool {
        self.schema.plans.get(id as usize).is_some_and(|plan| {
            plan.always || (plan.types.admits_kind(kind) && plan.checks_for(kind).is_empty())
        })
    }

    /// A whole value at node `id` (the current frame's): recorded where it fails.
    fn whole(&mut self, id: NodeId, value: &Value) {
        if !holds_at(self.schema, id, value, self.depth()) {
            self.record(id, value);
        }
    }

    /// A string at node `id`.
    fn string(&mut self, id: NodeId, text: &str) {
        if self.trivial(id, crate::flag::plan::STRING_KIND) {
            return;
        }
        let mut scratch = std::mem::replace(&mut self.scratch, Value::Null);
        if let Value::String(buffer) = &mut scratch {
            buffer.clear();
            buffer.push_str(text);
        } else {
            scratch = Value::String(text.to_owned());
        }
        self.whole(id, &scratch);
        self.scratch = scratch;
    }

    /// A number at node `id`.
    fn number(&mut self, id: NodeId, number: serde_json::Number) {
        if self.trivial(id, crate::flag::plan::NUMBER_KIND) {
            return;
        }
        self.whole(id, &Value::Number(number));
    }

    /// Evaluates node `id` over `instance` at the current frame with the collecting evaluator.
    fn record(&mut self, id: NodeId, instance: &Value) {
        self.record_with(|ev, way| ev.node_within(way, id, instance));
    }

    /// Runs `evaluate` with the way to the current frame (its paths built now), keeping what it finds.
    fn record_with(&mut self, evaluate: impl FnOnce(&mut Evaluator<'s>, &Frames<'_, 's>) -> bool) {
        // The frames new since the last evaluation are stamped now; the others keep theirs (see `Frame::stamp`).
        let stamp = self.ev.violations.len() | STAMPED;
        for frame in self.frames.iter_mut().rev() {
            if frame.stamp != UNSTAMPED {
                break;
            }
            frame.stamp = stamp;
        }
        let way = Frames {
            frames: &self.frames,
            keys: &self.keys,
        };
        if evaluate(&mut self.ev, &way) {
            // The whole walk stops at the depth limit: the value route says what it reports.
            self.stopped = true;
        }
        self.decided = self.first && !self.stopped && !self.ev.violations.is_empty();
    }

    /// The keywords of node `id` that carry `check`, evaluated over `proxy` at the current frame.
    fn record_keywords(&mut self, id: NodeId, proxy: &Value, check: OwnCheck) {
        let Some(node) = self.schema.nodes.get(id as usize) else {
            return;
        };
        self.record_with(|ev, way| {
            ev.within(way, |ev, frame| {
                for keyword in own_keywords(node, check) {
                    crate::keywords::evaluate(ev, keyword, node, proxy, frame, &mut None);
                }
            })
        });
    }

    /// `required`'s violations at node `id` (the current frame's), for the plan's required names not `seen`: what
    /// the keyword reports over the object, told from the names alone.
    fn record_missing(&mut self, id: NodeId, object: &ObjectPlan, seen: &Seen) {
        let Some(node) = self.schema.nodes.get(id as usize) else {
            return;
        };
        self.record_with(|ev, way| {
            ev.within(way, |ev, frame| {
                for (slot, planned) in object.names.iter().enumerate() {
                    if planned.required && !seen.contains(slot) {
                        crate::keywords::object::missing(
                            ev,
                            ViolationKind::Required,
                            &planned.name,
                            None,
                            node,
                            frame,
                        );
                    }
                }
            })
        });
    }

    /// The plan a container of `kind` meets at node `id`, after its `$ref`s (each pushed as a frame).
    fn planned<E: de::Error>(&mut self, id: NodeId, kind: usize) -> Result<Planned<'s>, E> {
        let schema = self.schema;
        let mut at = id;
        let mut redirects = 0;
        let planned = loop {
            if redirects >= MAX_REDIRECTS as usize {
                break Planned::Capture;
            }
            if !admits(schema, at, kind) {
                break Planned::Capture;
            }
            match self.plan.get(at) {
                TypedNode::Unplanned => break Planned::Capture,
                TypedNode::Redirect(target) => {
                    let lone_ref = schema.nodes.get(at as usize).is_some_and(is_lone_ref);
                    if !lone_ref {
                        // A union with `null`: its report needs the value.
                        break Planned::Capture;
                    }
                    self.push(FrameStep::None, *target, Some("/$ref"))?;
                    redirects += 1;
                    at = *target;
                }
                TypedNode::Container(container) => {
                    if container.rejects || rejects_items(schema, container) {
                        break Planned::Capture;
                    }
                    return Ok(Planned::Walk(Walked {
                        id: at,
                        container,
                        redirects,
                    }));
                }
                TypedNode::All(_) => {
                    let mut parts = Vec::new();
                    let planned = self.plan.parts(schema, at, kind, false, &mut parts);
                    if planned != Parts::Planned
                        || parts.iter().any(|part| rejects_items(schema, part.container))
                    {
                        break Planned::Capture;
                    }
                    return Ok(Planned::Parts { parts, redirects });
                }
            }
        };
        for _ in 0..redirects {
            self.pop();
        }
        Ok(planned)
    }

    fn array<'de, A: SeqAccess<'de>>(&mut self, id: NodeId, mut seq: A) -> Result<(), A::Error> {
        let Walked {
            id: at,
            container,
            redirects,
        } = match self.planned(id, ARRAY_KIND)? {
            Planned::Capture => return self.captured(id, |strict| strict.seq(seq)),
            Planned::Walk(walked) => walked,
            Planned::Parts { parts, redirects } => return self.array_of_parts(&parts, redirects, seq),
        };
        let mut count = 0_usize;
        loop {
            let node = container.prefix.get(count).copied().or(container.items);
            let more = match node {
                Some(node) => {
                    self.push(FrameStep::Index(count), node, None)?;
                    let more = seq.next_element_seed(Val { c: &mut *self, node })?;
                    self.pop();
                    more
                }
                None => seq.next_element_seed(strict())?,
            };
            if more.is_none() {
                break;
            }
            count += 1;
        }
        let n = count as u64;
        if n < container.min_items || n > container.max_items {
            let proxy = Value::Array(vec![Value::Null; count]);
            self.record_keywords(at, &proxy, OwnCheck::ItemCounts);
        }
        for _ in 0..redirects {
            self.pop();
        }
        Ok(())
    }

    fn object<'de, A: MapAccess<'de>>(&mut self, id: NodeId, mut map: A) -> Result<(), A::Error> {
        let Walked {
            id: at,
            container,
            redirects,
        } = match self.planned(id, OBJECT_KIND)? {
            Planned::Capture => return self.captured(id, |strict| strict.map(map)),
            Planned::Walk(walked) => walked,
            Planned::Parts { parts, redirects } => return self.object_of_parts(&parts, redirects, map),
        };
        let object = container.object.as_ref();
        let mut seen = Seen::default();
        let mut others_seen = MemberNames::default();
        let mut n_required = 0;
        let mut count = 0_u64;
        while let Some(name) = map.next_key_seed(Name)? {
            if name.starts_with(PRIVATE_PREFIX) {
                return Err(self.stop());
            }
            count += 1;
            let slot = object.and_then(|object| object.find(&name));
            let planned = slot.and_then(|slot| object.and_then(|object| object.names.get(slot)));
            let fresh = match slot {
                Some(slot) => seen.note(slot, object.map_or(0, |object| object.names.len())),
                None => others_seen.insert(&name),
            };
            if !fresh {
                // A repeated name: a `Value` keeps the last.
                return Err(self.stop());
            }
            n_required += usize::from(planned.is_some_and(|planned| planned.required));
            if let Some(object) = object
                && !object.patterns.is_empty()
            {
                self.patterned(at, object, slot, &name, &mut map)?;
                continue;
            }
            let child = match (planned.and_then(|planned| planned.node), object) {
                (Some(node), _) => Some(node),
                (None, None) => None,
                (None, Some(object)) => match object.others {
                    Others::Any => None,
                    Others::Schema(node) => Some(node),
                    Others::Reject => {
                        self.reject_other(at, &name);
                        None
                    }
                },
            };
            match child {
                Some(child) => {
                    self.push_key(&name, child)?;
                    map.next_value_seed(Val {
                        c: &mut *self,
                        node: child,
                    })?;
                    self.pop();
                }
                None => map.next_value_seed(strict())?,
            }
        }
        if let Some(object) = object
            && n_required < object.n_required
        {
            self.record_missing(at, object, &seen);
        }
        if count < container.min_properties || count > container.max_properties {
            // What the count bounds look at: as many members.
            let proxy: Map<String, Value> = (0..count).map(|idx| (idx.to_string(), Value::Null)).collect();
            self.record_keywords(at, &Value::Object(proxy), OwnCheck::PropertyCounts);
        }
        for _ in 0..redirects {
            self.pop();
        }
        Ok(())
    }

    /// `additionalProperties: false`'s violation for member `name` of the object at node `at` (the current
    /// frame's): its value is not looked at, only what the keyword says of its name.
    fn reject_other(&mut self, at: NodeId, name: &str) {
        let mut proxy = Map::new();
        proxy.insert(name.to_owned(), Value::Null);
        self.record_keywords(at, &Value::Object(proxy), OwnCheck::Others);
    }

    /// The value of member `name` (at `slot` of the plan's names, if there) of an object with `patternProperties`
    /// at node `at`: walked at its one node, or read whole and evaluated at each of several (its `properties`
    /// schema and every pattern its name matches), as the collecting evaluator applies each keyword in turn.
    fn patterned<'de, A: MapAccess<'de>>(
        &mut self,
        at: NodeId,
        object: &ObjectPlan,
        slot: Option<usize>,
        name: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let mut nodes = std::mem::take(&mut self.nodes);
        nodes.clear();
        let member = object.member_nodes(slot, name, &mut nodes);
        let read = match (member, &nodes[..]) {
            // A pattern past its budget: the collecting evaluator reports it, the value route answers.
            (Member::Budget, _) => Err(self.stop()),
            (Member::Rejected, _) => {
                self.reject_other(at, name);
                map.next_value_seed(strict())
            }
            (Member::Checked, []) => map.next_value_seed(strict()),
            (Member::Checked, [node]) => {
                let node = *node;
                self.push_key(name, node).and_then(|()| {
                    let read = map.next_value_seed(Val { c: &mut *self, node });
                    self.pop();
                    read
                })
            }
            (Member::Checked, several) => {
                let declined = std::cell::Cell::new(false);
                match map.next_value_seed(StrictValue { declined: &declined }) {
                    Err(err) if declined.get() => Err(self.stop_with(err)),
                    Err(err) => Err(err),
                    Ok(value) => several.iter().try_for_each(|node| {
                        self.push_key(name, *node)?;
                        self.whole(*node, &value);
                        self.pop();
                        Ok(())
                    }),
                }
            }
        };
        self.nodes = nodes;
        read
    }

    /// Enters `part`: its way's frames pushed.
    fn enter<E: de::Error>(&mut self, part: &Part<'s>) -> Result<(), E> {
        for (node, step) in &part.way {
            self.push(FrameStep::None, *node, *step)?;
        }
        Ok(())
    }

    /// Leaves `part`: its way's frames popped.
    fn leave(&mut self, part: &Part<'s>) {
        for _ in 0..part.way.len() {
            self.pop();
        }
    }

    /// The next value of `next` (an array's item or a member's value, at instance step `step`) whose nodes are
    /// `nodes` (each with the index of the part it comes from): walked at its one node, or read whole and evaluated
    /// at each of several. False at the end of an array.
    fn value_of_parts<'de, N: Next<'de>>(
        &mut self,
        parts: &[Part<'s>],
        nodes: &[(usize, NodeId)],
        step: At<'_>,
        next: &mut N,
    ) -> Result<bool, N::Error> {
        if let [(part, node)] = nodes {
            let Some(part) = parts.get(*part) else {
                return Err(self.stop());
            };
            self.enter(part)?;
            self.push_at(step, *node)?;
            let more = next
                .next(Val {
                    c: &mut *self,
                    node: *node,
                })?
                .is_some();
            self.pop();
            self.leave(part);
            return Ok(more);
        }
        let declined = std::cell::Cell::new(false);
        let value = match next.next(StrictValue { declined: &declined }) {
            Ok(Some(value)) => value,
            Ok(None) => return Ok(false),
            Err(err) if declined.get() => return Err(self.stop_with(err)),
            Err(err) => return Err(err),
        };
        for (part, node) in nodes {
            let Some(part) = parts.get(*part) else {
                return Err(self.stop());
            };
            self.enter(part)?;
            self.push_at(step, *node)?;
            self.whole(*node, &value);
            self.pop();
            self.leave(part);
        }
        Ok(true)
    }

    fn push_at<E: de::Error>(&mut self, step: At<'_>, node: NodeId) -> Result<(), E> {
        match step {
            At::Index(index) => self.push(FrameStep::Index(index), node, None),
            At::Key(name) => self.push_key(name, node),
        }
    }

    /// An array walked by several plans at once: each item at every node they give it, each part's count bounds.
    fn array_of_parts<'de, A: SeqAccess<'de>>(
        &mut self,
        parts: &[Part<'s>],
        redirects: usize,
        mut seq: A,
    ) -> Result<(), A::Error> {
        let mut count = 0_usize;
        let mut nodes = Vec::new();
        loop {
            nodes.clear();
            for (at, part) in parts.iter().enumerate() {
                if let Some(node) = part.container.prefix.get(count).copied().or(part.container.items) {
                    nodes.push((at, node));
                }
            }
            let more = if nodes.is_empty() {
                seq.next_element_seed(strict())?.is_some()
            } else {
                self.value_of_parts(parts, &nodes, At::Index(count), &mut Items(&mut seq))?
            };
            if !more {
                break;
            }
            count += 1;
        }
        let n = count as u64;
        for part in parts {
            if n < part.container.min_items || n > part.container.max_items {
                let proxy = Value::Array(vec![Value::Null; count]);
                self.enter(part)?;
                self.record_keywords(part.id, &proxy, OwnCheck::ItemCounts);
                self.leave(part);
            }
        }
        for _ in 0..redirects {
            self.pop();
        }
        Ok(())
    }

    /// An object walked by several plans at once: each member noted by every part and its value checked at every
    /// node they give it; each part's `required`, count bounds and `additionalProperties: false`.
    fn object_of_parts<'de, A: MapAccess<'de>>(
        &mut self,
        parts: &[Part<'s>],
        redirects: usize,
        mut map: A,
    ) -> Result<(), A::Error> {
        let mut seen: Vec<Seen> = parts.iter().map(|_| Seen::default()).collect();
        let mut n_required = vec![0_usize; parts.len()];
        let mut others_seen = MemberNames::default();
        let mut count = 0_u64;
        let mut nodes = Vec::new();
        let mut part_nodes = Vec::new();
        while let Some(name) = map.next_key_seed(Name)? {
            if name.starts_with(PRIVATE_PREFIX) {
                return Err(self.stop());
            }
            count += 1;
            nodes.clear();
            let mut in_table = false;
            for (at, part) in parts.iter().enumerate() {
                let Some(object) = &part.container.object else {
                    continue;
                };
                let slot = object.find(&name);
                if let Some(slot) = slot {
                    in_table = true;
                    let fresh = seen
                        .get_mut(at)
                        .is_some_and(|seen| seen.note(slot, object.names.len()));
                    if !fresh {
                        // A repeated name: a `Value` keeps the last.
                        return Err(self.stop());
                    }
                    if let Some(n) = n_required.get_mut(at) {
                        *n += usize::from(object.names.get(slot).is_some_and(|planned| planned.required));
                    }
                }
                part_nodes.clear();
                match object.member_nodes(slot, &name, &mut part_nodes) {
                    Member::Budget => return Err(self.stop()),
                    Member::Rejected => {
                        self.enter(part)?;
                        self.reject_other(part.id, &name);
                        self.leave(part);
                    }
                    Member::Checked => nodes.extend(part_nodes.iter().map(|node| (at, *node))),
                }
            }
            if !in_table && !others_seen.insert(&name) {
                return Err(self.stop());
            }
            if nodes.is_empty() {
                map.next_value_seed(strict())?;
            } else {
                self.value_of_parts(parts, &nodes, At::Key(&name), &mut Values(&mut map))?;
            }
        }
        for (at, part) in parts.iter().enumerate() {
            if let Some(object) = &part.container.object
                && n_required.get(at).copied().unwrap_or(0) < object.n_required
                && let Some(seen) = seen.get(at)
            {
                self.enter(part)?;
                self.record_missing(part.id, object, seen);
                self.leave(part);
            }
            if count < part.container.min_properties || count > part.container.max_properties {
                let proxy: Map<String, Value> =
                    (0..count).map(|idx| (idx.to_string(), Value::Null)).collect();
                self.enter(part)?;
                self.record_keywords(part.id, &Value::Object(proxy), OwnCheck::PropertyCounts);
                self.leave(part);
            }
        }
        for _ in 0..redirects {
            self.pop();
        }
        Ok(())
    }

    /// A container read whole (repeated names refused: a repeat, or a serde_json token, ends the pass), then
    /// checked at node `id` as a scalar is.
    fn captured<E: de::Error>(
        &mut self,
        id: NodeId,
        read: impl FnOnce(StrictValue<'_>) -> Result<Value, E>,
    ) -> Result<(), E> {
        let declined = std::cell::Cell::new(false);
        let value = read(StrictValue { declined: &declined })
            .map_err(|err| if declined.get() { self.stop() } else { err })?;
        self.whole(id, &value);
        Ok(())
    }
}

/// An item's or a member's instance step.
#[derive(Clone, Copy)]
enum At<'n> {
    Index(usize),
    Key(&'n str),
}

/// Where the next value comes from: an array's next item, or the value of the member whose name was just read.
trait Next<'de> {
    type Error: de::Error;
    fn next<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error>;
}

/// An array's items.
struct Items<'a, A>(&'a mut A);

impl<'de, A: SeqAccess<'de>> Next<'de> for Items<'_, A> {
    type Error = A::Error;
    fn next<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(seed)
    }
}

/// An object's member values.
struct Values<'a, A>(&'a mut A);

impl<'de, A: MapAccess<'de>> Next<'de> for Values<'_, A> {
    type Error = A::Error;
    fn next<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_value_seed(seed).map(Some)
    }
}

/// Whether `items: false` (or `additionalItems: false`) is in `container`: it reports each item at the array,
/// through the value.
fn rejects_items(schema: &CompiledSchema, container: &Container) -> bool {
    container.items.is_some_and(|items| {
        matches!(
            schema.nodes.get(items as usize).map(|node| &node.body),
            Some(Body::Bool(false))
        )
    })
}

/// A walk that only reads (what no node constrains), as a `Value` parse reads it; a repeat is an error (the pass
/// then ends without an answer).
fn strict() -> Walk {
    Walk::new().refusing_repeats().declining_tokens()
}

/// One value at its node.
struct Val<'c, 's> {
    c: &'c mut Collector<'s>,
    node: NodeId,
}

impl<'de> DeserializeSeed<'de> for Val<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let Val { c, node } = self;
        deserializer.deserialize_any(Val { c: &mut *c, node })?;
        if c.decided {
            // The first violation is found: the rest is not read.
            return Err(de::Error::custom(
                "oa-schema: the collecting pass has its first violation",
            ));
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for Val<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.c.whole(self.node, &Value::Bool(v));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.c.number(self.node, v.into());
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.c.number(self.node, v.into());
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        // As a `Value` parse holds it (JSON text has no infinities or NaN).
        match serde_json::Number::from_f64(v) {
            Some(number) => self.c.number(self.node, number),
            None => self.c.whole(self.node, &Value::Null),
        }
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.c.string(self.node, v);
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.c.whole(self.node, &Value::Null);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.c.array(self.node, seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.c.object(self.node, map)
    }
}

#[cfg(test)]
mod tests;
