//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`, compared exactly.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::flag::Flag;
use crate::flag::plan::Check;
use crate::node::Node;
use crate::node::NodeId;
use crate::number::{MultipleOf, SchemaNumber};
use crate::violation::ViolationKind;
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// Which bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
    /// Draft 4's `minimum` made exclusive by `exclusiveMinimum: true` (reported as `minimum`, where the limit is).
    MinimumExclusive,
    /// Draft 4's `maximum` made exclusive by `exclusiveMaximum: true`.
    MaximumExclusive,
}

impl Bound {
    fn kind(self) -> ViolationKind {
        match self {
            Self::Minimum | Self::MinimumExclusive => ViolationKind::Minimum,
            Self::Maximum | Self::MaximumExclusive => ViolationKind::Maximum,
            Self::ExclusiveMinimum => ViolationKind::ExclusiveMinimum,
            Self::ExclusiveMaximum => ViolationKind::ExclusiveMaximum,
        }
    }

    pub(crate) fn holds(self, instance_vs_limit: Ordering) -> bool {
        match self {
            Self::Minimum => instance_vs_limit != Ordering::Less,
            Self::Maximum => instance_vs_limit != Ordering::Greater,
            Self::ExclusiveMinimum | Self::MinimumExclusive => instance_vs_limit == Ordering::Greater,
            Self::ExclusiveMaximum | Self::MaximumExclusive => instance_vs_limit == Ordering::Less,
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Self::Minimum => "must be at least",
            Self::Maximum => "must be at most",
            Self::ExclusiveMinimum | Self::MinimumExclusive => "must be greater than",
            Self::ExclusiveMaximum | Self::MaximumExclusive => "must be less than",
        }
    }
}

pub(crate) fn compile_bound(
    cx: &mut NodeCompiler<'_, '_>,
    name: &str,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let bound = match name {
        "minimum" => Bound::Minimum,
        "maximum" => Bound::Maximum,
        "exclusiveMinimum" => Bound::ExclusiveMinimum,
        _ => Bound::ExclusiveMaximum,
    };
    bound_keyword(cx, name, bound, value)
}

/// Draft 4's `minimum`/`maximum`, exclusive when the sibling `exclusiveMinimum`/`exclusiveMaximum` is `true`.
pub(crate) fn compile_draft4_bound(
    cx: &mut NodeCompiler<'_, '_>,
    name: &str,
    value: &Value,
    object: &Map<String, Value>,
) -> Result<Keyword, SchemaError> {
    let (flag, inclusive, exclusive) = if name == "minimum" {
        ("exclusiveMinimum", Bound::Minimum, Bound::MinimumExclusive)
    } else {
        ("exclusiveMaximum", Bound::Maximum, Bound::MaximumExclusive)
    };
    let bound = match object.get(flag) {
        None | Some(Value::Bool(false)) => inclusive,
        Some(Value::Bool(true)) => exclusive,
        Some(_) => return Err(cx.invalid(flag, "expected a boolean")),
    };
    bound_keyword(cx, name, bound, value)
}

fn bound_keyword(
    cx: &NodeCompiler<'_, '_>,
    name: &str,
    bound: Bound,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Number(number) = value else {
        return Err(cx.invalid(name, "expected a number"));
    };
    Ok(Keyword::Bound {
        bound,
        limit: Box::new(SchemaNumber::new(number)),
        approx: number.as_f64().filter(|approx| approx.is_finite()),
        text: number.to_string().into(),
    })
}

pub(crate) fn compile_multiple_of(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Number(number) = value else {
        return Err(cx.invalid("multipleOf", "expected a number"));
    };
    Ok(Keyword::MultipleOf {
        divisor: Box::new(MultipleOf::new(number)),
        integer: number.as_i64().filter(|divisor| *divisor > 0),
        text: number.to_string().into(),
    })
}

/// A bound's verdict (non-numbers pass).
#[inline]
pub(crate) fn holds_bound(
    bound: Bound,
    (limit, approx): (&SchemaNumber, Option<f64>),
    text: &str,
    instance: &Value,
) -> bool {
    match instance {
        Value::Number(number) => bound.holds(compare(number, (limit, approx, text))),
        _ => true,
    }
}

/// `multipleOf`'s verdict (non-numbers pass).
#[inline]
pub(crate) fn holds_multiple_of((divisor, integer): (&MultipleOf, Option<i64>), instance: &Value) -> bool {
    let Value::Number(number) = instance else {
        return true;
    };
    match (integer, crate::number::as_short_i64(number)) {
        // Both integers: exact, without the decimal path.
        (Some(divisor), Some(value)) => value % divisor == 0,
        _ => divisor.is_multiple(number),
    }
}

pub(crate) fn evaluate_bound(
    ev: &mut Evaluator<'_>,
    bound: Bound,
    (limit, approx): (&SchemaNumber, Option<f64>),
    text: &str,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if holds_bound(bound, (limit, approx), text, instance) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    ev.fail(
        frame,
        node,
        bound.kind(),
        Detail::parts(&[bound.phrase(), " ", text]),
    )
}

pub(crate) fn evaluate_multiple_of(
    ev: &mut Evaluator<'_>,
    (divisor, integer): (&MultipleOf, Option<i64>),
    text: &str,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if holds_multiple_of((divisor, integer), instance) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    ev.fail(
        frame,
        node,
        ViolationKind::MultipleOf,
        Detail::parts(&["must be a multiple of ", text]),
    )
}

/// Compares an instance with a limit. Parsing to `f64` rounds monotonically, so a strict difference between the
/// rounded values is the exact answer; only ties (and values beyond `f64`) take the exact decimal path.
/// A tie between two plain integers of at most 15 digits is equality (both are exact in `f64`), which settles the
/// usual `maximum: 10` against `10` without it.
#[inline]
fn compare(
    instance: &serde_json::Number,
    (limit, approx, text): (&SchemaNumber, Option<f64>, &str),
) -> Ordering {
    if let (Some(value), Some(approx)) = (crate::number::to_f64(instance), approx) {
        if value < approx {
            return Ordering::Less;
        }
        if value > approx {
            return Ordering::Greater;
        }
        if crate::number::is_short_integer_number(instance) && crate::number::is_short_integer(text) {
            return Ordering::Equal;
        }
    }
    limit.cmp_instance(instance)
}

/// The bounds in the yes/no evaluator.
impl Flag<'_> {
    /// A bound with a short integer limit: short integers and decimals compare in place, other numbers run keyword
    /// `index` of node `id`.
    #[inline(never)]
    pub(crate) fn int_bound(
        &mut self,
        (bound, limit): (crate::keywords::Bound, i64),
        (id, index): (NodeId, u16),
        instance: &Value,
        depth: u32,
    ) -> bool {
        match instance {
            Value::Number(number) => match crate::number::cmp_with_int(number, limit) {
                Some(order) => bound.holds(order),
                None => self.keyword_at(id, index, instance, depth),
            },
            _ => true,
        }
    }
}

/// A bound's check in the yes/no evaluator's plan: with a short integer limit, integers and decimals compare in
/// place (`Check::IntBound`); `None` otherwise (the keyword runs as compiled).
pub(crate) fn plan_bound(bound: Bound, text: &str, index: u16) -> Option<Check> {
    match (crate::number::is_short_integer(text), text.parse::<i64>()) {
        (true, Ok(limit)) => Some(Check::IntBound { bound, limit, index }),
        _ => None,
    }
}
