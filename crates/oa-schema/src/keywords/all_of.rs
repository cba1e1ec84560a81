//! `allOf`: every subschema must hold; and its plan for the yes/no evaluator, a chain of `if`/`then` clauses keyed
//! by one property's `const` looked up once.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Evaluator, Frame, MAX_DEPTH};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::flag::plan::Check;
use crate::node::{Body, Node, NodeId};
use serde_json::Value;
use std::sync::Arc;

pub(crate) fn compile(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    super::schema_list(cx, "allOf", value).map(Keyword::AllOf)
}

pub(crate) fn evaluate_all_of<'v>(
    ev: &mut Evaluator<'_>,
    nodes: &[NodeId],
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let schema = ev.schema;
    let mut valid = true;
    for id in nodes {
        let relative = schema.nodes[*id as usize].relative();
        let part_valid = ev.descend(frame, *id, instance, None, relative, evaluated.as_mut());
        fail_part!(ev, valid, part_valid);
    }
    valid
}

/// An `allOf` most of whose members are `{"if": {"properties": {P: {"const": "…"}}}, "then": …}` on one property
/// P, as large schemas switch on a `type` tag (SchemaStore's cloudify has 125 such clauses): rather than evaluate
/// every `if`, the instance's P is looked up once and only the `then`s whose string it is apply. Such an `if` holds
/// for an object without P and for a non-object, so then every `then` applies.
#[derive(Debug)]
pub(crate) struct IfChain {
    /// The `allOf` keyword's index in its node, run as compiled near the depth limit.
    pub(crate) index: u16,
    /// P.
    pub(crate) property: Box<str>,
    /// The clauses' `then`s by the string their `if` pins, in member order.
    pub(crate) by_tag: foldhash::HashMap<Box<str>, Box<[NodeId]>>,
    /// Every clause's `then`.
    pub(crate) every_then: Box<[NodeId]>,
    /// The other members, applied as `allOf` applies them.
    pub(crate) others: Box<[NodeId]>,
}

impl IfChain {
    /// The fewest clauses worth a chain.
    const MIN_CLAUSES: usize = 3;

    /// The chain of an `allOf` (keyword `index`) over `members`, if enough of them are clauses on one property.
    pub(crate) fn of(index: u16, members: &[NodeId], nodes: &[Node]) -> Option<Arc<Self>> {
        let clauses: Vec<Option<(&str, &str, NodeId)>> =
            members.iter().map(|member| clause(*member, nodes)).collect();
        let (property, _, _) = clauses.iter().flatten().next()?;
        let mut by_tag: foldhash::HashMap<Box<str>, Vec<NodeId>> = foldhash::HashMap::default();
        let mut every_then = Vec::new();
        let mut others = Vec::new();
        for (member, clause) in members.iter().zip(&clauses) {
            match clause {
                Some((name, tag, then)) if name == property => {
                    by_tag.entry((*tag).into()).or_default().push(*then);
                    every_then.push(*then);
                }
                _ => others.push(*member),
            }
        }
        (every_then.len() >= Self::MIN_CLAUSES).then(|| {
            Arc::new(Self {
                index,
                property: (*property).into(),
                by_tag: by_tag
                    .into_iter()
                    .map(|(tag, thens)| (tag, thens.into_boxed_slice()))
                    .collect(),
                every_then: every_then.into_boxed_slice(),
                others: others.into_boxed_slice(),
            })
        })
    }
}

/// A member that is exactly `{"if": {"properties": {P: {"const": "…"}}}, "then": …}`: P, the string, the `then`.
fn clause(member: NodeId, nodes: &[Node]) -> Option<(&str, &str, NodeId)> {
    let keywords = |id: NodeId| match &nodes.get(id as usize)?.body {
        Body::Keywords(keywords) => Some(&**keywords),
        Body::Bool(_) => None,
    };
    let [
        Keyword::If {
            if_,
            then: Some(then),
            else_: None,
        },
    ] = keywords(member)?
    else {
        return None;
    };
    let [Keyword::Properties { entries, .. }] = keywords(*if_)? else {
        return None;
    };
    let [(property, pinned)] = &**entries else {
        return None;
    };
    let [Keyword::Const(Value::String(tag))] = keywords(*pinned)? else {
        return None;
    };
    Some((property, tag, *then))
}

/// `allOf` in the yes/no evaluator.
impl Flag<'_> {
    #[inline(never)]
    pub(crate) fn all_of(&mut self, ids: &[NodeId], instance: &Value, depth: u32) -> bool {
        ids.iter().all(|id| self.child(*id, instance, depth))
    }

    /// An `allOf` of `if`/`then` clauses on one property (see [`IfChain`]). A clause's `then` sits two
    /// levels below this node and its `if`'s `const` three: near the depth limit the `allOf` runs as compiled, so
    /// that the limit is met where the descent would meet it.
    #[inline(never)]
    pub(crate) fn if_chain(&mut self, chain: &IfChain, id: NodeId, instance: &Value, depth: u32) -> bool {
        if depth + 3 >= MAX_DEPTH {
            return self.keyword_at(id, chain.index, instance, depth);
        }
        let thens: &[NodeId] = match instance {
            Value::Object(object) => match object.get(&*chain.property) {
                None => &chain.every_then,
                Some(Value::String(tag)) => chain.by_tag.get(tag.as_str()).map_or(&[], |thens| thens),
                // No clause pins a value of another type: every `if` fails, and no clause has an `else`.
                Some(_) => &[],
            },
            _ => &chain.every_then,
        };
        thens.iter().all(|then| self.node(*then, instance, depth + 2))
            && chain
                .others
                .iter()
                .all(|other| self.child(*other, instance, depth))
    }
}

/// `allOf`'s check in the yes/no evaluator's plan (keyword `index`): a chain of `if`/`then` clauses on one
/// property; `None` for the walk as compiled.
pub(crate) fn plan(index: u16, members: &[NodeId], nodes: &[Node]) -> Option<Check> {
    IfChain::of(index, members, nodes).map(Check::IfChain)
}
