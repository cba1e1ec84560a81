//! The account of a fit: every clause of the caller's schema that the provider is not asked to enforce, at its
//! JSON Pointer into the caller's document, with the typed reason; and the rewrites that changed the schema without
//! widening it (closed objects, merged `allOf`, unrolled recursion), kept for the record.

use std::fmt;

use oa_pointer::Location;
use serde::{Deserialize, Serialize};

/// One clause of the caller's schema that the provider is not asked to enforce: the keyword at `pointer` (the
/// schema object that holds it, in the caller's document). oa validates it locally all the same.
///
/// ```
/// use oa_provider::Mapping;
/// use oa_provider::fit::{Reason, fit};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
///                     "required": ["n"], "additionalProperties": false});
/// let fitted = fit(&schema, Mapping::Anthropic).unwrap();
/// let clause = &fitted.account()[0];
/// assert_eq!((clause.pointer.as_str(), clause.keyword.as_str(), clause.reason),
///            ("/properties/n", "minimum", Reason::DroppedRejected));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Unenforced {
    /// The schema object holding the keyword, as a JSON Pointer into the caller's schema (`""` for the root).
    pub pointer: Location,
    /// The keyword (`maxLength`, `oneOf`, ...), as the caller wrote it; `*` for every clause of the subschema at
    /// `pointer` not listed on its own (the call path's entry for a reason that holds for the whole schema: the
    /// path asked the provider to enforce nothing, the provider did not accept the schema, no verdict covers it).
    pub keyword: String,
    /// Why the provider is not asked to enforce it.
    pub reason: Reason,
}

/// Why a clause is not enforced by the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// Removed by fitting: the provider rejects it with a 400.
    DroppedRejected,
    /// Removed by fitting: the provider accepts it and silently ignores it.
    DroppedIgnored,
    /// Removed by fitting: the provider's documentation leaves its handling unclear (an uncertain row of the
    /// table), so it is neither sent nor counted as enforced.
    DroppedUncertain,
    /// Sent, but the provider silently ignores it.
    KeptIgnored,
    /// Sent, but whether the provider enforces it is uncertain.
    KeptUncertain,
    /// Sent in a weaker form the provider enforces (`oneOf` as `anyOf`, `minItems` lowered, an exclusive bound as
    /// an inclusive one, a tuple's positions as one item schema).
    Relaxed,
    /// The provider did not accept it (a vendor 400 on the native path): the call fell back to a path that asks
    /// the provider to enforce nothing, or refitted without the clause the 400 named. Fitting never records this;
    /// the call path does.
    NotAccepted,
    /// Sent on the native path, but no fresh probe verdict for the route covers its keyword (the enforcement
    /// chapter: unverified is not enforced). The call path records it.
    NotVerified,
    /// The request did not ask the provider to enforce it: the schema went into the prompt, as an unenforced tool's
    /// input schema, or with OpenAI's `strict: false` (the `native_unenforced` path). The call path records it.
    NotRequested,
}

impl Reason {
    /// The reason's name as it is serialized (`dropped_rejected`, ...).
    ///
    /// ```
    /// assert_eq!(oa_provider::fit::Reason::KeptUncertain.as_str(), "kept_uncertain");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DroppedRejected => "dropped_rejected",
            Self::DroppedIgnored => "dropped_ignored",
            Self::DroppedUncertain => "dropped_uncertain",
            Self::KeptIgnored => "kept_ignored",
            Self::KeptUncertain => "kept_uncertain",
            Self::Relaxed => "relaxed",
            Self::NotAccepted => "not_accepted",
            Self::NotVerified => "not_verified",
            Self::NotRequested => "not_requested",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Unenforced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} {}: {}", self.pointer, self.keyword, self.reason)
    }
}

/// What one structured attempt sent as its schema and what the provider was not asked to enforce, or not shown to
/// enforce: the account the call records on its attempt record, typed events and attempt span.
///
/// Every clause of the caller's schema that the provider is not asked to enforce, or whose keyword no fresh probe
/// verdict covers, is listed once, at its pointer in the caller's schema (a clause of a document the schema refers to
/// at its place in the bundle, `/$defs/NAME/...`); a reason that holds for every clause not listed on its own (no
/// verdict at all, a fallback path) is one entry with keyword `*` at the root. An empty list on the `native` path means every clause went to the
/// provider and a fresh verdict covers its keyword: the only case whose `schema_mode` may be `enforced`. oa validates
/// every answer against the caller's whole schema whatever the account says.
///
/// ```
/// use oa_provider::fit::{Reason, SchemaAccount, SchemaForm, Unenforced};
///
/// let account = SchemaAccount {
///     form: SchemaForm::Fitted,
///     fallback: None,
///     unenforced: vec![Unenforced { pointer: "/properties/summary".parse().unwrap(), keyword: "maxLength".into(),
///                                   reason: Reason::DroppedRejected }],
/// };
/// assert_eq!(serde_json::to_value(&account).unwrap()["unenforced"][0]["reason"], "dropped_rejected");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaAccount {
    /// How the schema sent came from the caller's.
    pub form: SchemaForm,
    /// Why the attempt is on a fallback path, when it is one the call fell back to.
    pub fallback: Option<Fallback>,
    /// Every clause not enforced by the provider (or not shown to be), sorted by pointer then keyword.
    pub unenforced: Vec<Unenforced>,
}

/// How the schema an attempt sent came from the caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SchemaForm {
    /// The caller's schema as written (the spec's default, §8.1.5 and its siblings).
    Verbatim,
    /// One self-contained draft 2020-12 document written from the caller's schema and the documents it refers to
    /// (`oa_schema::Validator::bundle`), because the provider cannot fetch those documents.
    Bundled,
    /// Fitted to the mapping's native path (the request asked for it).
    Fitted,
    /// Fitted, then fitted again without the clause a vendor 400 named.
    Refitted,
}

impl SchemaForm {
    /// The form's name as it is serialized (`verbatim`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Verbatim => "verbatim",
            Self::Bundled => "bundled",
            Self::Fitted => "fitted",
            Self::Refitted => "refitted",
        }
    }
}

/// Why a structured call left its native path for the mapping's fallback (§8.1.5.1 and its siblings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Fallback {
    /// The server rejected the native constraint with a 400 (the schema, or the constraint itself).
    Rejected,
    /// The schema could not be fitted to the mapping (a `FitError`): nothing was sent natively.
    Unfittable,
}

/// A change fitting made that does not widen what the caller's schema accepts: it narrows (an open object closed,
/// recursion cut at a depth) or says the same thing in the provider's dialect. Not part of the account; kept so a
/// reader can see why the sent schema differs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Rewrite {
    /// Where, as a JSON Pointer into the caller's schema.
    pub pointer: Location,
    /// What was done.
    pub kind: RewriteKind,
}

/// The kinds of [`Rewrite`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
#[non_exhaustive]
pub enum RewriteKind {
    /// An object that allowed other properties was closed (`additionalProperties: false`): narrowing.
    ClosedObject,
    /// An optional property was made required and nullable (OpenAI strict mode); a `null` the caller's schema does
    /// not allow is mapped back to an absent property.
    MadeRequired(String),
    /// An optional property that also allowed `null` lost its `null` (the property can still be left out): narrowing,
    /// to stay under a provider's union limit.
    NullDropped(String),
    /// A required property whose schema allows `null` was made optional without `null`; an absent property is mapped
    /// back to `null`.
    MadeOmittable(String),
    /// A schema with no type was narrowed to the types its keywords name, or to `string|number|boolean|null`.
    TypelessNarrowed,
    /// `allOf` members (and `$ref`s with sibling keywords) merged into one schema.
    Merged,
    /// A `$ref` with sibling keywords written as `anyOf: [{$ref}]` beside them, or inlined.
    RefRewritten,
    /// `oneOf` sent as `anyOf` because its branches cannot overlap (nothing widened).
    DisjointOneOf,
    /// `const` sent as a one-value `enum` or a `null` type.
    ConstRewritten,
    /// A recursive definition unrolled to a fixed depth (the provider takes no recursion).
    RecursionUnrolled,
    /// A property or union branch left out because nothing the provider accepts can fill it (a recursion cut, a
    /// `false` subschema): narrowing.
    Unreachable(String),
    /// A keyword that carries no assertion (an annotation such as `default` or `examples`) not sent.
    AnnotationDropped(String),
    /// A tuple closed with `items: false` bounded by `maxItems`.
    TupleBounded,
}
