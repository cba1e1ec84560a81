//! `Validator` (a compiled schema, cheap to clone and share) and `ValidatorOptions`, its builder.

use crate::compile::{self, Settings};
use crate::draft::Draft;
use crate::error::SchemaError;
use crate::eval::Evaluator;
use crate::metaschemas;
use crate::metaschemas::bundled_value;
use crate::node::CompiledSchema;
use crate::registry::{self, Registry, Retrieved, default_base, normalize_uri};
use crate::retrieve::{Retrieve, RetrieveError};
use crate::violation::{Violation, ViolationKind, Violations};
use oa_pointer::Location;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use url::Url;

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

    /// The references that resolve to no schema, in the order compiling met them: empty unless compiled with
    /// [`ValidatorOptions::defer_unresolved_references`] (without it they are errors). A reference written in
    /// several places is listed once per place.
    pub fn unresolved_references(&self) -> &[crate::unresolved::UnresolvedReference] {
        &self.compiled.unresolved
    }

    /// The compiled form, for the output formats.
    pub(crate) fn compiled(&self) -> &CompiledSchema {
        &self.compiled
    }

    /// Whether `instance` is valid. Stops at the first failure and allocates nothing while the instance is valid
    /// (schemas using `unevaluated*` allocate to track what was evaluated).
    pub fn is_valid(&self, instance: &Value) -> bool {
        crate::flag::is_valid(&self.compiled, instance)
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
    /// uses `properties`, `required`, `patternProperties`, `additionalProperties` (`false` or a schema),
    /// `prefixItems`, `items`, the item and property counts, a lone `$ref`, a union of one schema with
    /// `{"type": "null"}`, or `allOf` of such schemas, member by member (a value several schemas check is read whole
    /// and checked at each); a container under any other keyword (`oneOf`, `anyOf`, `if`, `enum` of objects,
    /// `unevaluated*`...) is read whole
    /// into a value and checked there (where serde_json shows numbers as digits, it falls back instead), and a
    /// schema whose dynamic scope matters falls back. Members the target type skips are read and checked too. A repeated member name falls back
    /// (the value would keep only the last), as do byte strings, raw values, maps with non-string keys and enums
    /// with data. Numbers are checked as the parsed value would hold them, with or without the
    /// `arbitrary_precision` feature (the README's "Numbers").
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
    pub fn deserialize_str<T: serde::de::DeserializeOwned>(
        &self,
        text: &str,
    ) -> Result<T, crate::typed::Fallback> {
        crate::typed::deserialize_str(&self.compiled, text)
    }

    /// Whether [`deserialize_str`](Self::deserialize_str) has a plan for every object and array position the
    /// schema reaches from its root (so that it falls back only on invalid text or a type that refuses it). Built
    /// with serde_json's `arbitrary_precision`, not where a value may meet two schemas (two `allOf` parts, a name
    /// and a pattern): such a value is undecided there.
    pub fn streams_every_container(&self) -> bool {
        crate::typed::plans_every_container(&self.compiled)
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
        self.report(instance, options, false)
    }

    /// [`validate`](Self::validate)'s answer for an instance another reader already judged invalid (the
    /// whole-slice route's typed read): the collecting walk alone, without the yes/no pre-run. Should that judgement
    /// have been wrong, the walk's own verdict answers, as `validate` would.
    pub(crate) fn validate_known_invalid(&self, instance: &Value) -> Result<(), Violations> {
        self.report(instance, &ReportOptions::default(), true)
    }

    /// The collecting walk of an instance judged invalid; `unconfirmed`: by another reader than `is_valid`, so a
    /// walk that finds it valid answers `Ok`.
    fn report(&self, instance: &Value, options: &ReportOptions, unconfirmed: bool) -> Result<(), Violations> {
        let mut evaluator = Evaluator::new(&self.compiled, true);
        // Known invalid: the report's first allocation at once, at its first size.
        evaluator.expect_violations();
        evaluator.discriminators = options.discriminators;
        let collected_valid = evaluator.run(instance);
        let mut violations = std::mem::take(&mut evaluator.violations);
        if unconfirmed && collected_valid && violations.is_empty() {
            return Ok(());
        }
        if collected_valid || violations.is_empty() {
            // Every failing path records a violation, and both evaluators give the same verdict; this only keeps
            // the "non-empty when invalid" promise if an internal bug ever breaks that (the tests look for it).
            violations.push(Violation::without_keyword(
                Location::root(),
                ViolationKind::Internal,
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

/// The most passes a build makes asking its retriever for documents (see [`ValidatorOptions::build`]).
pub(crate) const MAX_RETRIEVAL_PASSES: usize = 64;

/// The most URIs a build asks its retriever for.
pub(crate) const MAX_RETRIEVED: usize = 4096;

/// Options for compiling a [`Validator`].
#[derive(Debug, Clone, Default)]
pub struct ValidatorOptions {
    /// Assert `format` (default false: `format` is an annotation, as 2020-12 says).
    format_assertion: bool,
    /// Documents for remote `$ref`, by fragment-free absolute URI.
    resources: HashMap<String, Arc<Value>>,
    /// The first URI set that did not parse (where it was given, the URI, why), reported by `build`.
    bad_uri: Option<(String, String, String)>,
    /// The root schema's base URI (the anonymous `json-schema:///` when unset).
    base_uri: Option<Url>,
    /// Asked for documents nothing else holds.
    retriever: Option<Arc<dyn Retrieve>>,
    /// The draft of a document that declares no `$schema`.
    default_draft: Draft,
    /// Compile a reference that resolves to nothing into an outcome of the evaluations that reach it.
    defer_unresolved: bool,
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

    /// The draft `document` is read as under these options: the one its `$schema` names, else the default draft;
    /// `None` when its `$schema` names none of the drafts (a custom meta-schema). For a consumer that passes the
    /// document on and must say which draft it is written in.
    ///
    /// ```
    /// use oa_schema::{Draft, Validator};
    /// use serde_json::json;
    ///
    /// let options = Validator::options().default_draft(Draft::Draft7);
    /// assert_eq!(options.draft_of(&json!({"type": "object"})), Some(Draft::Draft7));
    /// let declared = json!({"$schema": "https://json-schema.org/draft/2020-12/schema"});
    /// assert_eq!(options.draft_of(&declared), Some(Draft::Draft202012));
    /// assert_eq!(options.draft_of(&json!({"$schema": "https://example.com/meta"})), None);
    /// ```
    pub fn draft_of(&self, document: &Value) -> Option<Draft> {
        match document.get("$schema") {
            Some(declared) => declared.as_str().and_then(Draft::from_uri),
            None => Some(self.default_draft),
        }
    }

    /// Whether a reference (`$ref`, `$dynamicRef`, `$recursiveRef`) that resolves to no schema is a compile error
    /// (`false`, the default) or a fact of the compiled schema (`true`): listed by
    /// [`Validator::unresolved_references`], and an outcome of each evaluation that reaches it, which is then no
    /// verdict: `is_valid` is `false` and the report holds a violation whose
    /// [`unresolved_reference`](crate::Violation::unresolved_reference) names the reference (at the instance
    /// location, with the keyword's schema location). A reference that no evaluation reaches costs nothing. A
    /// reference that is not a URI reference, a schema that fails its meta-schema and every other problem stay
    /// errors.
    ///
    /// The default stays an error: a caller that compiles once and validates many instances learns of a missing
    /// document at once, not from the first instance that happens to reach it. A tool that validates documents
    /// against real-world schemas (SchemaStore's refer to schemas that are not in the catalog, from parts few
    /// documents use) turns it on, and warns about the list.
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let schema = json!({ "properties": {
    ///     "name": { "type": "string" },
    ///     "lint": { "$ref": "https://example.com/lint.json" }
    /// } });
    /// assert!(Validator::new(&schema).is_err());
    /// let validator = Validator::options().defer_unresolved_references(true).build(&schema).unwrap();
    /// assert_eq!(validator.unresolved_references()[0].location(), "#/properties/lint/$ref");
    /// // Not reached: a verdict.
    /// assert!(validator.is_valid(&json!({ "name": "x" })));
    /// assert!(!validator.is_valid(&json!({ "name": 7 })));
    /// // Reached: no verdict, and the report says why.
    /// let report = validator.validate(&json!({ "lint": {} })).unwrap_err();
    /// let violation = report.iter().next().unwrap();
    /// assert_eq!(violation.unresolved_reference(), Some("https://example.com/lint.json"));
    /// assert_eq!(violation.instance_location().to_fragment(), "#/lint");
    /// ```
    #[must_use]
    pub fn defer_unresolved_references(mut self, defer: bool) -> Self {
        self.defer_unresolved = defer;
        self
    }

    /// The root schema's base URI: where it was retrieved from (`file:///schemas/person.json`), against which its
    /// relative references resolve (`address.json` then names `file:///schemas/address.json`), unless its `$id`
    /// says otherwise. Locations in errors and reports show it. Default: none (an anonymous base; locations show
    /// the fragment alone). An invalid or relative `uri` is reported by [`build`](Self::build).
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let validator = Validator::options()
    ///     .base_uri("file:///schemas/person.json")
    ///     .resource("file:///schemas/address.json", json!({ "required": ["city"] }))
    ///     .build(&json!({ "properties": { "home": { "$ref": "address.json" } } }))
    ///     .unwrap();
    /// let report = validator.validate(&json!({ "home": {} })).unwrap_err();
    /// let violation = report.iter().next().unwrap();
    /// assert_eq!(violation.schema_location().absolute(), "file:///schemas/address.json#/required");
    /// ```
    #[must_use]
    pub fn base_uri(mut self, uri: &str) -> Self {
        match normalize_uri(uri) {
            Ok(url) => self.base_uri = Some(url),
            Err(err) => {
                self.bad_uri
                    .get_or_insert_with(|| ("base URI".to_owned(), uri.to_owned(), err.to_string()));
            }
        }
        self
    }

    /// Who to ask for a document that neither the schema, a registered resource nor a bundled meta-schema holds
    /// (see [`Retrieve`]). oa-schema reads no file and no network itself: the retriever decides what may be read.
    /// Default: none (such a reference resolves to nothing).
    #[must_use]
    pub fn retriever(mut self, retriever: Arc<dyn Retrieve>) -> Self {
        self.retriever = Some(retriever);
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
                self.bad_uri
                    .get_or_insert_with(|| ("resource".to_owned(), uri.to_owned(), err.to_string()));
            }
        }
        self
    }

    /// Checks `schema` against its meta-schema and compiles it.
    ///
    /// With a [`retriever`](Self::retriever), a compilation that needs documents nothing holds asks for all of them
    /// at once and compiles again with them, until it needs nothing new: as many passes as the longest chain of
    /// retrieved documents (at most 64 passes, and 4,096 URIs asked for; beyond either a reference resolves to
    /// nothing, its cause saying which limit).
    ///
    /// # Errors
    /// A [`SchemaError`] naming the schema location, as [`Validator::new`].
    pub fn build(&self, schema: &Value) -> Result<Validator, SchemaError> {
        if let Some((location, uri, reason)) = &self.bad_uri {
            return Err(SchemaError::InvalidUri {
                location: location.clone(),
                uri: registry::redact(uri),
                reason: reason.clone(),
            });
        }
        let mut retrieved = Retrieved::new(self.retriever.is_some());
        let mut meta_checked = false;
        let mut passes = 0;
        loop {
            let outcome = self.compile_pass(schema, &retrieved, &mut meta_checked);
            let wanted = retrieved.take_wanted();
            let Some(retriever) = self.retriever.as_deref().filter(|_| !wanted.is_empty()) else {
                return outcome;
            };
            passes += 1;
            for uri in wanted {
                let answer = if passes > MAX_RETRIEVAL_PASSES {
                    Err(RetrieveError::Unusable {
                        reason: format!(
                            "references chain through more than {MAX_RETRIEVAL_PASSES} retrieved documents"
                        ),
                    })
                } else if retrieved.documents.len() + retrieved.missing.len() >= MAX_RETRIEVED {
                    Err(RetrieveError::Unusable {
                        reason: format!("more than {MAX_RETRIEVED} documents were asked for"),
                    })
                } else {
                    retriever.retrieve(&uri)
                };
                match answer {
                    Ok(Some(document)) => {
                        // Found by its own `$id` too, whichever of the two a later pass meets first.
                        if let Some(id) = self.root_id(&document, &uri) {
                            retrieved.missing.remove(&id);
                            retrieved
                                .documents
                                .entry(id)
                                .or_insert_with(|| Arc::clone(&document));
                        }
                        retrieved.documents.insert(uri, document);
                    }
                    Ok(None) => {
                        retrieved.missing.insert(uri, None);
                    }
                    Err(error) => {
                        retrieved.missing.insert(uri, Some(error));
                    }
                }
            }
        }
    }

    /// One compilation over the documents held so far (see [`build`](Self::build)).
    fn compile_pass(
        &self,
        schema: &Value,
        retrieved: &Retrieved,
        meta_checked: &mut bool,
    ) -> Result<Validator, SchemaError> {
        // Indexing first bounds the schema's depth (without recursion) before anything recursive looks at it.
        let mut registry = Registry::new(&self.resources, retrieved, self.default_draft);
        let doc_id = registry.add_document(schema, self.base())?;
        if !*meta_checked {
            self.check_against_meta_schema(schema, retrieved)?;
            *meta_checked = true;
        }
        let compiled = compile::compile(registry, doc_id, self.settings())?;
        Ok(Validator {
            compiled: Arc::new(compiled),
        })
    }

    /// Compiles without the meta-schema check (for the meta-schemas themselves), at the anonymous base, with the
    /// documents already held and no retriever.
    fn build_unchecked(&self, schema: &Value, retrieved: &Retrieved) -> Result<Validator, SchemaError> {
        let mut registry = Registry::new(&self.resources, retrieved, self.default_draft);
        let doc_id = registry.add_document(schema, default_base())?;
        let compiled = compile::compile(registry, doc_id, self.settings())?;
        Ok(Validator {
            compiled: Arc::new(compiled),
        })
    }

    fn settings(&self) -> Settings {
        Settings {
            format_assertion: self.format_assertion,
            defer_unresolved: self.defer_unresolved,
        }
    }

    /// The fragment-free URI a document's root `$id` (draft 4: `id`) names, resolved against `uri`, where it has one.
    fn root_id(&self, document: &Value, uri: &str) -> Option<String> {
        let draft = match document.get("$schema").and_then(Value::as_str) {
            Some(declared) => Draft::from_uri(declared)?,
            None => self.default_draft,
        };
        let id = document.get(draft.id_keyword())?.as_str()?;
        let mut url = Url::parse(uri).ok()?.join(id).ok()?;
        url.set_fragment(None);
        Some(url.as_str().to_owned()).filter(|id| id != uri)
    }

    /// The root schema's base URI: the one set, else the anonymous default.
    fn base(&self) -> Url {
        self.base_uri.clone().unwrap_or_else(default_base)
    }

    fn check_against_meta_schema(&self, schema: &Value, retrieved: &Retrieved) -> Result<(), SchemaError> {
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
                let Some(meta) = self
                    .resources
                    .get(url.as_str())
                    .or_else(|| retrieved.documents.get(url.as_str()))
                else {
                    return Ok(());
                };
                let options = ValidatorOptions {
                    format_assertion: false,
                    ..self.clone()
                };
                custom = options.build_unchecked(meta, retrieved)?;
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
                let base = self.base();
                let base = match schema.get("$id").and_then(Value::as_str) {
                    Some(id) => base.join(id).ok(),
                    None => Some(base),
                }
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
/// `meta_schema`; `None` if it cannot be built, and the real one is then used alone.
pub(crate) fn draft_2020_12_flat() -> Option<&'static Validator> {
    static FLAT: OnceLock<Option<Validator>> = OnceLock::new();
    FLAT.get_or_init(|| {
        let flat = metaschemas::flat_2020_12()?;
        ValidatorOptions::default()
            .build_unchecked(&flat, &Retrieved::default())
            .ok()
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
            .build_unchecked(meta, &Retrieved::default())
            .map_err(|err| err.to_string())
    });
    compiled.as_ref().map_err(|reason| SchemaError::InvalidKeyword {
        location: uri.to_owned(),
        keyword: "$schema".to_owned(),
        reason: format!("internal error: the bundled meta-schema does not compile: {reason}"),
    })
}
