//! `not`: the instance must fail the subschema.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::eval::{Detail, Evaluator, Frame};
use crate::flag::Flag;
use crate::node::{Node, NodeId};
use crate::violation::ViolationKind;
use serde_json::Value;

pub(crate) fn compile(cx: &mut NodeCompiler<'_, '_>) -> Keyword {
    Keyword::Not(cx.child(&["not"]))
}

pub(crate) fn evaluate_not<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
) -> bool {
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    if !ev.probe(frame, id, instance, None, relative, None) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    let detail = Detail::parts(&["must not match the schema"]);
    ev.fail(frame, node, ViolationKind::Not, detail)
}

/// `not` in the yes/no evaluator.
impl Flag<'_> {
    /// `not`.
    #[inline(never)]
    pub(crate) fn not(&mut self, id: NodeId, instance: &Value, depth: u32) -> bool {
        !self.child(id, instance, depth)
    }
}
