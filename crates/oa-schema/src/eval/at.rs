//! Evaluations started inside the instance: the incremental route checks a value at a node the whole walk certainly
//! reaches, with the frames that walk builds on its way there (so paths, depth and dynamic scope are the same).

use super::{Evaluator, Frame, Step};
use crate::keywords::Keyword;
use crate::node::{NodeId, ResourceId};
use crate::violation::Violation;
use serde_json::Value;

/// One frame of the way to a node, outermost first: the instance step and keyword path segment taken, and the
/// resource of the node reached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reached<'a> {
    pub(crate) step: Option<Step<'a>>,
    pub(crate) schema_step: &'a str,
    pub(crate) resource: ResourceId,
    /// For [`Evaluator::within`]: the stamp of the caller's frame this one stands for, the count recorded when the
    /// first evaluation through it started, with [`STAMPED`] set (see `paths`). Not read elsewhere (`at` makes its
    /// frames afresh, `typed::collect_at` stamps its own).
    pub(crate) stamp: usize,
}

/// A way to a node as its holder keeps it, read frame by frame (outermost first) as the frames are built: the
/// collecting pass's way is read where it lies, not copied into a list per evaluation.
pub(crate) trait Way<'v> {
    /// How many frames.
    fn frames(&self) -> usize;
    /// The frame at `index`, if there is one.
    fn frame(&self, index: usize) -> Option<Reached<'v>>;
}

impl<'v> Way<'v> for &[Reached<'v>] {
    fn frames(&self) -> usize {
        self.len()
    }

    fn frame(&self, index: usize) -> Option<Reached<'v>> {
        self.get(index).copied()
    }
}

impl Evaluator<'_> {
    /// The violations of node `id` (the way's last frame) over `instance`, as the whole walk records them there, and
    /// whether the evaluation reached the depth limit (the whole walk stops there, so what it reports after is not
    /// known).
    pub(crate) fn node_at<'v>(
        &mut self,
        way: &[Reached<'v>],
        id: NodeId,
        instance: &'v Value,
    ) -> (Vec<Violation>, bool) {
        self.at(way, |ev, frame| {
            ev.node(id, instance, frame, None);
        })
    }

    /// As [`node_at`](Self::node_at), for one keyword of node `id` only.
    pub(crate) fn keyword_at<'v>(
        &mut self,
        way: &[Reached<'v>],
        id: NodeId,
        keyword: &Keyword,
        instance: &'v Value,
    ) -> (Vec<Violation>, bool) {
        let schema = self.schema;
        self.at(way, |ev, frame| {
            crate::keywords::evaluate(
                ev,
                keyword,
                &schema.nodes[id as usize],
                instance,
                frame,
                &mut None,
            );
        })
    }

    fn at<'v>(
        &mut self,
        way: &[Reached<'v>],
        check: impl FnOnce(&mut Self, &Frame<'_, 'v>),
    ) -> (Vec<Violation>, bool) {
        if way.is_empty() || way.len() > super::MAX_DEPTH as usize {
            return (Vec::new(), true);
        }
        let mut check = Some(check);
        nest(self, None, &way, 0, false, &mut |ev, frame| {
            if let Some(check) = check.take() {
                check(ev, frame);
            }
        });
        let mut found = std::mem::take(&mut self.violations);
        found.append(&mut self.unresolved_reached);
        if self.too_deep
            && !found.iter().any(|violation| violation.keyword().is_none())
            && let Some(violation) = self.first_too_deep.take()
        {
            found.push(violation);
        }
        (found, self.too_deep)
    }
}

/// Builds the frames of `way` from `index` on the stack, then runs `check` in the last (recursion as deep as the
/// way, which `at` and `within` bound by the depth limit). `stamped`: the frames are born with their way's stamps.
fn nest<'s, 'v, W: Way<'v>>(
    ev: &mut Evaluator<'s>,
    parent: Option<&Frame<'_, 'v>>,
    way: &W,
    index: usize,
    stamped: bool,
    check: &mut dyn FnMut(&mut Evaluator<'s>, &Frame<'_, 'v>),
) {
    let Some(first) = way.frame(index) else {
        return;
    };
    let frame = Frame {
        parent,
        step: first.step,
        schema_step: first.schema_step,
        resource: first.resource,
        depth: parent.map_or(0, |parent| parent.depth + 1),
        born: if stamped { first.stamp } else { ev.violations.len() },
    };
    if index + 1 >= way.frames() {
        check(ev, &frame);
    } else {
        nest(ev, Some(&frame), way, index + 1, stamped, check);
    }
}

/// One run's evaluations at many places of one text (the typed route's collecting pass): what each finds stays in
/// the run's report, so that the kept paths of one violation serve the next (see `paths`), and the run's buffers
/// are made once.
impl Evaluator<'_> {
    /// As [`node_at`](Self::node_at), keeping what it finds in the run; whether the depth limit was reached.
    pub(crate) fn node_within<'v>(&mut self, way: &impl Way<'v>, id: NodeId, instance: &'v Value) -> bool {
        self.within(way, |ev, frame| {
            ev.node(id, instance, frame, None);
        })
    }

    /// Runs `check` in the last frame of `way`, keeping what it records in the run; whether the depth limit was
    /// reached. The way's frames carry their stamps (see [`Reached::stamp`]): each a frame of the caller's that it
    /// keeps unchanged from its first stamped evaluation to its last, so that the paths one violation kept serve the
    /// next one's below the same frames.
    pub(crate) fn within<'v>(
        &mut self,
        way: &impl Way<'v>,
        check: impl FnOnce(&mut Self, &Frame<'_, 'v>),
    ) -> bool {
        if way.frames() == 0 || way.frames() > super::MAX_DEPTH as usize {
            self.too_deep = true;
            return true;
        }
        // Another place, another instance: what the memo knows of the last one's addresses does not hold here.
        self.memo.clear();
        self.memo_enabled = false;
        self.ref_hops = 0;
        let mut check = Some(check);
        nest(self, None, way, 0, true, &mut |ev, frame| {
            if let Some(check) = check.take() {
                check(ev, frame);
            }
        });
        self.too_deep
    }

    /// Everything the run's evaluations found (the unresolved references reached aside included).
    pub(crate) fn into_found(mut self) -> Vec<Violation> {
        let mut found = std::mem::take(&mut self.violations);
        found.append(&mut self.unresolved_reached);
        found
    }
}
