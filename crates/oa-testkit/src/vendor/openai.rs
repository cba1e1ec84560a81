//! OpenAI's strict mode, as its Structured Outputs guide ("Supported schemas", checked 2026-12-07) and reported live
//! 400s word it: an object root, every object closed and every property required, a `type` (or `anyOf`, `$ref`) on
//! every subschema, no composition keywords but `anyOf`, nine formats, no lookaround, items on every array, no
//! `$ref` beside other keywords, and the size limits.

use serde_json::{Map, Value};

use super::walk::{self, Visit};
use super::{Rejection, Vendor};

const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// "Some type-specific keywords are not yet supported" (the guide's composition list), plus `oneOf` and
/// `uniqueItems`, refused live.
const REFUSED: [&str; 9] = [
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
    "oneOf",
    "uniqueItems",
];

pub(super) fn check(schema: &Value) -> Result<(), Rejection> {
    let reject =
        |rule, context: &[String], detail: String| Err(Rejection::new(Vendor::OpenAi, rule, context, detail));
    let root_type = schema.get("type");
    if root_type != Some(&Value::String("object".to_owned())) || schema.get("anyOf").is_some() {
        return reject(
            "root",
            &[],
            format!(
                "schema must be a JSON Schema of 'type: \"object\"', got 'type: {}'",
                root_type.map_or("None".to_owned(), Value::to_string)
            ),
        );
    }
    let Some(visits) = walk::subschemas(schema) else {
        return reject("limit", &[], "schema is nested too deeply".to_owned());
    };
    for Visit { context, schema } in &visits {
        let Value::Object(map) = schema else {
            return reject("not_an_object", context, "schema must be an object".to_owned());
        };
        if let Some(rejection) = node(map, context) {
            return Err(rejection);
        }
    }
    limits(schema)
}

fn node(map: &Map<String, Value>, context: &[String]) -> Option<Rejection> {
    let reject = |rule, detail: String| Some(Rejection::new(Vendor::OpenAi, rule, context, detail));
    if map.contains_key("$ref") {
        let siblings: Vec<&String> = map.keys().filter(|key| *key != "$ref").collect();
        if !siblings.is_empty() {
            return reject("ref_siblings", format!("$ref cannot have keywords {siblings:?}"));
        }
        return None;
    }
    if !(map.contains_key("type") || map.contains_key("anyOf")) {
        return reject("type", "schema must have a 'type' key.".to_owned());
    }
    if let Some(keyword) = REFUSED.iter().find(|keyword| map.contains_key(**keyword)) {
        return reject("keyword", format!("'{keyword}' is not permitted."));
    }
    if let Some(Value::String(format)) = map.get("format")
        && !FORMATS.contains(&format.as_str())
    {
        return reject("format", format!("'{format}' is not a valid format."));
    }
    if let Some(Value::String(pattern)) = map.get("pattern")
        && has_lookaround(pattern)
    {
        return reject(
            "pattern",
            format!("pattern '{pattern}' uses lookaround, which is not supported."),
        );
    }
    if walk::has_type(map, "array") && !map.contains_key("items") {
        return reject("items", "array schema missing items.".to_owned());
    }
    if walk::is_object(map) {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return reject(
                "additional_properties",
                "'additionalProperties' is required to be supplied and to be false.".to_owned(),
            );
        }
        let required = walk::required(map);
        let missing = map
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, _)| name)
            .find(|name| !required.contains(&name.as_str()));
        if let Some(missing) = missing {
            return reject(
                "required",
                format!(
                    "'required' is required to be supplied and to be an array including every key in properties. Missing '{missing}'."
                ),
            );
        }
    }
    None
}

/// Whether a pattern has `(?=`, `(?!`, `(?<=` or `(?<!` outside an escape.
fn has_lookaround(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut idx = 0;
    while idx < chars.len() {
        match chars[idx] {
            '\\' => idx += 2,
            '(' => {
                let next: String = chars[idx + 1..].iter().take(3).collect();
                if next.starts_with("?=")
                    || next.starts_with("?!")
                    || next.starts_with("?<=")
                    || next.starts_with("?<!")
                {
                    return true;
                }
                idx += 1;
            }
            _ => idx += 1,
        }
    }
    false
}

/// "Objects have limitations on nesting depth and size", "Limitations on total string size", "Limitations on enum
/// size".
fn limits(schema: &Value) -> Result<(), Rejection> {
    let reject = |detail: String| Err(Rejection::new(Vendor::OpenAi, "limit", &[], detail));
    let visits = walk::subschemas(schema).unwrap_or_default();
    let (mut properties, mut enum_values, mut characters) = (0usize, 0usize, 0usize);
    for Visit { schema, context } in &visits {
        let Value::Object(map) = schema else { continue };
        if context.len() >= 2 && matches!(context[context.len() - 2].as_str(), "$defs" | "definitions") {
            characters += context[context.len() - 1].chars().count();
        }
        if let Some(Value::Object(names)) = map.get("properties") {
            properties += names.len();
            characters += names.keys().map(|name| name.chars().count()).sum::<usize>();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            enum_values += values.len();
            let length: usize = values.iter().map(value_length).sum();
            characters += length;
            if values.len() > 250 && values.iter().all(Value::is_string) && length > 15_000 {
                return reject(format!(
                    "an enum of {} string values has {length} characters, over 15000",
                    values.len()
                ));
            }
        }
        if let Some(value) = map.get("const") {
            characters += value_length(value);
        }
    }
    if properties > 5_000 {
        return reject(format!("{properties} object properties, over the limit of 5000"));
    }
    if enum_values > 1_000 {
        return reject(format!("{enum_values} enum values, over the limit of 1000"));
    }
    if characters > 120_000 {
        return reject(format!(
            "{characters} characters of names and values, over the limit of 120000"
        ));
    }
    let depth = nesting(schema, schema, &mut Vec::new());
    if depth > 10 {
        return reject(format!("{depth} levels of nesting, over the limit of 10"));
    }
    Ok(())
}

fn value_length(value: &Value) -> usize {
    value
        .as_str()
        .map_or_else(|| value.to_string().len(), |text| text.chars().count())
}

/// The most object schemas on one path from `node` down, `$ref`s followed; a reference already on the path (a
/// recursion) adds nothing.
fn nesting(root: &Value, node: &Value, path: &mut Vec<String>) -> usize {
    let Value::Object(map) = node else { return 0 };
    if path.len() > walk::MAX_DEPTH {
        return 0;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if reference == "#" || path.iter().any(|held| held == reference) {
            return 0;
        }
        let Some(target) = walk::resolve(root, reference) else {
            return 0;
        };
        path.push(reference.to_owned());
        let depth = nesting(root, target, path);
        path.pop();
        return depth;
    }
    let mut deepest = 0;
    for (key, value) in map {
        let children: Vec<&Value> = match key.as_str() {
            "properties" => value
                .as_object()
                .into_iter()
                .flatten()
                .map(|(_, member)| member)
                .collect(),
            "items" | "additionalProperties" => vec![value],
            "anyOf" | "prefixItems" => value.as_array().into_iter().flatten().collect(),
            _ => Vec::new(),
        };
        for child in children {
            deepest = deepest.max(nesting(root, child, path));
        }
    }
    deepest + usize::from(walk::is_object(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn closed(properties: Value) -> Value {
        let required: Vec<String> = properties.as_object().unwrap().keys().cloned().collect();
        json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
    }

    #[test]
    fn strict_schemas_pass_and_each_rule_is_a_400() {
        assert!(
            check(&closed(
                json!({"a": {"type": ["string", "null"], "format": "uuid"}})
            ))
            .is_ok()
        );
        let cases = [
            (json!({"type": "array", "items": {"type": "string"}}), "root"),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
                "required",
            ),
            (
                json!({"type": "object", "properties": {}, "required": []}),
                "additional_properties",
            ),
            (closed(json!({"a": {"description": "x"}})), "type"),
            (
                closed(json!({"a": {"type": "string", "format": "uri"}})),
                "format",
            ),
            (
                closed(json!({"a": {"type": "string", "pattern": "^(?!x)"}})),
                "pattern",
            ),
            (closed(json!({"a": {"type": "array"}})), "items"),
            (
                closed(json!({"a": {"$ref": "#/$defs/b", "description": "d"}})),
                "ref_siblings",
            ),
            (closed(json!({"a": {"type": "string", "allOf": []}})), "keyword"),
            (
                closed(json!({"a": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}})),
                "keyword",
            ),
        ];
        for (schema, rule) in cases {
            assert_eq!(
                check(&schema).map_err(|rejection| rejection.rule),
                Err(rule),
                "{schema}"
            );
        }
    }

    #[test]
    fn limits_are_counted_as_documented() {
        let mut inner = closed(json!({"leaf": {"type": "string"}}));
        for _ in 0..9 {
            inner = closed(json!({"next": inner}));
        }
        assert!(check(&inner).is_ok(), "10 levels");
        let deeper = closed(json!({"next": inner}));
        assert_eq!(check(&deeper).unwrap_err().rule, "limit");
        let values: Vec<String> = (0..1_001).map(|idx| format!("v{idx}")).collect();
        assert_eq!(
            check(&closed(json!({"e": {"type": "string", "enum": values}})))
                .unwrap_err()
                .rule,
            "limit"
        );
        let recursive = json!({"type": "object", "properties": {"kid": {"$ref": "#"}}, "required": ["kid"],
                               "additionalProperties": false});
        assert!(check(&recursive).is_ok());
    }
}
