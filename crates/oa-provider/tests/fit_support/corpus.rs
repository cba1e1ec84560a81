//! The corpus of LLM-shaped schemas under `tests/fit_corpus/` (pydantic-, zod-to-json-schema- and OpenAPI-style,
//! `$ref`-heavy, recursive; written for this project), each with answers its schema accepts, read as draft 2020-12;
//! and how an answer is spelled for a fitted schema. Shared by the fitting tests inside the crate and the wire tests.
//!
//! The draft-07 (zod-to-json-schema) entries are read through a minimal conversion here (`items` arrays to
//! `prefixItems`, `additionalItems` to `items`, a `$ref`'s siblings dropped as draft 7 ignores them, `dependencies`
//! split), until the schema crate's bundler (issue 36 part a) does it for every draft.

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::{Map, Value};

/// One corpus schema.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) origin: String,
    /// The schema as draft 2020-12.
    pub(crate) schema: Value,
    /// Answers the schema accepts (the first one minimal).
    pub(crate) answers: Vec<Value>,
}

/// Every corpus schema, by file name.
pub(crate) fn load() -> Vec<Entry> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fit_corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let doc: Value =
                serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let draft = doc["draft"].as_str().unwrap_or("2020-12");
            let schema = match draft {
                "2020-12" => doc["schema"].clone(),
                "draft-07" => draft7_to_2020_12(&doc["schema"]),
                other => panic!("{}: unknown draft {other}", path.display()),
            };
            Entry {
                name: path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                origin: doc["origin"].as_str().unwrap_or_default().to_owned(),
                schema,
                answers: doc["answers"].as_array().cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// A draft-07 schema read as draft 2020-12 says the same thing (for the constructs the corpus uses).
pub(crate) fn draft7_to_2020_12(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    if map.contains_key("$ref") {
        // Draft 7 ignores everything beside `$ref` (definitions stay: they are where references point).
        for (key, value) in map {
            match key.as_str() {
                "$ref" => {
                    out.insert(key.clone(), value.clone());
                }
                "definitions" | "$defs" => {
                    out.insert(key.clone(), convert_members(value));
                }
                _ => {}
            }
        }
        return Value::Object(out);
    }
    let positional = map.get("items").is_some_and(Value::is_array);
    for (key, value) in map {
        match key.as_str() {
            "$schema" => {}
            "items" if positional => {
                out.insert("prefixItems".to_owned(), convert_list(value));
            }
            "additionalItems" if positional => {
                out.insert("items".to_owned(), draft7_to_2020_12(value));
            }
            "additionalItems" => {}
            "dependencies" => {
                for (name, dependency) in value.as_object().into_iter().flatten() {
                    let (keyword, converted) = if dependency.is_array() {
                        ("dependentRequired", dependency.clone())
                    } else {
                        ("dependentSchemas", draft7_to_2020_12(dependency))
                    };
                    let target = out.entry(keyword).or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(target) = target {
                        target.insert(name.clone(), converted);
                    }
                }
            }
            "properties" | "patternProperties" | "definitions" | "$defs" | "dependentSchemas" => {
                out.insert(key.clone(), convert_members(value));
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                out.insert(key.clone(), convert_list(value));
            }
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames" => {
                out.insert(key.clone(), draft7_to_2020_12(value));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

fn convert_members(value: &Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, member)| (name.clone(), draft7_to_2020_12(member)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn convert_list(value: &Value) -> Value {
    match value {
        Value::Array(members) => Value::Array(members.iter().map(draft7_to_2020_12).collect()),
        other => other.clone(),
    }
}

/// How a provider bound by the fitted schema spells a caller's answer: a property the fit made required gets its
/// `null`, a `null` the fit made omittable goes. `None` when the answer has no spelling the fitted schema accepts
/// (fitting narrowed it away: a map closed, a recursion cut, a typeless value narrowed to scalars).
pub(crate) fn encode(answer: &Value, fitted: &oa_schema::Validator) -> Option<Value> {
    let mut value = answer.clone();
    for _ in 0..64 {
        let Err(violations) = fitted.validate(&value) else {
            return Some(value);
        };
        let mut changed = false;
        for violation in &violations {
            let at = violation.instance_location();
            let Some(parent) = at.parent() else { continue };
            let Some(name) = at.tokens().next_back().map(|token| token.into_owned()) else {
                continue;
            };
            let is_null = value.pointer(at.as_str()).is_some_and(Value::is_null);
            let Some(Value::Object(object)) = value.pointer_mut(parent.as_str()) else {
                continue;
            };
            match violation.keyword() {
                Some("required") if !object.contains_key(&name) => {
                    object.insert(name, Value::Null);
                    changed = true;
                }
                Some("type") if is_null => {
                    object.remove(&name);
                    changed = true;
                }
                _ => {}
            }
        }
        if !changed {
            return None;
        }
    }
    None
}
