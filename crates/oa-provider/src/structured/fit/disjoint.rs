//! Whether two `oneOf` branches can never both hold, so sending `oneOf` as `anyOf` widens nothing: different types,
//! different `const`/`enum` values, or a property both branches require (on objects only) whose allowed values do
//! not meet — the tagged unions pydantic and zod write.

use oa_pointer::Location;
use serde_json::Value;

use super::doc::{self, Doc};
use super::frame::Frame;
use crate::canonical::json_equal;

/// Whether no instance satisfies both the schema at `left` and the schema at `right`, as far as fitting can prove.
pub(crate) fn provably_disjoint(
    doc: &Doc<'_>,
    left: &Location,
    right: &Location,
    budget: &mut usize,
) -> bool {
    let (Ok(left), Ok(right)) = (
        Frame::build(doc, std::slice::from_ref(left), budget),
        Frame::build(doc, std::slice::from_ref(right), budget),
    ) else {
        return false;
    };
    if left.void.is_some() || right.void.is_some() {
        return true;
    }
    if let (Some(left_types), Some(right_types)) = (types(&left), types(&right))
        && !left_types
            .iter()
            .any(|name| right_types.iter().any(|other| overlaps(name, other)))
    {
        return true;
    }
    if let (Some(left_values), Some(right_values)) = (values(&left), values(&right))
        && !left_values
            .iter()
            .any(|value| right_values.iter().any(|other| json_equal(value, other)))
    {
        return true;
    }
    let only_objects = |frame: &Frame| types(frame).is_some_and(|names| names == ["object"]);
    if !(only_objects(&left) && only_objects(&right)) {
        return false;
    }
    let (left_object, right_object) = (left.merged_object(), right.merged_object());
    left_object.required.iter().any(|(name, _)| {
        let schemas = |object: &super::frame::MergedObject| {
            object
                .properties
                .iter()
                .find(|(held, _)| held == name)
                .map(|(_, schemas)| schemas.clone())
        };
        let right_required = right_object.required.iter().any(|(held, _)| held == name);
        let (Some(left_schemas), Some(right_schemas)) = (schemas(&left_object), schemas(&right_object))
        else {
            return false;
        };
        if !right_required || left_schemas.is_empty() || right_schemas.is_empty() {
            return false;
        }
        let frame_values = |schemas: &[Location], budget: &mut usize| {
            Frame::build(doc, schemas, budget)
                .ok()
                .and_then(|frame| values(&frame))
        };
        match (
            frame_values(&left_schemas, budget),
            frame_values(&right_schemas, budget),
        ) {
            (Some(left_values), Some(right_values)) => !left_values
                .iter()
                .any(|value| right_values.iter().any(|other| json_equal(value, other))),
            _ => false,
        }
    })
}

/// The types a frame allows, from `type` or else from its `const`/`enum` values.
fn types(frame: &Frame) -> Option<Vec<&'static str>> {
    if let Some((names, _)) = &frame.types {
        return Some(names.clone());
    }
    values(frame).map(|values| values.iter().map(doc::type_of).collect())
}

/// The values a frame allows, when it lists them.
fn values(frame: &Frame) -> Option<Vec<Value>> {
    match (&frame.const_, &frame.enum_) {
        (Some((value, _)), _) => Some(vec![value.clone()]),
        (None, Some((values, _))) => Some(values.clone()),
        (None, None) => None,
    }
}

/// Whether two type names share an instance (`integer` is inside `number`).
fn overlaps(left: &str, right: &str) -> bool {
    left == right || matches!((left, right), ("integer", "number") | ("number", "integer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn disjoint(schema: Value) -> bool {
        let doc = Doc::new(&schema);
        provably_disjoint(
            &doc,
            &Location::parse("/oneOf/0").unwrap(),
            &Location::parse("/oneOf/1").unwrap(),
            &mut 0,
        )
    }

    #[test]
    fn tagged_unions_and_distinct_types_are_disjoint() {
        let tagged = json!({
            "oneOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}],
            "$defs": {
                "cat": {"type": "object", "properties": {"kind": {"const": "cat"}}, "required": ["kind"]},
                "dog": {"type": "object", "properties": {"kind": {"enum": ["dog", "wolf"]}}, "required": ["kind"]}
            }
        });
        assert!(disjoint(tagged));
        assert!(disjoint(
            json!({"oneOf": [{"type": "string"}, {"type": ["integer", "null"]}]})
        ));
        assert!(disjoint(json!({"oneOf": [{"enum": ["a", 1]}, {"const": "b"}]})));
    }

    #[test]
    fn overlapping_or_unproven_branches_are_not() {
        for schema in [
            json!({"oneOf": [{"type": "integer"}, {"type": "number"}]}),
            json!({"oneOf": [{"type": "object"}, {"type": "object"}]}),
            // The tag is required by one branch only.
            json!({"oneOf": [
                {"type": "object", "properties": {"k": {"const": 1}}, "required": ["k"]},
                {"type": "object", "properties": {"k": {"const": 2}}}
            ]}),
            // Not restricted to objects: a string satisfies both.
            json!({"oneOf": [
                {"properties": {"k": {"const": 1}}, "required": ["k"]},
                {"properties": {"k": {"const": 2}}, "required": ["k"]}
            ]}),
            json!({"oneOf": [{"minimum": 1}, {"maximum": 0}]}),
        ] {
            assert!(!disjoint(schema.clone()), "{schema}");
        }
    }
}
