//! Whether a subschema of the caller's schema provably rejects `null`: only then may fitting make an optional
//! property nullable and map a `null` back to "absent". Anything unproven counts as accepting `null`, so a `null`
//! the caller's schema might allow is never removed.

use oa_pointer::Location;
use serde_json::Value;

use super::doc::{self, Doc, Schema};

/// How far the proof follows references and nesting before it answers "not proven".
const MAX_STEPS: usize = 256;

/// Whether the conjunction of the schemas at `conjuncts` provably rejects `null` (one conjunct that does is enough).
pub(crate) fn conjunction_rejects_null(doc: &Doc<'_>, conjuncts: &[Location]) -> bool {
    let mut steps = 0;
    conjuncts
        .iter()
        .any(|at| rejects_null(doc, at, &mut Vec::new(), &mut steps))
}

/// Whether the schema at `at` provably rejects `null`.
pub(crate) fn rejects_null(
    doc: &Doc<'_>,
    at: &Location,
    stack: &mut Vec<Location>,
    steps: &mut usize,
) -> bool {
    *steps += 1;
    if *steps > MAX_STEPS || stack.contains(at) {
        return false;
    }
    let map = match doc.schema(at) {
        Ok(Schema::Object(map)) => map,
        Ok(Schema::Bool(accept)) => return !accept,
        Err(_) => return false,
    };
    stack.push(at.clone());
    let proven = map.iter().any(|(keyword, value)| match keyword.as_str() {
        "type" => doc::type_names(value).is_some_and(|names| !names.contains(&"null")),
        "enum" => value
            .as_array()
            .is_some_and(|values| !values.contains(&Value::Null)),
        "const" => !value.is_null(),
        "$ref" => doc
            .resolve(at, value)
            .is_ok_and(|target| rejects_null(doc, &target, stack, steps)),
        "allOf" => members(at, keyword, value).any(|member| rejects_null(doc, &member, stack, steps)),
        "anyOf" | "oneOf" => {
            let mut members = members(at, keyword, value).peekable();
            members.peek().is_some() && members.all(|member| rejects_null(doc, &member, stack, steps))
        }
        _ => false,
    });
    stack.pop();
    proven
}

fn members<'a>(at: &'a Location, keyword: &'a str, value: &Value) -> impl Iterator<Item = Location> + 'a {
    let len = value.as_array().map_or(0, Vec::len);
    (0..len).map(move |idx| doc::child_index(at, keyword, idx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn proven(schema: Value) -> bool {
        let doc = Doc::new(&schema);
        conjunction_rejects_null(&doc, &[Location::root()])
    }

    #[test]
    fn only_what_is_proven_rejects_null() {
        for rejects in [
            json!({"type": "string"}),
            json!({"type": ["string", "integer"]}),
            json!({"enum": ["a", 1]}),
            json!({"const": 0}),
            json!(false),
            json!({"allOf": [{}, {"type": "object"}]}),
            json!({"anyOf": [{"type": "string"}, {"enum": [1]}]}),
            json!({"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}),
            json!({"type": "string", "enum": ["a", null]}),
        ] {
            assert!(proven(rejects.clone()), "{rejects}");
        }
        // Accepting null, or not proven to reject it (`not` is not looked into): both count as accepting.
        for accepts in [
            json!({}),
            json!(true),
            json!({"type": ["string", "null"]}),
            json!({"enum": ["a", null]}),
            json!({"const": null}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"oneOf": [{"type": "string"}, {}]}),
            json!({"anyOf": []}),
            json!({"minLength": 2}),
            json!({"not": {"type": "null"}}),
            json!({"$ref": "#"}),
        ] {
            assert!(!proven(accepts.clone()), "{accepts}");
        }
    }
}
