//! `prefixItems` and `items`: positional schemas, then one schema for the rest. Before 2020-12 the same pair is
//! written `items` (an array) and `additionalItems`, and compiles to the same keywords.

use super::{Keyword, is_false};
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Extra, Frame, Step};
use crate::evaluated::Evaluated;
use crate::node::{Node, NodeId};
use serde_json::{Map, Value};

pub(crate) fn compile_prefix_items(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Array(schemas) = value else {
        return Err(cx.invalid("prefixItems", "expected an array of schemas"));
    };
    let nodes = (0..schemas.len())
        .map(|idx| cx.child(&["prefixItems", &idx.to_string()]))
        .collect();
    Ok(Keyword::PrefixItems(nodes))
}

pub(crate) fn compile_items(
    cx: &mut NodeCompiler<'_, '_>,
    object: &Map<String, Value>,
) -> Result<Keyword, SchemaError> {
    let skip = match object.get("prefixItems") {
        Some(Value::Array(prefix)) => prefix.len(),
        _ => 0,
    };
    Ok(Keyword::Items {
        node: cx.child(&["items"]),
        skip,
        keyword: "items",
    })
}

/// `items` before 2020-12: an array applies position by position (as `prefixItems` does), a schema to every item.
pub(crate) fn compile_legacy_items(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Array(schemas) = value else {
        return Ok(Keyword::Items {
            node: cx.child(&["items"]),
            skip: 0,
            keyword: "items",
        });
    };
    let nodes = (0..schemas.len())
        .map(|idx| cx.child(&["items", &idx.to_string()]))
        .collect();
    Ok(Keyword::PrefixItems(nodes))
}

/// `additionalItems`: the items after those of an array-form `items`; without one it does nothing.
pub(crate) fn compile_additional_items(
    cx: &mut NodeCompiler<'_, '_>,
    object: &Map<String, Value>,
) -> Result<Option<Keyword>, SchemaError> {
    let Some(Value::Array(positional)) = object.get("items") else {
        return Ok(None);
    };
    Ok(Some(Keyword::Items {
        node: cx.child(&["additionalItems"]),
        skip: positional.len(),
        keyword: "additionalItems",
    }))
}

pub(crate) fn evaluate_prefix_items<'v>(
    ev: &mut Evaluator<'_>,
    nodes: &[NodeId],
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let schema = ev.schema;
    let mut valid = true;
    for (item_idx, (item, id)) in items.iter().zip(nodes).enumerate() {
        let relative = schema.nodes[*id as usize].relative();
        if !ev.descend(frame, *id, item, Some(Step::Index(item_idx)), relative, None) {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    if let Some(evaluated) = evaluated {
        evaluated.prefix = evaluated.prefix.max(nodes.len().min(items.len()));
    }
    valid
}

/// `items` (or `additionalItems`, as `keyword` says) over the items after the first `skip`.
pub(crate) fn evaluate_items<'v>(
    ev: &mut Evaluator<'_>,
    (id, skip, keyword): (NodeId, usize, &'static str),
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let schema = ev.schema;
    let target = &schema.nodes[id as usize];
    let relative = target.relative();
    let rejects_all = is_false(ev, id);
    let mut valid = true;
    for (item_idx, item) in items.iter().enumerate().skip(skip) {
        if ev.admits_in_place(frame, target, item) {
            continue;
        }
        let item_valid = if rejects_all {
            // An item rejected by `items: false` (or `additionalItems: false`) is reported at the item itself.
            let mut detail = Detail::parts(&["item is not allowed"]);
            detail.extra = Some(Extra::Index(item_idx));
            ev.fail(frame, node, keyword, detail)
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
