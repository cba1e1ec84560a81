//! The capitalization exception of a native path (0126 on §8.2.5): Anthropic's constrained decoding does not
//! guarantee the capitalization of string enum and const values, so an answer can complete normally and differ
//! from the schema in that alone. It stays a failure (oa never re-cases an answer), but it is recognizable.

use serde_json::Value;

/// Whether every violation is an `enum` or `const` whose string value equals an allowed string but for case.
/// `false` when a violation's keyword cannot be read back from the schema (behind a `$ref`), or when the report was
/// cut short, so the answer is never called a capitalization case on partial evidence.
pub(crate) fn differs_only_in_case(
    value: &Value,
    schema: &Value,
    violations: &oa_schema::Violations,
) -> bool {
    !violations.is_empty()
        && violations.omitted() == 0
        && violations.iter().all(|violation| {
            let Some(Value::String(given)) = value.pointer(violation.instance_location().as_str()) else {
                return false;
            };
            let allowed = schema.pointer(violation.schema_location().keyword_path());
            let members = match (violation.keyword(), allowed) {
                (Some("enum"), Some(Value::Array(members))) => members.as_slice(),
                (Some("const"), Some(constant)) => std::slice::from_ref(constant),
                _ => return false,
            };
            members.iter().any(|member| {
                matches!(member, Value::String(allowed) if allowed.to_lowercase() == given.to_lowercase())
            })
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn case_only(schema: Value, value: Value) -> bool {
        let validator = oa_schema::Validator::new(&schema).unwrap();
        let violations = validator.validate(&value).unwrap_err();
        differs_only_in_case(&value, &schema, &violations)
    }

    #[test]
    fn only_case_differences_on_enum_and_const_count() {
        let schema = json!({"type": "object", "properties": {
            "color": {"enum": ["Red", "Green"]},
            "unit": {"const": "kg"},
            "n": {"type": "integer"}
        }});
        assert!(case_only(schema.clone(), json!({"color": "red"})));
        assert!(case_only(schema.clone(), json!({"color": "GREEN", "unit": "KG"})));
        assert!(!case_only(schema.clone(), json!({"color": "blue"})));
        assert!(
            !case_only(schema.clone(), json!({"color": "red", "n": "1"})),
            "another violation"
        );
        assert!(!case_only(schema.clone(), json!({"unit": 5})));
        let behind_a_ref = json!({"type": "object", "$defs": {"c": {"enum": ["Red"]}},
                                  "properties": {"color": {"$ref": "#/$defs/c"}}});
        assert!(
            !case_only(behind_a_ref, json!({"color": "red"})),
            "not read through a $ref"
        );
    }
}
