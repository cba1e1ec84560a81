//! Why a schema cannot be fitted to a provider: typed, so the call path can fall back instead of sending a schema
//! the vendor would reject.

use oa_pointer::Location;

use crate::model::Mapping;

/// A schema that cannot be fitted to a mapping's native path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The input is not a schema (a JSON object or boolean) at this pointer.
    #[error("#{pointer}: not a schema (a JSON object or a boolean)")]
    NotASchema {
        /// Where, in the caller's schema.
        pointer: Location,
    },
    /// A `$ref` that is not a local JSON Pointer (`#` or `#/...`) into the document, or whose target is missing:
    /// fitting takes a bundled document (the schema crate's bundler makes one from any draft and its resources).
    #[error(
        "#{pointer}: $ref {reference:?} is not a JSON Pointer into this document (bundle the schema first)"
    )]
    UnresolvableRef {
        /// Where the `$ref` sits.
        pointer: Location,
        /// The reference as written.
        reference: String,
    },
    /// The provider needs an object at the top and the schema has something else there (a union, an array).
    #[error("{mapping} needs an object schema at the top; #{pointer} is not one")]
    RootNotObject {
        /// The mapping.
        mapping: Mapping,
        /// Where the root resolved to.
        pointer: Location,
    },
    /// Fitting would leave no answer the caller's schema accepts (a recursion with no optional property or union
    /// branch to stop at, an object closed below its `minProperties`, a `false` subschema that is required).
    #[error("#{pointer}: fitting to {mapping} leaves no answer the caller's schema accepts ({why})")]
    Unsatisfiable {
        /// The mapping.
        mapping: Mapping,
        /// Where.
        pointer: Location,
        /// What made it so.
        why: &'static str,
    },
    /// The fitted schema would exceed one of the provider's documented limits.
    #[error("{mapping}: {limit} would be {found}, over the provider's limit of {max}")]
    LimitExceeded {
        /// The mapping.
        mapping: Mapping,
        /// Which limit.
        limit: Limit,
        /// What the fitted schema has.
        found: usize,
        /// The documented maximum.
        max: usize,
    },
    /// The schema nests deeper than fitting walks (bounded recursion on hostile input).
    #[error("#{pointer}: nested deeper than {max} levels")]
    TooDeep {
        /// Where the walk stopped.
        pointer: Location,
        /// The bound.
        max: usize,
    },
    /// The fitted schema would grow past the work bound (inlining and unrolling on hostile input).
    #[error("the fitted schema would exceed {max} subschemas")]
    TooLarge {
        /// The bound.
        max: usize,
    },
}

/// A provider's documented schema limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// OpenAI: object properties in the whole schema (5,000).
    Properties,
    /// OpenAI: levels of object nesting (10).
    Nesting,
    /// OpenAI: enum values across the schema (1,000).
    EnumValues,
    /// OpenAI: characters of one string enum with more than 250 values (15,000).
    EnumStringLength,
    /// OpenAI: characters of all property names, definition names, enum and const values (120,000).
    StringLength,
    /// Anthropic: subschemas with a type array or `anyOf` (16).
    UnionTypedParameters,
    /// Anthropic: optional properties (24).
    OptionalProperties,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Properties => "the number of object properties",
            Self::Nesting => "the object nesting depth",
            Self::EnumValues => "the number of enum values",
            Self::EnumStringLength => "the length of a large string enum",
            Self::StringLength => "the length of names, enum and const values",
            Self::UnionTypedParameters => "the number of union-typed subschemas",
            Self::OptionalProperties => "the number of optional properties",
        })
    }
}
