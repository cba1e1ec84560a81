//! `unevaluatedProperties` and `unevaluatedItems`: apply to what no sibling keyword or in-place applicator
//! evaluated successfully.

use super::Keyword;
use super::is_false;
use super::properties::rejected;
use crate::compile::NodeCompiler;
use crate::eval::{Detail, Evaluator, Extra, Frame, Step};
use crate::evaluated::Evaluated;
use crate::node::{Node, NodeId};
use crate::violation::ViolationKind;
use serde_json::Value;

pub(crate) fn compile_properties(cx: &mut NodeCompiler<'_, '_>) -> Keyword {
    Keyword::UnevaluatedProperties(cx.child(&["unevaluatedProperties"]))
}

pub(crate) fn compile_items(cx: &mut NodeCompiler<'_, '_>) -> Keyword {
    Keyword::UnevaluatedItems(cx.child(&["unevaluatedItems"]))
}

pub(crate) fn evaluate_properties<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    let rejects_all = is_false(ev, id);
    let mut valid = true;
    for (key, value) in object {
        if evaluated
            .as_ref()
            .is_some_and(|evaluated| evaluated.has_property(key))
        {
            continue;
        }
        let item_valid = if rejects_all {
            rejected(ev, ViolationKind::UnevaluatedProperties, key, node, frame)
        } else {
            ev.descend(frame, id, value, Some(Step::Key(key)), relative, None)
        };
        if !item_valid {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    if let Some(evaluated) = evaluated {
        evaluated.all_properties = true;
    }
    valid
}

pub(crate) fn evaluate_items<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    let rejects_all = is_false(ev, id);
    let mut valid = true;
    for (item_idx, item) in items.iter().enumerate() {
        if evaluated
            .as_ref()
            .is_some_and(|evaluated| evaluated.has_item(item_idx))
        {
            continue;
        }
        let item_valid = if rejects_all {
            let mut detail = Detail::parts(&["item is not allowed"]);
            detail.extra = Some(Extra::Index(item_idx));
            ev.fail(frame, node, ViolationKind::UnevaluatedItems, detail)
        } else {
            ev.descend(frame, id, item, Some(Step::Index(item_idx)), relative, None)
        };
        if !item_valid {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    if let Some(evaluated) = evaluated {
        evaluated.all_items = true;
    }
    valid
}
