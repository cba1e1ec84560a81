//! The llm-provider model, vendor-neutral (§3–§7): messages and content blocks, tools, the runtime config, the
//! response `complete()` returns, the §7 error, the failure taxonomy of structured output, the `schema_mode` marker,
//! and what each attempt of a call cost. The ground floor of the crate: plain data, importing nothing above it
//! (`tests/layers.rs` checks). The request, the [`Provider`](crate::Provider) trait and the hook live a floor up,
//! in `call/`, because they carry a hook, a retry policy and a typed decoder.
//!
//! The types a caller of `complete()` names are at the crate root ([`Message`],
//! [`Response`], [`ProviderError`], …); this module holds the rest.

pub(crate) mod attempts;
pub(crate) mod config;
pub(crate) mod early_stop;
pub(crate) mod error;
pub(crate) mod failure_class;
pub(crate) mod mapping;
pub(crate) mod message;
pub(crate) mod parsed;
pub(crate) mod raw;
pub(crate) mod response;
pub(crate) mod schema_mode;
pub(crate) mod tool;

// Reachable here only: the model's second rank.
pub use attempts::{AttemptOutcome, AttemptSummary, RetryReason};
pub use config::DECLARED_FIELDS;
pub use early_stop::EarlyStop;
pub use error::{PartialStream, TransportCause};
pub use failure_class::{FailureClass, OutputProblem};
pub use mapping::UnknownMapping;
pub use message::{ContentBlock, ImageDetail, ImageSource, SUPPORTED_MEDIA_TYPES};
pub use parsed::ParsedAsError;
pub use raw::RawJson;
pub use response::Blocked;

// At the crate root (re-exported there); named here for the crate's own paths.
pub(crate) use config::RuntimeConfig;
pub(crate) use error::{Category, ProviderError, ScrubbedCause, StructuredOutputFailure, Surface};
pub(crate) use mapping::Mapping;
pub(crate) use message::{Content, Message, Role, ToolCall};
pub(crate) use parsed::deserialize_as;
#[cfg(feature = "schemars")]
pub(crate) use parsed::escape;
pub(crate) use response::{FinishReason, Response, StructuredOutputPath, Usage};
pub(crate) use schema_mode::SchemaMode;
pub(crate) use tool::{Tool, ToolChoice};
