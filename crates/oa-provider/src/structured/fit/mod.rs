//! Fitting a response schema to what a provider's native structured path enforces (issue 36).
//!
//! Each vendor accepts a subset of JSON Schema: OpenAI's strict mode, Anthropic's `output_config.format` and Gemini's
//! `responseJsonSchema` reject some keywords with a 400 and silently ignore others. [`fit`] turns the caller's schema
//! (a self-contained draft 2020-12 document whose `$ref`s are local JSON Pointers: what `oa_schema::Validator::bundle`
//! writes for a schema of any draft and its resources) into the strongest schema the provider takes, and says exactly
//! what the provider is no longer asked to enforce:
//!
//! - the fitted schema to send ([`Fitted::schema`]);
//! - the account ([`Fitted::account`]): every clause of the caller's schema the provider does not enforce, as
//!   `{pointer, keyword, reason}` with pointers into the caller's document, so the call can record it and validate
//!   it locally (oa validates every answer against the caller's full schema anyway);
//! - the map-back plan ([`Fitted::map_back`]): where fitting changed how an answer is spelled (OpenAI needs every
//!   property required, so an optional one becomes required and nullable), how to turn the provider's answer back
//!   into the caller's before validation, so the caller's schema judges exactly what the caller would have received;
//! - the rewrites ([`Fitted::rewrites`]): changes that widen nothing (an open object closed, `allOf` merged,
//!   recursion unrolled), for the record.
//!
//! Which keyword each provider enforces, accepts, rejects or ignores is a table (`table/`, a file per vendor, shown
//! in the crate README with the source and date of each row). Fitting may narrow (close an open object, as every vendor SDK
//! does, unroll a recursion to a fixed depth, narrow a schema with no type to the scalar types) but leaves some answer
//! the caller's schema accepts where it can tell, and fails with [`FitError::Unsatisfiable`] where it cannot; it never
//! widens without an account entry. A clause the table marks uncertain is never counted as enforced.
//!
//! # Example
//!
//! ```
//! use oa_provider::Mapping;
//! use oa_provider::fit::{Reason, fit};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {
//!         "summary": {"type": "string", "maxLength": 280},
//!         "tags": {"type": "array", "items": {"type": "string"}, "minItems": 3}
//!     },
//!     "required": ["summary"]
//! });
//! let fitted = fit(&schema, Mapping::Anthropic).unwrap();
//! // Anthropic takes neither maxLength nor minItems over 1: both are listed, validated locally.
//! let account: Vec<_> = fitted.account().iter().map(|c| (c.keyword.as_str(), c.reason)).collect();
//! assert_eq!(account, [("maxLength", Reason::DroppedRejected), ("minItems", Reason::Relaxed)]);
//! assert_eq!(fitted.schema()["additionalProperties"], json!(false)); // closed: a narrowing, not in the account
//! ```
//!
//! The account's pointers are into the document fitted. For a bundle, `Bundle::origin(pointer)` and
//! `Bundle::source_keyword(pointer, keyword)` name the caller's own document, pointer and keyword (the bundle keeps
//! the root document's pointers; a referenced document sits under `/$defs/NAME`).
//!
//! # Limits
//!
//! - Only local JSON Pointer references (`#`, `#/...`); anchors and external references are
//!   [`FitError::UnresolvableRef`]. A nested `$id` does not change how a pointer resolves (pointers are read from the
//!   document root).
//! - `allOf` merges exactly for `type`, `enum`, `const`, bounds, `required`, `properties` under each member's
//!   `additionalProperties`, and `items`; two members with different `pattern`, `format`, `multipleOf`, unions or
//!   subschema keywords (`not`, `if`, ...) conflict: on OpenAI and Gemini the later one is dropped (in the account),
//!   on Anthropic it is kept as an `allOf` member.
//! - `oneOf` is sent as `anyOf`; only tagged and type-disjoint branches are recognised as exact.
//! - Recursion is unrolled for Anthropic (and for Gemini where a cycle passes through required properties only): each
//!   definition on the cycle recurs 3 more times (every reference inside the cycle is a level, at most 12), then the
//!   recursion is cut at an optional property or a union branch (Gemini also at `maxItems: 0`); deeper answers are
//!   narrowed away. Anthropic takes no `maxItems`, so an array at the cut gets `items: {"type": "null"}` and the
//!   caller's `items` there is in the account as relaxed.
//! - Bounded: [`MAX_DEPTH`] levels of subschema nesting (references followed count as levels), 100,000 fitted subschemas, 20,000 schema objects read by merges;
//!   past them, [`FitError::TooDeep`] or [`FitError::TooLarge`].
//! - A `format` the caller's validator treats as an annotation is still a clause here (the caller may assert it).

mod account;
mod array;
mod compose;
mod defs;
mod disjoint;
mod doc;
mod error;
mod fitter;
mod frame;
mod limits;
mod map_back;
mod native;
mod nulls;
mod object;
mod recursion;
mod table;
#[cfg(test)]
mod tests;
mod values;

use std::collections::BTreeSet;

use oa_pointer::Location;
use serde_json::Value;

pub use account::{Fallback, Reason, Rewrite, RewriteKind, SchemaAccount, SchemaForm, Unenforced};
pub use error::{FitError, Limit};
pub use map_back::MapBack;
pub use native::{NativeSchema, native_schema};

use crate::model::Mapping;
use doc::Doc;
use fitter::{Candidate, Fitter, Walked};
use recursion::Cycles;

/// How deep fitting walks a schema: nested subschemas and the references followed from them, together (about 13 KB
/// of stack each in a debug build, so well inside a 2 MiB thread).
pub const MAX_DEPTH: usize = 64;

/// A schema fitted to one mapping's native structured path.
#[derive(Debug, Clone)]
pub struct Fitted {
    mapping: Mapping,
    schema: Value,
    account: Vec<Unenforced>,
    rewrites: Vec<Rewrite>,
    map_back: MapBack,
}

impl Fitted {
    /// The mapping it was fitted to.
    pub fn mapping(&self) -> Mapping {
        self.mapping
    }

    /// The schema to send on the mapping's native path.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The schema to send, owned.
    pub fn into_schema(self) -> Value {
        self.schema
    }

    /// Every clause of the caller's schema the provider is not asked to enforce, sorted by pointer then keyword.
    pub fn account(&self) -> &[Unenforced] {
        &self.account
    }

    /// Changes that widen nothing, for the record.
    pub fn rewrites(&self) -> &[Rewrite] {
        &self.rewrites
    }

    /// How to map an answer to the fitted schema back to the caller's spelling before validation.
    pub fn map_back(&self) -> &MapBack {
        &self.map_back
    }
}

/// Fits `schema` (a valid, self-contained draft 2020-12 document whose `$ref`s are local JSON Pointers; the call path
/// compiles it first) to `mapping`'s native structured path. A schema that is not valid never makes fitting panic, but
/// what it fits to is not promised to be valid either.
///
/// # Errors
///
/// A [`FitError`]: a reference fitting cannot follow, a root that is not an object where the provider needs one, a
/// provider limit the fitted schema would exceed, no answer left that the caller's schema accepts, or a schema past
/// the walk's bounds. The call can then fall back rather than send a schema the vendor would reject.
pub fn fit(schema: &Value, mapping: Mapping) -> Result<Fitted, FitError> {
    let doc = Doc::new(schema);
    let cycles = Cycles::of(&doc);
    let mut policy = Policy::default();
    let mut walked = Fitter::new(doc, mapping, &policy, &cycles).run()?;
    match mapping {
        Mapping::OpenAi => limits::check_openai(&limits::count(&walked.schema))?,
        Mapping::Anthropic => {
            let counts = limits::count(&walked.schema);
            if limits::check_anthropic(&counts).is_err() {
                policy = balance(&walked, &counts);
                walked = Fitter::new(doc, mapping, &policy, &cycles).run()?;
                limits::check_anthropic(&limits::count(&walked.schema))?;
            }
            no_cycles(mapping, &walked, false)?;
        }
        Mapping::Gemini => {
            // Unroll every cycle that passes through required properties only, until none is left.
            loop {
                let cyclic = limits::cyclic_definitions(&walked.schema, true);
                let before = policy.unroll.len();
                for name in &cyclic {
                    let Some(source) = walked.def_sources.get(name) else {
                        continue;
                    };
                    if let Some(component) = cycles.component(source) {
                        policy.unroll.extend(cycles.members(component).cloned());
                    }
                }
                if cyclic.is_empty() || policy.unroll.len() == before {
                    break;
                }
                walked = Fitter::new(doc, mapping, &policy, &cycles).run()?;
            }
            no_cycles(mapping, &walked, true)?;
        }
    }
    Ok(Fitted {
        mapping,
        schema: walked.schema,
        account: walked.account.into_iter().collect(),
        rewrites: walked.rewrites.into_iter().collect(),
        map_back: walked.plan,
    })
}

/// Choices a refit makes differently (each fit starts from the default: nothing unrolled beyond what the mapping
/// needs, every property as the caller wrote it).
#[derive(Debug, Default)]
pub(crate) struct Policy {
    /// Subschemas on a cycle that Gemini gets unrolled (Anthropic gets every cycle unrolled).
    pub(crate) unroll: BTreeSet<Location>,
    /// Anthropic: optional nullable properties (object, name) whose `null` goes.
    pub(crate) null_dropped: BTreeSet<(Location, String)>,
    /// Anthropic: required nullable properties made omittable (absent mapped back to `null`).
    pub(crate) omittable: BTreeSet<(Location, String)>,
    /// Anthropic: optional never-null properties made required and nullable (`null` mapped back to absent).
    pub(crate) nullable_required: BTreeSet<(Location, String)>,
}

/// Anthropic's limits: drop the `null` of optional nullable properties first (a narrowing), then make required
/// nullable properties omittable while the optional budget allows; when there are too many optional properties, make
/// never-null ones required and nullable while the union budget allows.
fn balance(walked: &Walked, counts: &limits::Counts) -> Policy {
    let mut policy = Policy::default();
    let (mut unions, mut optional) = (counts.unions, counts.optional);
    let of_kind = |kind: Candidate| {
        walked
            .candidates
            .iter()
            .filter(move |((_, _, held), _)| *held == kind)
            .map(|((at, name, _), n)| ((at.clone(), name.clone()), *n))
    };
    for (key, n) in of_kind(Candidate::NullDroppable) {
        if unions <= limits::ANTHROPIC_MAX_UNIONS {
            break;
        }
        policy.null_dropped.insert(key);
        unions = unions.saturating_sub(n);
    }
    for (key, n) in of_kind(Candidate::Omittable) {
        if unions <= limits::ANTHROPIC_MAX_UNIONS {
            break;
        }
        if optional + n > limits::ANTHROPIC_MAX_OPTIONAL {
            continue;
        }
        policy.omittable.insert(key);
        unions = unions.saturating_sub(n);
        optional += n;
    }
    for (key, n) in of_kind(Candidate::Requirable) {
        if optional <= limits::ANTHROPIC_MAX_OPTIONAL {
            break;
        }
        if unions + n > limits::ANTHROPIC_MAX_UNIONS {
            continue;
        }
        policy.nullable_required.insert(key);
        optional = optional.saturating_sub(n);
        unions += n;
    }
    policy
}

/// A fitted schema must not keep a cycle the provider rejects (a safety net: unrolling removes them).
fn no_cycles(mapping: Mapping, walked: &Walked, required_only: bool) -> Result<(), FitError> {
    match limits::cyclic_definitions(&walked.schema, required_only).first() {
        Some(name) => Err(FitError::Unsatisfiable {
            mapping,
            pointer: walked.def_sources.get(name).cloned().unwrap_or_default(),
            why: "a recursion the provider rejects could not be unrolled",
        }),
        None => Ok(()),
    }
}
