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
    /// The keyword (`maxLength`, `oneOf`, ...).
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
    /// The provider did not accept the schema at all (a vendor 400 on the native path). Fitting never records this;
    /// the call path does when it falls back.
    NotAccepted,
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
