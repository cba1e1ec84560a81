//! oa-schema: a JSON Schema validator (drafts 4, 6, 7, 2019-09 and 2020-12) that reports every violation at its JSON
//! Pointer.
//!
//! Compile a schema once into a [`Validator`], then ask the cheap question with [`Validator::is_valid`] (stops at
//! the first failure, allocates nothing on the valid path) or the full one with [`Validator::validate`], which
//! returns every [`Violation`] as [`Violations`]: sorted, deduplicated, each located in the instance (an
//! [`oa_pointer::Location`], shown in URI-fragment form) and in the schema ([`SchemaLocation`]).
//!
//! ```
//! use oa_schema::Validator;
//! use serde_json::json;
//!
//! # fn main() -> Result<(), oa_schema::SchemaError> {
//! let validator = Validator::new(&json!({
//!     "type": "object",
//!     "properties": { "lat": { "type": "number" } },
//!     "required": ["lat", "lon"]
//! }))?;
//! assert!(validator.is_valid(&json!({ "lat": 1.5, "lon": 2 })));
//!
//! let violations = validator.validate(&json!({ "lat": "north" })).unwrap_err();
//! assert_eq!(
//!     violations.error_message(),
//!     "#/lat: type: expected number, got string\n#/lon: required: required property \"lon\" is missing"
//! );
//! # Ok(())
//! # }
//! ```
//!
//! A schema is read by the [`Draft`] its `$schema` names, or [`ValidatorOptions::default_draft`] when it names none
//! (2020-12 unless set); each referenced document by its own.
//!
//! Remote `$ref`s resolve only to documents registered with [`ValidatorOptions::resource`] (and the bundled
//! meta-schemas of every draft): nothing is fetched. `format` is an annotation unless [`ValidatorOptions::format_assertion`]
//! is on or the schema's meta-schema lists the format-assertion vocabulary.
//!
//! [`parse_json`] decodes model output strictly (RFC 8259), so text that is not JSON becomes one
//! [`MalformedJson`] with line and column rather than a report.
//!
//! Features: `arbitrary_precision` (default) compares numbers exactly, beyond `f64`; `fuzzing` exposes internal
//! routes to the fuzz targets (not a supported API).

mod alternatives;
mod compile;
mod depth;
mod dialect;
mod draft;
mod ecma_regex;
mod equal;
mod error;
mod eval;
mod evaluated;
mod format;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod keywords;
mod lint;
mod metaschemas;
mod node;
mod number;
mod output;
mod parse;
mod registry;
mod stream;
mod validator;
mod violation;

pub use draft::{Draft, UnknownDraft};
pub use error::SchemaError;
pub use lint::{Misspelling, misspelled_keywords};
pub use output::OutputFormat;
pub use parse::{MalformedJson, MalformedKind, ParseOptions, parse_json, parse_json_with};
pub use stream::{Fallback, FallbackReason};
pub use validator::{ReportOptions, Validator, ValidatorOptions};
pub use violation::{SchemaLocation, Violation, Violations};

/// The README's example runs as a doc test, so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
