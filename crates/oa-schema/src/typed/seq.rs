//! Arrays: each item checked at `items`' node, the count against `minItems`/`maxItems`.

use super::value::Checked;
use super::{FallbackReason, Run};
use crate::node::NodeId;
use serde::de::{DeserializeSeed, Deserializer, SeqAccess};

/// A sequence whose items are checked by `items`.
pub(super) struct CheckedSeq<'r, 's, A> {
    pub(super) inner: A,
    pub(super) run: &'r Run<'s>,
    /// `None` outside: anything goes; `Some(None)`: a plan without `items`.
    pub(super) items: Option<Option<NodeId>>,
    pub(super) max: u64,
    pub(super) depth: u32,
    pub(super) count: u64,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<'_, '_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        let seed = CheckedSeed {
            seed,
            run: self.run,
            node: self.items.flatten(),
            depth: self.depth,
        };
        let element = self.inner.next_element_seed(seed)?;
        if element.is_some() {
            self.count += 1;
            if self.count > self.max {
                return Err(self.run.stop(FallbackReason::Invalid));
            }
        }
        Ok(element)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A seed whose value is read through a [`Checked`] deserializer.
pub(super) struct CheckedSeed<'r, 's, T> {
    pub(super) seed: T,
    pub(super) run: &'r Run<'s>,
    pub(super) node: Option<NodeId>,
    pub(super) depth: u32,
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for CheckedSeed<'_, '_, T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T::Value, D::Error> {
        if self.depth > crate::eval::MAX_DEPTH {
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        self.seed.deserialize(Checked {
            inner: deserializer,
            run: self.run,
            node: self.node,
            depth: self.depth,
        })
    }
}
