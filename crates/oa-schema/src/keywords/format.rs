//! `format`: an annotation by default; asserted when the caller asks or the meta-schema requires format-assertion.

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::format::{FormatCheck, checker};
use crate::node::Node;
use crate::violation::ViolationKind;
use serde_json::Value;

/// Compiles `format`; `None` when it only annotates (assertion off, or a format name we do not know).
pub(crate) fn compile(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Option<Keyword>, SchemaError> {
    let Value::String(name) = value else {
        return Err(cx.invalid("format", "expected a string"));
    };
    if !cx.format_assertion() {
        return Ok(None);
    }
    Ok(checker(name).map(|check| Keyword::Format {
        check,
        name: name.as_str().into(),
    }))
}

/// `format`'s verdict when asserted (non-strings pass).
#[inline]
pub(crate) fn holds(check: FormatCheck, instance: &Value) -> bool {
    match instance {
        Value::String(text) => check(text),
        _ => true,
    }
}

pub(crate) fn evaluate(
    ev: &mut Evaluator<'_>,
    check: FormatCheck,
    name: &str,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if holds(check, instance) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    ev.fail(
        frame,
        node,
        ViolationKind::Format,
        Detail::parts(&["must be a valid ", name]),
    )
}
