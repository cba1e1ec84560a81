//! One call, vendor-neutral: the pre-checks made before anything is sent, the structured-output path, call-level
//! retry with reask, and per attempt the wire exchange (through a [`wire::WireFormat`]), validation, schema_mode,
//! diagnostics and the attempt record handed to the [`AttemptHook`].

mod attempt;
mod complete;
pub(crate) mod diagnose;
pub(crate) mod diagnostic;
pub(crate) mod exchange;
mod extras;
pub(crate) mod hook;
pub(crate) mod managed;
mod precheck;
mod provider;
pub(crate) mod ready;
mod request;
mod retry;
pub(crate) mod status;
mod stream_check;
pub(crate) mod turns;
pub(crate) mod view;
#[cfg(test)]
pub(crate) mod view_check;
pub(crate) mod wire;

pub(crate) use complete::complete;
pub use diagnose::is_schema_not_honored;
pub use diagnostic::{DIAGNOSTIC_TARGET, Diagnostic, SCHEMA_NOT_HONORED, Severity};
pub use extras::CallExtras;
pub use hook::{AttemptHook, AttemptRecord, AttemptRequest, DeltaKind, PartialValue, TokenDelta};
pub use provider::Provider;
pub use request::CompletionRequest;
pub use retry::{Backoff, Classifier, OnRetry, Reask, RetryConfig};
