#![doc = include_str!("../README.md")]

mod bundle;
mod compile;
mod depth;
mod dialect;
mod draft;
mod ecma_regex;
mod equal;
mod error;
mod eval;
mod evaluated;
mod flag;
mod format;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod incremental;
mod keywords;
mod lint;
mod metaschemas;
mod node;
mod number;
mod output;
mod parse;
mod registry;
mod retrieve;
pub mod strict;
mod text;
mod typed;
mod types;
mod unresolved;
mod validator;
mod violation;

pub use bundle::{Bundle, Inexpressible, Origin};
pub use draft::{Draft, UnknownDraft};
pub use error::SchemaError;
pub use incremental::{CompletedValue, Incremental, IncrementalError};
pub use lint::{Misspelling, misspelled_keywords};
pub use output::OutputFormat;
pub use parse::{MalformedJson, MalformedKind, ParseOptions, parse_json, parse_json_with};
pub use retrieve::{Retrieve, RetrieveError};
pub use typed::{Fallback, FallbackReason};
pub use unresolved::{UnresolvedCause, UnresolvedReference};
pub use validator::{ReportOptions, Validator, ValidatorOptions};
pub use violation::{SchemaLocation, Violation, ViolationKind, Violations};
