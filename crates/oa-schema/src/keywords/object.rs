//! `minProperties`, `maxProperties`, `required` and `dependentRequired`. A missing property is one violation
//! located where it would be.

use super::{DependentRule, Keyword};
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Extra, Frame};
use crate::node::Node;
use crate::violation::ViolationKind;
use serde_json::Value;

fn names(cx: &NodeCompiler<'_, '_>, keyword: &str, value: &Value) -> Result<Box<[Box<str>]>, SchemaError> {
    let Value::Array(items) = value else {
        return Err(cx.invalid(keyword, "expected an array of strings"));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(Box::from)
                .ok_or_else(|| cx.invalid(keyword, "expected an array of strings"))
        })
        .collect()
}

pub(crate) fn compile_required(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    // Sorted, so that a sorted instance map can be checked in one merge pass (reports are sorted anyway).
    let mut required = names(cx, "required", value)?;
    required.sort();
    Ok(Keyword::Required(required))
}

pub(crate) fn compile_dependent_required(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Object(rules) = value else {
        return Err(cx.invalid("dependentRequired", "expected an object"));
    };
    let mut compiled = Vec::with_capacity(rules.len());
    for (name, required) in rules {
        compiled.push((
            Box::from(name.as_str()),
            names(cx, "dependentRequired", required)?,
        ));
    }
    Ok(Keyword::DependentRequired(compiled.into_boxed_slice()))
}

fn n_properties(instance: &serde_json::Map<String, Value>) -> u64 {
    u64::try_from(instance.len()).unwrap_or(u64::MAX)
}

/// `maxProperties`'s verdict (non-objects pass).
#[inline]
pub(crate) fn holds_max_properties(limit: u64, instance: &Value) -> bool {
    match instance {
        Value::Object(object) => n_properties(object) <= limit,
        _ => true,
    }
}

/// `minProperties`'s verdict (non-objects pass).
#[inline]
pub(crate) fn holds_min_properties(limit: u64, instance: &Value) -> bool {
    match instance {
        Value::Object(object) => n_properties(object) >= limit,
        _ => true,
    }
}

pub(crate) fn evaluate_required(
    ev: &mut Evaluator<'_>,
    names: &[Box<str>],
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    evaluate_required_in(ev, names, node, object, frame)
}

/// `required` over an object in hand (the shape keyword calls it to name the missing properties).
pub(crate) fn evaluate_required_in(
    ev: &mut Evaluator<'_>,
    names: &[Box<str>],
    node: &Node,
    object: &serde_json::Map<String, Value>,
    frame: &Frame<'_, '_>,
) -> bool {
    let mut valid = true;
    for name in missing_names(names, object, ev.schema.sorted_maps) {
        valid = false;
        if !ev.collect {
            return false;
        }
        missing(ev, ViolationKind::Required, name, None, node, frame);
    }
    valid
}

/// `required`'s verdict over an object.
#[inline]
pub(crate) fn holds_required(
    names: &[Box<str>],
    object: &serde_json::Map<String, Value>,
    sorted: bool,
) -> bool {
    missing_names(names, object, sorted).next().is_none()
}

/// The names of `names` (sorted) that `object` lacks, in order. When the map iterates in key order the two are
/// merged, each name costing one step forward.
fn missing_names<'n>(
    names: &'n [Box<str>],
    object: &'n serde_json::Map<String, Value>,
    sorted: bool,
) -> impl Iterator<Item = &'n str> {
    let mut keys = object.keys();
    let mut current = keys.next();
    names
        .iter()
        .filter(move |name| {
            let present = if sorted {
                loop {
                    match current.map(|key| crate::text::cmp_names(key, name)) {
                        Some(std::cmp::Ordering::Less) => current = keys.next(),
                        Some(std::cmp::Ordering::Equal) => break true,
                        _ => break false,
                    }
                }
            } else {
                object.contains_key(name.as_ref())
            };
            !present
        })
        .map(AsRef::as_ref)
}

pub(crate) fn compile_dependencies(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let Value::Object(entries) = value else {
        return Err(cx.invalid("dependencies", "expected an object"));
    };
    let mut required = Vec::new();
    let mut schemas = Vec::new();
    for (name, dependency) in entries {
        match dependency {
            Value::Array(_) => {
                required.push((Box::from(name.as_str()), names(cx, "dependencies", dependency)?))
            }
            _ => schemas.push((Box::from(name.as_str()), cx.child(&["dependencies", name]))),
        }
    }
    Ok(Keyword::Dependencies {
        required: required.into_boxed_slice(),
        schemas: schemas.into_boxed_slice(),
    })
}

/// `dependentRequired`'s (or string-array `dependencies`') verdict over an object.
pub(crate) fn holds_dependent_required(
    rules: &[DependentRule],
    object: &serde_json::Map<String, Value>,
) -> bool {
    rules.iter().all(|(trigger, names)| {
        !object.contains_key(trigger.as_ref()) || names.iter().all(|name| object.contains_key(name.as_ref()))
    })
}

pub(crate) fn evaluate_dependent_required(
    ev: &mut Evaluator<'_>,
    kind: ViolationKind,
    rules: &[DependentRule],
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let mut valid = true;
    for (trigger, names) in rules {
        if !object.contains_key(trigger.as_ref()) {
            continue;
        }
        for name in names.iter() {
            if !object.contains_key(name.as_ref()) {
                valid = false;
                if !ev.collect {
                    return false;
                }
                missing(ev, kind, name, Some(trigger), node, frame);
            }
        }
    }
    valid
}

/// Records a missing property (`required`, `dependentRequired`, `dependencies`; the fused shape for `required`).
#[cold]
pub(crate) fn missing(
    ev: &mut Evaluator<'_>,
    kind: ViolationKind,
    name: &str,
    trigger: Option<&str>,
    node: &Node,
    frame: &Frame<'_, '_>,
) {
    let message = match trigger {
        Some(trigger) => format!(
            "required property {} is missing (required when {} is present)",
            crate::text::quoted(name),
            crate::text::quoted(trigger)
        ),
        None => {
            let mut message = ev.message_buffer();
            message.push_str("required property ");
            crate::text::push_quoted(&mut message, name);
            message.push_str(" is missing");
            message
        }
    };
    let mut detail = Detail::message(message);
    detail.missing_property = Some(name);
    detail.extra = Some(Extra::Key(name));
    ev.fail(frame, node, kind, detail);
}
