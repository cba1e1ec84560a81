//! An object's members: each name noted (its node for the value, duplicates refused, `additionalProperties`,
//! `maxProperties`) as the key goes by, and `required` and `minProperties` checked at the end; the keys' wrappers
//! that note them; and the one-member map serde_json shows a number's digits as (under `arbitrary_precision`).

use super::number::OnlyString;
use super::plan::{Container, Member, ObjectPlan, Others};
use super::{FallbackReason, OBJECT_KIND, Plans, Run};
use crate::node::NodeId;
use crate::strict::{MemberNames, NUMBER_TOKEN, numbers_keep_digits};
use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use std::fmt;

/// What a map from serde_json turned out to be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// No key read yet.
    Unknown,
    /// A JSON object.
    Object,
    /// A number shown as its digits (see [`NUMBER_TOKEN`]); `true` once the digits were checked.
    Number(bool),
}

/// What the typed route knows of an object so far (the map access in `value.rs` holds it).
pub(super) struct MapState<'r, 's> {
    pub(super) run: &'r Run<'s>,
    pub(super) node: Option<NodeId>,
    pub(super) depth: u32,
    pub(super) mode: Mode,
    /// The plan, once the first key said this is an object (`None` inside: anything goes).
    pub(super) object: Option<Option<(NodeId, &'s Container)>>,
    /// Which of the plan's names were seen (duplicates are refused, as the full
    /// route's value would keep only the last).
    pub(super) seen: Seen,
    /// The other names seen.
    pub(super) others_seen: MemberNames,
    pub(super) n_required: usize,
    pub(super) count: u64,
    /// The node of the value after the key just read.
    pub(super) child: Option<NodeId>,
    /// What an object with patterns or several plans needs (made when one is met: most objects need none).
    pub(super) more: Option<Box<More<'s>>>,
}

/// The state of an object with `patternProperties` or several plans.
#[derive(Default)]
pub(super) struct More<'s> {
    /// Where several nodes check the value after the key just read (its `properties` schema and matching
    /// patterns, or several plans'): all of them (and `child` is `None`).
    pub(super) nodes: Vec<NodeId>,
    /// Where several plans apply at once (a node with `allOf`), each one's (and `object` is `Some(None)`).
    pub(super) parts: Vec<PartState<'s>>,
    /// The most steps a part is entered through, added to the members' depth.
    pub(super) part_depth: u32,
}

/// One plan of several, and what it saw.
pub(super) struct PartState<'s> {
    pub(super) container: &'s Container,
    pub(super) seen: Seen,
    pub(super) n_required: usize,
}

impl<'s> MapState<'_, 's> {
    /// Notes a member's name: its node for the value, and what the end of the object checks.
    fn key<E: de::Error>(&mut self, name: &str) -> Result<(), E> {
        if self.mode == Mode::Unknown && name == NUMBER_TOKEN && numbers_keep_digits() {
            self.mode = Mode::Number(false);
            return Ok(());
        }
        if matches!(self.mode, Mode::Number(_)) {
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        self.mode = Mode::Object;
        let plan = self.plan()?;
        self.count += 1;
        if self.more.as_ref().is_some_and(|more| !more.parts.is_empty()) {
            return self.key_of_parts(name);
        }
        let Some((_, container)) = plan else {
            // Nothing constrains the members: only duplicates are looked for.
            self.child = None;
            return self.other_name(name);
        };
        if self.count > container.max_properties {
            return Err(self.run.stop(FallbackReason::Invalid));
        }
        let Some(object) = &container.object else {
            self.child = None;
            return self.other_name(name);
        };
        if !object.patterns.is_empty() {
            return self.patterned(object, name);
        }
        match object.find(name) {
            Some(slot) => {
                if !self.seen.note(slot, object.names.len()) {
                    return Err(self.run.stop(FallbackReason::Undecided));
                }
                let (node, required) = object
                    .names
                    .get(slot)
                    .map_or((None, false), |planned| (planned.node, planned.required));
                self.n_required += usize::from(required);
                // A name that only `required` mentions falls to `additionalProperties`.
                self.child = match node {
                    Some(node) => Some(node),
                    None => self.others(object)?,
                };
                Ok(())
            }
            None => {
                self.child = self.others(object)?;
                self.other_name(name)
            }
        }
    }

    /// Notes a member of an object with `patternProperties`: its value may have several nodes.
    fn patterned<E: de::Error>(&mut self, object: &ObjectPlan, name: &str) -> Result<(), E> {
        let slot = object.find(name);
        match slot {
            Some(slot) => {
                if !self.seen.note(slot, object.names.len()) {
                    return Err(self.run.stop(FallbackReason::Undecided));
                }
                self.n_required +=
                    usize::from(object.names.get(slot).is_some_and(|planned| planned.required));
            }
            None => self.other_name(name)?,
        }
        let run = self.run;
        let more = self.more.get_or_insert_with(Box::default);
        more.nodes.clear();
        match object.member_nodes(slot, name, &mut more.nodes) {
            Member::Checked => {}
            Member::Rejected => return Err(run.stop(FallbackReason::Invalid)),
            Member::Budget => return Err(run.stop(FallbackReason::Undecided)),
        }
        self.child = match &more.nodes[..] {
            [] => None,
            [node] => Some(*node),
            _ => return Ok(()),
        };
        more.nodes.clear();
        Ok(())
    }

    /// Notes a member where several plans apply: each notes it, and its value gets every node they name.
    #[inline(never)]
    fn key_of_parts<E: de::Error>(&mut self, name: &str) -> Result<(), E> {
        let run = self.run;
        let Some(more) = self.more.as_deref_mut() else {
            return Err(run.stop(FallbackReason::Undecided));
        };
        more.nodes.clear();
        let mut in_table = false;
        for part in &mut more.parts {
            if self.count > part.container.max_properties {
                return Err(run.stop(FallbackReason::Invalid));
            }
            let Some(object) = &part.container.object else {
                continue;
            };
            let slot = object.find(name);
            if let Some(slot) = slot {
                in_table = true;
                if !part.seen.note(slot, object.names.len()) {
                    return Err(run.stop(FallbackReason::Undecided));
                }
                part.n_required +=
                    usize::from(object.names.get(slot).is_some_and(|planned| planned.required));
            }
            match object.member_nodes(slot, name, &mut more.nodes) {
                Member::Checked => {}
                Member::Rejected => return Err(run.stop(FallbackReason::Invalid)),
                Member::Budget => return Err(run.stop(FallbackReason::Undecided)),
            }
        }
        let child = match &more.nodes[..] {
            [] => None,
            [node] => Some(*node),
            _ => None,
        };
        if more.nodes.len() < 2 {
            more.nodes.clear();
        }
        self.child = child;
        if !in_table {
            self.other_name(name)?;
        }
        Ok(())
    }

    /// The node for a member the plan does not name.
    fn others<E: de::Error>(&self, object: &ObjectPlan) -> Result<Option<NodeId>, E> {
        match object.others {
            Others::Any => Ok(None),
            Others::Schema(node) => Ok(Some(node)),
            Others::Reject => Err(self.run.stop(FallbackReason::Invalid)),
        }
    }

    /// Notes a name outside the plan's table, refusing a repeat (`MemberNames` hashes them once there are many:
    /// any number is taken, as the full route takes them).
    fn other_name<E: de::Error>(&mut self, name: &str) -> Result<(), E> {
        if !self.others_seen.insert(name) {
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        Ok(())
    }

    /// The object plan at this node (resolved once).
    #[inline]
    fn plan<E: de::Error>(&mut self) -> Result<Option<(NodeId, &'s Container)>, E> {
        match self.object {
            Some(plan) => Ok(plan),
            None => self.resolve(),
        }
    }

    /// Resolves the object plan at this node, on the first key (or the end of an empty object).
    #[inline(never)]
    fn resolve<E: de::Error>(&mut self) -> Result<Option<(NodeId, &'s Container)>, E> {
        let plan = match self.run.container(self.node, OBJECT_KIND)? {
            None => None,
            Some(Plans::One(id, container)) => Some((id, container)),
            Some(Plans::Several(parts)) => {
                let more = self.more.get_or_insert_with(Box::default);
                more.part_depth = parts
                    .iter()
                    .map(|part| part.way.len())
                    .max()
                    .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
                more.parts = parts
                    .into_iter()
                    .map(|part| PartState {
                        container: part.container,
                        seen: Seen::default(),
                        n_required: 0,
                    })
                    .collect();
                None
            }
        };
        self.object = Some(plan);
        Ok(plan)
    }

    /// The checks at the end of the object (or of the number).
    pub(super) fn finish<E: de::Error>(&mut self) -> Result<(), E> {
        match self.mode {
            Mode::Number(true) => return Ok(()),
            Mode::Number(false) => return Err(self.run.stop(FallbackReason::Undecided)),
            Mode::Unknown | Mode::Object => {}
        }
        let plan = self.plan()?;
        for part in self.more.iter().flat_map(|more| &more.parts) {
            let n_required = part
                .container
                .object
                .as_ref()
                .map_or(0, |object| object.n_required);
            if part.n_required < n_required || self.count < part.container.min_properties {
                return Err(self.run.stop(FallbackReason::Invalid));
            }
        }
        let Some((_, container)) = plan else {
            return Ok(());
        };
        let n_required = container.object.as_ref().map_or(0, |object| object.n_required);
        if self.n_required < n_required || self.count < container.min_properties {
            return Err(self.run.stop(FallbackReason::Invalid));
        }
        Ok(())
    }
}

/// Which of a plan's names were seen: the first 64 by bit, the others in a list made when one is met.
#[derive(Default)]
pub(super) struct Seen {
    bits: u64,
    more: Vec<bool>,
}

impl Seen {
    /// Notes `slot` (of `n_names`); false when it was noted before.
    #[inline]
    pub(super) fn note(&mut self, slot: usize, n_names: usize) -> bool {
        if slot < 64 {
            let bit = 1_u64 << slot;
            let fresh = self.bits & bit == 0;
            self.bits |= bit;
            return fresh;
        }
        self.note_more(slot, n_names)
    }

    /// [`note`](Self::note) past the first 64 names.
    #[cold]
    #[inline(never)]
    fn note_more(&mut self, slot: usize, n_names: usize) -> bool {
        if self.more.is_empty() {
            self.more = vec![false; n_names.saturating_sub(64)];
        }
        match self.more.get_mut(slot.saturating_sub(64)) {
            Some(seen) => !std::mem::replace(seen, true),
            None => false,
        }
    }

    pub(super) fn contains(&self, slot: usize) -> bool {
        match u32::try_from(slot).ok().and_then(|slot| 1_u64.checked_shl(slot)) {
            Some(bit) => self.bits & bit != 0,
            None => self.more.get(slot.saturating_sub(64)).copied().unwrap_or(false),
        }
    }
}

/// A key's seed: the name is noted by the map before the target's seed sees it.
pub(super) struct KeySeed<'m, 'r, 's, K> {
    pub(super) seed: K,
    pub(super) map: &'m mut MapState<'r, 's>,
    pub(super) named: &'m mut bool,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, '_, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDeserializer {
            inner: deserializer,
            map: self.map,
            named: self.named,
        })
    }
}

/// A key's deserializer: every request is passed on, and the name noted when it is shown as a string.
pub(super) struct KeyDeserializer<'m, 'r, 's, D> {
    pub(super) inner: D,
    pub(super) map: &'m mut MapState<'r, 's>,
    pub(super) named: &'m mut bool,
}

macro_rules! key_forwarded {
    ($($method:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method(KeyVisitor { visitor, map: self.map, named: self.named })
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, '_, '_, D> {
    type Error = D::Error;

    key_forwarded!(
        deserialize_any,
        deserialize_str,
        deserialize_string,
        deserialize_identifier,
        deserialize_ignored_any,
        deserialize_char
    );

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // A key read as a unit variant: noted, then given as the variant.
        let unit = KeyVariant {
            visitor,
            map: self.map,
            named: self.named,
        };
        self.inner.deserialize_str(unit)
    }

    // Any other way of reading a key (as a number, a bool, bytes) is not followed: the key would not be noted, and
    // the map refuses a key it did not see.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 bytes byte_buf option unit unit_struct
        newtype_struct seq tuple tuple_struct map struct
    }
}

/// Notes a key's name, then shows it to the target's visitor as it came.
pub(super) struct KeyVisitor<'m, 'r, 's, V> {
    pub(super) visitor: V,
    pub(super) map: &'m mut MapState<'r, 's>,
    pub(super) named: &'m mut bool,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, '_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.map.key(v)?;
        *self.named = true;
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.map.key(v)?;
        *self.named = true;
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.map.key(&v)?;
        *self.named = true;
        self.visitor.visit_string(v)
    }
}

/// A key read as a unit variant (a map keyed by an enum).
pub(super) struct KeyVariant<'m, 'r, 's, V> {
    pub(super) visitor: V,
    pub(super) map: &'m mut MapState<'r, 's>,
    pub(super) named: &'m mut bool,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVariant<'_, '_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.map.key(v)?;
        *self.named = true;
        self.visitor.visit_enum(de::value::StrDeserializer::new(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.map.key(v)?;
        *self.named = true;
        self.visitor
            .visit_enum(de::value::BorrowedStrDeserializer::new(v))
    }
}

/// The digits of a number serde_json showed as a map (see [`NUMBER_TOKEN`]): parsed as `parse_json` parses them,
/// checked at the node, then shown to the target's seed as they came.
pub(super) struct Digits<'m, 'r, 's, T> {
    pub(super) seed: T,
    pub(super) map: &'m mut MapState<'r, 's>,
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for Digits<'_, '_, '_, T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T::Value, D::Error> {
        let digits: String = de::Deserialize::deserialize(OnlyString(deserializer))
            .map_err(|_: D::Error| self.map.run.stop::<D::Error>(FallbackReason::Undecided))?;
        self.map.run.digits(self.map.node, self.map.depth, &digits)?;
        self.map.mode = Mode::Number(true);
        self.seed
            .deserialize(de::value::StringDeserializer::<D::Error>::new(digits))
    }
}
