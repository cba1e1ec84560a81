//! Where a streamed structured attempt was stopped early: the first violation no continuation of the answer could
//! repair, and how much of the stream had arrived (asked with
//! [`CompletionRequest::with_early_stop`](crate::CompletionRequest::with_early_stop)).

use oa_pointer::Location;
use oa_schema::ViolationKind;
use serde::Serialize;

/// An attempt whose stream was ended at its first certain violation (the connection closed, the answer not read to
/// its end). Carried by the attempt's `structured_output_invalid` failure
/// ([`StructuredOutputFailure::early_stop`](crate::StructuredOutputFailure::early_stop)), its attempt record, its
/// typed event and its span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct EarlyStop {
    /// Where in the answer the violation is (JSON Pointer, plain form).
    pub pointer: Location,
    /// Its kind.
    #[serde(serialize_with = "kind_keyword")]
    pub kind: ViolationKind,
    /// The answer's bytes received when the violation became certain (content deltas, UTF-8).
    pub bytes: u64,
    /// The content deltas received then, the one that decided it included.
    pub deltas: u64,
}

impl EarlyStop {
    pub(crate) fn new(pointer: Location, kind: ViolationKind, bytes: u64, deltas: u64) -> Self {
        Self {
            pointer,
            kind,
            bytes,
            deltas,
        }
    }

    /// The violation's keyword (`"enum"`, `"type"`, …), as its kind names it.
    pub fn keyword(&self) -> &'static str {
        self.kind.keyword().unwrap_or("unknown")
    }
}

/// A kind as its keyword, the spelling every record of oa uses.
fn kind_keyword<S: serde::Serializer>(kind: &ViolationKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.keyword().unwrap_or("unknown"))
}
