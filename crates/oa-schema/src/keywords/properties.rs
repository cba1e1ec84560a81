//! `properties`, `patternProperties`, `additionalProperties`, `propertyNames` and `dependentSchemas`.

use super::{Keyword, is_false};
use crate::compile::NodeCompiler;
use crate::ecma_regex::EcmaRegex;
use crate::error::SchemaError;
use crate::eval::{Detail, Evaluator, Extra, Frame, Step};
use crate::evaluated::Evaluated;
use crate::node::{Node, NodeId};
use serde_json::{Map, Value};

fn schema_map<'a>(
    cx: &NodeCompiler<'_, '_>,
    keyword: &str,
    value: &'a Value,
) -> Result<&'a Map<String, Value>, SchemaError> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(cx.invalid(keyword, "expected an object of schemas")),
    }
}

pub(crate) fn compile_properties(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let map = schema_map(cx, "properties", value)?;
    let entries: Box<[(Box<str>, NodeId)]> = map
        .keys()
        .map(|name| (Box::from(name.as_str()), cx.child(&["properties", name])))
        .collect();
    let mut by_name: Box<[(Box<str>, NodeId)]> = entries.clone();
    by_name.sort_by(|a, b| a.0.cmp(&b.0));
    // One group until `compile::order_properties_cheap_first` splits it.
    Ok(Keyword::Properties {
        entries,
        by_name,
        split: 0,
    })
}

pub(crate) fn compile_pattern_properties(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let map = schema_map(cx, "patternProperties", value)?;
    let mut entries = Vec::with_capacity(map.len());
    for pattern in map.keys() {
        entries.push((
            cx.regex("patternProperties", pattern)?,
            cx.child(&["patternProperties", pattern]),
        ));
    }
    Ok(Keyword::PatternProperties(entries.into_boxed_slice()))
}

pub(crate) fn compile_additional_properties(
    cx: &mut NodeCompiler<'_, '_>,
    object: &Map<String, Value>,
) -> Result<Keyword, SchemaError> {
    let mut names: Vec<Box<str>> = match object.get("properties") {
        Some(Value::Object(map)) => map.keys().map(|name| Box::from(name.as_str())).collect(),
        _ => Vec::new(),
    };
    names.sort();
    let mut patterns = Vec::new();
    if let Some(Value::Object(map)) = object.get("patternProperties") {
        for pattern in map.keys() {
            patterns.push(cx.regex("patternProperties", pattern)?);
        }
    }
    Ok(Keyword::AdditionalProperties {
        node: cx.child(&["additionalProperties"]),
        names: names.into_boxed_slice(),
        patterns: patterns.into_boxed_slice(),
    })
}

pub(crate) fn compile_dependent_schemas(
    cx: &mut NodeCompiler<'_, '_>,
    value: &Value,
) -> Result<Keyword, SchemaError> {
    let map = schema_map(cx, "dependentSchemas", value)?;
    let entries = map
        .keys()
        .map(|name| (Box::from(name.as_str()), cx.child(&["dependentSchemas", name])))
        .collect();
    Ok(Keyword::DependentSchemas(entries))
}

pub(crate) fn evaluate_properties<'v>(
    ev: &mut Evaluator<'_>,
    entries: &[(Box<str>, NodeId)],
    groups: [&[(Box<str>, NodeId)]; 2],
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    if ev.schema.sorted_maps && !few_names_many_members(entries.len(), object.len()) {
        let mut valid = true;
        for group in groups {
            if group.is_empty() {
                continue;
            }
            if !evaluate_properties_merged(ev, group, object, frame, evaluated) {
                valid = false;
                if !ev.collect {
                    return false;
                }
            }
        }
        return valid;
    }
    // Walk whichever side is much smaller: the schema's list (looking members up in the instance) or the instance
    // (looking names up in the sorted list). Meta-schema checks meet small objects against long lists.
    if object.len() * 4 < entries.len() {
        let schema = ev.schema;
        let mut valid = true;
        for (key, value) in object {
            let Some(id) = groups.iter().find_map(|group| {
                group
                    .binary_search_by(|(name, _)| crate::text::cmp_names(name, key))
                    .ok()
                    .map(|found| group[found].1)
            }) else {
                continue;
            };
            if let Some(evaluated) = evaluated.as_mut() {
                evaluated.properties.insert(key.as_str());
            }
            let relative = schema.nodes[id as usize].relative();
            if !ev.descend(frame, id, value, Some(Step::Key(key)), relative, None) {
                valid = false;
                if !ev.collect {
                    return false;
                }
            }
        }
        return valid;
    }
    let schema = ev.schema;
    let mut valid = true;
    for (name, id) in entries {
        let Some((key, value)) = object.get_key_value(name.as_ref()) else {
            continue;
        };
        if let Some(evaluated) = evaluated.as_mut() {
            evaluated.properties.insert(key.as_str());
        }
        let relative = schema.nodes[*id as usize].relative();
        if !ev.descend(frame, *id, value, Some(Step::Key(key)), relative, None) {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    valid
}

pub(crate) fn evaluate_pattern_properties<'v>(
    ev: &mut Evaluator<'_>,
    entries: &[(EcmaRegex, NodeId)],
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let mut valid = true;
    for (key, value) in object {
        for (regex, id) in entries {
            let item_valid = match regex.is_match(key) {
                Ok(false) => continue,
                Ok(true) => {
                    if let Some(evaluated) = evaluated.as_mut() {
                        evaluated.properties.insert(key.as_str());
                    }
                    let relative = schema.nodes[*id as usize].relative();
                    ev.descend(frame, *id, value, Some(Step::Key(key)), relative, None)
                }
                Err(_) => budget_exceeded(ev, key, node, frame),
            };
            if !item_valid {
                valid = false;
                if !ev.collect {
                    return false;
                }
            }
        }
    }
    valid
}

#[cold]
fn budget_exceeded(ev: &mut Evaluator<'_>, key: &str, node: &Node, frame: &Frame<'_, '_>) -> bool {
    let mut detail = Detail::parts(&["matching the property name exceeded the regex budget"]);
    detail.extra = Some(Extra::Key(key));
    ev.fail(frame, node, "patternProperties", detail)
}

/// Whether a property is covered by `properties` or `patternProperties`; a pattern that exceeds its budget counts
/// as not matching (the `patternProperties` keyword reports the budget itself).
pub(crate) fn is_declared(key: &str, names: &[Box<str>], patterns: &[EcmaRegex]) -> bool {
    names
        .binary_search_by(|name| crate::text::cmp_names(name, key))
        .is_ok()
        || patterns.iter().any(|regex| regex.is_match(key).unwrap_or(false))
}

#[allow(clippy::too_many_arguments)] // The evaluator's common arguments plus the keyword's siblings.
pub(crate) fn evaluate_additional_properties<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    names: &[Box<str>],
    patterns: &[EcmaRegex],
    node: &Node,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    let rejects_all = is_false(ev, id);
    let sorted = schema.sorted_maps;
    let mut cursor = 0;
    let mut valid = true;
    for (key, value) in object {
        let declared = if sorted {
            // Merge with the sorted names: each member costs one comparison forward.
            let mut named = false;
            while let Some(name) = names.get(cursor) {
                match crate::text::cmp_names(name, key) {
                    std::cmp::Ordering::Less => cursor += 1,
                    std::cmp::Ordering::Equal => {
                        named = true;
                        break;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            named || patterns.iter().any(|regex| regex.is_match(key).unwrap_or(false))
        } else {
            is_declared(key, names, patterns)
        };
        if declared {
            continue;
        }
        let item_valid = if rejects_all {
            rejected(ev, "additionalProperties", key, node, frame)
        } else {
            ev.descend(frame, id, value, Some(Step::Key(key)), relative, None)
        };
        if !item_valid {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    if let Some(evaluated) = evaluated {
        evaluated.all_properties = true;
    }
    valid
}

/// Reports a property rejected by a `false` subschema, located at the property itself.
#[cold]
pub(crate) fn rejected(
    ev: &mut Evaluator<'_>,
    keyword: &'static str,
    key: &str,
    node: &Node,
    frame: &Frame<'_, '_>,
) -> bool {
    let mut detail = Detail::parts(&["property is not allowed"]);
    detail.extra = Some(Extra::Key(key));
    ev.fail(frame, node, keyword, detail)
}

pub(crate) fn evaluate_property_names<'v>(
    ev: &mut Evaluator<'_>,
    id: NodeId,
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let relative = schema.nodes[id as usize].relative();
    let mut valid = true;
    for key in object.keys() {
        // Violations about a name are located at the property it names.
        let name = Value::String(key.clone());
        ev.memo_suspended += 1;
        let name_valid = ev.descend(frame, id, &name, Some(Step::Key(key)), relative, None);
        ev.memo_suspended -= 1;
        if !name_valid {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    valid
}

pub(crate) fn evaluate_dependent_schemas<'v>(
    ev: &mut Evaluator<'_>,
    entries: &[(Box<str>, NodeId)],
    instance: &'v Value,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let Value::Object(object) = instance else {
        return true;
    };
    let schema = ev.schema;
    let mut valid = true;
    for (name, id) in entries {
        if !object.contains_key(name.as_ref()) {
            continue;
        }
        let relative = schema.nodes[*id as usize].relative();
        if !ev.descend(frame, *id, instance, None, relative, evaluated.as_mut()) {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    valid
}

/// `properties` over a map that iterates in key order: one merge pass of the sorted names with the members.
/// Whether a `properties` of `n_names` names meets an object of `n_members` so much larger that looking each name
/// up beats walking every member (the `if: {properties: {type: {const: …}}}` clauses of a large `allOf`).
#[inline]
pub(crate) fn few_names_many_members(n_names: usize, n_members: usize) -> bool {
    n_names.saturating_mul(8) <= n_members
}

fn evaluate_properties_merged<'v>(
    ev: &mut Evaluator<'_>,
    by_name: &[(Box<str>, NodeId)],
    object: &'v serde_json::Map<String, Value>,
    frame: &Frame<'_, 'v>,
    evaluated: &mut Option<Evaluated<'v>>,
) -> bool {
    let schema = ev.schema;
    let mut cursor = 0;
    let mut valid = true;
    for (key, value) in object {
        let mut found = None;
        while let Some((name, id)) = by_name.get(cursor) {
            match crate::text::cmp_names(name, key) {
                std::cmp::Ordering::Less => cursor += 1,
                std::cmp::Ordering::Equal => {
                    found = Some(*id);
                    cursor += 1;
                    break;
                }
                std::cmp::Ordering::Greater => break,
            }
        }
        let Some(id) = found else { continue };
        if let Some(evaluated) = evaluated.as_mut() {
            evaluated.properties.insert(key.as_str());
        }
        let relative = schema.nodes[id as usize].relative();
        if !ev.descend(frame, id, value, Some(Step::Key(key)), relative, None) {
            valid = false;
            if !ev.collect {
                return false;
            }
        }
    }
    valid
}
