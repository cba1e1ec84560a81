//! OpenAI's structured-output rules (§8.1.5): the strict-mode predicate that decides between `native`
//! (`strict: true`) and `native_unenforced` (`strict: false`), the schema name the wire requires, and the
//! `response_format` value itself.

use serde_json::{Map, Value};

use crate::structured::ResponseSchema;

/// The native `response_format` for `schema` (§8.1.5) as canonical text, in three pieces that follow each other:
/// the head (made once per compiled schema), the schema's cached canonical text, and the tail (fixed by `strict`).
/// Nothing is built or serialized per request, and the schema text is not copied into the cache a second time.
pub(crate) fn response_format(schema: &ResponseSchema, strict: bool) -> [&str; 3] {
    let head = schema.openai_format_head.get_or_init(|| {
        let mut head = br#"{"json_schema":{"name":"#.to_vec();
        crate::canonical::write_str(&schema_name(&schema.schema, &schema.canonical), &mut head);
        head.extend_from_slice(br#","schema":"#);
        crate::canonical::into_text(head)
    });
    let tail = if strict {
        r#","strict":true},"type":"json_schema"}"#
    } else {
        r#","strict":false},"type":"json_schema"}"#
    };
    [head, &schema.canonical, tail]
}

/// Whether `schema` meets OpenAI's strict-mode rules, so the request may say `strict: true` (§8.1.5).
///
/// Every object schema must list `additionalProperties: false` and require every property it declares, and no
/// subschema may use a keyword strict mode rejects. Anything unsure answers `false` (`native_unenforced`), which
/// still validates every response.
#[cfg_attr(not(feature = "fuzzing"), allow(unreachable_pub))]
pub fn is_strict_compatible(schema: &Value) -> bool {
    strict_mode_obstacle(schema).is_none()
}

/// What keeps a schema from OpenAI's strict mode: the first subschema (in document order) that breaks a rule, at
/// its JSON Pointer into the schema. The strict-mode predicate is exactly "no obstacle".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictObstacle {
    /// Where, as a JSON Pointer into the schema (empty for the root).
    pub pointer: String,
    /// Which rule.
    pub reason: StrictRule,
}

/// The strict-mode rule a subschema breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StrictRule {
    /// It uses a keyword strict mode rejects.
    UnsupportedKeyword(&'static str),
    /// An object schema without `additionalProperties: false`.
    OpenObject,
    /// An object schema that does not list this declared property in `required`.
    OptionalProperty(String),
    /// A boolean or non-object subschema.
    NotAnObjectSchema,
    /// Nested deeper than the predicate walks.
    TooDeep,
}

impl std::fmt::Display for StrictObstacle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "the root"
        } else {
            self.pointer.as_str()
        };
        match &self.reason {
            StrictRule::UnsupportedKeyword(keyword) => {
                write!(f, "#{}: strict mode rejects `{keyword}`", self.pointer)
            }
            StrictRule::OpenObject => write!(
                f,
                "object at #{} is not closed with additionalProperties: false",
                self.pointer
            ),
            StrictRule::OptionalProperty(name) => {
                write!(
                    f,
                    "object at #{} does not list property {name:?} in required",
                    self.pointer
                )
            }
            StrictRule::NotAnObjectSchema => {
                write!(f, "subschema at {at} is a boolean or not a schema object")
            }
            StrictRule::TooDeep => write!(
                f,
                "subschema at {at} is nested deeper than {MAX_STRICT_DEPTH} levels"
            ),
        }
    }
}

/// The first obstacle to strict mode in `schema`, or `None` when it may go with `strict: true`.
///
/// ```
/// use oa_provider::openai::{StrictRule, strict_mode_obstacle};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"site": {"type": "object", "properties": {}}},
///                     "required": ["site"], "additionalProperties": false});
/// let obstacle = strict_mode_obstacle(&schema).unwrap();
/// assert_eq!(obstacle.pointer, "/properties/site");
/// assert_eq!(obstacle.reason, StrictRule::OpenObject);
/// ```
pub fn strict_mode_obstacle(schema: &Value) -> Option<StrictObstacle> {
    obstacle_at(schema, &mut String::new(), 0)
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

fn obstacle_at(schema: &Value, pointer: &mut String, depth: usize) -> Option<StrictObstacle> {
    let here = |reason| {
        Some(StrictObstacle {
            pointer: pointer.clone(),
            reason,
        })
    };
    if depth > MAX_STRICT_DEPTH {
        return here(StrictRule::TooDeep);
    }
    let Value::Object(map) = schema else {
        return here(StrictRule::NotAnObjectSchema);
    };
    if let Some(keyword) = STRICT_UNSUPPORTED
        .iter()
        .find(|keyword| map.contains_key(**keyword))
    {
        return here(StrictRule::UnsupportedKeyword(keyword));
    }
    let is_object = map.contains_key("properties")
        || match map.get("type") {
            Some(Value::String(kind)) => kind == "object",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
            _ => false,
        };
    if is_object {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return here(StrictRule::OpenObject);
        }
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = map.get("properties").and_then(Value::as_object)
            && let Some(missing) = properties.keys().find(|key| !required.contains(&key.as_str()))
        {
            return here(StrictRule::OptionalProperty(missing.clone()));
        }
    }
    for (tokens, sub) in subschemas(map) {
        let len = pointer.len();
        for token in tokens {
            pointer.push('/');
            pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        let found = obstacle_at(sub, pointer, depth + 1);
        pointer.truncate(len);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The subschemas the predicate walks, each with the pointer tokens that lead to it.
fn subschemas(map: &Map<String, Value>) -> Vec<(Vec<String>, &Value)> {
    let mut found = Vec::new();
    for key in ["properties", "$defs", "definitions"] {
        if let Some(members) = map.get(key).and_then(Value::as_object) {
            found.extend(
                members
                    .iter()
                    .map(|(name, sub)| (vec![key.to_owned(), name.clone()], sub)),
            );
        }
    }
    for key in ["anyOf", "oneOf", "prefixItems"] {
        if let Some(members) = map.get(key).and_then(Value::as_array) {
            found.extend(
                members
                    .iter()
                    .enumerate()
                    .map(|(idx, sub)| (vec![key.to_owned(), idx.to_string()], sub)),
            );
        }
    }
    if let Some(items) = map.get("items").filter(|value| value.is_object()) {
        found.push((vec!["items".to_owned()], items));
    }
    found
}

/// The name OpenAI requires on `json_schema` (`^[a-zA-Z0-9_-]{1,64}$`): the schema's `title` made to fit (every
/// other character replaced by `_`, cut at 64 characters), so a type's schema is sent under the type's name; a
/// schema without a usable title gets a stable digest of its canonical bytes, so identical schemas always get the
/// same name. `canonical` is the schema's canonical text.
pub(crate) fn schema_name(schema: &Value, canonical: &str) -> String {
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
    format!("schema_{:016x}", fnv1a(canonical.as_bytes()))
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
    fn the_obstacle_is_the_first_broken_rule_at_its_pointer() {
        let closed = |extra: serde_json::Value| {
            let mut schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                                    "additionalProperties": false});
            if let (Some(schema), Some(extra)) = (schema.as_object_mut(), extra.as_object()) {
                schema.extend(extra.clone());
            }
            schema
        };
        assert_eq!(strict_mode_obstacle(&closed(json!({}))), None);
        let cases = [
            (json!({"allOf": []}), "", StrictRule::UnsupportedKeyword("allOf")),
            (json!({"additionalProperties": true}), "", StrictRule::OpenObject),
            (
                json!({"required": []}),
                "",
                StrictRule::OptionalProperty("a".to_owned()),
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "object"}}}}),
                "/properties/a/items",
                StrictRule::OpenObject,
            ),
            (
                json!({"$defs": {"x/y": {"anyOf": [{"type": "null"}, true]}}}),
                "/$defs/x~1y/anyOf/1",
                StrictRule::NotAnObjectSchema,
            ),
            (
                json!({"properties": {"a": {"format": "email", "not": {}}}}),
                "/properties/a",
                StrictRule::UnsupportedKeyword("not"),
            ),
        ];
        for (extra, pointer, reason) in cases {
            let schema = closed(extra);
            let obstacle = strict_mode_obstacle(&schema).unwrap();
            assert_eq!(
                (obstacle.pointer.as_str(), &obstacle.reason),
                (pointer, &reason),
                "{schema}"
            );
            assert!(!is_strict_compatible(&schema));
            assert!(obstacle.to_string().contains(pointer), "{obstacle}");
        }
    }

    #[test]
    fn the_name_is_the_title_made_to_fit_or_a_stable_digest() {
        let schema_name = |schema: &Value| schema_name(schema, &crate::canonical::to_string(schema));
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
        // The digest of the canonical bytes, as before the canonical text was cached: key order does not change it.
        assert_eq!(schema_name(&untitled), "schema_90d63c78e6c3c3f7");
        assert_eq!(
            schema_name(&json!({"title": "???", "type": "object"})),
            schema_name(&untitled)
        );
    }
}
