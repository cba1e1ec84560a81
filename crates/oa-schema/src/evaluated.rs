//! What a successful evaluation covered of an object or array, for `unevaluatedProperties` and `unevaluatedItems`.
//!
//! Only collected when some enclosing schema has an `unevaluated*` keyword; empty sets do not allocate.

use std::collections::HashSet;

/// Properties and items evaluated by a schema and its in-place applicators.
#[derive(Debug, Default)]
pub(crate) struct Evaluated<'v> {
    /// Every property was evaluated (`additionalProperties`, `unevaluatedProperties`).
    pub(crate) all_properties: bool,
    /// Names evaluated by `properties`, `patternProperties` and the like.
    pub(crate) properties: HashSet<&'v str>,
    /// Every item was evaluated (`items`, `unevaluatedItems`).
    pub(crate) all_items: bool,
    /// Items `0..prefix` were evaluated (`prefixItems`).
    pub(crate) prefix: usize,
    /// Further items evaluated one by one (`contains`).
    pub(crate) items: HashSet<usize>,
}

impl<'v> Evaluated<'v> {
    /// Adds what another successful evaluation covered.
    pub(crate) fn merge(&mut self, other: Evaluated<'v>) {
        self.all_properties |= other.all_properties;
        if !self.all_properties {
            self.properties.extend(other.properties);
        }
        self.all_items |= other.all_items;
        self.prefix = self.prefix.max(other.prefix);
        if !self.all_items {
            self.items.extend(other.items);
        }
    }

    /// Whether a property was evaluated.
    pub(crate) fn has_property(&self, name: &str) -> bool {
        self.all_properties || self.properties.contains(name)
    }

    /// Whether an item was evaluated.
    pub(crate) fn has_item(&self, item_idx: usize) -> bool {
        self.all_items || item_idx < self.prefix || self.items.contains(&item_idx)
    }
}
