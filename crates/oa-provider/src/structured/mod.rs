//! Structured output, vendor-neutral (§5, §7, 0126): the response_schema checked and compiled once per call, a
//! response's content checked into `parsed` or a typed failure (every violation, its failure class), tool
//! arguments checked against their parameters, and the prompt-augmentation directive. The wire formats decide
//! only how a schema travels natively.

mod augment;
mod case_only;
pub(crate) mod coercion;
mod failure_class;
pub(crate) mod output;
mod tools;
mod typed;

use std::sync::Arc;

use serde_json::Value;

pub(crate) use augment::augment_messages;
pub(crate) use case_only::differs_only_in_case;
pub use failure_class::FailureClass;
pub use output::OutputProblem;
pub(crate) use tools::{CheckedTools, WireToolCall};
pub use typed::ParsedAsError;
pub(crate) use typed::deserialize_as;
#[cfg(feature = "schemars")]
pub use typed::{StrictOutput, output_schema};

use crate::enforcement::schema_version;
use crate::error::ProviderError;
pub(crate) use crate::model::StructuredOutputPath;

/// The only `$schema` a response_schema may declare; absent means this one (0126 on §5).
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Runs the checks `complete()` makes on a response_schema before anything is sent (a JSON object, draft 2020-12,
/// a valid schema, `type: "object"` at the top), so a caller can refuse a bad schema up front with the same words.
///
/// # Errors
///
/// The `provider_invalid_request` error `complete()` would return.
pub fn check_response_schema(schema: &Value) -> Result<(), ProviderError> {
    ResponseSchema::check(schema).map(|_| ())
}

/// A response_schema that passed the call-time checks: compiled once, with its `schema_version`, shared by every
/// attempt of the call.
#[derive(Debug)]
pub(crate) struct ResponseSchema {
    pub(crate) schema: Value,
    pub(crate) validator: Arc<oa_schema::Validator>,
    /// SHA-256 of the canonical schema (see [`schema_version`]), computed once.
    pub(crate) version: String,
}

impl ResponseSchema {
    /// Checks the schema at the call, before anything is sent, and compiles it.
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
        let validator = oa_schema::Validator::new(schema).map_err(|error| {
            ProviderError::invalid_request(format!("response_schema is not a valid schema: {error}"))
        })?;
        // After compiling, so a schema that is not a schema at all is named as such first.
        if map.get("type").and_then(Value::as_str) != Some("object") {
            return Err(ProviderError::invalid_request(
                "response_schema must have type \"object\" at the top",
            ));
        }
        Ok(Self {
            schema: schema.clone(),
            validator: Arc::new(validator),
            version: schema_version(schema),
        })
    }
}
