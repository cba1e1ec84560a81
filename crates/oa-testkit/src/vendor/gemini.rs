//! Gemini's `responseJsonSchema`, as the `GenerationConfig.response_json_schema` field description words it (checked
//! 2026-12-07): "If `$ref` is set on a sub-schema, no other properties, except for than those starting as a `$`, may
//! be set", and cyclic references "may only be used within non-required properties". Every other keyword outside
//! the supported list is accepted and ignored, so nothing else is refused.

use serde_json::Value;

use super::walk::{self, RefGraph, Visit};
use super::{Rejection, Vendor};

pub(super) fn check(schema: &Value) -> Result<(), Rejection> {
    let reject =
        |rule, context: &[String], detail: String| Err(Rejection::new(Vendor::Gemini, rule, context, detail));
    let Some(visits) = walk::subschemas(schema) else {
        return reject("limit", &[], "maximum allowed nesting depth exceeded".to_owned());
    };
    for Visit { context, schema } in &visits {
        let Value::Object(map) = schema else { continue };
        if map.contains_key("$ref") {
            let siblings: Vec<&String> = map.keys().filter(|key| !key.starts_with('$')).collect();
            if !siblings.is_empty() {
                return reject(
                    "ref_siblings",
                    context,
                    format!(
                        "when $ref is set, no other properties but $-keywords may be set; found {siblings:?}"
                    ),
                );
            }
        }
    }
    let graph = RefGraph::of(schema);
    // A cycle whose every step goes through required properties cannot be unrolled.
    if let Some(node) = graph.cycle(|optional| !optional) {
        return reject(
            "recursion",
            &[graph.targets[node].clone()],
            "cyclic references may only be used within non-required properties".to_owned(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ref_siblings_and_required_cycles_are_400s() {
        assert!(
            check(
                &json!({"properties": {"a": {"$ref": "#/$defs/b", "$comment": "ok"}},
                               "$defs": {"b": {"type": "string", "minLength": 3, "const": "x"}}})
            )
            .is_ok()
        );
        let siblings =
            json!({"properties": {"a": {"$ref": "#/$defs/b", "description": "d"}}, "$defs": {"b": {}}});
        assert_eq!(check(&siblings).unwrap_err().rule, "ref_siblings");
        let optional_cycle = json!({"properties": {"next": {"$ref": "#"}}});
        assert!(check(&optional_cycle).is_ok());
        let required_cycle =
            json!({"properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}, "required": ["kids"]});
        assert_eq!(check(&required_cycle).unwrap_err().rule, "recursion");
        // "Nullable properties are not sufficient."
        let nullable = json!({"properties": {"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}, "required": ["next"]});
        assert_eq!(check(&nullable).unwrap_err().rule, "recursion");
    }
}
