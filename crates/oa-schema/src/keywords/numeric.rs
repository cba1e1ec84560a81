//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`, compared exactly.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::node::Node;
use crate::number::{MultipleOf, SchemaNumber};
use serde_json::Value;
use std::cmp::Ordering;

/// Which bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

impl Bound {
    fn keyword(self) -> &'static str {
        match self {
            Self::Minimum => "minimum",
            Self::Maximum => "maximum",
            Self::ExclusiveMinimum => "exclusiveMinimum",
            Self::ExclusiveMaximum => "exclusiveMaximum",
        }
    }

    fn holds(self, instance_vs_limit: Ordering) -> bool {
        match self {
            Self::Minimum => instance_vs_limit != Ordering::Less,
            Self::Maximum => instance_vs_limit != Ordering::Greater,
            Self::ExclusiveMinimum => instance_vs_limit == Ordering::Greater,
            Self::ExclusiveMaximum => instance_vs_limit == Ordering::Less,
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Self::Minimum => "must be at least",
            Self::Maximum => "must be at most",
            Self::ExclusiveMinimum => "must be greater than",
            Self::ExclusiveMaximum => "must be less than",
        }
    }
}

pub(super) fn compile_bound(
    cx: &mut NodeCompiler<'_, '_>,
    name: &str,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Number(number) = value else {
        return Err(cx.invalid(name, "expected a number"));
    };
    let bound = match name {
        "minimum" => Bound::Minimum,
        "maximum" => Bound::Maximum,
        "exclusiveMinimum" => Bound::ExclusiveMinimum,
        _ => Bound::ExclusiveMaximum,
    };
    Ok(Keyword::Bound {
        bound,
        limit: SchemaNumber::new(number),
        text: number.to_string().into(),
    })
}

pub(super) fn compile_multiple_of(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Number(number) = value else {
        return Err(cx.invalid("multipleOf", "expected a number"));
    };
    Ok(Keyword::MultipleOf {
        divisor: MultipleOf::new(number),
        text: number.to_string().into(),
    })
}

pub(super) fn evaluate_bound(
    ev: &mut Evaluator<'_>,
    bound: Bound,
    limit: &SchemaNumber,
    text: &str,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::Number(number) = instance else {
        return true;
    };
    if bound.holds(limit.cmp_instance(number)) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    ev.fail(
        frame,
        node,
        bound.keyword(),
        Detail::message(format!("{} {text}", bound.phrase())),
    )
}

pub(super) fn evaluate_multiple_of(
    ev: &mut Evaluator<'_>,
    divisor: &MultipleOf,
    text: &str,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::Number(number) = instance else {
        return true;
    };
    if divisor.is_multiple(number) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    ev.fail(
        frame,
        node,
        "multipleOf",
        Detail::message(format!("must be a multiple of {text}")),
    )
}
