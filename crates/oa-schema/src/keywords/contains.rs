//! `contains` with `minContains`/`maxContains`: counts matching items; one violation at the keyword when the count
//! is out of range, and the subschema's own failures are discarded.

use super::{Keyword, count};
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame, Step, push_count};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::node::{Node, NodeId};
use crate::violation::ViolationKind;
use serde_json::{Map, Value};

/// Compiles `contains`; `counted` reads `minContains`/`maxContains` (2019-09 on), `annotates` makes its matches
/// evaluated items for `unevaluatedItems` (2020-12).
pub(crate) fn compile(
    cx: &mut NodeCompiler<'_, '_>,
    object: &Map<String, Value>,
    counted: bool,
    annotates: bool,
) -> Result<Keyword, SchemaError> {
    let (min, min_explicit) = match object.get("minContains").filter(|_| counted) {
        Some(value) => (count(cx, "minContains", value)?, true),
        None => (1, false),
    };
    let max = object
        .get("maxContains")
        .filter(|_| counted)
        .map(|value| count(cx, "maxContains", value))
        .transpose()?;
    Ok(Keyword::Contains {
        node: cx.child(&["contains"]),
        min,
        max,
        min_explicit,
        annotates,
    })
}

/// `contains` with its counts (`min`, `max`, whether `min` was written); matched items are recorded in
/// `evaluated` when it is given.
pub(crate) fn evaluate<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    (min, max, min_explicit): (u64, Option<u64>, bool),
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    mut evaluated: Option<&mut Evaluated<'v>>,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    let mut matched: u64 = 0;
    for (item_idx, item) in items.iter().enumerate() {
        if ev.probe(frame, id, item, Some(Step::Index(item_idx)), relative, None) {
            matched += 1;
            if let Some(evaluated) = evaluated.as_mut() {
                evaluated.items.insert(item_idx);
            }
            // Without a maximum or annotations to collect, reaching the minimum settles it.
            if max.is_none() && evaluated.is_none() && matched >= min {
                return true;
            }
        }
    }
    if matched < min {
        if !ev.collect {
            return false;
        }
        let (keyword, message) = if min_explicit {
            let mut message = ev.message_of(&["must contain at least "]);
            push_count(&mut message, min);
            message.push_str(if min == 1 {
                " matching item, found "
            } else {
                " matching items, found "
            });
            push_count(&mut message, matched);
            (ViolationKind::MinContains, message)
        } else {
            let message = ev.message_of(&["must contain at least one matching item"]);
            (ViolationKind::Contains, message)
        };
        return ev.fail(frame, node, keyword, Detail::message(message));
    }
    if let Some(max) = max.filter(|max| matched > *max) {
        if !ev.collect {
            return false;
        }
        let mut message = ev.message_of(&["must contain at most "]);
        push_count(&mut message, max);
        message.push_str(if max == 1 {
            " matching item, found "
        } else {
            " matching items, found "
        });
        push_count(&mut message, matched);
        return ev.fail(frame, node, ViolationKind::MaxContains, Detail::message(message));
    }
    true
}

/// `contains` in the yes/no evaluator.
impl Flag<'_> {
    #[inline(never)]
    pub(crate) fn contains(
        &mut self,
        id: NodeId,
        min: u64,
        max: Option<u64>,
        instance: &Value,
        depth: u32,
    ) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        let mut matched: u64 = 0;
        for item in items {
            if self.child(id, item, depth) {
                matched += 1;
                if max.is_none() && matched >= min {
                    return true;
                }
            }
        }
        matched >= min && max.is_none_or(|max| matched <= max)
    }
}
