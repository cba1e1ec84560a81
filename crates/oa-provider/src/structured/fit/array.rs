//! Arrays in each provider's dialect: `items` fitted; a tuple's `prefixItems` kept for Gemini and merged into one
//! `items` union for OpenAI and Anthropic (relaxed, and bounded by `maxItems` where the provider takes it); an array
//! with no item schema given one where the provider needs it.

use serde_json::{Map, Value, json};

use super::account::{Reason, RewriteKind};
use super::doc;
use super::error::FitError;
use super::fitter::Fitter;
use super::frame::Frame;
use crate::model::Mapping;

impl Fitter<'_> {
    /// Writes the frame's array keywords; false when no array can satisfy them in the provider's dialect.
    pub(crate) fn fit_array(
        &mut self,
        frame: &Frame,
        out: &mut Map<String, Value>,
        plan: usize,
    ) -> Result<bool, FitError> {
        let min_items = frame
            .simple
            .iter()
            .find(|(keyword, _, _)| keyword == "minItems")
            .and_then(|(_, value, _)| value.as_f64())
            .unwrap_or(0.0);
        let items_host = doc::child(&frame.host, "items");
        let rest = if frame.items.is_empty() {
            None
        } else {
            Some(self.fit_conjunction(&items_host, &frame.items)?)
        };
        let Some((prefix_at, len)) = &frame.prefix else {
            return match rest {
                Some(Some(node)) => {
                    self.plan.items(plan, node.plan);
                    out.insert("items".to_owned(), node.value);
                    Ok(true)
                }
                // No item is allowed: only the empty array.
                Some(None) => {
                    if min_items > 0.0 {
                        return Ok(false);
                    }
                    if self.mapping == Mapping::Anthropic {
                        // Anthropic takes no maxItems to say "empty": the items stay unconstrained-but-null
                        // (a recursion cut), and the caller's `items` is not enforced at this depth.
                        let holder = frame
                            .items
                            .first()
                            .and_then(|items| items.parent())
                            .unwrap_or_default();
                        self.unenforced(&holder, "items", Reason::Relaxed);
                        out.insert("items".to_owned(), json!({"type": "null"}));
                        return Ok(true);
                    }
                    if self.mapping == Mapping::OpenAi {
                        out.insert("items".to_owned(), json!({"type": "null"}));
                    }
                    insert_upper_bound(out, "maxItems", 0);
                    Ok(true)
                }
                None => {
                    if self.mapping != Mapping::Gemini {
                        let mut items = Map::new();
                        self.narrow_to_scalars(&items_host, &mut items)?;
                        out.insert("items".to_owned(), Value::Object(items));
                    }
                    Ok(true)
                }
            };
        };
        let mut positions = Vec::new();
        for idx in 0..*len {
            match self.fit_at(&doc::child_index(prefix_at, "prefixItems", idx))? {
                Some(node) => positions.push(node),
                None => {
                    // Nothing can stand at this position: the array ends before it.
                    if (idx as f64) < min_items {
                        return Ok(false);
                    }
                    insert_upper_bound(out, "maxItems", idx);
                    break;
                }
            }
        }
        let max_items = frame
            .simple
            .iter()
            .find(|(keyword, _, _)| keyword == "maxItems")
            .and_then(|(_, value, _)| value.as_f64());
        // No item past the prefix: a position nothing can fill, or `maxItems` at most the prefix's length.
        let bounded = positions.len() < *len || max_items.is_some_and(|max| max <= *len as f64);
        if self.mapping == Mapping::Gemini {
            let mut values = Vec::new();
            for (idx, node) in positions.into_iter().enumerate() {
                self.plan.prefix(plan, idx, node.plan);
                values.push(node.value);
            }
            out.insert("prefixItems".to_owned(), Value::Array(values));
            match rest {
                Some(Some(node)) => {
                    self.plan.items(plan, node.plan);
                    out.insert("items".to_owned(), node.value);
                }
                Some(None) if !bounded => insert_upper_bound(out, "maxItems", *len),
                _ => {}
            }
            return Ok(true);
        }
        // OpenAI, Anthropic: one item schema for every position (relaxed).
        self.unenforced(prefix_at, "prefixItems", Reason::Relaxed);
        let mut branches: Vec<Value> = Vec::new();
        for node in &positions {
            self.plan.items(plan, node.plan);
            if !branches.contains(&node.value) {
                branches.push(node.value.clone());
            }
        }
        match rest {
            Some(Some(node)) => {
                self.plan.items(plan, node.plan);
                if !branches.contains(&node.value) {
                    branches.push(node.value);
                }
            }
            Some(None) if !bounded => {
                if self.mapping == Mapping::OpenAi {
                    insert_upper_bound(out, "maxItems", *len);
                    self.rewrite(prefix_at, RewriteKind::TupleBounded);
                } else {
                    let holder = frame
                        .items
                        .first()
                        .and_then(|items| items.parent())
                        .unwrap_or_default();
                    self.unenforced(&holder, "items", Reason::DroppedRejected);
                }
            }
            Some(None) => {}
            None if !bounded => {
                let mut any = Map::new();
                self.narrow_to_scalars(&items_host, &mut any)?;
                branches.push(Value::Object(any));
            }
            None => {}
        }
        let items = match branches.len() {
            0 => json!({"type": "null"}),
            1 => branches.remove(0),
            _ => json!({"anyOf": branches}),
        };
        out.insert("items".to_owned(), items);
        Ok(true)
    }
}

/// Sets an upper bound, keeping a tighter one already there.
pub(crate) fn insert_upper_bound(out: &mut Map<String, Value>, keyword: &str, bound: usize) {
    let held = out.get(keyword).and_then(Value::as_f64);
    if held.is_none_or(|held| (bound as f64) < held) {
        out.insert(keyword.to_owned(), json!(bound));
    }
}
