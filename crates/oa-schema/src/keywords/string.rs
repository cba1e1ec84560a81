//! `minLength`, `maxLength` (in Unicode code points) and `pattern` (ECMA-262, unanchored, with a budget).

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::ecma_regex::EcmaRegex;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::node::Node;
use serde_json::Value;

pub(super) fn compile_pattern(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    let Value::String(pattern) = value else {
        return Err(cx.invalid("pattern", "expected a string"));
    };
    let regex = cx.regex("pattern", pattern)?;
    Ok(Keyword::Pattern {
        regex,
        pattern: pattern.as_str().into(),
    })
}

fn length(text: &str) -> u64 {
    u64::try_from(text.chars().count()).unwrap_or(u64::MAX)
}

pub(super) fn evaluate_max_length(
    ev: &mut Evaluator<'_>,
    limit: u64,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::String(text) = instance else {
        return true;
    };
    // A string of at most `limit` bytes has at most `limit` characters: the byte test skips counting.
    super::count_bound(
        ev,
        frame,
        node,
        "maxLength",
        u64::try_from(text.len()).is_ok_and(|bytes| bytes <= limit) || length(text) <= limit,
        ("must be at most ", limit, " characters long"),
    )
}

pub(super) fn evaluate_min_length(
    ev: &mut Evaluator<'_>,
    limit: u64,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::String(text) = instance else {
        return true;
    };
    super::count_bound(
        ev,
        frame,
        node,
        "minLength",
        length(text) >= limit,
        ("must be at least ", limit, " characters long"),
    )
}

pub(super) fn evaluate_pattern(
    ev: &mut Evaluator<'_>,
    regex: &EcmaRegex,
    pattern: &str,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::String(text) = instance else {
        return true;
    };
    let matched = regex.is_match(text);
    if matched == Ok(true) {
        return true;
    }
    // The message is only built when a report is being written.
    if !ev.collect {
        return false;
    }
    let mut message = ev.message_buffer();
    match matched {
        Ok(_) => {
            message.push_str("must match the pattern ");
            super::push_quoted(&mut message, pattern);
        }
        Err(_) => {
            message.push_str("matching the pattern ");
            super::push_quoted(&mut message, pattern);
            message.push_str(" exceeded the regex budget");
        }
    }
    ev.fail(frame, node, "pattern", Detail::message(message))
}
