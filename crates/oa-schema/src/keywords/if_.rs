//! `if`/`then`/`else`: the condition's own failures are discarded; its annotations count when it holds.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Evaluator, Frame};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::node::NodeId;
use serde_json::{Map, Value};

pub(crate) fn compile(
    cx: &mut NodeCompiler<'_, '_>,
    object: &Map<String, Value>,
) -> Result<Keyword, SchemaError> {
    let then = object.contains_key("then").then(|| cx.child(&["then"]));
    let else_ = object.contains_key("else").then(|| cx.child(&["else"]));
    Ok(Keyword::If {
        if_: cx.child(&["if"]),
        then,
        else_,
    })
}

pub(crate) fn evaluate<'v>(
    ev: &mut Evaluator<'_>,
    if_: NodeId,
    then: Option<NodeId>,
    else_: Option<NodeId>,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let schema = ev.schema;
    let mut condition = evaluated.is_some().then(Evaluated::default);
    let holds = ev.probe(
        frame,
        if_,
        instance,
        None,
        schema.nodes[if_ as usize].relative(),
        condition.as_mut(),
    );
    if holds && let (Some(evaluated), Some(condition)) = (evaluated.as_mut(), condition) {
        evaluated.merge(condition);
    }
    let branch = if holds { then } else { else_ };
    match branch {
        Some(id) => ev.descend(
            frame,
            id,
            instance,
            None,
            schema.nodes[id as usize].relative(),
            evaluated.as_mut(),
        ),
        None => true,
    }
}

/// `if` in the yes/no evaluator.
impl Flag<'_> {
    #[inline(never)]
    pub(crate) fn if_(
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
}
