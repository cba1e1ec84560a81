//! Anthropic's structured outputs, as its "JSON Schema limitations" section words them (checked 2026-12-07: "If you
//! use an unsupported feature, you'll receive a 400 error"): every object closed, no numeric or string-length
//! constraints, no array constraints beyond `minItems` 0 or 1, primitive enums only, no recursion, no external
//! `$ref`, no `$ref` inside `allOf`, simple patterns only; and the limits of 16 union-typed and 24 optional
//! properties (a live 400 words the first: "Schemas contains too many parameters with union types").

use serde_json::{Map, Value};

use super::walk::{self, RefGraph, Visit};
use super::{Rejection, Vendor};

/// "Numerical constraints", "String constraints", "Array constraints beyond minItems of 0 or 1".
const REFUSED: [&str; 12] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
];
const MAX_UNIONS: usize = 16;
const MAX_OPTIONAL: usize = 24;
/// The documentation refuses "complex {n,m} quantifiers with large ranges" without a number; read here as a bound
/// over 100.
const MAX_QUANTIFIER: u64 = 100;

pub(super) fn check(schema: &Value) -> Result<(), Rejection> {
    let reject = |rule, context: &[String], detail: String| {
        Err(Rejection::new(Vendor::Anthropic, rule, context, detail))
    };
    let Some(visits) = walk::subschemas(schema) else {
        return reject("limit", &[], "Schema is too complex".to_owned());
    };
    let (mut unions, mut optional) = (0usize, 0usize);
    for Visit { context, schema } in &visits {
        let Value::Object(map) = schema else { continue };
        if let Some(rejection) = node(map, context) {
            return Err(rejection);
        }
        let type_array = map
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|kinds| kinds.len() > 1);
        unions += usize::from(map.contains_key("anyOf") || type_array);
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required = walk::required(map);
            optional += properties
                .keys()
                .filter(|name| !required.contains(&name.as_str()))
                .count();
        }
    }
    let graph = RefGraph::of(schema);
    if let Some(node) = graph.cycle(|_| true) {
        return reject(
            "recursion",
            &[graph.targets[node].clone()],
            "Too many recursive definitions in schema".to_owned(),
        );
    }
    if unions > MAX_UNIONS {
        return reject(
            "limit",
            &[],
            format!(
                "Schemas contains too many parameters with union types ({unions} parameters with type arrays or anyOf) which exceeds the limit: {MAX_UNIONS}"
            ),
        );
    }
    if optional > MAX_OPTIONAL {
        return reject(
            "limit",
            &[],
            format!(
                "Schemas contains too many optional parameters ({optional}), which exceeds the limit: {MAX_OPTIONAL}"
            ),
        );
    }
    Ok(())
}

fn node(map: &Map<String, Value>, context: &[String]) -> Option<Rejection> {
    let reject = |rule, detail: String| Some(Rejection::new(Vendor::Anthropic, rule, context, detail));
    let kind = map.get("type").and_then(Value::as_str).unwrap_or("schema");
    if walk::is_object(map) && map.get("additionalProperties") != Some(&Value::Bool(false)) {
        return reject(
            "additional_properties",
            "For 'object' type, 'additionalProperties' must be explicitly set to false".to_owned(),
        );
    }
    if let Some(keyword) = REFUSED.iter().find(|keyword| map.contains_key(**keyword)) {
        return reject(
            "keyword",
            format!("For '{kind}' type, property '{keyword}' is not supported"),
        );
    }
    if let Some(min) = map.get("minItems")
        && min.as_f64().is_none_or(|min| min > 1.0)
    {
        return reject(
            "keyword",
            format!("For 'array' type, 'minItems' values other than 0 or 1 are not supported, got {min}"),
        );
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && values.iter().any(|value| value.is_object() || value.is_array())
    {
        return reject("enum", "Complex types within enums are not supported".to_owned());
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && !reference.starts_with('#')
    {
        return reject(
            "external_ref",
            format!("External $ref '{reference}' is not supported"),
        );
    }
    if let Some(Value::Array(members)) = map.get("allOf")
        && members.iter().any(|member| member.get("$ref").is_some())
    {
        return reject("all_of_ref", "'allOf' with '$ref' is not supported".to_owned());
    }
    if let Some(Value::String(pattern)) = map.get("pattern")
        && let Some(feature) = unsupported_regex(pattern)
    {
        return reject(
            "pattern",
            format!("Unsupported regex feature in pattern: {feature}"),
        );
    }
    None
}

/// The first regex feature of the documentation's "NOT supported" list a pattern uses.
fn unsupported_regex(pattern: &str) -> Option<&'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut idx = 0;
    let mut in_class = false;
    while idx < chars.len() {
        match chars[idx] {
            '\\' => {
                match chars.get(idx + 1) {
                    Some('1'..='9' | 'k') if !in_class => return Some("backreference"),
                    Some('b' | 'B') if !in_class => return Some("word boundary"),
                    _ => {}
                }
                idx += 2;
                continue;
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                let next: String = chars[idx + 1..].iter().take(3).collect();
                if next.starts_with("?=")
                    || next.starts_with("?!")
                    || next.starts_with("?<=")
                    || next.starts_with("?<!")
                {
                    return Some("lookaround");
                }
            }
            '{' if !in_class => {
                let inside: String = chars[idx + 1..].iter().take_while(|c| **c != '}').collect();
                let is_quantifier =
                    !inside.is_empty() && inside.chars().all(|c| c.is_ascii_digit() || c == ',');
                let closed = chars.get(idx + 1 + inside.chars().count()) == Some(&'}');
                if is_quantifier
                    && closed
                    && inside.split(',').any(|bound| {
                        bound.len() > 18 || bound.parse::<u64>().is_ok_and(|n| n > MAX_QUANTIFIER)
                    })
                {
                    return Some("large quantifier range");
                }
            }
            _ => {}
        }
        idx += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn closed(properties: Value) -> Value {
        json!({"type": "object", "properties": properties, "additionalProperties": false})
    }

    #[test]
    fn each_documented_limitation_is_a_400() {
        assert!(
            check(&closed(
                json!({"a": {"type": "string", "pattern": "^[a-z]{1,100}$", "format": "uri"},
                                     "b": {"type": "array", "items": {"type": "integer"}, "minItems": 1}})
            ))
            .is_ok()
        );
        let cases = [
            (
                json!({"type": "object", "properties": {}}),
                "additional_properties",
            ),
            (closed(json!({"a": {"type": "integer", "minimum": 1}})), "keyword"),
            (
                closed(json!({"a": {"type": "string", "maxLength": 3}})),
                "keyword",
            ),
            (
                closed(json!({"a": {"type": "array", "items": {}, "minItems": 2}})),
                "keyword",
            ),
            (
                closed(json!({"a": {"type": "array", "items": {}, "maxItems": 2}})),
                "keyword",
            ),
            (closed(json!({"a": {"enum": [{"x": 1}]}})), "enum"),
            (closed(json!({"a": {"$ref": "other.json"}})), "external_ref"),
            (
                closed(json!({"a": {"allOf": [{"$ref": "#/$defs/b"}]}})),
                "all_of_ref",
            ),
            (
                closed(json!({"a": {"type": "string", "pattern": "(a)\\1"}})),
                "pattern",
            ),
            (
                closed(json!({"a": {"type": "string", "pattern": "a{1,500}"}})),
                "pattern",
            ),
            (closed(json!({"kid": {"$ref": "#"}})), "recursion"),
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
    fn the_union_and_optional_limits() {
        let unions: serde_json::Map<String, Value> = (0..17)
            .map(|idx| (format!("p{idx}"), json!({"type": ["string", "null"]})))
            .collect();
        let mut schema = closed(Value::Object(unions.clone()));
        schema["required"] = json!(unions.keys().collect::<Vec<_>>());
        let rejection = check(&schema).unwrap_err();
        assert!(
            rejection
                .detail
                .contains("too many parameters with union types (17"),
            "{rejection}"
        );
        let optional: serde_json::Map<String, Value> = (0..25)
            .map(|idx| (format!("p{idx}"), json!({"type": "string"})))
            .collect();
        assert!(
            check(&closed(Value::Object(optional)))
                .unwrap_err()
                .detail
                .contains("optional")
        );
    }
}
