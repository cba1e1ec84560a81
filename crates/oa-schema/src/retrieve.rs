//! Documents supplied on demand: the caller's [`Retrieve`], asked for a URI the registry does not hold. oa-schema
//! itself never reads a file or a network; a retriever decides what may be read and from where.

use serde_json::Value;
use std::sync::Arc;

/// Supplies schema documents by URI while a schema compiles (see
/// [`ValidatorOptions::retriever`](crate::ValidatorOptions::retriever)).
///
/// Asked at most once per URI per compilation, and only for a URI that neither the schema, a registered resource
/// nor a bundled meta-schema holds: a fragment-free absolute URI, its query included.
///
/// ```
/// use oa_schema::{Retrieve, RetrieveError, Validator};
/// use serde_json::{Value, json};
/// use std::sync::Arc;
///
/// #[derive(Debug)]
/// struct Folder;
///
/// impl Retrieve for Folder {
///     fn retrieve(&self, uri: &str) -> Result<Option<Arc<Value>>, RetrieveError> {
///         Ok(match uri {
///             "file:///schemas/address.json" => Some(Arc::new(json!({ "required": ["city"] }))),
///             _ => None,
///         })
///     }
/// }
///
/// let validator = Validator::options()
///     .base_uri("file:///schemas/person.json")
///     .retriever(Arc::new(Folder))
///     .build(&json!({ "properties": { "home": { "$ref": "address.json" } } }))
///     .unwrap();
/// assert!(!validator.is_valid(&json!({ "home": {} })));
/// ```
pub trait Retrieve: Send + Sync + std::fmt::Debug {
    /// The document at `uri`: `Ok(Some)` to use it, `Ok(None)` when there is none, `Err` when there is no single
    /// answer (two documents claim the URI, the document exists but cannot be read or is refused).
    ///
    /// # Errors
    /// A [`RetrieveError`] saying why; the reference then resolves to nothing, with that cause.
    fn retrieve(&self, uri: &str) -> Result<Option<Arc<Value>>, RetrieveError>;
}

/// Why a retriever has no single document for a URI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RetrieveError {
    /// More than one document claims the URI (two files of a catalog with the same `$id`).
    #[error("ambiguous: claimed by {}", claimants.join(" and "))]
    Ambiguous {
        /// Who claims it (file paths, or whatever names the retriever's sources).
        claimants: Vec<String>,
    },
    /// The document exists but cannot be used: unreadable, not JSON, or outside what the retriever may read.
    #[error("{reason}")]
    Unusable {
        /// What is wrong, for a person to read.
        reason: String,
    },
}
