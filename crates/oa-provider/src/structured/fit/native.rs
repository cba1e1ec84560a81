//! The schema a request would send on a mapping's native path, as the call path makes it: the caller's schema
//! verbatim, its bundle when it refers to documents a provider cannot fetch, or its fit when the request asks for
//! one. `oa probe --schema` probes these bytes, so a verdict is about what reaches the provider.

use serde_json::Value;

use crate::call::CompletionRequest;
use crate::model::Mapping;
use crate::model::ProviderError;
use crate::structured::fit::{SchemaForm, Unenforced};
use crate::structured::{CallSchema, ResponseSchema};

/// The schema a request sends on a mapping's native path ([`native_schema`]).
#[derive(Debug, Clone)]
pub struct NativeSchema(ResponseSchema);

impl NativeSchema {
    /// The schema, as sent.
    pub fn schema(&self) -> &Value {
        &self.0.schema
    }

    /// How it came from the caller's schema.
    pub fn form(&self) -> SchemaForm {
        self.0.form
    }

    /// Fitting's account, at pointers into the caller's schema (empty unless fitted): the clauses fitting dropped or
    /// relaxed, or that the provider ignores. A call adds what its path and the registry say.
    pub fn account(&self) -> &[Unenforced] {
        &self.0.fit_account
    }

    /// Its schema_version: the SHA-256 of its canonical text, as a call sending it records.
    pub fn schema_version(&self) -> &str {
        &self.0.version
    }
}

/// The schema `request` would send on `mapping`'s native path: verbatim (or its bundle), or fitted when the request
/// asks ([`CompletionRequest::fit`]). `None` without a response schema.
///
/// ```
/// use oa_provider::fit::{SchemaForm, native_schema};
/// use oa_provider::{CompletionRequest, Mapping, Message};
/// use serde_json::json;
///
/// let request = CompletionRequest::new(vec![Message::user("Summarize.")])
///     .with_response_schema(json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 280}},
///                                  "required": ["s"]}))
///     .with_fit(true);
/// let sent = native_schema(&request, Mapping::Anthropic)?.unwrap();
/// assert_eq!(sent.form(), SchemaForm::Fitted);
/// assert_eq!(sent.account()[0].keyword, "maxLength");
/// assert!(sent.schema()["properties"]["s"].get("maxLength").is_none());
/// # Ok::<(), oa_provider::ProviderError>(())
/// ```
///
/// # Errors
///
/// The `provider_invalid_request` error `complete()` would return for the schema, or one naming why the schema
/// cannot be fitted to the mapping (a call then takes the mapping's fallback path and sends nothing natively).
pub fn native_schema(
    request: &CompletionRequest,
    mapping: Mapping,
) -> Result<Option<NativeSchema>, ProviderError> {
    let Some(schema) = &request.response_schema else {
        return Ok(None);
    };
    let compiled = CallSchema::check_shared(schema, request.schema_options.as_ref())?;
    if !request.fit {
        return Ok(Some(NativeSchema(compiled.plain().clone())));
    }
    match compiled.fitted(mapping) {
        Ok(fitted) => Ok(Some(NativeSchema(fitted.clone()))),
        Err(error) => Err(ProviderError::invalid_request(format!(
            "the response schema cannot be fitted to the {mapping} mapping's native path: {error}"
        ))),
    }
}
