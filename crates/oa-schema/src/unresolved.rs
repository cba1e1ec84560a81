//! References that resolve to no schema: a fact of a compiled schema (with
//! [`ValidatorOptions::defer_unresolved_references`](crate::ValidatorOptions::defer_unresolved_references)), and a
//! distinct outcome of the evaluations that reach one.

use crate::retrieve::RetrieveError;

/// A `$ref` (or `$dynamicRef`, `$recursiveRef`) that resolves to no schema oa-schema holds. Listed by
/// [`Validator::unresolved_references`](crate::Validator::unresolved_references); an evaluation that reaches it
/// yields a [`Violation`](crate::Violation) whose
/// [`unresolved_reference`](crate::Violation::unresolved_reference) names it, never a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedReference {
    pub(crate) reference: String,
    pub(crate) keyword: &'static str,
    pub(crate) location: String,
    pub(crate) uri: String,
    pub(crate) cause: UnresolvedCause,
}

impl UnresolvedReference {
    /// The reference as written (a URI query shown as `?redacted`).
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// The keyword that holds it: `$ref`, `$dynamicRef` or `$recursiveRef`.
    pub fn keyword(&self) -> &'static str {
        self.keyword
    }

    /// Where it sits: the absolute schema location of the keyword (`file:///s/person.json#/properties/home/$ref`;
    /// a schema without a base URI shows the fragment alone).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The absolute URI it resolves to, fragment included (a URI query shown as `?redacted`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Why nothing is there.
    pub fn cause(&self) -> &UnresolvedCause {
        &self.cause
    }

    /// The message an evaluation that reaches it reports, after `keyword: `.
    pub(crate) fn message(&self) -> String {
        let why = match &self.cause {
            UnresolvedCause::NoDocument => {
                "no schema document is held under that URI, and oa-schema never fetches one".to_owned()
            }
            UnresolvedCause::NotInDocument => "its document has no schema at that fragment".to_owned(),
            UnresolvedCause::Retrieval(error) => format!("retrieving it failed: {error}"),
        };
        let target = if self.uri == self.reference {
            String::new()
        } else {
            format!(" ({})", self.uri)
        };
        format!(
            "unresolved reference {}{target} was reached: {why}; no verdict",
            crate::text::quoted(&self.reference)
        )
    }
}

/// Why a reference resolves to no schema.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnresolvedCause {
    /// No document is held under the reference's URI: neither the schema, a registered resource, a document the
    /// retriever supplied, nor a bundled meta-schema. Nothing is ever fetched from a network.
    NoDocument,
    /// The document is held, but has no schema at the reference's fragment (a JSON Pointer that leads nowhere, an
    /// anchor it does not declare).
    NotInDocument,
    /// The retriever was asked for the document and answered with an error.
    Retrieval(RetrieveError),
}
