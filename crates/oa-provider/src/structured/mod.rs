//! Structured output, vendor-neutral (§5, §7, 0126): the response_schema checked and compiled once per distinct
//! schema (see `schema_cache`), a
//! response's content checked into `parsed` or a typed failure (every violation, its failure class), tool
//! arguments checked against their parameters, and the prompt-augmentation directive. The wire formats decide
//! only how a schema travels natively.

mod account;
mod augment;
mod call_schema;
mod case_only;
pub(crate) mod coercion;
mod decoder;
#[cfg(test)]
mod failure_class_tests;
pub mod fit;
pub(crate) mod output;
mod schema_cache;
mod tools;
#[cfg(feature = "schemars")]
mod typed;
pub(crate) mod typed_call;

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub(crate) use account::covers_all;
pub(crate) use augment::augment_messages;
pub(crate) use call_schema::CallSchema;
pub(crate) use case_only::differs_only_in_case;
pub(crate) use decoder::TypedDecoder;
pub(crate) use tools::{CheckedTools, WireToolCall};
#[cfg(feature = "schemars")]
pub use typed::{StrictOutput, output_schema};

use crate::model::ProviderError;
pub(crate) use crate::model::StructuredOutputPath;

/// The draft a response_schema that declares no `$schema` is read as, unless the request's schema options say
/// otherwise (0126 on §5). A declared `$schema` of any draft oa-schema reads is honoured.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Runs the checks `complete()` makes on a response_schema before anything is sent (a JSON object, a valid schema
/// of the draft its `$schema` names, `type: "object"` at the top), so a caller can refuse a bad schema up front with
/// the same words. A schema that refers to other documents needs the request's schema options: check it with
/// [`CompletionRequest::check_schema`](crate::CompletionRequest::check_schema).
///
/// # Errors
///
/// The `provider_invalid_request` error `complete()` would return.
pub fn check_response_schema(schema: &Value) -> Result<(), ProviderError> {
    CallSchema::check(schema).map(|_| ())
}

/// The keyword a vendor's words for a rejected schema name, which a refit may drop: the first quoted keyword a
/// refit may drop, else the first such bare word that is not also plain English (`not`, `if`, ...).
pub(crate) fn rejected_keyword(detail: &str) -> Option<&'static str> {
    let quoted = detail.split('\'').skip(1).step_by(2).find_map(|token| {
        account::DROPPABLE
            .iter()
            .copied()
            .find(|keyword| *keyword == token)
    });
    quoted.or_else(|| {
        detail
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '$')
            .filter(|word| !matches!(*word, "not" | "if" | "then" | "else" | "contains"))
            .find_map(|word| {
                account::DROPPABLE
                    .iter()
                    .copied()
                    .find(|keyword| *keyword == word)
            })
    })
}

/// A schema as one request body carries it (on the native path, in the prompt, as the synthetic tool's input):
/// the caller's schema verbatim, its bundle, or a fit of it, with its canonical text and schema_version made once.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct ResponseSchema(Arc<WireSchema>);

/// What a [`ResponseSchema`] holds.
#[derive(Debug)]
pub(crate) struct WireSchema {
    pub(crate) schema: Value,
    /// The schema's canonical JSON text, made once: the request body carries it as it is (see
    /// `canonical::Splice`), and the version and OpenAI's schema name are derived from it.
    pub(crate) canonical: String,
    /// SHA-256 of the canonical schema (see [`crate::schema_version`]): the schema_version of a call that sends it.
    pub(crate) version: String,
    /// Whether OpenAI's strict mode accepts the schema, decided on first use.
    pub(crate) strict_compatible: OnceLock<bool>,
    /// The canonical text of OpenAI's `response_format` up to the schema (`{"json_schema":{"name":…,"schema":`),
    /// made on first use: the name (from the title, or a digest of the whole canonical text) is not digested
    /// again, nor the object built and written, on every request.
    pub(crate) openai_format_head: OnceLock<String>,
    /// How it came from the caller's schema.
    pub(crate) form: fit::SchemaForm,
    /// The draft it is written in (`None`: a `$schema` naming no draft oa-schema knows), for the prompt's words.
    pub(crate) draft: Option<oa_schema::Draft>,
    /// Fitting's account, at pointers into the caller's schema (empty unless fitted).
    pub(crate) fit_account: Vec<fit::Unenforced>,
    /// How an answer to it is mapped back to the caller's spelling; `None` when nothing ever changes.
    pub(crate) map_back: Option<fit::MapBack>,
    /// The probe keys the schema uses (`account::probe_keys`), made on first use.
    pub(crate) probe_keys: OnceLock<Vec<String>>,
}

impl Deref for ResponseSchema {
    type Target = WireSchema;

    fn deref(&self) -> &WireSchema {
        &self.0
    }
}

impl ResponseSchema {
    /// The schema `schema` as sent in `form`, its canonical text and version computed here.
    pub(crate) fn new(schema: Value, form: fit::SchemaForm, draft: Option<oa_schema::Draft>) -> Self {
        let canonical = crate::canonical::to_string(&schema);
        let version = crate::enforcement::version_of_canonical(&canonical);
        Self::with_identity(schema, canonical, version, form, draft)
    }

    fn with_identity(
        schema: Value,
        canonical: String,
        version: String,
        form: fit::SchemaForm,
        draft: Option<oa_schema::Draft>,
    ) -> Self {
        Self(Arc::new(WireSchema {
            schema,
            canonical,
            version,
            strict_compatible: OnceLock::new(),
            openai_format_head: OnceLock::new(),
            form,
            draft,
            fit_account: Vec::new(),
            map_back: None,
            probe_keys: OnceLock::new(),
        }))
    }

    /// A fitted schema, with fitting's account (already at the caller's pointers) and its map-back plan.
    pub(crate) fn fitted(
        schema: Value,
        form: fit::SchemaForm,
        fit_account: Vec<fit::Unenforced>,
        map_back: &fit::MapBack,
    ) -> Self {
        let mut sent = Self::new(schema, form, Some(oa_schema::Draft::Draft202012));
        if let Some(parts) = Arc::get_mut(&mut sent.0) {
            parts.fit_account = fit_account;
            parts.map_back = (!map_back.is_empty()).then(|| map_back.clone());
        }
        sent
    }

    /// The caller's schema itself as the wire schema, checked and compiled with default options (wire tests).
    #[cfg(test)]
    pub(crate) fn check(schema: &Value) -> Result<Self, ProviderError> {
        CallSchema::check(schema).map(|call| call.plain().clone())
    }

    /// The probe keys (accounted keywords, `format:NAME`) the schema uses, made once.
    pub(crate) fn probe_keys(&self) -> &[String] {
        self.probe_keys.get_or_init(|| account::probe_keys(&self.schema))
    }

    /// Whether two handles are the same schema sent.
    pub(crate) fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// An address identifying this schema while it is alive (an account cache key).
    pub(crate) fn address(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

/// A test-only count kept per thread: `mod $module` with `count()` (called where the counted thing happens) and
/// `get()`, and the crate-visible reader `$reader` the tests call.
#[cfg(test)]
macro_rules! thread_counter {
    ($module:ident, $reader:ident, $doc:literal) => {
        #[doc = $doc]
        pub(crate) fn $reader() -> usize {
            $module::get()
        }

        mod $module {
            use std::cell::Cell;

            thread_local! {
                static N: Cell<usize> = const { Cell::new(0) };
            }

            pub(super) fn count() {
                N.with(|n| n.set(n.get() + 1));
            }

            pub(super) fn get() -> usize {
                N.with(Cell::get)
            }
        }
    };
}
#[cfg(test)]
pub(crate) use thread_counter;

#[cfg(test)]
thread_counter!(
    compile_counter,
    compilations,
    "How many response schemas this thread has compiled (tests pin \"once per distinct schema\")."
);
