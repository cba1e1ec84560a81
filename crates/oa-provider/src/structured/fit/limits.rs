//! The providers' size limits, counted on the fitted schema: OpenAI's properties, nesting, enum and string budgets,
//! Anthropic's union-typed and optional properties; and the reference cycles a provider cannot take (any cycle for
//! Anthropic, a cycle through required properties only for Gemini).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{FitError, Limit};
use super::recursion::on_cycle;
use crate::model::Mapping;

/// OpenAI: object properties in the whole schema.
pub(crate) const OPENAI_MAX_PROPERTIES: usize = 5_000;
/// OpenAI: levels of object nesting (the root object is level 1).
pub(crate) const OPENAI_MAX_NESTING: usize = 10;
/// OpenAI: enum values across the schema.
pub(crate) const OPENAI_MAX_ENUM_VALUES: usize = 1_000;
/// OpenAI: characters of one string enum with more than [`OPENAI_LARGE_ENUM`] values.
pub(crate) const OPENAI_MAX_ENUM_STRING_LENGTH: usize = 15_000;
pub(crate) const OPENAI_LARGE_ENUM: usize = 250;
/// OpenAI: characters of property names, definition names, enum and const values.
pub(crate) const OPENAI_MAX_STRING_LENGTH: usize = 120_000;
/// Anthropic: subschemas with a type array or `anyOf`.
pub(crate) const ANTHROPIC_MAX_UNIONS: usize = 16;
/// Anthropic: optional properties.
pub(crate) const ANTHROPIC_MAX_OPTIONAL: usize = 24;

/// What the limits are measured on.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) properties: usize,
    pub(crate) enum_values: usize,
    pub(crate) largest_string_enum: usize,
    pub(crate) string_length: usize,
    pub(crate) unions: usize,
    pub(crate) optional: usize,
    pub(crate) nesting: usize,
}

/// Counts a fitted schema (the root and each of its `$defs` once).
pub(crate) fn count(schema: &Value) -> Counts {
    let mut counts = Counts::default();
    let defs = definitions(schema);
    for name in defs.keys() {
        counts.string_length += name.chars().count();
    }
    let mut pending: Vec<&Value> = vec![schema];
    pending.extend(defs.values());
    while let Some(node) = pending.pop() {
        let Value::Object(map) = node else {
            continue;
        };
        if let Some(Value::Object(properties)) = map.get("properties") {
            counts.properties += properties.len();
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for name in properties.keys() {
                counts.string_length += name.chars().count();
                if !required.contains(&name.as_str()) {
                    counts.optional += 1;
                }
            }
            pending.extend(properties.values());
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            counts.enum_values += values.len();
            let length: usize = values.iter().map(text_length).sum();
            counts.string_length += length;
            if values.len() > OPENAI_LARGE_ENUM && values.iter().all(Value::is_string) {
                counts.largest_string_enum = counts.largest_string_enum.max(length);
            }
        }
        if let Some(value) = map.get("const") {
            counts.string_length += text_length(value);
        }
        let union = map.contains_key("anyOf")
            || map
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|names| names.len() > 1);
        counts.unions += usize::from(union);
        for keyword in ["items", "additionalProperties"] {
            if let Some(sub) = map.get(keyword) {
                pending.push(sub);
            }
        }
        for keyword in ["anyOf", "allOf", "prefixItems"] {
            if let Some(Value::Array(members)) = map.get(keyword) {
                pending.extend(members);
            }
        }
    }
    counts.nesting = nesting(schema, &defs, &mut BTreeMap::new(), 0);
    counts
}

/// Checks OpenAI's documented limits.
pub(crate) fn check_openai(counts: &Counts) -> Result<(), FitError> {
    let checks = [
        (Limit::Properties, counts.properties, OPENAI_MAX_PROPERTIES),
        (Limit::Nesting, counts.nesting, OPENAI_MAX_NESTING),
        (Limit::EnumValues, counts.enum_values, OPENAI_MAX_ENUM_VALUES),
        (
            Limit::EnumStringLength,
            counts.largest_string_enum,
            OPENAI_MAX_ENUM_STRING_LENGTH,
        ),
        (
            Limit::StringLength,
            counts.string_length,
            OPENAI_MAX_STRING_LENGTH,
        ),
    ];
    check(Mapping::OpenAi, &checks)
}

/// Checks Anthropic's documented limits.
pub(crate) fn check_anthropic(counts: &Counts) -> Result<(), FitError> {
    let checks = [
        (Limit::UnionTypedParameters, counts.unions, ANTHROPIC_MAX_UNIONS),
        (Limit::OptionalProperties, counts.optional, ANTHROPIC_MAX_OPTIONAL),
    ];
    check(Mapping::Anthropic, &checks)
}

fn check(mapping: Mapping, checks: &[(Limit, usize, usize)]) -> Result<(), FitError> {
    match checks.iter().find(|(_, found, max)| found > max) {
        Some((limit, found, max)) => Err(FitError::LimitExceeded {
            mapping,
            limit: *limit,
            found: *found,
            max: *max,
        }),
        None => Ok(()),
    }
}

/// Characters a value adds to OpenAI's string budget: a string's characters, anything else its JSON text.
fn text_length(value: &Value) -> usize {
    match value {
        Value::String(text) => text.chars().count(),
        other => other.to_string().len(),
    }
}

fn definitions(schema: &Value) -> Map<String, Value> {
    schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The deepest chain of object schemas under `node`, references followed (a definition on the current path, a
/// recursion, counts once).
fn nesting(
    node: &Value,
    defs: &Map<String, Value>,
    memo: &mut BTreeMap<String, Option<usize>>,
    depth: usize,
) -> usize {
    let Value::Object(map) = node else {
        return 0;
    };
    if depth > 512 {
        return 0;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let name = reference.strip_prefix("#/$defs/").unwrap_or(reference);
        let name = oa_pointer::JsonPointer::parse_fragment(reference)
            .ok()
            .and_then(|pointer| pointer.tokens().nth(1).map(str::to_owned))
            .unwrap_or_else(|| name.to_owned());
        return match memo.get(&name) {
            Some(Some(depth)) => *depth,
            Some(None) => 0,
            None => {
                memo.insert(name.clone(), None);
                let found = match (reference, defs.get(&name)) {
                    ("#", _) | (_, None) => 0,
                    (_, Some(body)) => nesting(body, defs, memo, depth + 1),
                };
                memo.insert(name, Some(found));
                found
            }
        };
    }
    let object = map.get("type").is_some_and(|kind| {
        kind == "object"
            || kind
                .as_array()
                .is_some_and(|names| names.iter().any(|name| name == "object"))
    });
    let mut children: Vec<&Value> = Vec::new();
    if let Some(Value::Object(properties)) = map.get("properties") {
        children.extend(properties.values());
    }
    for keyword in ["items", "additionalProperties"] {
        children.extend(map.get(keyword));
    }
    for keyword in ["anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(members)) = map.get(keyword) {
            children.extend(members);
        }
    }
    let below = children
        .into_iter()
        .map(|child| nesting(child, defs, memo, depth + 1))
        .max()
        .unwrap_or(0);
    below + usize::from(object)
}

/// The definitions (`#` for the root) that lie on a reference cycle; with `required_only`, counting only references
/// reached through required properties (Gemini's rule: a cycle must pass through an optional property).
pub(crate) fn cyclic_definitions(schema: &Value, required_only: bool) -> Vec<String> {
    let defs = definitions(schema);
    let mut names: Vec<String> = vec!["#".to_owned()];
    names.extend(defs.keys().cloned());
    let index = |name: &str| names.iter().position(|held| held == name);
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (from, name) in names.iter().enumerate() {
        let body = if from == 0 { Some(schema) } else { defs.get(name) };
        let Some(body) = body else {
            continue;
        };
        let mut pending: Vec<(&Value, bool)> = vec![(body, false)];
        while let Some((node, optional)) = pending.pop() {
            let Value::Object(map) = node else {
                continue;
            };
            if let Some(reference) = map.get("$ref").and_then(Value::as_str)
                && !(required_only && optional)
            {
                let target = if reference == "#" {
                    Some(0)
                } else {
                    oa_pointer::JsonPointer::parse_fragment(reference)
                        .ok()
                        .and_then(|pointer| pointer.tokens().nth(1).and_then(index))
                };
                edges[from].extend(target);
            }
            if let Some(Value::Object(properties)) = map.get("properties") {
                let required: Vec<&str> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (name, sub) in properties {
                    pending.push((sub, optional || !required.contains(&name.as_str())));
                }
            }
            for keyword in ["items", "additionalProperties"] {
                if let Some(sub) = map.get(keyword) {
                    pending.push((sub, optional));
                }
            }
            for keyword in ["anyOf", "allOf", "prefixItems"] {
                if let Some(Value::Array(members)) = map.get(keyword) {
                    pending.extend(members.iter().map(|member| (member, optional)));
                }
            }
        }
    }
    on_cycle(&edges)
        .into_iter()
        .zip(names)
        .filter(|(cyclic, _)| *cyclic)
        .map(|(_, name)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_follow_the_documented_rules() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": "object", "properties": {"c": {"$ref": "#/$defs/d"}}, "required": ["c"]},
                "e": {"enum": ["xy", "z"]}
            },
            "required": ["a"],
            "$defs": {"d": {"type": "object", "properties": {"f": {"anyOf": [{"type": "string"}, {"const": 12}]}}}}
        });
        let counts = count(&schema);
        assert_eq!(counts.properties, 5);
        assert_eq!(counts.optional, 3);
        assert_eq!(counts.unions, 2);
        assert_eq!(counts.enum_values, 2);
        assert_eq!(counts.nesting, 3);
        // a, b, c, e, f, d, "xy", "z", 12
        assert_eq!(counts.string_length, 1 + 1 + 1 + 1 + 1 + 1 + 2 + 1 + 2);
    }

    #[test]
    fn cycles_through_required_properties_only() {
        let optional = json!({"properties": {"next": {"$ref": "#"}}});
        assert_eq!(cyclic_definitions(&optional, false), ["#"]);
        assert!(cyclic_definitions(&optional, true).is_empty());
        let required = json!({"$defs": {"n": {"properties": {"kids": {"items": {"$ref": "#/$defs/n"}}}, "required": ["kids"]}},
                              "properties": {"n": {"$ref": "#/$defs/n"}}});
        assert_eq!(cyclic_definitions(&required, true), ["n"]);
    }

    #[test]
    fn recursion_counts_once_for_nesting() {
        let schema = json!({"type": "object", "properties": {"kid": {"$ref": "#"}, "x": {"$ref": "#/$defs/x"}},
                            "$defs": {"x": {"type": "object", "properties": {"y": {"$ref": "#/$defs/x"}}}}});
        assert_eq!(count(&schema).nesting, 2);
    }
}
