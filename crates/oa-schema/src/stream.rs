//! The validating deserializer: JSON text read into the caller's type through serde_json's `Deserializer`, each
//! value checked against the compiled schema node for its position as it goes by, no `Value` built.
//!
//! The adaptor wraps the deserializer, its visitors and its map and sequence accesses (the manner of
//! `serde_path_to_error`), so it sees every value the text holds, also those the target type skips (they are
//! driven through a checking visitor that discards). Scalars are checked by the yes/no evaluator at their node,
//! which answers exactly as validating the whole value would; containers by the node's [`StreamNode`] plan. It
//! answers `Ok` only when the text is JSON `parse_json` accepts, the schema accepts it, and the type deserializes
//! from it; anything else, and anything it cannot decide cheaply, is a [`Fallback`], after which the caller takes
//! the full route (`parse_json`, `validate`, the type from the value), which reports every violation.

use crate::flag::{float_holds_at, floats_settle_at, holds_at};
use crate::keywords::{Container, ObjectPlan, Others, StreamNode, StreamPlan};
use crate::node::{CompiledSchema, NodeId};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::cell::Cell;
use std::fmt;

/// The key serde_json (with `arbitrary_precision`) gives a number it cannot visit as `u64` or `i64`: a one-member
/// map from this key to the number's digits.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Whether serde_json keeps a number's digits in this build: its `arbitrary_precision`, on with ours, and possibly
/// turned on by another crate of the build without ours (features unify). When it does, a number that is not a
/// 64-bit integer arrives as its digits (a [`NUMBER_TOKEN`] map) or, read as `f64`, rounded; when it does not, it
/// arrives as the very `f64` a parsed `Value` holds, which is then checked as that value would be.
fn numbers_keep_digits() -> bool {
    #[cfg(feature = "arbitrary_precision")]
    {
        true
    }
    #[cfg(not(feature = "arbitrary_precision"))]
    {
        static KEEP_DIGITS: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
            "1.10"
                .parse::<serde_json::Number>()
                .is_ok_and(|number| number.to_string() == "1.10")
        });
        *KEEP_DIGITS
    }
}

/// How many `$ref`s (or nullable unions) a container may follow before its plan is reached.
const MAX_REDIRECTS: u32 = 32;

/// Why [`Validator::deserialize_str`](crate::Validator::deserialize_str) did not decide: the caller then takes the
/// full route (parse, validate, deserialize from the value), which gives the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no typed answer ({reason:?}): parse and validate instead")]
pub struct Fallback {
    reason: FallbackReason,
}

impl Fallback {
    /// Why.
    pub fn reason(&self) -> FallbackReason {
        self.reason
    }
}

/// Why the validating deserializer fell back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FallbackReason {
    /// A container met a node whose keywords the streaming plan does not cover (or the schema's dynamic scope
    /// matters).
    Unplanned,
    /// The text is not JSON, or the schema rejects it: the full route reports why. (Where a member name repeats,
    /// its first value is checked as it comes, and may be the one rejected, though a `Value` keeps the last.)
    Invalid,
    /// The target type refused the value (the schema says less than the type).
    Deserialize,
    /// Something the route does not decide: a duplicate member name, a key or value the target read in a way the
    /// adaptor does not follow (byte strings, raw values, non-string map keys, enums with data).
    Undecided,
}

/// The state shared by every wrapper of one run.
pub(crate) struct Run<'s> {
    schema: &'s CompiledSchema,
    plan: &'s StreamPlan,
    reason: Cell<Option<FallbackReason>>,
    /// A string value reused for every string the evaluator checks (one allocation per run, not per string).
    scratch: std::cell::RefCell<Value>,
}

impl<'s> Run<'s> {
    /// Records why the run stops (the first reason wins) and makes the error that unwinds the deserializer.
    fn stop<E: de::Error>(&self, reason: FallbackReason) -> E {
        if self.reason.get().is_none() {
            self.reason.set(Some(reason));
        }
        E::custom("oa-schema: the validating deserializer stopped")
    }

    /// Checks a scalar at `node` (none: any value).
    fn scalar<E: de::Error>(&self, node: Option<NodeId>, depth: u32, value: &Value) -> Result<(), E> {
        match node {
            Some(id) if !holds_at(self.schema, id, value, depth) => Err(self.stop(FallbackReason::Invalid)),
            _ => Ok(()),
        }
    }

    /// Checks a string, building its `Value` only when the node has string checks.
    fn string<E: de::Error>(&self, node: Option<NodeId>, depth: u32, text: &str) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        if self.trivial(id, crate::flag::plan::STRING_KIND) {
            return Ok(());
        }
        let Ok(mut scratch) = self.scratch.try_borrow_mut() else {
            return self.scalar(node, depth, &Value::String(text.to_owned()));
        };
        if let Value::String(buffer) = &mut *scratch {
            buffer.clear();
            buffer.push_str(text);
        } else {
            *scratch = Value::String(text.to_owned());
        }
        self.scalar(node, depth, &scratch)
    }

    /// Checks an integer that fits `u64` or `i64`.
    fn integer<E: de::Error>(
        &self,
        node: Option<NodeId>,
        depth: u32,
        number: serde_json::Number,
    ) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        let plan = self.schema.plans.get(id as usize);
        if plan.is_some_and(|plan| {
            plan.always
                || (plan.types.admits_integers()
                    && plan.checks_for(crate::flag::plan::NUMBER_KIND).is_empty())
        }) {
            return Ok(());
        }
        self.scalar(node, depth, &Value::Number(number))
    }

    /// Checks a number serde_json showed as its digits. The number is the one `parse_json` would hold: its
    /// `Value` reads such digits with `Number::from_str` too.
    fn digits<E: de::Error>(&self, node: Option<NodeId>, depth: u32, digits: &str) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        if self.trivial(id, crate::flag::plan::NUMBER_KIND) {
            return Ok(());
        }
        let number: serde_json::Number = digits
            .parse()
            .map_err(|_| self.stop::<E>(FallbackReason::Undecided))?;
        self.scalar(node, depth, &Value::Number(number))
    }

    /// Checks a float serde_json showed as `f64`. Where it keeps digits, `x` is the digits rounded: decided from
    /// it where that is exact (see `float_holds_at`), else undecided. Where it does not, `x` is the number a parsed
    /// `Value` holds, checked as that value is.
    fn float<E: de::Error>(&self, node: Option<NodeId>, depth: u32, x: f64) -> Result<(), E> {
        let Some(id) = node else { return Ok(()) };
        if !numbers_keep_digits() {
            if self.trivial(id, crate::flag::plan::NUMBER_KIND) {
                return Ok(());
            }
            let number =
                serde_json::Number::from_f64(x).ok_or_else(|| self.stop::<E>(FallbackReason::Undecided))?;
            return self.scalar(node, depth, &Value::Number(number));
        }
        match float_holds_at(self.schema, id, x, depth) {
            Some(true) => Ok(()),
            Some(false) => Err(self.stop(FallbackReason::Invalid)),
            None => Err(self.stop(FallbackReason::Undecided)),
        }
    }

    /// Whether a float at `node` may be read without its digits (see `floats_settle_at`, which a node without
    /// checks for numbers passes).
    fn reads_floats_rounded(&self, node: Option<NodeId>, depth: u32) -> bool {
        node.is_none_or(|id| floats_settle_at(self.schema, id, depth))
    }

    /// Whether every instance of `kind` passes node `id` without looking at it.
    fn trivial(&self, id: NodeId, kind: usize) -> bool {
        self.schema.plans.get(id as usize).is_some_and(|plan| {
            plan.always || (plan.types.admits_kind(kind) && plan.checks_for(kind).is_empty())
        })
    }

    /// The container plan that applies at `node` to an instance of `kind` (object or array), after its redirects;
    /// `None` when any container passes (no node).
    fn container<E: de::Error>(
        &self,
        node: Option<NodeId>,
        kind: usize,
    ) -> Result<Option<(NodeId, &'s Container)>, E> {
        let Some(mut id) = node else { return Ok(None) };
        for _ in 0..MAX_REDIRECTS {
            let plan = self.schema.plans.get(id as usize);
            if !plan.is_some_and(|plan| plan.always || plan.types.admits_kind(kind)) {
                return Err(self.stop(FallbackReason::Invalid));
            }
            match self.plan.get(id) {
                StreamNode::Unplanned => return Err(self.stop(FallbackReason::Unplanned)),
                StreamNode::Redirect(target) => id = *target,
                StreamNode::Container(container) if container.rejects => {
                    return Err(self.stop(FallbackReason::Invalid));
                }
                StreamNode::Container(container) => return Ok(Some((id, container))),
            }
        }
        Err(self.stop(FallbackReason::Unplanned))
    }
}

/// Reads `text` into `T`, checking it against `schema` (see the module docs).
pub(crate) fn deserialize_str<T: de::DeserializeOwned>(
    schema: &CompiledSchema,
    text: &str,
) -> Result<T, Fallback> {
    if schema.dynamic_scope_matters {
        return Err(Fallback {
            reason: FallbackReason::Unplanned,
        });
    }
    let plan = schema.stream.get_or_init(|| StreamPlan::build(schema));
    let run = Run {
        schema,
        plan,
        reason: Cell::new(None),
        scratch: std::cell::RefCell::new(Value::String(String::new())),
    };
    let mut inner = serde_json::Deserializer::from_str(text);
    let checked = Checked {
        inner: &mut inner,
        run: &run,
        node: Some(schema.root),
        depth: 0,
    };
    let outcome = T::deserialize(checked).and_then(|value| inner.end().map(|()| value));
    match (outcome, run.reason.get()) {
        (Ok(value), None) => Ok(value),
        (_, Some(reason)) => Err(Fallback { reason }),
        (Err(err), None) => Err(Fallback {
            reason: if err.is_data() {
                FallbackReason::Deserialize
            } else {
                FallbackReason::Invalid
            },
        }),
    }
}

/// The wrapped deserializer of one value, at its node.
struct Checked<'r, 's, D> {
    inner: D,
    run: &'r Run<'s>,
    /// The node for this position; `None` when nothing constrains it (under `additionalProperties: true`).
    node: Option<NodeId>,
    /// Containers and redirects above it, for the evaluator's depth limit.
    depth: u32,
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

/// The numeric hints a target may give, so that a number seen only as digits is read as the target asked.
#[derive(Clone, Copy)]
enum NumberHint {
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
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
        if name.starts_with("$serde_json::private::") {
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
struct Checking<'r, 's, V> {
    visitor: V,
    run: &'r Run<'s>,
    node: Option<NodeId>,
    depth: u32,
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
            // Not exact: serde_json shows every other number as digits (see `NUMBER_TOKEN`).
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
        let plan = self.run.container(self.node, ARRAY_KIND)?;
        let mut checked = CheckedSeq {
            inner: seq,
            run: self.run,
            items: plan.map(|(_, container)| container.items),
            max: plan.map_or(u64::MAX, |(_, container)| container.max_items),
            depth: self.depth + 1,
            count: 0,
        };
        let value = self.visitor.visit_seq(&mut checked)?;
        if plan.is_some_and(|(_, container)| checked.count < container.min_items) {
            return Err(self.run.stop(FallbackReason::Invalid));
        }
        Ok(value)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let mut checked = CheckedMap {
            inner: map,
            state: MapState {
                run: self.run,
                node: self.node,
                depth: self.depth,
                mode: Mode::Unknown,
                object: None,
                seen: 0,
                seen_more: Vec::new(),
                others_seen: Vec::new(),
                n_required: 0,
                count: 0,
                child: None,
            },
        };
        let value = self.visitor.visit_map(&mut checked)?;
        checked.state.finish()?;
        Ok(value)
    }
}

/// [`kind_of`](crate::flag::plan::kind_of) an array.
const ARRAY_KIND: usize = 4;
/// [`kind_of`](crate::flag::plan::kind_of) an object.
const OBJECT_KIND: usize = 5;

/// A sequence whose items are checked by `items`.
struct CheckedSeq<'r, 's, A> {
    inner: A,
    run: &'r Run<'s>,
    /// `None` outside: anything goes; `Some(None)`: a plan without `items`.
    items: Option<Option<NodeId>>,
    max: u64,
    depth: u32,
    count: u64,
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
struct CheckedSeed<'r, 's, T> {
    seed: T,
    run: &'r Run<'s>,
    node: Option<NodeId>,
    depth: u32,
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

/// What a map from serde_json turned out to be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// No key read yet.
    Unknown,
    /// A JSON object.
    Object,
    /// A number shown as its digits (see [`NUMBER_TOKEN`]); `true` once the digits were checked.
    Number(bool),
}

/// An object whose members are checked by the node's plan as they go by.
struct CheckedMap<'r, 's, A> {
    inner: A,
    state: MapState<'r, 's>,
}

/// What a [`CheckedMap`] knows of its object so far.
struct MapState<'r, 's> {
    run: &'r Run<'s>,
    node: Option<NodeId>,
    depth: u32,
    mode: Mode,
    /// The plan, once the first key said this is an object (`None` inside: anything goes).
    object: Option<Option<(NodeId, &'s Container)>>,
    /// Which of the plan's first 64 names were seen, by bit, and of the others (duplicates are refused, as the full
    /// route's value would keep only the last).
    seen: u64,
    seen_more: Vec<bool>,
    /// The other names seen.
    others_seen: Vec<String>,
    n_required: usize,
    count: u64,
    /// The node of the value after the key just read.
    child: Option<NodeId>,
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
        match object.find(name) {
            Some(slot) => {
                if !self.note_seen(slot, object.names.len()) {
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

    /// Notes that the plan's name `slot` (of `n_names`) was seen; false when it had been.
    fn note_seen(&mut self, slot: usize, n_names: usize) -> bool {
        if let Some(bit) = u32::try_from(slot).ok().and_then(|slot| 1u64.checked_shl(slot)) {
            let fresh = self.seen & bit == 0;
            self.seen |= bit;
            return fresh;
        }
        if self.seen_more.is_empty() {
            self.seen_more = vec![false; n_names.saturating_sub(64)];
        }
        match self.seen_more.get_mut(slot.saturating_sub(64)) {
            Some(seen) if !*seen => {
                *seen = true;
                true
            }
            _ => false,
        }
    }

    /// The node for a member the plan does not name.
    fn others<E: de::Error>(&self, object: &ObjectPlan) -> Result<Option<NodeId>, E> {
        match object.others {
            Others::Any => Ok(None),
            Others::Schema(node) => Ok(Some(node)),
            Others::Reject => Err(self.run.stop(FallbackReason::Invalid)),
        }
    }

    /// Notes a name outside the plan's table, refusing a repeat.
    fn other_name<E: de::Error>(&mut self, name: &str) -> Result<(), E> {
        if self.others_seen.iter().any(|seen| seen == name) {
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        if self.others_seen.len() >= MAX_OTHER_NAMES {
            // Looking each one up would be quadratic.
            return Err(self.run.stop(FallbackReason::Undecided));
        }
        self.others_seen.push(name.to_owned());
        Ok(())
    }

    /// The object plan at this node (resolved once).
    fn plan<E: de::Error>(&mut self) -> Result<Option<(NodeId, &'s Container)>, E> {
        if let Some(plan) = self.object {
            return Ok(plan);
        }
        let plan = self.run.container(self.node, OBJECT_KIND)?;
        self.object = Some(plan);
        Ok(plan)
    }

    /// The checks at the end of the object (or of the number).
    fn finish<E: de::Error>(&mut self) -> Result<(), E> {
        match self.mode {
            Mode::Number(true) => return Ok(()),
            Mode::Number(false) => return Err(self.run.stop(FallbackReason::Undecided)),
            Mode::Unknown | Mode::Object => {}
        }
        let Some((_, container)) = self.plan()? else {
            return Ok(());
        };
        let n_required = container.object.as_ref().map_or(0, |object| object.n_required);
        if self.n_required < n_required || self.count < container.min_properties {
            return Err(self.run.stop(FallbackReason::Invalid));
        }
        Ok(())
    }
}

/// Names outside a plan's table an object may have on this route (each is compared with the others).
const MAX_OTHER_NAMES: usize = 64;

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
        let seed = CheckedSeed {
            seed,
            run: self.state.run,
            node: self.state.child.take(),
            depth: self.state.depth + 1,
        };
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A key's seed: the name is noted by the map before the target's seed sees it.
struct KeySeed<'m, 'r, 's, K> {
    seed: K,
    map: &'m mut MapState<'r, 's>,
    named: &'m mut bool,
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
struct KeyDeserializer<'m, 'r, 's, D> {
    inner: D,
    map: &'m mut MapState<'r, 's>,
    named: &'m mut bool,
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
struct KeyVisitor<'m, 'r, 's, V> {
    visitor: V,
    map: &'m mut MapState<'r, 's>,
    named: &'m mut bool,
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
struct KeyVariant<'m, 'r, 's, V> {
    visitor: V,
    map: &'m mut MapState<'r, 's>,
    named: &'m mut bool,
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
struct Digits<'m, 'r, 's, T> {
    seed: T,
    map: &'m mut MapState<'r, 's>,
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

/// A deserializer that gives its value only when serde_json shows it as an owned string, which is how it shows a
/// number's digits (a real member's string value comes borrowed or as `visit_str`).
struct OnlyString<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for OnlyString<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(OwnedOnly(visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct OwnedOnly<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for OwnedOnly<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number's digits")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        // A member's string value, not a number's digits.
        Err(E::invalid_type(de::Unexpected::Str(v), &self))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_string(v)
    }
}

/// A visitor for a number the target asked for by type: an integer of 64 bits as it comes, other digits through
/// the parsed value, as the full route's `T` from the value reads them.
struct Numeric<'r, 's, V> {
    checking: Checking<'r, 's, V>,
    hint: NumberHint,
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

/// The seed of a number's digits.
struct OwnedDigits;

impl<'de> DeserializeSeed<'de> for OwnedDigits {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        de::Deserialize::deserialize(OnlyString(deserializer))
    }
}

/// Reads a number's digits as the target asked, as serde_json's `Number` does for such digits (`str::parse` into
/// the asked type, "invalid number" when it does not fit), so that `T` gets what it would from the parsed value.
fn by_hint<'de, V: Visitor<'de>, E: de::Error>(
    digits: &str,
    hint: NumberHint,
    visitor: V,
) -> Result<V::Value, E> {
    fn parsed<N: std::str::FromStr, E: de::Error>(digits: &str) -> Result<N, E> {
        digits.parse().map_err(|_| E::custom("invalid number"))
    }
    match hint {
        NumberHint::I8 => visitor.visit_i8(parsed(digits)?),
        NumberHint::I16 => visitor.visit_i16(parsed(digits)?),
        NumberHint::I32 => visitor.visit_i32(parsed(digits)?),
        NumberHint::I64 => visitor.visit_i64(parsed(digits)?),
        NumberHint::I128 => visitor.visit_i128(parsed(digits)?),
        NumberHint::U8 => visitor.visit_u8(parsed(digits)?),
        NumberHint::U16 => visitor.visit_u16(parsed(digits)?),
        NumberHint::U32 => visitor.visit_u32(parsed(digits)?),
        NumberHint::U64 => visitor.visit_u64(parsed(digits)?),
        NumberHint::U128 => visitor.visit_u128(parsed(digits)?),
        NumberHint::F32 => visitor.visit_f32(parsed(digits)?),
        NumberHint::F64 => visitor.visit_f64(parsed(digits)?),
    }
}

/// The seed of a number map's key: whether it is [`NUMBER_TOKEN`] (read without a copy).
struct IsNumberToken;

impl<'de> DeserializeSeed<'de> for IsNumberToken {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for IsNumberToken {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == NUMBER_TOKEN)
    }
}

/// An enum read from a string (a unit variant): the string is checked, then given as the variant. An enum with
/// data (an object) is not followed.
struct UnitVariant<'r, 's, V> {
    checking: Checking<'r, 's, V>,
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

/// Whether every node reachable from the root through container plans and redirects is planned.
pub(crate) fn plans_every_container(schema: &CompiledSchema) -> bool {
    if schema.dynamic_scope_matters {
        return false;
    }
    let plan = schema.stream.get_or_init(|| StreamPlan::build(schema));
    let mut seen = vec![false; schema.nodes.len()];
    let mut stack = vec![schema.root];
    while let Some(id) = stack.pop() {
        match seen.get_mut(id as usize) {
            Some(seen) if !*seen => *seen = true,
            _ => continue,
        }
        match plan.get(id) {
            // A node no container passes by type is never asked for a plan.
            StreamNode::Unplanned
                if schema.plans.get(id as usize).is_some_and(|plan| {
                    !plan.always
                        && !plan.types.admits_kind(ARRAY_KIND)
                        && !plan.types.admits_kind(OBJECT_KIND)
                }) => {}
            StreamNode::Unplanned => return false,
            StreamNode::Redirect(target) => stack.push(*target),
            StreamNode::Container(container) => {
                stack.extend(container.items);
                if let Some(object) = &container.object {
                    stack.extend(object.names.iter().filter_map(|planned| planned.node));
                    if let Others::Schema(node) = object.others {
                        stack.push(node);
                    }
                }
            }
        }
    }
    true
}
