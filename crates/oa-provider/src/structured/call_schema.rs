//! A call's response schema, checked and compiled once per distinct schema and options (the process-wide cache in
//! `schema_cache`): the caller's validator (any draft oa-schema reads, with the request's resources), which judges
//! every answer, and what the wire carries for it: the caller's schema verbatim (§8.1.5 and its siblings), its bundle
//! when it refers to documents a provider cannot fetch, or a fit of it per mapping when the request asks for one.
//! Each of those, the clauses of the caller's schema and the accounts built from them are made once and kept here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use oa_schema::{Bundle, Draft, Validator, ValidatorOptions};
use serde_json::Value;

use crate::enforcement::KeywordSet;
use crate::model::ProviderError;
use crate::model::{Mapping, StructuredOutputPath};
use crate::structured::account::{self, Clause};
use crate::structured::fit::{self, Fallback, FitError, Reason, SchemaAccount, SchemaForm, Unenforced};
use crate::structured::{ResponseSchema, schema_cache};

/// A response schema that passed the call-time checks, compiled: shared by every attempt of the call and by every
/// later call with the same schema and options.
#[derive(Debug, Clone)]
pub(crate) struct CallSchema(Arc<Compiled>);

/// What a schema compiles to, once.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The caller's schema as given.
    caller: Value,
    /// The options it was compiled with (kept alive: the cache knows them by address).
    options: Option<Arc<ValidatorOptions>>,
    /// The caller's schema compiled: it judges every answer, whatever was sent.
    validator: Validator,
    /// The schema sent when the request does not fit: verbatim, or the bundle.
    plain: ResponseSchema,
    /// The caller's schema and its documents as one draft 2020-12 document, made on first use.
    bundle: OnceLock<Bundle>,
    /// The fit to each mapping (in `Mapping::ALL` order), made on first use.
    fitted: [OnceLock<Result<ResponseSchema, FitError>>; 3],
    /// Every clause of the caller's schema, made on first use.
    clauses: OnceLock<Vec<Clause>>,
    /// Accounts already built, by (schema sent, path, coverage, fallback).
    accounts: Mutex<HashMap<AccountKey, Arc<SchemaAccount>>>,
}

/// What an account depends on: the schema sent (by address, alive while this entry is), the path, the covering
/// verdict's keywords, and why the path was taken.
type AccountKey = (usize, StructuredOutputPath, Option<u32>, Option<Fallback>);

/// Accounts kept per compiled schema before the map starts afresh.
const MAX_ACCOUNTS: usize = 64;

impl schema_cache::Entry for Compiled {
    fn schema(&self) -> &Value {
        &self.caller
    }

    fn options_id(&self) -> usize {
        options_id(self.options.as_ref())
    }
}

fn options_id(options: Option<&Arc<ValidatorOptions>>) -> usize {
    options.map_or(0, |options| Arc::as_ptr(options) as usize)
}

/// Every response schema compiled in this process, by schema_version and options.
static COMPILED: schema_cache::SchemaCache<Compiled> = schema_cache::SchemaCache::new();

impl CallSchema {
    /// Checks a schema with default options (its `$schema`'s draft, else 2020-12; no resources).
    pub(crate) fn check(schema: &Value) -> Result<Self, ProviderError> {
        COMPILED
            .get_or_build(schema, 0, |identity| Compiled::check(schema, None, identity))
            .map(Self)
    }

    /// Checks a request's shared schema with the request's options: the same `Arc`s sent again are found by their
    /// pointers.
    pub(crate) fn check_shared(
        schema: &Arc<Value>,
        options: Option<&Arc<ValidatorOptions>>,
    ) -> Result<Self, ProviderError> {
        COMPILED
            .get_or_build_shared(schema, options_id(options), |identity| {
                Compiled::check(schema, options, identity)
            })
            .map(Self)
    }

    /// The caller's schema as given.
    pub(crate) fn caller(&self) -> &Value {
        &self.0.caller
    }

    /// The caller's schema compiled.
    pub(crate) fn validator(&self) -> &Validator {
        &self.0.validator
    }

    /// What is sent without fitting: the caller's schema verbatim, or its bundle.
    pub(crate) fn plain(&self) -> &ResponseSchema {
        &self.0.plain
    }

    /// The schema fitted to `mapping`'s native path, made once.
    pub(crate) fn fitted(&self, mapping: Mapping) -> Result<&ResponseSchema, &FitError> {
        let at = Mapping::ALL
            .iter()
            .position(|known| *known == mapping)
            .unwrap_or(0);
        self.0.fitted[at]
            .get_or_init(|| {
                let bundle = self.bundle();
                let fitted = fit::fit(bundle.schema(), mapping)?;
                let account = account::translate(bundle, fitted.account());
                Ok(ResponseSchema::fitted(
                    fitted.schema().clone(),
                    SchemaForm::Fitted,
                    account,
                    fitted.map_back(),
                ))
            })
            .as_ref()
    }

    /// `sent` (a fit) again without `keyword`, which a vendor 400 named: every clause with that keyword is then in the
    /// account as not accepted. `None` when the keyword is not one a refit may drop, or `sent` does not use it.
    pub(crate) fn refit(&self, sent: &ResponseSchema, keyword: &str) -> Option<ResponseSchema> {
        if !account::DROPPABLE.contains(&keyword) {
            return None;
        }
        let schema = account::without_keyword(&sent.schema, keyword)?;
        let mut entries: Vec<Unenforced> = sent
            .fit_account
            .iter()
            .filter(|entry| !self.names(entry, keyword))
            .cloned()
            .collect();
        entries.extend(
            self.clauses()
                .iter()
                .filter(|clause| clause.written == keyword || (keyword == "if" && is_conditional(clause)))
                .map(|clause| Unenforced {
                    pointer: clause.pointer.clone(),
                    keyword: clause.keyword.clone(),
                    reason: Reason::NotAccepted,
                }),
        );
        entries.sort();
        entries
            .dedup_by(|later, earlier| later.pointer == earlier.pointer && later.keyword == earlier.keyword);
        let map_back = sent.map_back.clone().unwrap_or_default();
        Some(ResponseSchema::fitted(
            schema,
            SchemaForm::Refitted,
            entries,
            &map_back,
        ))
    }

    /// Whether fitting's account entry is a clause whose 2020-12 keyword is `keyword`.
    fn names(&self, entry: &Unenforced, keyword: &str) -> bool {
        self.clauses().iter().any(|clause| {
            clause.pointer == entry.pointer
                && clause.keyword == entry.keyword
                && (clause.written == keyword || (keyword == "if" && is_conditional(clause)))
        }) || entry.keyword == keyword
    }

    /// The account of an attempt that sent `sent` on `path`, with `coverage` the keywords a fresh enforcing verdict
    /// for the route covers (`None`: no such verdict), made once per distinct case.
    pub(crate) fn account(
        &self,
        sent: &ResponseSchema,
        path: StructuredOutputPath,
        coverage: Option<KeywordSet>,
        fallback: Option<Fallback>,
    ) -> Arc<SchemaAccount> {
        let key = (sent.address(), path, coverage.map(KeywordSet::bits), fallback);
        let known = self.is_kept(sent);
        if known && let Some(account) = self.lock_accounts().get(&key) {
            return Arc::clone(account);
        }
        let account = Arc::new(account::build(|| self.clauses(), sent, path, coverage, fallback));
        if known {
            let mut accounts = self.lock_accounts();
            if accounts.len() >= MAX_ACCOUNTS {
                accounts.clear();
            }
            accounts.insert(key, Arc::clone(&account));
        }
        account
    }

    /// Whether `sent` is one of the schemas this entry keeps alive (so its address identifies it).
    fn is_kept(&self, sent: &ResponseSchema) -> bool {
        sent.ptr_eq(&self.0.plain)
            || self.0.fitted.iter().any(|fitted| {
                fitted
                    .get()
                    .and_then(|fitted| fitted.as_ref().ok())
                    .is_some_and(|fitted| fitted.ptr_eq(sent))
            })
    }

    fn lock_accounts(&self) -> std::sync::MutexGuard<'_, HashMap<AccountKey, Arc<SchemaAccount>>> {
        self.0.accounts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The caller's schema as one draft 2020-12 document, made once.
    pub(crate) fn bundle(&self) -> &Bundle {
        self.0.bundle.get_or_init(|| self.0.validator.bundle())
    }

    /// Every clause of the caller's schema, made once.
    fn clauses(&self) -> &[Clause] {
        self.0.clauses.get_or_init(|| account::clauses(self.bundle()))
    }
}

/// Whether a clause is `then` or `else`, which go with their `if`.
fn is_conditional(clause: &Clause) -> bool {
    clause.written == "then" || clause.written == "else"
}

impl Compiled {
    fn check(
        schema: &Value,
        options: Option<&Arc<ValidatorOptions>>,
        identity: schema_cache::Identity,
    ) -> Result<Self, ProviderError> {
        if !schema.is_object() {
            return Err(ProviderError::invalid_request(
                "response_schema must be a JSON object schema",
            ));
        }
        #[cfg(test)]
        super::compile_counter::count();
        let compiled = match options {
            Some(options) => options.build(schema),
            None => Validator::new(schema),
        };
        let validator = compiled.map_err(|error| {
            ProviderError::invalid_request(format!("response_schema is not a valid schema: {error}"))
        })?;
        let bundle = OnceLock::new();
        // After compiling, so a schema that is not a schema at all is named as such first.
        if !has_object_top(schema) && !has_object_top(bundle.get_or_init(|| validator.bundle()).schema()) {
            return Err(ProviderError::invalid_request(
                "response_schema must have type \"object\" at the top",
            ));
        }
        let draft = match options {
            Some(options) => options.draft_of(schema),
            None => ValidatorOptions::default().draft_of(schema),
        };
        let needs_bundle = !validator.unresolved_references().is_empty()
            || (refers_elsewhere(schema)
                && bundle
                    .get_or_init(|| validator.bundle())
                    .subschemas()
                    .any(|(_, origin)| !origin.in_root_document()));
        let plain = if needs_bundle {
            let bundled = bundle.get_or_init(|| validator.bundle()).schema().clone();
            ResponseSchema::new(bundled, SchemaForm::Bundled, Some(Draft::Draft202012))
        } else {
            ResponseSchema::with_identity(
                schema.clone(),
                identity.canonical,
                identity.version,
                SchemaForm::Verbatim,
                draft,
            )
        };
        Ok(Self {
            caller: schema.clone(),
            options: options.cloned(),
            validator,
            plain,
            bundle,
            fitted: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
            clauses: OnceLock::new(),
            accounts: Mutex::new(HashMap::new()),
        })
    }
}

/// How many `$ref`s and `allOf` members [`has_object_top`] follows from the root.
const MAX_TOP_STEPS: usize = 32;

/// Whether the root says its instances are objects (the spec's "object at the top"): `type: "object"` at the root,
/// or at a local `$ref` target or `allOf` member it reaches (a pydantic or zod schema whose root is a reference).
fn has_object_top(schema: &Value) -> bool {
    let mut pending = vec![schema];
    let mut steps = 0;
    while let Some(node) = pending.pop() {
        steps += 1;
        if steps > MAX_TOP_STEPS {
            return false;
        }
        let Value::Object(map) = node else { continue };
        if map.get("type").and_then(Value::as_str) == Some("object") {
            return true;
        }
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| oa_pointer::JsonPointer::parse_fragment(reference).ok())
            .and_then(|pointer| pointer.get(schema))
        {
            pending.push(target);
        }
        if let Some(Value::Array(members)) = map.get("allOf") {
            pending.extend(members);
        }
    }
    false
}

/// Whether the schema holds a reference that is not a plain fragment of its own document (so it may name another
/// document, which only the bundle can carry to a provider). Iterative; a `$ref` key inside data counts too, which
/// only costs a bundle.
fn refers_elsewhere(schema: &Value) -> bool {
    let mut pending = vec![schema];
    while let Some(node) = pending.pop() {
        match node {
            Value::Object(map) => {
                for (name, value) in map {
                    let is_reference = matches!(name.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef");
                    if is_reference
                        && value
                            .as_str()
                            .is_some_and(|reference| !reference.starts_with('#'))
                    {
                        return true;
                    }
                    pending.push(value);
                }
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    false
}
