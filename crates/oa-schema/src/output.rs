//! The draft 2020-12 output formats "flag" and "basic" (JSON Schema core §12.4), as JSON values.
//!
//! "basic" lists one output unit per violation (with the locations and message of [`Violation`]) when the
//! instance is invalid, and one unit per annotation (meta-data, `format`, content keywords) when it is valid.
//! The every-violation report and its order are the same as [`Validator::validate`]'s.

use crate::eval::Evaluator;
use crate::validator::Validator;
use crate::violation::Violation;
use serde_json::{Map, Value, json};

/// A 2020-12 output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// `{"valid": bool}`.
    Flag,
    /// `{"valid": bool, "errors" | "annotations": [unit, ...]}`, a flat list of output units.
    Basic,
}

impl Validator {
    /// Validates `instance` and renders the outcome in a 2020-12 output format.
    ///
    /// Annotations come from the schemas that validated; a union stops at its first satisfied member, so the
    /// annotations of later satisfied members are not listed.
    pub fn output(&self, instance: &Value, format: OutputFormat) -> Value {
        match format {
            OutputFormat::Flag => json!({ "valid": self.is_valid(instance) }),
            OutputFormat::Basic => match self.validate(instance) {
                Err(violations) => {
                    json!({ "valid": false, "errors": violations.iter().map(error_unit).collect::<Vec<_>>() })
                }
                Ok(()) => {
                    let mut evaluator = Evaluator::new(self.compiled(), false);
                    evaluator.annotations = Some(Vec::new());
                    evaluator.run(instance);
                    let annotations: Vec<Value> = evaluator
                        .annotations
                        .take()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|annotation| {
                            let mut unit = unit(true, &annotation.keyword_path, &annotation.absolute);
                            unit.insert(
                                "instanceLocation".to_owned(),
                                json!(annotation.instance_location.to_string()),
                            );
                            unit.insert("annotation".to_owned(), annotation.value);
                            Value::Object(unit)
                        })
                        .collect();
                    let mut output = Map::new();
                    output.insert("valid".to_owned(), json!(true));
                    if !annotations.is_empty() {
                        output.insert("annotations".to_owned(), Value::Array(annotations));
                    }
                    Value::Object(output)
                }
            },
        }
    }
}

fn error_unit(violation: &Violation) -> Value {
    let location = violation.schema_location();
    let mut unit = unit(false, location.keyword_path(), location.absolute());
    unit.insert(
        "instanceLocation".to_owned(),
        json!(violation.instance_location().to_string()),
    );
    unit.insert("error".to_owned(), json!(violation.message()));
    Value::Object(unit)
}

/// A unit's common members; `absoluteKeywordLocation` only when the schema has an absolute URI.
fn unit(valid: bool, keyword_path: &str, absolute: &str) -> Map<String, Value> {
    let mut unit = Map::new();
    unit.insert("valid".to_owned(), json!(valid));
    unit.insert("keywordLocation".to_owned(), json!(keyword_path));
    if !absolute.starts_with('#') {
        unit.insert("absoluteKeywordLocation".to_owned(), json!(absolute));
    }
    unit
}
