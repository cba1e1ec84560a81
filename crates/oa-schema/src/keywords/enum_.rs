//! `enum` and `const`: equality under JSON Schema's rules (numbers by value, objects regardless of key order).

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::equal::json_equal;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::node::Node;
use serde_json::Value;

/// How deeply a `const` or `enum` value may nest: comparing and cloning values recurse, so their depth is bounded.
const MAX_VALUE_DEPTH: usize = crate::registry::MAX_SCHEMA_DEPTH;

pub(super) fn compile_const(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    check_depth(cx, "const", value)?;
    Ok(Keyword::Const(value.clone()))
}

pub(super) fn compile(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    let Value::Array(options) = value else {
        return Err(cx.invalid("enum", "expected an array"));
    };
    check_depth(cx, "enum", value)?;
    Ok(Keyword::Enum(options.clone().into_boxed_slice()))
}

/// Rejects values nested deeper than [`MAX_VALUE_DEPTH`].
fn check_depth(cx: &NodeCompiler<'_, '_>, keyword: &str, value: &Value) -> Result<(), SchemaError> {
    if crate::depth::exceeds(value, MAX_VALUE_DEPTH) {
        return Err(SchemaError::TooDeep {
            location: cx.location(keyword),
            limit: MAX_VALUE_DEPTH,
        });
    }
    Ok(())
}

/// `const`'s verdict.
#[inline]
pub(super) fn holds_const(expected: &Value, instance: &Value) -> bool {
    json_equal(expected, instance)
}

/// `enum`'s verdict.
#[inline]
pub(super) fn holds_enum(options: &[Value], instance: &Value) -> bool {
    options.iter().any(|option| json_equal(option, instance))
}

pub(super) fn evaluate_const(
    ev: &mut Evaluator<'_>,
    expected: &Value,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if holds_const(expected, instance) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    ev.fail(
        frame,
        node,
        "const",
        Detail::message(format!("must equal {}", preview(expected))),
    )
}

pub(super) fn evaluate_enum(
    ev: &mut Evaluator<'_>,
    options: &[Value],
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if holds_enum(options, instance) {
        return true;
    }
    if !ev.collect {
        return false;
    }
    let mut message = String::from("must be one of ");
    for (option_idx, option) in options.iter().take(8).enumerate() {
        if option_idx > 0 {
            message.push_str(", ");
        }
        message.push_str(&preview(option));
    }
    if options.len() > 8 {
        message.push_str(", ...");
    }
    ev.fail(frame, node, "enum", Detail::message(message))
}

/// A short rendering of a schema value (never of the instance) for messages.
fn preview(value: &Value) -> String {
    // A short plain string serializes as itself in quotes: skip the serializer for the usual enum of words.
    if let Value::String(text) = value
        && text.len() <= 58
        && super::is_plain(text)
    {
        let mut quoted = String::with_capacity(text.len() + 2);
        quoted.push('"');
        quoted.push_str(text);
        quoted.push('"');
        return quoted;
    }
    let text = value.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    #[test]
    fn preview_is_the_serialized_value() {
        let long = "x".repeat(70);
        for value in [
            json!("pending"),
            json!(""),
            json!("say \"hi\""),
            json!("a\\b"),
            json!("é"),
            json!("tab\t"),
        ] {
            assert_eq!(super::preview(&value), value.to_string(), "{value}");
        }
        let cut = super::preview(&Value::String(long));
        assert_eq!(cut, format!("\"{}...", "x".repeat(56)));
    }
}
