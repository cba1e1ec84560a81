//! The one place oa-provider calls the oa-schema validator: compile a schema once, validate a value into the
//! every-violation `error_message` text (0126 on §7).

use serde_json::Value;

/// A schema compiled by oa-schema, reused for every attempt of a call.
#[derive(Debug)]
pub(crate) struct CompiledSchema {
    validator: oa_schema::Validator,
}

impl CompiledSchema {
    /// Compiles `schema` (draft 2020-12 unless it declares otherwise); `Err` carries why it is unusable.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        oa_schema::Validator::new(schema)
            .map(|validator| Self { validator })
            .map_err(|error| error.to_string())
    }

    /// Validates `value`; `Err` is the description of every violation, one per line.
    pub(crate) fn validate(&self, value: &Value) -> Result<(), String> {
        self.validator
            .validate(value)
            .map_err(|violations| violations.error_message())
    }
}
