//! `unevaluatedProperties` and `unevaluatedItems`: apply to what no sibling keyword or in-place applicator
//! evaluated successfully.

use super::{Keyword, apply_to_entries};
use crate::compile::NodeCompiler;
use crate::eval::{Evaluator, Frame, Step};
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
    let seen = evaluated.as_ref();
    let unevaluated = object
        .iter()
        .filter(|(key, _)| !seen.is_some_and(|seen| seen.has_property(key)))
        .map(|(key, value)| (Step::Key(key), value));
    let valid = apply_to_entries(
        ev,
        (id, ViolationKind::UnevaluatedProperties),
        node,
        frame,
        unevaluated,
    );
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
    let seen = evaluated.as_ref();
    let unevaluated = items
        .iter()
        .enumerate()
        .filter(|(item_idx, _)| !seen.is_some_and(|seen| seen.has_item(*item_idx)))
        .map(|(item_idx, item)| (Step::Index(item_idx), item));
    let valid = apply_to_entries(
        ev,
        (id, ViolationKind::UnevaluatedItems),
        node,
        frame,
        unevaluated,
    );
    if let Some(evaluated) = evaluated {
        evaluated.all_items = true;
    }
    valid
}
