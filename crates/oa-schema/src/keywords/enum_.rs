//! `enum` and `const`: equality under JSON Schema's rules (numbers by value, objects regardless of key order).

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::equal::json_equal;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::flag::plan::Check;
use crate::node::Node;
use crate::violation::ViolationKind;
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::Arc;

/// How deeply a `const` or `enum` value may nest: comparing and cloning values recurse, so their depth is bounded.
const MAX_VALUE_DEPTH: usize = crate::registry::MAX_SCHEMA_DEPTH;

pub(crate) fn compile_const(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    check_depth(cx, "const", value)?;
    Ok(Keyword::Const(value.clone()))
}

pub(crate) fn compile(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    let Value::Array(options) = value else {
        return Err(cx.invalid("enum", "expected an array"));
    };
    check_depth(cx, "enum", value)?;
    Ok(Keyword::Enum(Arc::new(EnumOptions::new(
        options.as_slice().into(),
    ))))
}

/// An `enum`'s values, and its violation message once one was written: the message names up to eight values, and
/// writing it again for every violation was a quarter of a report on enum-heavy schemas (numbers through the
/// formatter). Made on the first failure, so a schema that never fails pays nothing but the empty cell.
#[derive(Debug)]
pub(crate) struct EnumOptions {
    values: Box<[Value]>,
    message: std::sync::OnceLock<Box<str>>,
}

impl EnumOptions {
    pub(crate) fn new(values: Box<[Value]>) -> Self {
        Self {
            values,
            message: std::sync::OnceLock::new(),
        }
    }

    /// The violation message: "must be one of " and up to eight values.
    fn message(&self) -> &str {
        self.message.get_or_init(|| {
            let mut message = String::from("must be one of ");
            for (option_idx, option) in self.values.iter().take(8).enumerate() {
                if option_idx > 0 {
                    message.push_str(", ");
                }
                push_preview(&mut message, option);
            }
            if self.values.len() > 8 {
                message.push_str(", ...");
            }
            message.into_boxed_str()
        })
    }
}

impl std::ops::Deref for EnumOptions {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        &self.values
    }
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
pub(crate) fn holds_const(expected: &Value, instance: &Value) -> bool {
    json_equal(expected, instance)
}

/// `enum`'s verdict.
#[inline]
pub(crate) fn holds_enum(options: &[Value], instance: &Value) -> bool {
    // Strings and numbers (nearly every `enum`) equal only their own kind: compared in place, without a call a value.
    match instance {
        Value::String(text) => options
            .iter()
            .any(|option| matches!(option, Value::String(option) if crate::text::same_name(option, text))),
        Value::Number(number) => options.iter().any(
            |option| matches!(option, Value::Number(option) if crate::number::numbers_equal(option, number)),
        ),
        _ => options.iter().any(|option| json_equal(option, instance)),
    }
}

/// A long `enum` of strings (and perhaps a few other values), for the yes/no evaluator: a string instance is looked
/// up by name rather than compared with every option.
#[derive(Debug)]
pub(crate) struct StringEnum {
    strings: super::names::NameIndex<()>,
    /// The options that are not strings.
    others: Box<[Value]>,
}

impl StringEnum {
    /// The lookup for `options`, if enough of them are strings to be worth an index.
    pub(crate) fn of(options: &[Value]) -> Option<Self> {
        let strings = super::names::NameIndex::new(options.iter().filter_map(|option| match option {
            Value::String(text) => Some((text.as_str(), ())),
            _ => None,
        }))?;
        Some(Self {
            strings,
            others: options
                .iter()
                .filter(|option| !option.is_string())
                .cloned()
                .collect(),
        })
    }

    /// `enum`'s verdict (a string equals only a string). Out of line: the yes/no evaluator's dispatch tail-calls it.
    #[inline(never)]
    pub(crate) fn holds(&self, instance: &Value) -> bool {
        match instance {
            Value::String(text) => self.strings.get(text).is_some(),
            _ => holds_enum(&self.others, instance),
        }
    }
}

pub(crate) fn evaluate_const(
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
    let mut message = ev.message_of(&["must equal "]);
    push_preview(&mut message, expected);
    ev.fail(frame, node, ViolationKind::Const, Detail::message(message))
}

pub(crate) fn evaluate_enum(
    ev: &mut Evaluator<'_>,
    options: &EnumOptions,
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
    let parts = [options.message()];
    ev.fail(frame, node, ViolationKind::Enum, Detail::parts(&parts))
}

/// Appends a short rendering of a schema value (never of the instance) for messages: the value serialized, cut
/// to 57 characters and `...` when longer than 60.
fn push_preview(out: &mut String, value: &Value) {
    // A short plain string serializes as itself in quotes: skip the serializer for the usual enum of words.
    if let Value::String(text) = value
        && text.len() <= 58
        && crate::text::is_plain(text)
    {
        out.push('"');
        out.push_str(text);
        out.push('"');
        return;
    }
    let start = out.len();
    match value {
        Value::Number(number) => push_number(out, number),
        // Writing to a String cannot fail.
        _ => drop(write!(out, "{value}")),
    }
    let written = out.get(start..).unwrap_or_default();
    // Fewer than 61 bytes are fewer than 61 characters: no count needed.
    if written.len() > 60 && written.chars().count() > 60 {
        let cut = written
            .char_indices()
            .nth(57)
            .map_or(written.len(), |(idx, _)| idx);
        out.truncate(start + cut);
        out.push_str("...");
    }
}

/// Appends a number as the serializer writes it (its kept text), without the serializer: an `enum` of numbers
/// names every option in its message.
fn push_number(out: &mut String, number: &serde_json::Number) {
    #[cfg(feature = "arbitrary_precision")]
    out.push_str(number.as_str());
    // Writing to a `String` cannot fail.
    #[cfg(not(feature = "arbitrary_precision"))]
    let _ = write!(out, "{number}");
}

/// `enum`'s check in the yes/no evaluator's plan: a long list of strings looked up by name, else the list.
pub(crate) fn plan(options: &Arc<EnumOptions>) -> Check {
    match StringEnum::of(options) {
        Some(strings) => Check::Strings(Arc::new(strings)),
        None => match ShortStrings::of(options) {
            Some(short) => Check::ShortStrings(short),
            None => Check::Enum(Arc::clone(options)),
        },
    }
}

/// A short `enum` of short strings only (`["part", "chapter", "section"]`, the usual LLM enum), for the yes/no
/// evaluator: each option as its length and [`crate::text::short_key`], so that an option costs three compares
/// (the general loop tested each option's kind and loaded its text first: about 60 instructions for four options).
#[derive(Debug)]
pub(crate) struct ShortStrings {
    options: Box<[(usize, (u64, u64))]>,
}

impl ShortStrings {
    /// The table for `options` when every one is a string of at most 16 bytes (a string `enum` long enough for
    /// [`StringEnum`] takes that instead).
    pub(crate) fn of(options: &[Value]) -> Option<Arc<Self>> {
        let options = options
            .iter()
            .map(|option| match option {
                Value::String(text) => crate::text::short_key(text).map(|key| (text.len(), key)),
                _ => None,
            })
            .collect::<Option<Box<[_]>>>()?;
        Some(Arc::new(Self { options }))
    }

    /// `enum`'s verdict: a string equal to an option (nothing else equals a string).
    #[inline(never)]
    pub(crate) fn holds(&self, instance: &Value) -> bool {
        let Value::String(text) = instance else {
            return false;
        };
        let Some(key) = crate::text::short_key(text) else {
            return false;
        };
        let len = text.len();
        self.options
            .iter()
            .any(|(option_len, option_key)| *option_len == len && *option_key == key)
    }
}

/// `const`'s check in the yes/no evaluator's plan: the one-value `enum` it is.
pub(crate) fn plan_const(expected: &Value) -> Check {
    let options = Arc::new(EnumOptions::new(Box::new([expected.clone()])));
    match ShortStrings::of(&options) {
        Some(short) => Check::ShortStrings(short),
        None => Check::Enum(options),
    }
}

/// Whether an `enum` (or `const`) of these values rejects every container, as the typed route's plan records it:
/// when none of them is one.
pub(crate) fn typed_rejects_containers(values: &[Value]) -> bool {
    values
        .iter()
        .all(|value| !(value.is_object() || value.is_array()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        /// A short string `enum`'s packed table answers as the general comparison does, for strings of every
        /// length around the table's edges (3/4, 7/8, 16/17 bytes), near-misses in one byte, and non-strings.
        #[test]
        fn short_strings_agree_with_the_general_enum(
            options in prop::collection::vec("[ab\u{e9}]{0,17}", 0..6),
            text in "[ab\u{e9}]{0,17}",
            other in prop_oneof![Just(None), Just(Some(json!(1))), Just(Some(json!(null))), Just(Some(json!(["a"])))],
            pick in any::<prop::sample::Index>(),
            mode in 0..3_u8,
        ) {
            let values: Vec<Value> = options.iter().map(|option| json!(option)).collect();
            // An option itself, or an option with one character changed (the near miss), or the drawn text.
            let text = match (mode, options.is_empty()) {
                (0, false) => pick.get(&options).clone(),
                (1, false) => {
                    let option = pick.get(&options);
                    let mut chars: Vec<char> = option.chars().collect();
                    if let Some(last) = chars.last_mut() {
                        *last = if *last == 'a' { 'b' } else { 'a' };
                    }
                    chars.into_iter().collect()
                }
                _ => text,
            };
            let instance = other.unwrap_or_else(|| json!(text));
            match super::ShortStrings::of(&values) {
                Some(short) => prop_assert_eq!(short.holds(&instance), super::holds_enum(&values, &instance)),
                None => prop_assert!(options.iter().any(|option| option.len() > 16)),
            }
        }
    }

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
            assert_eq!(preview(&value), value.to_string(), "{value}");
        }
        let cut = preview(&Value::String(long));
        assert_eq!(cut, format!("\"{}...", "x".repeat(56)));
        let long_number: Value = serde_json::from_str(&"7".repeat(70)).unwrap();
        // The number as serde_json holds it: its digits with `arbitrary_precision`, else its `f64`.
        let expected = if cfg!(feature = "arbitrary_precision") {
            format!("{}...", "7".repeat(57))
        } else {
            "7.777777777777778e+69".to_owned()
        };
        assert_eq!(preview(&long_number), expected);
        let mut after_text = String::from("é, ");
        super::push_preview(&mut after_text, &json!([1, "é".repeat(70)]));
        assert_eq!(after_text, format!("é, [1,\"{}...", "é".repeat(53)));
    }

    fn preview(value: &Value) -> String {
        let mut out = String::new();
        super::push_preview(&mut out, value);
        out
    }
}
