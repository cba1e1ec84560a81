//! The 2020-12 meta-schema flattened for the yes/no check: one `properties` map instead of an `allOf` of seven
//! vocabulary meta-schemas, each scanning the schema's members again.
//!
//! Every vocabulary meta-schema asserts only `type: ["object", "boolean"]` and `properties`, with keyword names that
//! no two share, so `allOf` of them accepts exactly what one schema with their `type` and the union of their
//! `properties` accepts. A property's subschema is copied when it is self-contained, and otherwise referenced in
//! its own document, so that its `$ref`s resolve as before; `$dynamicRef: "#meta"` lands on the flat root, which
//! declares the `meta` anchor and is the outermost resource. Failing schemas are still reported by the real
//! meta-schema: the flat one only answers "valid" faster.

use super::DRAFT_2020_12;
use super::bundled_value;
use serde_json::{Map, Value, json};

/// The flat document's URI: beside the real one, so the vocabularies' relative URIs resolve alike.
const FLAT_URI: &str = "https://json-schema.org/draft/2020-12/flat-schema";

/// Keywords of the bundled (vocabulary) meta-schemas that assert nothing about an instance.
const INERT: &[&str] = &[
    "$schema",
    "$id",
    "$vocabulary",
    "$dynamicAnchor",
    "$comment",
    "$defs",
    "title",
];

/// The flattened 2020-12 meta-schema, or `None` if the bundled documents ever stop having the shape this relies on
/// (the real meta-schema is then used alone).
pub(crate) fn flat_2020_12() -> Option<Value> {
    let root = bundled_value(DRAFT_2020_12)?;
    let root_type = root.get("type")?;
    let mut properties = Map::new();
    let mut documents = vec![(DRAFT_2020_12.to_owned(), root)];
    for member in root.get("allOf")?.as_array()? {
        let member = member.as_object()?;
        let (1, Some(Value::String(reference))) = (member.len(), member.get("$ref")) else {
            return None;
        };
        let uri = url::Url::parse(DRAFT_2020_12).ok()?.join(reference).ok()?;
        documents.push((uri.as_str().to_owned(), bundled_value(uri.as_str())?));
    }
    for (uri, document) in documents {
        for (keyword, value) in document.as_object()? {
            let expected = match keyword.as_str() {
                "type" => value == root_type,
                "properties" => true,
                "allOf" => uri == DRAFT_2020_12,
                name => INERT.contains(&name),
            };
            if !expected {
                return None;
            }
        }
        for (name, subschema) in document.get("properties")?.as_object()? {
            if !name
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'$')
            {
                return None;
            }
            let entry = if is_self_contained(subschema) {
                subschema.clone()
            } else {
                json!({ "$ref": format!("{uri}#/properties/{name}") })
            };
            if properties.insert(name.clone(), entry).is_some() {
                return None;
            }
        }
    }
    Some(json!({
        "$id": FLAT_URI,
        "$dynamicAnchor": "meta",
        "type": root_type,
        "properties": properties,
    }))
}

/// Whether a subschema means the same wherever it is placed: no reference, identifier or anchor anywhere in it.
fn is_self_contained(value: &Value) -> bool {
    match value {
        Value::Object(object) => object.iter().all(|(key, member)| {
            !matches!(
                key.as_str(),
                "$ref" | "$dynamicRef" | "$id" | "$anchor" | "$dynamicAnchor"
            ) && is_self_contained(member)
        }),
        Value::Array(items) => items.iter().all(is_self_contained),
        _ => true,
    }
}

#[cfg(test)]
#[path = "flat_tests.rs"]
mod tests;
