//! One value at its node: the wrapped deserializer ([`Checked`]) and visitor ([`Checking`]) that check what serde_json
//! shows before the target sees it; numbers read as the target asked ([`Numeric`]); unit variants read from strings;
//! and the accesses of arrays ([`CheckedSeq`], items at `items`' node, counted) and objects ([`CheckedMap`], each
//! member noted in its [`MapState`]), whose elements are again [`Checked`] values. The wrappers call each other as
//! serde's visitors do, so they live together; what they note (members, digits) is in `members.rs` and `number.rs`.

use super::members::{Digits, KeySeed, MapState, Mode, Seen};
use super::number::{IsNumberToken, NumberHint, OwnedDigits, by_hint};
use super::plan::Container;
use super::{ARRAY_KIND, FallbackReason, OBJECT_KIND, Plans, Run};
use crate::node::NodeId;
use crate::strict::{MemberNames, PRIVATE_PREFIX, StrictValue, numbers_keep_digits};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// The wrapped deserializer of one value, at its node.
pub(super) struct Checked<'r, 's, D> {
    pub(super) inner: D,
    pub(super) run: &'r Run<'s>,
    /// The node for this position; `None` when nothing constrains it (under `additionalProperties: true`).
    pub(super) node: Option<NodeId>,
    /// Containers and redirects above it, for the evaluator's depth limit.
    pub(super) depth: u32,
}

impl<'r, 's, D> Checked<'r, 's, D> {
    fn visitor<V>(&self, visitor: V) -> Checking<'r, 's, V> {
        Checking {
            visitor,
            run: self.run,
            node: self.node,
            depth: self.depth,
        }
    }
}

macro_rules! numeric_hints {
    ($($method:ident => $hint:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            // Read as the target asked: serde_json then visits an integer of 64 bits as it is and any other number
            // as its `f64`, without writing its digits out (which `deserialize_any` does, into a new string, under
            // `arbitrary_precision`). The target gets what it would from the parsed value.
            let numeric = Numeric { checking: self.visitor(visitor), hint: NumberHint::$hint };
            self.inner.$method(numeric)
        })*
    };
}

macro_rules! numeric_digits {
    ($($method:ident => $hint:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            // Read with `deserialize_any`, which shows a number's exact digits when it is not an integer of 64
            // bits; the target then gets it as `T` from the parsed value would.
            let numeric = Numeric { checking: self.visitor(visitor), hint: NumberHint::$hint };
            self.inner.deserialize_any(numeric)
        })*
    };
}

macro_rules! forwarded {
    ($($method:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            let checking = self.visitor(visitor);
            self.inner.$method(checking)
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, '_, D> {
    type Error = D::Error;

    numeric_hints!(deserialize_i8 => I8, deserialize_i16 => I16, deserialize_i32 => I32, deserialize_i64 => I64,
        deserialize_u8 => U8, deserialize_u16 => U16, deserialize_u32 => U32, deserialize_u64 => U64);

    /// A float is read without its digits where its rounded value settles the node's checks (bounds, but for a
    /// tie); under any other numeric keyword (`multipleOf`, `enum`, an integer-only `type`...) through its digits,
    /// checked exactly.
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let rounded = self.run.reads_floats_rounded(self.node, self.depth);
        let numeric = Numeric {
            checking: self.visitor(visitor),
            hint: NumberHint::F64,
        };
        if rounded {
            self.inner.deserialize_f64(numeric)
        } else {
            self.inner.deserialize_any(numeric)
        }
    }

    // serde_json reads these its own way (`f32` straight to single precision, 128-bit integers past `u64`): the
    // digits, as the parsed value holds them.
    numeric_digits!(deserialize_i128 => I128, deserialize_u128 => U128, deserialize_f32 => F32);

    forwarded!(
        deserialize_any,
        deserialize_bool,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_option
    );

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, D::Error> {
        // serde_json reads escapes differently for bytes (lone surrogates pass): not followed.
        Err(self.run.stop(FallbackReason::Undecided))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, D::Error> {
        Err(self.run.stop(FallbackReason::Undecided))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        // serde_json would skip the value unread; it is read (and checked) instead, then discarded by `visitor`.
        let checking = self.visitor(visitor);
        self.inner.deserialize_any(checking)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let checking = self.visitor(visitor);
        self.inner.deserialize_unit_struct(name, checking)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        if name.starts_with(PRIVATE_PREFIX) {
            // A `RawValue` takes its text unread.
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        let checking = self.visitor(visitor);
        self.inner.deserialize_newtype_struct(name, checking)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        let checking = self.visitor(visitor);
        self.inner.deserialize_tuple(len, checking)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let checking = self.visitor(visitor);
        self.inner.deserialize_tuple_struct(name, len, checking)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let checking = self.visitor(visitor);
        self.inner.deserialize_struct(name, fields, checking)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // Unit variants (a string) only: the string is checked, then given to the target as its variant.
        let unit = UnitVariant {
            checking: self.visitor(visitor),
        };
        self.inner.deserialize_any(unit)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The wrapped visitor: checks what the deserializer shows, then hands it on.
pub(super) struct Checking<'r, 's, V> {
    pub(super) visitor: V,
    pub(super) run: &'r Run<'s>,
    pub(super) node: Option<NodeId>,
    pub(super) depth: u32,
}

impl<'r, 's, V> Checking<'r, 's, V> {
    fn at<D>(&self, inner: D) -> Checked<'r, 's, D> {
        Checked {
            inner,
            run: self.run,
            node: self.node,
            depth: self.depth,
        }
    }
}

impl<'de, V: Visitor<'de>> Checking<'_, '_, V> {
    /// A container whose node has no plan: read whole (`read`) into a value, checked at the node by the yes/no
    /// evaluator, and given to the target from the value, as the full route gives it.
    fn capture<E: de::Error>(
        self,
        read: impl FnOnce(StrictValue<'_>) -> Result<Value, E>,
    ) -> Result<V::Value, E> {
        let declined = std::cell::Cell::new(false);
        let value = read(StrictValue { declined: &declined }).map_err(|err| {
            if declined.get() {
                // A repeated name (the value would keep the last) or a serde_json token.
                self.run.stop::<E>(FallbackReason::Undecided)
            } else {
                err
            }
        })?;
        self.run.scalar(self.node, self.depth, &value)?;
        value.deserialize_any(self.visitor).map_err(E::custom)
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Checking<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.run.scalar(self.node, self.depth, &Value::Bool(v))?;
        self.visitor.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.run.integer(self.node, self.depth, v.into())?;
        self.visitor.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.run.integer(self.node, self.depth, v.into())?;
        self.visitor.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if numbers_keep_digits() {
            // Not exact: serde_json shows every other number as digits (see `crate::strict::NUMBER_TOKEN`).
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        self.run.float(self.node, self.depth, v)?;
        self.visitor.visit_f64(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.run.string(self.node, self.depth, v)?;
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.run.string(self.node, self.depth, v)?;
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.run.string(self.node, self.depth, &v)?;
        self.visitor.visit_string(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.run.scalar(self.node, self.depth, &Value::Null)?;
        self.visitor.visit_unit()
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.run.scalar(self.node, self.depth, &Value::Null)?;
        self.visitor.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        let inner = self.at(deserializer);
        self.visitor.visit_some(inner)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        let inner = self.at(deserializer);
        self.visitor.visit_newtype_struct(inner)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        if self.run.captures(self.node, ARRAY_KIND) {
            return self.capture(|strict| strict.seq(seq));
        }
        let (plan, parts) = match self.run.container(self.node, ARRAY_KIND)? {
            None => (None, Vec::new()),
            Some(Plans::One(id, container)) => (Some((id, container)), Vec::new()),
            Some(Plans::Several(parts)) => (None, parts),
        };
        let part_depth = parts.iter().map(|part| part.way.len()).max().unwrap_or(0);
        let mut checked = CheckedSeq {
            inner: seq,
            run: self.run,
            prefix: plan.map_or(&[], |(_, container)| &container.prefix[..]),
            items: plan.map(|(_, container)| container.items),
            max: plan.map_or(u64::MAX, |(_, container)| container.max_items),
            depth: self.depth + 1 + u32::try_from(part_depth).unwrap_or(u32::MAX),
            count: 0,
            several: (!parts.is_empty()).then(|| {
                Box::new(SeqParts {
                    parts: parts.iter().map(|part| part.container).collect(),
                    nodes: Vec::new(),
                })
            }),
        };
        if let Some(several) = &checked.several {
            checked.max = several
                .parts
                .iter()
                .map(|part| part.max_items)
                .min()
                .unwrap_or(u64::MAX);
        }
        let value = self.visitor.visit_seq(&mut checked)?;
        let min = plan
            .map(|(_, container)| container.min_items)
            .into_iter()
            .chain(
                checked
                    .several
                    .iter()
                    .flat_map(|several| several.parts.iter().map(|part| part.min_items)),
            )
            .max()
            .unwrap_or(0);
        if checked.count < min {
            return Err(self.run.stop(FallbackReason::Invalid));
        }
        Ok(value)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        if self.run.captures(self.node, OBJECT_KIND) {
            return self.capture(|strict| strict.map(map));
        }
        let mut checked = CheckedMap {
            inner: map,
            state: MapState {
                run: self.run,
                node: self.node,
                depth: self.depth,
                mode: Mode::Unknown,
                object: None,
                seen: Seen::default(),
                others_seen: MemberNames::default(),
                n_required: 0,
                count: 0,
                child: None,
                more: None,
            },
        };
        let value = self.visitor.visit_map(&mut checked)?;
        checked.state.finish()?;
        Ok(value)
    }
}

/// An enum read from a string (a unit variant): the string is checked, then given as the variant. An enum with
/// data (an object) is not followed.
pub(super) struct UnitVariant<'r, 's, V> {
    pub(super) checking: Checking<'r, 's, V>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for UnitVariant<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.checking.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        let c = self.checking;
        c.run.string(c.node, c.depth, v)?;
        c.visitor.visit_enum(de::value::StrDeserializer::new(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        let c = self.checking;
        c.run.string(c.node, c.depth, v)?;
        c.visitor.visit_enum(de::value::BorrowedStrDeserializer::new(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<V::Value, A::Error> {
        Err(self.checking.run.stop(FallbackReason::Undecided))
    }
}

/// A visitor for a number the target asked for by type: an integer of 64 bits as it comes, other digits through
/// the parsed value, as the full route's `T` from the value reads them.
pub(super) struct Numeric<'r, 's, V> {
    pub(super) checking: Checking<'r, 's, V>,
    pub(super) hint: NumberHint,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Numeric<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.checking.expecting(f)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.checking.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.checking.visit_u64(v)
    }

    /// A float read as `f64` (serde_json with `float_roundtrip`, which oa-schema turns on, rounds it correctly, as
    /// `str::parse` rounds the parsed value's digits). An `f64` target gets it as is; so does an `f32` target where
    /// serde_json keeps no digits (the parsed value then holds this `f64`, and gives it to the target the same way).
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        let run = self.checking.run;
        let as_f64 = match self.hint {
            NumberHint::F64 => true,
            NumberHint::F32 => !numbers_keep_digits(),
            _ => false,
        };
        if !as_f64 {
            // serde_json visits an integer as a float only past 64 bits, or written with a fraction or exponent:
            // digits an integer target refuses, except `-0` (read as `0`), which is left to the full route.
            return Err(run.stop(if v == 0.0 && v.is_sign_negative() {
                FallbackReason::Undecided
            } else {
                FallbackReason::Deserialize
            }));
        }
        run.float(self.checking.node, self.checking.depth, v)?;
        self.checking.visitor.visit_f64(v)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let run = self.checking.run;
        if !numbers_keep_digits() || map.next_key_seed(IsNumberToken)? != Some(true) {
            // An object where the target wants a number.
            return Err(run.stop(FallbackReason::Deserialize));
        }
        let digits: String = map
            .next_value_seed(OwnedDigits)
            .map_err(|_: A::Error| run.stop::<A::Error>(FallbackReason::Undecided))?;
        run.digits(self.checking.node, self.checking.depth, &digits)?;
        if map.next_key::<de::IgnoredAny>()?.is_some() {
            return Err(run.stop(FallbackReason::Undecided));
        }
        by_hint(&digits, self.hint, self.checking.visitor)
    }
}

/// A sequence whose items are checked by `items`.
pub(super) struct CheckedSeq<'r, 's, A> {
    pub(super) inner: A,
    pub(super) run: &'r Run<'s>,
    /// The first items' nodes (`prefixItems`).
    pub(super) prefix: &'s [NodeId],
    /// `None` outside: anything goes; `Some(None)`: a plan without `items`.
    pub(super) items: Option<Option<NodeId>>,
    pub(super) max: u64,
    pub(super) depth: u32,
    pub(super) count: u64,
    /// Where several plans apply at once (a node with `allOf`; `items` is then `None`).
    pub(super) several: Option<Box<SeqParts<'s>>>,
}

/// The plans of an array where several apply at once.
pub(super) struct SeqParts<'s> {
    /// Each one's.
    pub(super) parts: Vec<&'s Container>,
    /// The nodes of the item being read.
    pub(super) nodes: Vec<NodeId>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<'_, '_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        let index = usize::try_from(self.count).unwrap_or(usize::MAX);
        if self.several.is_some() {
            return self.next_of_parts(index, seed);
        }
        let node = self.prefix.get(index).copied().or(self.items.flatten());
        let seed = CheckedSeed {
            seed,
            run: self.run,
            node,
            depth: self.depth,
        };
        let element = self.inner.next_element_seed(seed)?;
        self.counted(element)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: SeqAccess<'de>> CheckedSeq<'_, '_, A> {
    /// The next item where several plans apply: at each node they give it.
    #[inline(never)]
    fn next_of_parts<T: DeserializeSeed<'de>>(
        &mut self,
        index: usize,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let Some(several) = self.several.as_deref_mut() else {
            return Err(self.run.stop(FallbackReason::Undecided));
        };
        several.nodes.clear();
        for part in &several.parts {
            several
                .nodes
                .extend(part.prefix.get(index).copied().or(part.items));
        }
        let element = if several.nodes.len() > 1 {
            let all = CheckedAll {
                seed,
                run: self.run,
                nodes: &several.nodes,
                depth: self.depth,
            };
            self.inner.next_element_seed(all)?
        } else {
            let seed = CheckedSeed {
                seed,
                run: self.run,
                node: several.nodes.first().copied(),
                depth: self.depth,
            };
            self.inner.next_element_seed(seed)?
        };
        self.counted(element)
    }
}

impl<A> CheckedSeq<'_, '_, A> {
    /// Counts an item read, against `maxItems`.
    fn counted<T, E: de::Error>(&mut self, element: Option<T>) -> Result<Option<T>, E> {
        if element.is_some() {
            self.count += 1;
            if self.count > self.max {
                return Err(self.run.stop(FallbackReason::Invalid));
            }
        }
        Ok(element)
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

/// A member's value checked by several nodes (its `properties` schema and the patterns its name matches): read
/// whole into a value, checked at each node by the yes/no evaluator, and given to the target from the value (as a
/// container without a plan is, see [`Checking::capture`]).
pub(super) struct CheckedAll<'n, 'r, 's, T> {
    pub(super) seed: T,
    pub(super) run: &'r Run<'s>,
    pub(super) nodes: &'n [NodeId],
    pub(super) depth: u32,
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for CheckedAll<'_, '_, '_, T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T::Value, D::Error> {
        if self.depth > crate::eval::MAX_DEPTH || numbers_keep_digits() {
            // Digits: the value would not be the one a parse builds.
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        let declined = std::cell::Cell::new(false);
        let value = StrictValue { declined: &declined }
            .deserialize(deserializer)
            .map_err(|err| {
                if declined.get() {
                    self.run.stop::<D::Error>(FallbackReason::Undecided)
                } else {
                    err
                }
            })?;
        for node in self.nodes {
            self.run.scalar(Some(*node), self.depth, &value)?;
        }
        self.seed.deserialize(value).map_err(de::Error::custom)
    }
}

/// An object whose members are checked by the node's plan as they go by.
pub(super) struct CheckedMap<'r, 's, A> {
    pub(super) inner: A,
    pub(super) state: MapState<'r, 's>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for &mut CheckedMap<'_, '_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let mut named = false;
        let key = self.inner.next_key_seed(KeySeed {
            seed,
            map: &mut self.state,
            named: &mut named,
        })?;
        if key.is_some() && !named {
            return Err(self.state.run.stop(FallbackReason::Undecided));
        }
        Ok(key)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        if let Mode::Number(_) = self.state.mode {
            let digits = Digits {
                seed,
                map: &mut self.state,
            };
            return self.inner.next_value_seed(digits);
        }
        let mut part_depth = 0;
        if let Some(more) = self.state.more.as_deref_mut() {
            part_depth = more.part_depth;
            if more.nodes.len() > 1 {
                let all = CheckedAll {
                    seed,
                    run: self.state.run,
                    nodes: &more.nodes,
                    depth: self.state.depth + 1 + part_depth,
                };
                let value = self.inner.next_value_seed(all);
                more.nodes.clear();
                return value;
            }
        }
        let seed = CheckedSeed {
            seed,
            run: self.state.run,
            node: self.state.child.take(),
            depth: self.state.depth + 1 + part_depth,
        };
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}
