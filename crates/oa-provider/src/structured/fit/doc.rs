//! The caller's schema document as fitting reads it: subschemas named by their JSON Pointer, local `$ref`s resolved
//! to pointers, and which keywords are assertions, structure, annotations or bookkeeping.

use oa_pointer::{JsonPointer, Location};
use serde_json::{Map, Value};

use super::error::FitError;

/// The caller's document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Doc<'a> {
    root: &'a Value,
}

impl<'a> Doc<'a> {
    pub(crate) fn new(root: &'a Value) -> Self {
        Self { root }
    }

    /// The subschema at `at`, if there is one.
    pub(crate) fn get(&self, at: &Location) -> Option<&'a Value> {
        let mut node = self.root;
        for token in at.tokens() {
            node = match node {
                Value::Object(map) => map.get(token.as_ref())?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The schema object at `at`, or `None` for a boolean schema; an error for anything else.
    pub(crate) fn schema(&self, at: &Location) -> Result<Schema<'a>, FitError> {
        match self.get(at) {
            Some(Value::Object(map)) => Ok(Schema::Object(map)),
            Some(Value::Bool(accept)) => Ok(Schema::Bool(*accept)),
            _ => Err(FitError::NotASchema { pointer: at.clone() }),
        }
    }

    /// Where the `$ref` held by the schema at `at` points: a JSON Pointer into this document (`#` or `#/...`,
    /// percent-encoded as a URI fragment). An absolute or relative URI, an anchor, or a pointer to nothing is an
    /// error: fitting takes a bundled document.
    pub(crate) fn resolve(&self, at: &Location, reference: &Value) -> Result<Location, FitError> {
        let unresolvable = || FitError::UnresolvableRef {
            pointer: at.clone(),
            reference: reference
                .as_str()
                .unwrap_or("(not a string)")
                .chars()
                .take(200)
                .collect(),
        };
        let text = reference.as_str().ok_or_else(unresolvable)?;
        let pointer = JsonPointer::parse_fragment(text).map_err(|_| unresolvable())?;
        let target = Location::from(pointer);
        match self.get(&target) {
            Some(Value::Object(_) | Value::Bool(_)) => Ok(target),
            _ => Err(unresolvable()),
        }
    }
}

/// A subschema: an object of keywords, or `true`/`false`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Schema<'a> {
    Object(&'a Map<String, Value>),
    Bool(bool),
}

/// `at` with one more member name.
pub(crate) fn child(at: &Location, key: &str) -> Location {
    let mut out = at.clone();
    out.push_key(key);
    out
}

/// `at` with a member name and an index (`/anyOf/2`).
pub(crate) fn child_index(at: &Location, key: &str, index: usize) -> Location {
    let mut out = child(at, key);
    out.push_index(index);
    out
}

/// Keywords fitting handles structurally (the rest of the vocabulary goes through the table one by one).
pub(crate) const STRUCTURAL: [&str; 12] = [
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
];

/// Assertion keywords fitting treats one by one through the table: whatever a provider does not enforce is in the
/// account. `format` counts as one: the caller's validator may assert it.
pub(crate) const SIMPLE: [&str; 28] = [
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "dependentRequired",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "contains",
    "patternProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
];

/// Whether a keyword asserts something about an instance (so a schema holding it is more than annotations).
pub(crate) fn is_assertion(keyword: &str) -> bool {
    STRUCTURAL.contains(&keyword) || SIMPLE.contains(&keyword)
}

/// Whether a schema object is a bare reference: a `$ref` with nothing beside it but annotations and bookkeeping.
pub(crate) fn is_bare_ref(map: &Map<String, Value>) -> bool {
    map.contains_key("$ref") && map.keys().all(|key| key == "$ref" || !is_assertion(key))
}

/// The JSON type names of a `type` value (`None` when it is neither a name nor an array of names).
pub(crate) fn type_names(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => names.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

/// The JSON type name of a value, `integer` for a number with no fractional part.
pub(crate) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) => {
            if number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_resolve_as_fragments_and_nothing_else() {
        let schema = json!({"$defs": {"a b": {"type": "string"}, "x/y": true}, "items": [{"type": "null"}]});
        let doc = Doc::new(&schema);
        let at = Location::root();
        assert_eq!(
            doc.resolve(&at, &json!("#/$defs/a%20b")).unwrap().as_str(),
            "/$defs/a b"
        );
        assert_eq!(
            doc.resolve(&at, &json!("#/$defs/x~1y")).unwrap().as_str(),
            "/$defs/x~1y"
        );
        assert_eq!(
            doc.resolve(&at, &json!("#/items/0")).unwrap().as_str(),
            "/items/0"
        );
        assert_eq!(doc.resolve(&at, &json!("#")).unwrap().as_str(), "");
        for bad in [
            json!("other.json#/a"),
            json!("#anchor"),
            json!("#/$defs/missing"),
            json!(3),
        ] {
            assert!(
                matches!(doc.resolve(&at, &bad), Err(FitError::UnresolvableRef { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn bare_refs_and_types() {
        let bare = json!({"$ref": "#", "description": "d", "$comment": "c"});
        assert!(is_bare_ref(bare.as_object().unwrap()));
        let sibling = json!({"$ref": "#", "minimum": 1});
        assert!(!is_bare_ref(sibling.as_object().unwrap()));
        assert_eq!(type_of(&json!(2.0)), "integer");
        assert_eq!(type_of(&json!(2.5)), "number");
        assert_eq!(type_names(&json!(["a", "b"])), Some(vec!["a", "b"]));
        assert_eq!(type_names(&json!(["a", 1])), None);
    }
}
