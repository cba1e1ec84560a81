//! `type`: the instance's JSON type must be one of the listed ones (`number` admits integers; `1.0` is an integer).

use super::Keyword;
use crate::compile::NodeCompiler;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Frame};
use crate::node::Node;
use crate::types::{JsonType, TypeSet};
use crate::violation::ViolationKind;
use serde_json::Value;

pub(crate) fn compile(cx: &mut NodeCompiler<'_, '_>, value: &Value) -> Result<Keyword, SchemaError> {
    let mut types = TypeSet::default();
    let mut add = |name: &Value| match name.as_str().and_then(JsonType::from_name) {
        Some(ty) => {
            types.insert(ty);
            Ok(())
        }
        None => Err(cx.invalid("type", "expected a type name or an array of type names")),
    };
    match value {
        Value::Array(names) => names.iter().try_for_each(&mut add)?,
        name => add(name)?,
    }
    Ok(Keyword::Type(types))
}

pub(crate) fn evaluate(
    ev: &mut Evaluator<'_>,
    types: TypeSet,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if types.admits(instance) {
        return true;
    }
    fail(ev, types, node, instance, frame)
}

#[cold]
fn fail(
    ev: &mut Evaluator<'_>,
    types: TypeSet,
    node: &Node,
    instance: &Value,
    frame: &Frame<'_, '_>,
) -> bool {
    if !ev.collect {
        return false;
    }
    let mut message = ev.message_buffer();
    message.push_str("expected ");
    types.push_description(&mut message);
    message.push_str(", got ");
    message.push_str(JsonType::of(instance).name());
    let mut detail = Detail::message(message);
    detail.expected_types = types;
    ev.fail(frame, node, ViolationKind::Type, detail)
}
