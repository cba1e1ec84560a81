//! OpenAI's structured-output rules (§8.1.5): the strict-mode predicate that decides between `native`
//! (`strict: true`) and `native_unenforced` (`strict: false`), the schema name the wire requires, and the
//! `response_format` value itself.

use serde_json::{Map, Value, json};

use crate::canonical;

/// The native `response_format` for `schema` (§8.1.5).
pub(crate) fn response_format(schema: &Value, strict: bool) -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {"name": schema_name(schema), "schema": schema, "strict": strict},
    })
}

/// Whether `schema` meets OpenAI's strict-mode rules, so the request may say `strict: true` (§8.1.5).
///
/// Every object schema must list `additionalProperties: false` and require every property it declares, and no
/// subschema may use a keyword strict mode rejects. Anything unsure answers `false` (`native_unenforced`), which
/// still validates every response.
pub fn is_strict_compatible(schema: &Value) -> bool {
    strict_compatible_at(schema, 0)
}

// Keywords OpenAI's strict mode does not accept; a schema using one is sent with `strict: false`.
const STRICT_UNSUPPORTED: [&str; 14] = [
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
    "not",
    "contains",
    "allOf",
];

// Deeper than this is treated as not strict rather than walked (bounded recursion on hostile schemas).
const MAX_STRICT_DEPTH: usize = 64;

fn strict_compatible_at(schema: &Value, depth: usize) -> bool {
    if depth > MAX_STRICT_DEPTH {
        return false;
    }
    let map = match schema {
        Value::Bool(_) => return false,
        Value::Object(map) => map,
        _ => return false,
    };
    if STRICT_UNSUPPORTED
        .iter()
        .any(|keyword| map.contains_key(*keyword))
    {
        return false;
    }
    let is_object = map.contains_key("properties")
        || match map.get("type") {
            Some(Value::String(kind)) => kind == "object",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
            _ => false,
        };
    if is_object {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return false;
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = properties
            && !properties.keys().all(|key| required.contains(&key.as_str()))
        {
            return false;
        }
    }
    subschemas(map).all(|sub| strict_compatible_at(sub, depth + 1))
}

fn subschemas(map: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let in_maps = ["properties", "$defs", "definitions"]
        .into_iter()
        .filter_map(|key| map.get(key).and_then(Value::as_object))
        .flat_map(|members| members.values());
    let in_lists = ["anyOf", "oneOf", "prefixItems"]
        .into_iter()
        .filter_map(|key| map.get(key).and_then(Value::as_array))
        .flat_map(|members| members.iter());
    let single = ["items"]
        .into_iter()
        .filter_map(|key| map.get(key))
        .filter(|value| value.is_object());
    in_maps.chain(in_lists).chain(single)
}

/// The name OpenAI requires on `json_schema` (`^[a-zA-Z0-9_-]{1,64}$`): the schema's `title` made to fit (every
/// other character replaced by `_`, cut at 64 characters), so a type's schema is sent under the type's name; a
/// schema without a usable title gets a stable digest of its canonical bytes, so identical schemas always get the
/// same name.
pub(crate) fn schema_name(schema: &Value) -> String {
    let title = schema
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim();
    if title.chars().any(|c| c.is_ascii_alphanumeric()) {
        return title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
    }
    format!("schema_{:016x}", fnv1a(&canonical::to_vec(schema)))
}

// FNV-1a: a fixed, dependency-free digest; only stability matters here, not collision resistance.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_name_is_the_title_made_to_fit_or_a_stable_digest() {
        let named = |title: &str| schema_name(&json!({"type": "object", "title": title}));
        assert_eq!(named("Event"), "Event");
        assert_eq!(named("Wrapper_for_Event"), "Wrapper_for_Event");
        assert_eq!(named("Event<Item>"), "Event_Item_");
        assert_eq!(named("my event.v2"), "my_event_v2");
        assert_eq!(named(&"x".repeat(80)).len(), 64);
        let untitled = json!({"type": "object", "title": "???"});
        assert!(schema_name(&untitled).starts_with("schema_"));
        assert_eq!(schema_name(&untitled), schema_name(&untitled.clone()));
        assert_ne!(schema_name(&json!({"type": "object"})), schema_name(&untitled));
    }
}
