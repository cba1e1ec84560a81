//! Typed structured output: a Rust type's JSON Schema (derived by schemars 1.x, draft 2020-12) made
//! strict-compatible where that keeps its meaning, and a validated value read back as that type.
//!
//! What "keeps its meaning" covers: every object closed with `additionalProperties: false` when it says nothing
//! about extra keys (serde ignores unknown fields, so a closed schema rejects only what the type would drop), and
//! every optional property whose schema admits `null` (an `Option<U>` field) listed in `required`, since `null`
//! and absence both read back as `None`. What it does not cover is left as derived, and the call then goes
//! `native_unenforced` by the rules that exist (the strict-mode predicate answers false): an object whose extra
//! keys are typed (`HashMap<String, U>`: a map with free keys), and an optional property that cannot be `null`
//! (`#[serde(default)]` on a non-`Option` field). [`StrictOutput::reasons`] says which, at which pointer.

use serde_json::{Map, Value};

use crate::model::escape;

/// T's schema as sent, with what kept it from strict mode.
#[cfg(feature = "schemars")]
#[derive(Debug, Clone, PartialEq)]
pub struct StrictOutput {
    /// The schema: draft 2020-12, `$defs` and `$ref` kept, made strict where that keeps its meaning.
    pub schema: Value,
    /// Each place the schema could not be made strict without changing what it accepts, as
    /// `(JSON Pointer into the schema, why)`; empty when the schema is strict-compatible.
    pub reasons: Vec<(String, &'static str)>,
}

/// T's JSON Schema for structured output (see the module docs for what is changed and what is left).
#[cfg(feature = "schemars")]
///
/// ```
/// use oa_provider::output_schema;
/// use oa_provider::fuzzing::is_strict_compatible;
///
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Answer {
///     prime: u32,
///     note: Option<String>,
/// }
///
/// let output = output_schema::<Answer>();
/// assert!(output.reasons.is_empty());
/// assert!(is_strict_compatible(&output.schema));
/// assert_eq!(output.schema["required"], serde_json::json!(["note", "prime"]));
/// assert_eq!(output.schema["additionalProperties"], serde_json::json!(false));
/// ```
pub fn output_schema<T: schemars::JsonSchema>() -> StrictOutput {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    let mut reasons = Vec::new();
    make_strict(&mut schema, &mut String::new(), 0, &mut reasons);
    StrictOutput { schema, reasons }
}

#[cfg(feature = "schemars")]
// Derived schemas nest only as deep as the type does; deeper than this is left as derived (and so not strict).
const MAX_DEPTH: usize = 64;

#[cfg(feature = "schemars")]
fn make_strict(
    schema: &mut Value,
    pointer: &mut String,
    depth: usize,
    reasons: &mut Vec<(String, &'static str)>,
) {
    let Value::Object(map) = schema else {
        return;
    };
    if depth > MAX_DEPTH {
        reasons.push((pointer.clone(), "nested deeper than the strict-mode rewrite goes"));
        return;
    }
    if is_object_schema(map) {
        close_object(map, pointer, reasons);
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(members)) = map.get_mut(key) {
            for (name, member) in members.iter_mut() {
                with_token(pointer, &[key, name], |pointer| {
                    make_strict(member, pointer, depth + 1, reasons)
                });
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(members)) = map.get_mut(key) {
            for (idx, member) in members.iter_mut().enumerate() {
                with_token(pointer, &[key, &idx.to_string()], |pointer| {
                    make_strict(member, pointer, depth + 1, reasons)
                });
            }
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
    ] {
        if let Some(member) = map.get_mut(key) {
            with_token(pointer, &[key], |pointer| {
                make_strict(member, pointer, depth + 1, reasons)
            });
        }
    }
}

#[cfg(feature = "schemars")]
fn is_object_schema(map: &Map<String, Value>) -> bool {
    map.contains_key("properties")
        || match map.get("type") {
            Some(Value::String(kind)) => kind == "object",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
            _ => false,
        }
}

/// Closes an object schema and requires its nullable optional properties, where that keeps its meaning.
#[cfg(feature = "schemars")]
fn close_object(map: &mut Map<String, Value>, pointer: &str, reasons: &mut Vec<(String, &'static str)>) {
    match map.get("additionalProperties") {
        None => {
            map.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        Some(Value::Bool(false)) => {}
        Some(_) => reasons.push((
            format!("{pointer}/additionalProperties"),
            "an object with free keys (a map) cannot be closed without changing what it accepts",
        )),
    }
    if map.contains_key("patternProperties") {
        reasons.push((
            format!("{pointer}/patternProperties"),
            "patternProperties is not accepted by strict mode",
        ));
    }
    let Some(Value::Object(properties)) = map.get("properties") else {
        return;
    };
    let mut required: Vec<String> = match map.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let mut changed = false;
    for (name, property) in properties {
        if required.iter().any(|known| known == name) {
            continue;
        }
        if admits_null(property) {
            required.push(name.clone());
            changed = true;
        } else {
            reasons.push((
                format!("{pointer}/properties/{}", escape(name)),
                "an optional property that cannot be null cannot be required without changing what it accepts",
            ));
        }
    }
    if changed {
        required.sort();
        map.insert(
            "required".to_owned(),
            Value::Array(required.into_iter().map(Value::from).collect()),
        );
    }
}

/// Whether a property schema says `null` is allowed: a `null` type, or a union member that is.
#[cfg(feature = "schemars")]
fn admits_null(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    let typed_null = match map.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    };
    let union_null = ["anyOf", "oneOf"].iter().any(|key| {
        map.get(*key)
            .and_then(Value::as_array)
            .is_some_and(|members| members.iter().any(admits_null))
    });
    typed_null || union_null
}

#[cfg(feature = "schemars")]
fn with_token(pointer: &mut String, tokens: &[&str], work: impl FnOnce(&mut String)) {
    let len = pointer.len();
    for token in tokens {
        pointer.push('/');
        pointer.push_str(&escape(token));
    }
    work(pointer);
    pointer.truncate(len);
}
