//! `Validator` (a compiled schema, cheap to clone and share) and `ValidatorOptions`, its builder.

use crate::compile::{self, Settings};
use crate::draft::Draft;
use crate::error::SchemaError;
use crate::eval::Evaluator;
use crate::metaschemas;
use crate::node::CompiledSchema;
use crate::registry::{self, Registry, bundled_value, default_base, normalize_uri};
use crate::violation::{Violation, Violations};
use oa_pointer::Location;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// A compiled JSON Schema (drafts 4, 6, 7, 2019-09 and 2020-12), ready to validate many instances from many threads.
///
/// Cloning is cheap: the compiled form sits behind an `Arc`.
#[derive(Debug, Clone)]
pub struct Validator {
    compiled: Arc<CompiledSchema>,
}

// Checked on purpose: validators are shared across threads and cloned per request.
const _: fn() = || {
    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}
    assert_send_sync_clone::<Validator>();
};

impl Validator {
    /// Compiles a schema with the default options: `format` only annotates, no extra resources.
    ///
    /// # Errors
    /// A [`SchemaError`] naming the schema location when the schema fails its meta-schema, a reference resolves
    /// nowhere, a regex is invalid, or the schema's `$schema` names none of the drafts (nor a registered
    /// meta-schema of one).
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        Self::options().build(schema)
    }

    /// A builder for non-default options.
    pub fn options() -> ValidatorOptions {
        ValidatorOptions::default()
    }

    /// The compiled form, for the output formats.
    pub(crate) fn compiled(&self) -> &CompiledSchema {
        &self.compiled
    }

    /// Whether `instance` is valid. Stops at the first failure and allocates nothing while the instance is valid
    /// (schemas using `unevaluated*` allocate to track what was evaluated).
    pub fn is_valid(&self, instance: &Value) -> bool {
        crate::keywords::is_valid(&self.compiled, instance)
    }

    /// Reads JSON `text` into `T`, checking it against the schema while it is read, without building a `Value`:
    /// the typed route of structured output.
    ///
    /// It answers `Ok` only when [`parse_json`](crate::parse_json) accepts `text`, [`validate`](Self::validate)
    /// accepts that value, and `T` deserializes from it (and then `T` is what it would read from the value). In
    /// every other case, and whenever it cannot decide cheaply, it answers [`Fallback`](crate::Fallback): the
    /// caller then parses and validates as usual, which reports every violation, and reads `T` from the value.
    ///
    /// What it decides itself: every scalar at every position (any keyword), and objects and arrays whose schema
    /// uses `properties`, `required`, `additionalProperties` (`false` or a schema), `items`, the item and property
    /// counts, a lone `$ref`, or a union of one schema with `{"type": "null"}`; any other keyword that applies to a
    /// container met in the text (`allOf`, `oneOf`, `patternProperties`, `enum` of objects, `unevaluated*`...)
    /// falls back. Members the target type skips are read and checked too. A repeated member name falls back
    /// (the value would keep only the last), as do byte strings, raw values, maps with non-string keys and enums
    /// with data. Without the `arbitrary_precision` feature every call falls back.
    ///
    /// # Errors
    /// [`Fallback`](crate::Fallback), with the reason.
    ///
    /// ```
    /// use oa_schema::{FallbackReason, Validator};
    /// use serde_json::json;
    ///
    /// #[derive(serde::Deserialize, Debug, PartialEq)]
    /// struct Point {
    ///     x: f64,
    ///     label: Option<String>,
    /// }
    ///
    /// let validator = Validator::new(&json!({
    ///     "type": "object",
    ///     "properties": { "x": { "type": "number", "minimum": 0 }, "label": { "type": ["string", "null"] } },
    ///     "required": ["x"],
    ///     "additionalProperties": false
    /// }))
    /// .unwrap();
    /// let point: Point = validator.deserialize_str(r#"{"x": 1.5, "label": null}"#).unwrap();
    /// assert_eq!(point, Point { x: 1.5, label: None });
    ///
    /// // Invalid for the schema: no answer here; `validate` of the parsed value gives the report.
    /// let err = validator.deserialize_str::<Point>(r#"{"x": -1}"#).unwrap_err();
    /// assert_eq!(err.reason(), FallbackReason::Invalid);
    /// ```
    pub fn deserialize_str<T: serde::de::DeserializeOwned>(&self, text: &str) -> Result<T, crate::Fallback> {
        crate::stream::deserialize_str(&self.compiled, text)
    }

    /// Whether [`deserialize_str`](Self::deserialize_str) has a plan for every object and array position the
    /// schema reaches from its root (so that it falls back only on invalid text or a type that refuses it).
    pub fn streams_every_container(&self) -> bool {
        crate::stream::plans_every_container(&self.compiled)
    }

    /// Validates `instance`, reporting every violation.
    ///
    /// # Errors
    /// [`Violations`], non-empty exactly when [`is_valid`](Self::is_valid) is false.
    pub fn validate(&self, instance: &Value) -> Result<(), Violations> {
        self.validate_with(instance, &ReportOptions::default())
    }

    /// Validates `instance` with opt-in report views for callers who feed the report to a model. With the
    /// default options this is exactly [`validate`](Self::validate).
    ///
    /// # Errors
    /// [`Violations`], non-empty exactly when [`is_valid`](Self::is_valid) is false.
    pub fn validate_with(&self, instance: &Value, options: &ReportOptions) -> Result<(), Violations> {
        // The yes/no answer first: a valid instance needs no report, and the yes/no walk is much cheaper.
        if self.is_valid(instance) {
            return Ok(());
        }
        let mut evaluator = Evaluator::new(&self.compiled, true);
        // Known invalid: the report's first allocation at once, at its first size.
        evaluator.expect_violations();
        evaluator.discriminators = options.discriminators;
        let collected_valid = evaluator.run(instance);
        let mut violations = std::mem::take(&mut evaluator.violations);
        if collected_valid || violations.is_empty() {
            // Every failing path records a violation, and both evaluators give the same verdict; this only keeps
            // the "non-empty when invalid" promise if an internal bug ever breaks that (the tests look for it).
            violations.push(Violation::without_keyword(
                Location::root(),
                "",
                "#",
                "invalid (internal error: no violation was recorded)",
            ));
        }
        let violations = Violations::sorted(violations);
        Err(match options.max_violations {
            Some(max) => violations.capped(max),
            None => violations,
        })
    }
}

/// Opt-in views of a report (`Validator::validate_with`). The default is the full report of 0126's rule, which
/// [`Validator::validate`] always gives.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    discriminators: bool,
    max_violations: Option<usize>,
}

impl ReportOptions {
    /// Default options: the full report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Discriminator-aware unions (default `false`): when no member of an `anyOf`/`oneOf` is satisfied, set aside
    /// the members that pin a property with `const` or `enum` (directly, or through `$ref`/`allOf`) which the
    /// instance has with another value, unless that sets aside every member. A GeoJSON feature whose geometry says
    /// `"type": "Polygon"` is then reported against the Polygon schema only.
    #[must_use]
    pub fn discriminators(mut self, on: bool) -> Self {
        self.discriminators = on;
        self
    }

    /// Keep at most `max` violations; the error message then ends with a line `... and N more` (with `(K
    /// alternatives not shown)` when it cut union members). A failed union is capped by whole alternatives: its
    /// members closest to valid first (fewest violations, then the deepest match, then the fewest `const`/`enum`
    /// mismatches), and its heading keeps the union's true member count. The kept violations stay in report
    /// order. Default: no cap.
    #[must_use]
    pub fn max_violations(mut self, max: usize) -> Self {
        self.max_violations = Some(max);
        self
    }
}

/// Options for compiling a [`Validator`].
#[derive(Debug, Clone, Default)]
pub struct ValidatorOptions {
    /// Assert `format` (default false: `format` is an annotation, as 2020-12 says).
    format_assertion: bool,
    /// Documents for remote `$ref`, by fragment-free absolute URI.
    resources: HashMap<String, Arc<Value>>,
    /// The first registered URI that did not parse, reported by `build`.
    bad_resource: Option<(String, String)>,
    /// The draft of a document that declares no `$schema`.
    default_draft: Draft,
}

impl ValidatorOptions {
    /// Whether `format` asserts (default `false`). Unknown format names stay annotations either way.
    #[must_use]
    pub fn format_assertion(mut self, assert: bool) -> Self {
        self.format_assertion = assert;
        self
    }

    /// The draft a schema (or a registered document) that declares no `$schema` is read as (default
    /// [`Draft::Draft202012`]). A declared `$schema` always wins.
    ///
    /// ```
    /// use oa_schema::{Draft, Validator};
    /// use serde_json::json;
    ///
    /// // Draft 4: `exclusiveMaximum` is a boolean that makes `maximum` exclusive.
    /// let schema = json!({ "maximum": 3, "exclusiveMaximum": true });
    /// let validator = Validator::options().default_draft(Draft::Draft4).build(&schema).unwrap();
    /// assert!(!validator.is_valid(&json!(3)));
    /// // Read as 2020-12, the same schema fails its meta-schema (`exclusiveMaximum` must be a number).
    /// assert!(Validator::new(&schema).is_err());
    /// ```
    #[must_use]
    pub fn default_draft(mut self, draft: Draft) -> Self {
        self.default_draft = draft;
        self
    }

    /// Registers a document for `$ref`s to `uri` (an absolute URI; a fragment is ignored). Nothing is ever fetched
    /// from a network: a reference to an unregistered URI is a [`SchemaError`]. An invalid `uri` is reported by
    /// [`build`](Self::build).
    #[must_use]
    pub fn resource(self, uri: &str, document: Value) -> Self {
        self.shared_resource(uri, Arc::new(document))
    }

    /// Registers a shared document, as [`resource`](Self::resource) does: one document can then be registered under
    /// several URIs, or in many options, without a copy (a catalog of large schemas that refer to each other).
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    /// use std::sync::Arc;
    ///
    /// let address = Arc::new(json!({ "type": "object", "required": ["city"] }));
    /// let validator = Validator::options()
    ///     .shared_resource("https://json.example/address.json", Arc::clone(&address))
    ///     .shared_resource("https://www.example/address.json", address)
    ///     .build(&json!({ "$ref": "https://www.example/address.json" }))
    ///     .unwrap();
    /// assert!(!validator.is_valid(&json!({})));
    /// ```
    #[must_use]
    pub fn shared_resource(mut self, uri: &str, document: Arc<Value>) -> Self {
        match normalize_uri(uri) {
            Ok(url) => {
                self.resources.insert(url.as_str().to_owned(), document);
            }
            Err(err) => {
                self.bad_resource
                    .get_or_insert_with(|| (uri.to_owned(), err.to_string()));
            }
        }
        self
    }

    /// Checks `schema` against its meta-schema and compiles it.
    ///
    /// # Errors
    /// A [`SchemaError`] naming the schema location, as [`Validator::new`].
    pub fn build(&self, schema: &Value) -> Result<Validator, SchemaError> {
        if let Some((uri, reason)) = &self.bad_resource {
            return Err(SchemaError::InvalidUri {
                location: "resource".to_owned(),
                uri: registry::redact(uri),
                reason: reason.clone(),
            });
        }
        // Indexing first bounds the schema's depth (without recursion) before anything recursive looks at it.
        let mut registry = Registry::new(&self.resources, self.default_draft);
        let doc_id = registry.add_document(schema, default_base())?;
        self.check_against_meta_schema(schema)?;
        let compiled = compile::compile(
            registry,
            doc_id,
            Settings {
                format_assertion: self.format_assertion,
            },
        )?;
        Ok(Validator {
            compiled: Arc::new(compiled),
        })
    }

    /// Compiles without the meta-schema check (for the meta-schemas themselves).
    fn build_unchecked(&self, schema: &Value) -> Result<Validator, SchemaError> {
        let mut registry = Registry::new(&self.resources, self.default_draft);
        let doc_id = registry.add_document(schema, default_base())?;
        let compiled = compile::compile(
            registry,
            doc_id,
            Settings {
                format_assertion: self.format_assertion,
            },
        )?;
        Ok(Validator {
            compiled: Arc::new(compiled),
        })
    }

    fn check_against_meta_schema(&self, schema: &Value) -> Result<(), SchemaError> {
        let declared = schema.get("$schema").and_then(Value::as_str);
        let draft = declared.map_or(Some(self.default_draft), Draft::from_uri);
        let custom;
        let meta_validator = match (draft, declared) {
            (Some(Draft::Draft202012), _) => {
                // The flat form answers "valid" for the same schemas, faster; a failing schema gets its report
                // from the real meta-schema below.
                if draft_2020_12_flat().is_some_and(|flat| flat.is_valid(schema)) {
                    return Ok(());
                }
                meta_schema(Draft::Draft202012)?
            }
            (Some(draft), _) => meta_schema(draft)?,
            (None, None) => return Ok(()),
            (None, Some(declared)) => {
                // Unknown dialects and unregistered meta-schemas are reported by the compiler with their location.
                let Ok(url) = normalize_uri(declared) else {
                    return Ok(());
                };
                let Some(meta) = self.resources.get(url.as_str()) else {
                    return Ok(());
                };
                let options = ValidatorOptions {
                    format_assertion: false,
                    ..self.clone()
                };
                custom = options.build_unchecked(meta)?;
                &custom
            }
        };
        let declared = declared.unwrap_or_else(|| self.default_draft.meta_schema_uri());
        // The yes/no path first: nearly every schema passes, and only a failing one needs the full report.
        if meta_validator.is_valid(schema) {
            return Ok(());
        }
        match meta_validator.validate(schema) {
            Ok(()) => Ok(()),
            Err(violations) => {
                let base = schema
                    .get("$id")
                    .and_then(Value::as_str)
                    .and_then(|id| default_base().join(id).ok())
                    .map_or_else(String::new, |url| {
                        registry::display_base(&url).trim_end_matches('#').to_owned()
                    });
                let first = violations
                    .iter()
                    .next()
                    .map_or_else(|| "#".to_owned(), |v| v.instance_location().to_fragment());
                Err(SchemaError::InvalidSchema {
                    location: format!("{base}{first}"),
                    meta_schema: registry::redact(declared),
                    violations,
                })
            }
        }
    }
}

/// The compiled flat form of the 2020-12 meta-schema (see `metaschemas::flat_2020_12`), shared like
/// [`draft_2020_12`]; `None` if it cannot be built, and the real one is then used alone.
pub(crate) fn draft_2020_12_flat() -> Option<&'static Validator> {
    static FLAT: OnceLock<Option<Validator>> = OnceLock::new();
    FLAT.get_or_init(|| {
        let flat = metaschemas::flat_2020_12()?;
        ValidatorOptions::default().build_unchecked(&flat).ok()
    })
    .as_ref()
}

/// The compiled meta-schema of a draft, shared: it is a constant of the crate, compiled on first use.
pub(crate) fn meta_schema(draft: Draft) -> Result<&'static Validator, SchemaError> {
    static META: [OnceLock<Result<Validator, String>>; Draft::ALL.len()] =
        [const { OnceLock::new() }; Draft::ALL.len()];
    let uri = draft.meta_schema_uri();
    let slot = META
        .get(draft as usize)
        .ok_or_else(|| SchemaError::InvalidKeyword {
            location: uri.to_owned(),
            keyword: "$schema".to_owned(),
            reason: "internal error: no slot for the draft's meta-schema".to_owned(),
        })?;
    let compiled = slot.get_or_init(|| {
        let meta = bundled_value(uri).ok_or_else(|| "meta-schema not bundled".to_owned())?;
        ValidatorOptions::default()
            .build_unchecked(meta)
            .map_err(|err| err.to_string())
    });
    compiled.as_ref().map_err(|reason| SchemaError::InvalidKeyword {
        location: uri.to_owned(),
        keyword: "$schema".to_owned(),
        reason: format!("internal error: the bundled meta-schema does not compile: {reason}"),
    })
}
