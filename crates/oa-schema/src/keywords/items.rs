//! `prefixItems` and `items`: positional schemas, then one schema for the rest. Before 2020-12 the same pair is
//! written `items` (an array) and `additionalItems`, and compiles to the same keywords.

use super::{Keyword, is_false};
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::MAX_DEPTH;
use crate::eval::{Detail, Evaluator, Extra, Frame, Step};
use crate::evaluated::Evaluated;
use crate::flag::Flag;
use crate::flag::plan::Check;
use crate::flag::plan::{Kinds, kind_of};
use crate::node::Body;
use crate::node::{Node, NodeId};
use crate::violation::ViolationKind;
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
        kind: ViolationKind::Items,
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
            kind: ViolationKind::Items,
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
        kind: ViolationKind::AdditionalItems,
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
        let part_valid = ev.descend(frame, *id, item, Some(Step::Index(item_idx)), relative, None);
        fail_part!(ev, valid, part_valid);
    }
    if let Some(evaluated) = evaluated {
        evaluated.prefix = evaluated.prefix.max(nodes.len().min(items.len()));
    }
    valid
}

/// `items` (or `additionalItems`, as `kind` says) over the items after the first `skip`.
pub(crate) fn evaluate_items<'v>(
    ev: &mut Evaluator<'_>,
    (id, skip, kind): (NodeId, usize, ViolationKind),
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
            ev.fail(frame, node, kind, detail)
        } else {
            ev.descend(frame, id, item, Some(Step::Index(item_idx)), relative, None)
        };
        fail_part!(ev, valid, item_valid);
    }
    if let Some(evaluated) = evaluated {
        evaluated.all_items = true;
    }
    valid
}

/// An `items` schema that only checks arrays of one item type (see [`Check::ItemsOfArrays`]).
#[derive(Debug, Clone)]
pub(crate) struct ArraysOf {
    /// The `items` schema, for the evaluation near the depth limit.
    pub(crate) node: NodeId,
    /// The leading items `items` skips (those of `prefixItems`).
    pub(crate) skip: u32,
    /// The item schema's `type` (every type when it has none).
    pub(crate) types: Kinds,
    /// Its `minItems` and `maxItems` (0 and `u64::MAX` when absent).
    pub(crate) min: u64,
    pub(crate) max: u64,
    /// Its `items`' type, and the leading items that `items` skips.
    pub(crate) inner: Kinds,
    pub(crate) inner_skip: u32,
}

impl ArraysOf {
    /// Whether one item holds (its own items' depth is within the limit).
    #[inline]
    pub(crate) fn holds(&self, item: &Value) -> bool {
        if !self.types.admits(kind_of(item), item) {
            return false;
        }
        let Value::Array(inner) = item else {
            return true;
        };
        let len = inner.len() as u64;
        len >= self.min && len <= self.max && self.inner.admit_all(inner, self.inner_skip)
    }

    /// The form of the `items` schema `item`, if it is one.
    pub(crate) fn of(node: NodeId, skip: u32, item: &Node, nodes: &[Node]) -> Option<Box<Self>> {
        let Body::Keywords(keywords) = &item.body else {
            return None;
        };
        if item.tracks_evaluated {
            return None;
        }
        let mut of = Self {
            node,
            skip,
            types: Kinds::of(crate::flag::plan::all_types()),
            min: 0,
            max: u64::MAX,
            inner: Kinds::of(crate::flag::plan::all_types()),
            inner_skip: 0,
        };
        let mut has_items = false;
        for keyword in keywords {
            match keyword {
                Keyword::Type(types) => of.types = Kinds::of(*types),
                Keyword::MinItems(min) => of.min = *min,
                Keyword::MaxItems(max) => of.max = *max,
                Keyword::Items { node, skip, .. } => {
                    of.inner = Kinds::of(nodes.get(*node as usize)?.only_type?);
                    of.inner_skip = u32::try_from(*skip).ok()?;
                    has_items = true;
                }
                _ => return None,
            }
        }
        has_items.then_some(Box::new(of))
    }
}

/// `prefixItems` and `items` in the yes/no evaluator.
impl Flag<'_> {
    /// `items` that is only a `type`: one tight loop (`{"type": "number"}` in coordinate arrays).
    #[inline(never)]
    pub(crate) fn items_of_type(
        &mut self,
        types: crate::flag::plan::Kinds,
        skip: u32,
        instance: &Value,
        depth: u32,
    ) -> bool {
        match instance {
            Value::Array(items) if depth < MAX_DEPTH => types.admit_all(items, skip),
            // At the depth limit every item fails, as a descent would, and fails the run.
            Value::Array(items) => {
                let within = items.len() <= skip as usize;
                self.too_deep |= !within;
                within
            }
            _ => true,
        }
    }

    #[inline(never)]
    pub(crate) fn prefix_items(&mut self, ids: &[NodeId], instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        items
            .iter()
            .zip(ids)
            .all(|(item, id)| self.child(*id, item, depth))
    }

    #[inline(never)]
    pub(crate) fn items(&mut self, id: NodeId, skip: usize, instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        items.iter().skip(skip).all(|item| self.child(id, item, depth))
    }

    /// `items` whose schema is only a `$ref` to `target`: what [`Self::items`] does through the item node (its
    /// depth test, then the hop), without that node's dispatch and call per item.
    #[inline(never)]
    pub(crate) fn items_ref(&mut self, target: NodeId, skip: usize, instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        let mut items = items.iter().skip(skip);
        if depth + 1 > MAX_DEPTH {
            // The item node past the limit: the run fails there, as `Flag::node` decides it.
            if items.next().is_some() {
                self.too_deep = true;
                return false;
            }
            return true;
        }
        items.all(|item| self.follow(target, item, depth + 1))
    }

    /// `items` whose schema is an array of items of one type: the items and their items in one loop, as the
    /// descent would answer while both levels are within the depth limit (else the descent runs).
    #[inline(never)]
    pub(crate) fn items_of_arrays(&mut self, of: &ArraysOf, instance: &Value, depth: u32) -> bool {
        let Value::Array(items) = instance else {
            return true;
        };
        if depth + 1 >= MAX_DEPTH {
            return self.items(of.node, of.skip as usize, instance, depth);
        }
        items.iter().skip(of.skip as usize).all(|item| of.holds(item))
    }
}

/// `items`' check in the yes/no evaluator's plan (`skip` leading items are `prefixItems`'): one loop when its
/// schema is only a `type` or an array of items of one type, else a descent per item.
pub(crate) fn plan(node: NodeId, skip: usize, nodes: &[Node]) -> Check {
    let skip = u32::try_from(skip).unwrap_or(u32::MAX);
    let item = nodes.get(node as usize);
    match item.and_then(|item| item.only_type) {
        Some(types) => Check::ItemsOfType {
            types: Kinds::of(types),
            skip,
        },
        None => match item.and_then(|item| ArraysOf::of(node, skip, item, nodes)) {
            Some(of) => Check::ItemsOfArrays(of),
            None => match item.map(|item| (&item.body, item.tracks_evaluated)) {
                Some((Body::Keywords(keywords), false)) if matches!(**keywords, [Keyword::Ref(_)]) => {
                    match **keywords {
                        [Keyword::Ref(target)] => Check::ItemsRef { target, skip },
                        _ => Check::Items { node, skip },
                    }
                }
                _ => Check::Items { node, skip },
            },
        },
    }
}
