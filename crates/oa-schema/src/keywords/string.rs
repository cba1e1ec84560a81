//! `minLength`, `maxLength` (in Unicode code points) and `pattern` (ECMA-262, unanchored, with a budget).

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::ecma_regex::EcmaRegex;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::node::Node;
use crate::violation::ViolationKind;
use serde_json::Value;

pub(crate) fn compile_pattern(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
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

/// `maxLength`'s verdict (non-strings pass).
#[inline]
pub(crate) fn holds_max_length(limit: u64, instance: &Value) -> bool {
    match instance {
        // A string of at most `limit` bytes has at most `limit` characters: the byte test skips counting.
        Value::String(text) => {
            u64::try_from(text.len()).is_ok_and(|bytes| bytes <= limit) || length(text) <= limit
        }
        _ => true,
    }
}

/// `minLength`'s verdict (non-strings pass).
#[inline]
pub(crate) fn holds_min_length(limit: u64, instance: &Value) -> bool {
    match instance {
        // A character takes one to four bytes: the byte count settles most cases without counting.
        Value::String(text) => {
            let bytes = u64::try_from(text.len()).unwrap_or(u64::MAX);
            if bytes < limit {
                false
            } else if bytes / 4 >= limit {
                true
            } else {
                length(text) >= limit
            }
        }
        _ => true,
    }
}

/// `pattern`'s verdict (non-strings pass; a match that exceeds the regex budget fails).
#[inline]
pub(crate) fn holds_pattern(regex: &EcmaRegex, instance: &Value) -> bool {
    match instance {
        Value::String(text) => regex.is_match(text) == Ok(true),
        _ => true,
    }
}

pub(crate) fn evaluate_pattern(
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
            crate::text::push_quoted(&mut message, pattern);
        }
        Err(_) => {
            message.push_str("matching the pattern ");
            crate::text::push_quoted(&mut message, pattern);
            message.push_str(" exceeded the regex budget");
        }
    }
    ev.fail(frame, node, ViolationKind::Pattern, Detail::message(message))
}
