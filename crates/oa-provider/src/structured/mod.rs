//! Structured output, vendor-neutral (§5, §7, 0126): the response_schema checked and compiled once per distinct
//! schema (see `schema_cache`), a
//! response's content checked into `parsed` or a typed failure (every violation, its failure class), tool
//! arguments checked against their parameters, and the prompt-augmentation directive. The wire formats decide
//! only how a schema travels natively.

mod augment;
mod case_only;
pub(crate) mod coercion;
mod failure_class;
pub mod fit;
pub(crate) mod output;
mod schema_cache;
mod tools;
mod typed;
mod typed_call;

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

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
pub use typed_call::{CompleteAsError, Typed, TypedDecoder, complete_as};

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

/// A response_schema that passed the call-time checks, compiled: shared by every attempt of the call and by every
/// later call with the same schema (the process-wide cache in `schema_cache`, keyed by schema_version).
#[derive(Debug, Clone)]
pub(crate) struct ResponseSchema(Arc<CompiledSchema>);

/// What a schema compiles to, once.
#[derive(Debug)]
pub(crate) struct CompiledSchema {
    pub(crate) schema: Value,
    pub(crate) validator: oa_schema::Validator,
    /// The schema's canonical JSON text, made once: the request body carries it as it is (see
    /// `canonical::Splice`), and the version and OpenAI's schema name are derived from it.
    pub(crate) canonical: String,
    /// SHA-256 of the canonical schema (see [`crate::schema_version`]), computed once.
    pub(crate) version: String,
    /// Whether OpenAI's strict mode accepts the schema, decided on first use.
    pub(crate) strict_compatible: OnceLock<bool>,
    /// The canonical text of OpenAI's `response_format` up to the schema (`{"json_schema":{"name":…,"schema":`),
    /// made on first use: the name (from the title, or a digest of the whole canonical text) is not digested
    /// again, nor the object built and written, on every request.
    pub(crate) openai_format_head: OnceLock<String>,
}

impl Deref for ResponseSchema {
    type Target = CompiledSchema;

    fn deref(&self) -> &CompiledSchema {
        &self.0
    }
}

impl schema_cache::Entry for CompiledSchema {
    fn schema(&self) -> &Value {
        &self.schema
    }
}

/// Every response schema compiled in this process, by schema_version.
static COMPILED: schema_cache::SchemaCache<CompiledSchema> = schema_cache::SchemaCache::new();

impl ResponseSchema {
    /// Checks the schema at the call, before anything is sent, and compiles it — or finds it already checked and
    /// compiled by an earlier call.
    pub(crate) fn check(schema: &Value) -> Result<Self, ProviderError> {
        COMPILED
            .get_or_build(schema, |identity| CompiledSchema::check(schema, identity))
            .map(Self)
    }

    /// [`check`](Self::check) for a request's shared schema: the same `Arc` sent again is found by its pointer.
    pub(crate) fn check_shared(schema: &Arc<Value>) -> Result<Self, ProviderError> {
        COMPILED
            .get_or_build_shared(schema, |identity| CompiledSchema::check(schema, identity))
            .map(Self)
    }
}

impl CompiledSchema {
    fn check(schema: &Value, identity: schema_cache::Identity) -> Result<Self, ProviderError> {
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
        #[cfg(test)]
        compile_counter::count();
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
            validator,
            canonical: identity.canonical,
            version: identity.version,
            strict_compatible: OnceLock::new(),
            openai_format_head: OnceLock::new(),
        })
    }
}

/// How many response schemas this thread has compiled (tests pin "once per distinct schema").
#[cfg(test)]
pub(crate) fn compilations() -> usize {
    compile_counter::get()
}

#[cfg(test)]
mod compile_counter {
    use std::cell::Cell;

    thread_local! {
        static N_COMPILES: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn count() {
        N_COMPILES.with(|n| n.set(n.get() + 1));
    }

    pub(super) fn get() -> usize {
        N_COMPILES.with(Cell::get)
    }
}
