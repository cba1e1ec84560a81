//! Structured output (§5, §8.1.5, 0126): the response_schema checked at the call, OpenAI's strict-mode predicate,
//! the prompt-augmentation directive, and validating a response's content into `parsed` or a complete report.

use serde_json::{Map, Value};

use crate::canonical;
use crate::error::{ProviderError, StructuredOutputFailure};
use crate::message::{Content, Message, Role};
use crate::response::{FinishReason, Usage};
use crate::schema_check::CompiledSchema;

/// The only `$schema` a response_schema may declare; absent means this one (0126 on §5).
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// A response_schema that passed the call-time checks, compiled once for every attempt of the call.
#[derive(Debug)]
pub(crate) struct ResponseSchema {
    pub(crate) schema: Value,
    pub(crate) compiled: CompiledSchema,
}

impl ResponseSchema {
    /// Checks the schema at the call, before anything is sent.
    pub(crate) fn check(schema: &Value) -> Result<Self, ProviderError> {
        let Value::Object(map) = schema else {
            return Err(ProviderError::invalid_request(
                "response_schema must be a JSON object schema",
            ));
        };
        if let Some(declared) = map.get("$schema") {
            let declared = declared.as_str().unwrap_or_default().trim_end_matches('#');
            if declared != DRAFT_2020_12 {
                return Err(ProviderError::invalid_request(
                    "response_schema declares a $schema other than draft 2020-12, which is not supported",
                ));
            }
        }
        if map.get("type").and_then(Value::as_str) != Some("object") {
            return Err(ProviderError::invalid_request(
                "response_schema must have type \"object\" at the top",
            ));
        }
        let compiled = CompiledSchema::compile(schema).map_err(|reason| {
            ProviderError::invalid_request(format!("response_schema is not a valid schema: {reason}"))
        })?;
        Ok(Self {
            schema: schema.clone(),
            compiled,
        })
    }

    /// Validates the content of a response; `Ok(parsed)` or the `structured_output_invalid` carries.
    pub(crate) fn validate_content(
        &self,
        content: &str,
        finish_reason: FinishReason,
        usage: Usage,
        model: Option<String>,
        raw: &Value,
    ) -> Result<Value, ProviderError> {
        let failure = |error_message: String| {
            ProviderError::structured_output_invalid(StructuredOutputFailure {
                response_schema: self.schema.clone(),
                output_content: content.to_owned(),
                error_message,
                finish_reason,
                usage,
                model: model.clone(),
                raw: raw.clone(),
            })
        };
        let value: Value = match serde_json::from_str(content) {
            Ok(value) => value,
            Err(error) => return Err(failure(format!("content is not valid JSON: {error}"))),
        };
        match self.compiled.validate(&value) {
            Ok(()) => Ok(value),
            Err(error_message) => Err(failure(error_message)),
        }
    }
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

/// The name OpenAI requires on `json_schema`: the schema's `title` when it is a safe identifier, else a stable
/// digest of the canonical schema bytes, so identical schemas always get the same name.
pub(crate) fn schema_name(schema: &Value) -> String {
    if let Some(title) = schema.get("title").and_then(Value::as_str)
        && !title.is_empty()
        && title.len() <= 64
        && title
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return title.to_owned();
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

/// The messages sent on the prompt-augmentation path (§8.1.5.1): the caller's list, copied, with a system
/// directive carrying the schema prepended, or appended to the caller's leading system message.
///
/// The directive text is the one prompt oa writes; it only states the format the schema already demands.
pub(crate) fn augment_messages(messages: &[Message], schema: &Value) -> Vec<Message> {
    let directive = format!(
        "Respond with only a JSON value that conforms to the following JSON Schema (draft 2020-12). \
         Do not add any other text.\nJSON Schema: {}",
        canonical::to_string(schema)
    );
    let mut augmented = messages.to_vec();
    match augmented.first_mut() {
        Some(Message {
            role: Role::System,
            content: Some(Content::Text(text)),
            ..
        }) => {
            text.push_str("\n\n");
            text.push_str(&directive);
        }
        _ => augmented.insert(0, Message::system(directive)),
    }
    augmented
}
