//! `anyOf` and `oneOf` without a discriminator, their members sorted by the kinds of instance their own `type`
//! may admit: the yes/no evaluator tries only those, without the walk over the others or the keyword's dispatch.
//!
//! `oneOf: [{"type": "string"}, {"type": "array", ...}, {"type": "null"}]` is a common way to say "one of these
//! forms"; walking it tested every member's type in turn. The members tried, their order, and the points where
//! the run starts memoizing are those of the walk (`Flag::any_of`, `Flag::one_of`), so verdicts do not change.

use super::Flag;
use crate::flag::plan::{KIND_TYPES, NUMBER_KIND, kind_of};
use crate::node::{Node, NodeId};
use crate::types::JsonType;
use serde_json::Value;
use std::sync::Arc;

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

impl Flag<'_> {
    /// A union laid out by kind: as `any_of` and `one_of` answer it, trying only the members that may admit the
    /// instance's kind.
    #[inline(never)]
    pub(super) fn union_by_kind(&mut self, union: &ByKind, instance: &Value, depth: u32) -> bool {
        let schema = self.schema;
        let candidates = union.candidates(kind_of(instance));
        let rejects = |id: NodeId| {
            schema
                .nodes
                .get(id as usize)
                .is_none_or(|member| crate::keywords::applicators::rejects_by_type(member, instance))
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
