//! The diagnostics the provider raises where the call is made (observability §5.5.7 as proposal 0126 amends it). Each
//! is a typed [`Diagnostic`] on the attempt's record (so the attempt hook, and through it the event and
//! observability layers, receive it) and is also emitted through the `tracing` facade, so it exists whether or
//! not anything is attached.
//!
//! No subscriber is installed here: an application (or oa-observe's bridge into OpenTelemetry logs) chooses where
//! the `tracing` records go.

use serde::Serialize;

/// A diagnostic raised about one attempt. The attempt's record carries the identity (provider, model, call,
/// attempt index) that the log record pairs with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Diagnostic {
    /// `openarmature.structured_output.schema_not_honored`: a native-path attempt that finished with `stop`
    /// returned content that is not a JSON object (see [`is_schema_not_honored`](crate::hook::is_schema_not_honored)).
    SchemaNotHonored,
}

/// The severity of a diagnostic's log record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Something is probably wrong with the route, not with this call alone.
    Warning,
}

impl Diagnostic {
    /// The event name (observability §7 *Diagnostic event names*).
    pub fn name(self) -> &'static str {
        match self {
            Self::SchemaNotHonored => SCHEMA_NOT_HONORED,
        }
    }

    /// The log record's severity.
    pub fn severity(self) -> Severity {
        match self {
            Self::SchemaNotHonored => Severity::Warning,
        }
    }

    /// The log record's body.
    pub fn message(self) -> &'static str {
        match self {
            Self::SchemaNotHonored => {
                "structured output schema not honored: a native-path attempt that finished with stop returned \
                 content that is not a JSON object"
            }
        }
    }
}

/// The event name of the schema_not_honored diagnostic (observability §7 *Diagnostic event names*).
pub const SCHEMA_NOT_HONORED: &str = "openarmature.structured_output.schema_not_honored";

/// The `tracing` target every oa diagnostic is emitted under, so a subscriber can select them.
pub const DIAGNOSTIC_TARGET: &str = "openarmature";
