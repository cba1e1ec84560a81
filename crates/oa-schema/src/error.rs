//! `SchemaError`: why a schema could not be compiled, and where in it the problem is.

use crate::violation::Violations;

/// A schema that cannot be compiled. Every variant names the schema location (an absolute URI with a JSON Pointer
/// fragment) where the problem is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema fails its meta-schema; `violations` lists each failure, located inside the schema.
    #[error("schema at {location} fails its meta-schema {meta_schema}: {}", summary(.violations))]
    InvalidSchema {
        /// Where the first failure is, inside the schema.
        location: String,
        /// The meta-schema checked against.
        meta_schema: String,
        /// Every failure, as the meta-schema reports it.
        violations: Violations,
    },
    /// A `$ref` or `$dynamicRef` resolves to no known schema (resources are never fetched from a network).
    #[error("reference {reference:?} at {location} resolves to no known schema")]
    UnresolvedReference {
        /// Where the reference is.
        location: String,
        /// The reference as written.
        reference: String,
    },
    /// A `$ref` or `$dynamicRef` whose document the retriever could not supply (two documents claim its URI, or
    /// the document cannot be used).
    #[error("reference {reference:?} at {location} resolves to no schema: {error}")]
    Retrieval {
        /// Where the reference is.
        location: String,
        /// The reference as written.
        reference: String,
        /// What the retriever answered.
        error: crate::retrieve::RetrieveError,
    },
    /// A URI (`$id`, `$ref`, `$schema`, a registered resource, the base URI) cannot be parsed or resolved.
    #[error("invalid URI {uri:?} at {location}: {reason}")]
    InvalidUri {
        /// Where the URI is.
        location: String,
        /// The URI as written.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `pattern` or `patternProperties` regular expression is not a valid ECMA-262 pattern we support.
    #[error("invalid regular expression {pattern:?} at {location}: {reason}")]
    InvalidRegex {
        /// Where the pattern is.
        location: String,
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `$schema` names none of the implemented drafts (4, 6, 7, 2019-09, 2020-12), nor a registered meta-schema of one.
    #[error(
        "unsupported dialect {dialect:?} at {location}: not one of drafts 4, 6, 7, 2019-09 and 2020-12, nor a \
         registered meta-schema of one"
    )]
    UnsupportedDialect {
        /// Where `$schema` is.
        location: String,
        /// The meta-schema URI as written.
        dialect: String,
    },
    /// A meta-schema requires (`true` in `$vocabulary`) a vocabulary this version does not know.
    #[error("unsupported required vocabulary {vocabulary:?} at {location}")]
    UnsupportedVocabulary {
        /// Where the meta-schema's `$vocabulary` is.
        location: String,
        /// The vocabulary URI.
        vocabulary: String,
    },
    /// Subschemas nest deeper than the compiler's limit.
    #[error("schema at {location} nests deeper than the limit of {limit}")]
    TooDeep {
        /// Where the limit was reached.
        location: String,
        /// The limit.
        limit: usize,
    },
    /// A keyword's value is malformed in a way the meta-schema check did not catch (only possible for schemas
    /// whose meta-schema leaves out a vocabulary's checks).
    #[error("invalid {keyword:?} at {location}: {reason}")]
    InvalidKeyword {
        /// Where the keyword is.
        location: String,
        /// The keyword.
        keyword: String,
        /// What is wrong.
        reason: String,
    },
}

impl SchemaError {
    /// Where in the schema the problem is: an absolute URI with a JSON Pointer fragment.
    pub fn location(&self) -> &str {
        match self {
            Self::InvalidSchema { location, .. }
            | Self::UnresolvedReference { location, .. }
            | Self::Retrieval { location, .. }
            | Self::InvalidUri { location, .. }
            | Self::InvalidRegex { location, .. }
            | Self::UnsupportedDialect { location, .. }
            | Self::UnsupportedVocabulary { location, .. }
            | Self::TooDeep { location, .. }
            | Self::InvalidKeyword { location, .. } => location,
        }
    }
}

/// The first violation's line, and how many more there are.
fn summary(violations: &Violations) -> String {
    let first = violations
        .iter()
        .next()
        .map(ToString::to_string)
        .unwrap_or_default();
    match violations.len() {
        0 | 1 => first,
        n => format!("{first} (and {} more)", n - 1),
    }
}
