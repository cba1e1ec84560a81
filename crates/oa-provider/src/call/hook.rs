//! The attempt hook the events and observability layers subscribe to: a token delta as it streams and a record
//! per wire attempt, carrying every fact of that attempt as a typed value (path, schema_mode, schema_version,
//! retry reason, the typed failure, diagnostics). oa-provider depends on neither layer; they implement
//! [`AttemptHook`].

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::call::diagnostic::Diagnostic;
use crate::model::ProviderError;
use crate::model::SchemaMode;
use crate::model::{
    AttemptOutcome, AttemptSummary, Mapping, Message, Response, RetryReason, RuntimeConfig,
    StructuredOutputPath, Usage,
};
use crate::structured::fit::SchemaAccount;

/// Receives a call's token deltas and attempt records.
///
/// Contract: methods are called on the task running `complete()`, in order, as things happen (a token as its
/// chunk is decoded, a record when its attempt ends). They must return quickly and must not block; a slow hook
/// slows the call. Both default to doing nothing. A hook sees message text and request bodies, never an API key
/// or header (the key travels only in the HTTP header, which no record holds).
pub trait AttemptHook: Send + Sync {
    /// A streamed content or reasoning delta (graph-engine §6 `LlmTokenEvent`).
    fn on_token(&self, delta: &TokenDelta<'_>) {
        let _ = delta;
    }

    /// A value of a streamed structured answer completed (see [`PartialValue`]): called right after the token
    /// delta that completed it, in the order the values end in the text.
    fn on_partial(&self, partial: &PartialValue<'_>) {
        let _ = partial;
    }

    /// Whether [`on_partial`](Self::on_partial) is read: when `false`, a streamed structured answer is not checked
    /// as it arrives for this hook's sake (each completed container would be copied for it), only for an early stop
    /// the request asked. Defaults to `true`.
    fn wants_partials(&self) -> bool {
        true
    }

    /// One wire attempt finished (or was rejected before sending).
    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        let _ = record;
    }
}

/// Which kind of delta a token event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaKind {
    /// Message content (a refusal's pieces count as content).
    Content,
    /// Reasoning text from a reasoning-model extension.
    Reasoning,
}

impl DeltaKind {
    /// The graph-engine §6 `delta_kind` string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Content => "content",
            Self::Reasoning => "reasoning",
        }
    }
}

/// A streamed delta, as it arrived.
#[derive(Debug, Clone, Copy)]
pub struct TokenDelta<'a> {
    /// The provider's identifier, e.g. `"openai"`.
    pub provider: &'a str,
    /// The bound model.
    pub model: &'a str,
    /// The call's identifier, as on its attempt records.
    pub call_id: &'a str,
    /// The wire attempt this delta belongs to.
    pub attempt_index: u32,
    /// Content or reasoning.
    pub kind: DeltaKind,
    /// The delta's text.
    pub text: &'a str,
}

/// A value a streamed structured answer has completed, at its place in the answer: a string, number, literal at
/// its last byte, an array or object at its close (its members came before it). Handed over only for a streamed
/// call with a `response_schema` whose answer is read from content (see
/// [`CompletionRequest::with_early_stop`](crate::CompletionRequest::with_early_stop) for where that is) and only
/// while the content reads as JSON.
///
/// Each value is whole and final (it is the final answer's value at `pointer`), and the schema's checks that were
/// certain by then were made: `certain_violations` counts those found at or below `pointer` (checks that wait for
/// more of the answer, a union's, `minItems` of an enclosing array, are not in it). Why not a typed `Partial<T>`:
/// a partial `T` would need every field optional (a derive of a second type, which instructor makes at run time and
/// Rust needs a procedural macro for); instead a caller deserializes a completed value into its field's own type
/// (`serde_json::from_value`) when its pointer arrives.
#[derive(Debug, Clone, Copy)]
pub struct PartialValue<'a> {
    /// The provider's identifier, e.g. `"openai"`.
    pub provider: &'a str,
    /// The bound model.
    pub model: &'a str,
    /// The call's identifier, as on its attempt records and token deltas.
    pub call_id: &'a str,
    /// The wire attempt this value belongs to (a reask's answer starts again from the root).
    pub attempt_index: u32,
    /// Where the value sits in the answer (JSON Pointer; the root is empty).
    pub pointer: &'a oa_pointer::Location,
    /// The value.
    pub value: &'a serde_json::Value,
    /// Certain violations found so far at or below `pointer`.
    pub certain_violations: usize,
}

/// The request of one attempt exactly as sent (0126 on §7.1).
#[derive(Debug, Clone)]
pub struct AttemptRequest<'a> {
    /// The messages sent: the caller's, as reask extended them, with a prompt-augmentation directive if any.
    pub messages: &'a [Message],
    /// The config after the attempt's `per_attempt_override` was merged.
    pub config: &'a RuntimeConfig,
    /// The wire body bytes, as sent; `None` when the attempt was rejected before sending.
    pub body: Option<&'a str>,
    /// Whether the attempt streamed.
    pub stream: bool,
}

/// The record of one wire attempt, handed to [`AttemptHook::on_attempt`].
pub struct AttemptRecord<'a> {
    /// The §8 wire mapping the attempt spoke.
    pub mapping: Mapping,
    /// 0 for the first attempt of the call.
    pub attempt_index: u32,
    /// Why this attempt was scheduled; `None` on attempt 0.
    pub retry_reason: Option<RetryReason>,
    /// Whether an earlier attempt of the call failed validation and was reasked, so a success here is a repair.
    pub repair: bool,
    /// The provider's identifier, e.g. `"openai"`.
    pub provider: &'a str,
    /// The bound model.
    pub model: &'a str,
    /// The call's identifier (graph-engine §6 `call_id`): the request's, or one minted for this `complete()`;
    /// the same on every attempt of the call.
    pub call_id: &'a str,
    /// The structured-output path; `None` without a schema or when nothing was sent.
    pub structured_output_path: Option<StructuredOutputPath>,
    /// How the schema constrained this attempt (path, registry verdict, repair); `None` without a schema or when
    /// nothing was sent. A dimension of every span, log record and metric sample of the attempt.
    pub schema_mode: Option<SchemaMode>,
    /// SHA-256 (hex) of the canonical schema this attempt sent (verbatim, bundled or fitted; the caller's schema when
    /// nothing was sent); `None` without a schema.
    pub schema_version: Option<&'a str>,
    /// How the schema sent came from the caller's, and every clause of the caller's schema the provider was not
    /// asked to enforce, or not shown to enforce (`{pointer, keyword, reason}`); `None` without a schema or when
    /// nothing was sent. Shared: the same account is the same `Arc` on every attempt that earned it.
    pub schema_account: Option<Arc<SchemaAccount>>,
    /// What was sent.
    pub request: AttemptRequest<'a>,
    /// What came back.
    pub outcome: Result<&'a Response, &'a ProviderError>,
    /// When the attempt started (wall clock).
    pub started_at: SystemTime,
    /// How long it took.
    pub duration: Duration,
    /// The diagnostics this attempt earned (e.g. `schema_not_honored`), also emitted through `tracing`.
    pub diagnostics: &'a [Diagnostic],
}

impl AttemptRecord<'_> {
    /// Where the attempt's stream was stopped at its first certain violation, when it was
    /// ([`CompletionRequest::with_early_stop`](crate::CompletionRequest::with_early_stop)).
    pub fn early_stop(&self) -> Option<&crate::model::EarlyStop> {
        self.outcome
            .err()
            .and_then(ProviderError::structured_output)
            .and_then(crate::StructuredOutputFailure::early_stop)
    }

    /// The attempt's usage: the response's, or a structured-output failure's.
    pub fn usage(&self) -> Option<Usage> {
        match self.outcome {
            Ok(response) => Some(response.usage),
            Err(error) => error.structured_output().map(|failure| failure.usage),
        }
    }
}

impl fmt::Debug for AttemptRecord<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AttemptRecord")
            .field("mapping", &self.mapping)
            .field("attempt_index", &self.attempt_index)
            .field("retry_reason", &self.retry_reason)
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("call_id", &self.call_id)
            .field("repair", &self.repair)
            .field("structured_output_path", &self.structured_output_path)
            .field("schema_mode", &self.schema_mode)
            .field("n_diagnostics", &self.diagnostics.len())
            .field("n_messages", &self.request.messages.len())
            .field(
                "outcome",
                &self
                    .outcome
                    .map(|response| response.finish_reason)
                    .map_err(ProviderError::category),
            )
            .field("duration", &self.duration)
            .finish()
    }
}

/// Mints a fresh call identifier (graph-engine §6 `call_id`): 128 bits from the standard library's per-instance
/// random hasher keys (one hasher keyed afresh, finished twice), so identifiers are unique within a run without
/// any global counter of ours. The call driver is the one place that mints, for a request that carries none.
/// `call_` and 32 lowercase hex digits, written into a fixed buffer and copied out once: `format!`'s `{:016x}`
/// machinery, and a `push` per digit after it, cost more than the draw on every call.
pub(crate) fn mint_call_id() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0x243f_6a88_85a3_08d3);
    let high = hasher.finish();
    hasher.write_u64(0x1319_8a2e_0370_7344);
    let mut text = *b"call_00000000000000000000000000000000";
    write_hex(&mut text[5..21], high);
    write_hex(&mut text[21..], hasher.finish());
    // Hex digits and hyphens are ASCII: the lossy branch is never taken (`from_utf8_lossy` itself walked the text
    // in chunks, a third of the id's cost).
    String::from_utf8(text.to_vec())
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Writes `word` into `out` as 16 lowercase hex digits, as `{:016x}` writes it.
fn write_hex(out: &mut [u8], word: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (at, byte) in out.iter_mut().enumerate() {
        *byte = HEX[((word >> ((15 - at) * 4)) & 0xf) as usize];
    }
}

impl AttemptRecord<'_> {
    /// This attempt's summary: what a call's result and error keep of each of its attempts.
    pub fn summary(&self) -> AttemptSummary {
        AttemptSummary {
            attempt_index: self.attempt_index,
            retry_reason: self.retry_reason,
            sent: self.request.body.is_some(),
            structured_output_path: self.structured_output_path,
            schema_mode: self.schema_mode,
            usage: self.usage(),
            outcome: match self.outcome {
                Ok(_) => AttemptOutcome::Ok,
                Err(error) => AttemptOutcome::Failed {
                    category: error.category(),
                    failure_class: error.failure_class(),
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{mint_call_id, write_hex};

    #[test]
    fn hex_digits_are_written_as_format_writes_them() {
        for word in [0, 1, 0xa, 0x0123_4567_89ab_cdef, u64::MAX] {
            let mut out = [0; 16];
            write_hex(&mut out, word);
            assert_eq!(String::from_utf8_lossy(&out), format!("{word:016x}"));
        }
    }

    #[test]
    fn a_call_id_is_call_and_32_lowercase_hex_digits_fresh_each_time() {
        let first = mint_call_id();
        let hex = first.strip_prefix("call_").unwrap();
        assert_eq!(hex.len(), 32);
        assert!(
            hex.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')),
            "{first}"
        );
        assert_ne!(first, mint_call_id());
    }
}
