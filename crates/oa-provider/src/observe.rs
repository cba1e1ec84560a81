//! The hook the events and observability layers subscribe to: a token event per streamed delta and a record per
//! wire attempt. oa-provider depends on neither layer; they implement [`CallObserver`].

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

use crate::config::RuntimeConfig;
use crate::error::ProviderError;
use crate::message::Message;
use crate::response::{Response, StructuredOutputPath, Usage};

/// Receives a call's token deltas and attempt records.
///
/// Contract: methods are called on the task running `complete()`, in order, as things happen (a token as its
/// chunk is decoded, a record when its attempt ends). They must return quickly and must not block; a slow
/// observer slows the call. Both default to doing nothing. An observer sees message text and request bodies,
/// never an API key or header (the key travels only in the HTTP header, which no record holds).
pub trait CallObserver: Send + Sync {
    /// A streamed content or reasoning delta (graph-engine §6 `LlmTokenEvent`).
    fn on_token(&self, delta: &TokenDelta<'_>) {
        let _ = delta;
    }

    /// One wire attempt finished (or was rejected before sending).
    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        let _ = record;
    }
}

/// Which kind of delta a token event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// The wire attempt this delta belongs to.
    pub attempt_index: u32,
    /// Content or reasoning.
    pub kind: DeltaKind,
    /// The delta's text.
    pub text: &'a str,
}

/// Why an attempt after the first was made (the prior attempt's failure class, §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RetryReason {
    /// The prior attempt failed with a transient-classified error.
    Transient,
    /// The prior attempt's structured output was invalid and a reask correction was appended.
    Reask,
}

impl RetryReason {
    /// The `openarmature.llm.retry_reason` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Transient => "transient",
            Self::Reask => "reask",
        }
    }
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

/// The record of one wire attempt, handed to [`CallObserver::on_attempt`].
pub struct AttemptRecord<'a> {
    /// 0 for the first attempt of the call.
    pub attempt_index: u32,
    /// Why this attempt was scheduled; `None` on attempt 0.
    pub retry_reason: Option<RetryReason>,
    /// The provider's identifier, e.g. `"openai"`.
    pub provider: &'a str,
    /// The bound model.
    pub model: &'a str,
    /// The call's identifier (graph-engine §6 `call_id`): the request's, or one minted for this `complete()`;
    /// the same on every attempt of the call.
    pub call_id: &'a str,
    /// The structured-output path; `None` without a schema.
    pub structured_output_path: Option<StructuredOutputPath>,
    /// What was sent.
    pub request: AttemptRequest<'a>,
    /// What came back.
    pub outcome: Result<&'a Response, &'a ProviderError>,
    /// When the attempt started (wall clock).
    pub started_at: SystemTime,
    /// How long it took.
    pub duration: Duration,
}

impl AttemptRecord<'_> {
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
            .field("attempt_index", &self.attempt_index)
            .field("retry_reason", &self.retry_reason)
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("call_id", &self.call_id)
            .field("structured_output_path", &self.structured_output_path)
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
/// random hasher keys, so identifiers are unique within a run without any global counter of ours.
pub fn mint_call_id() -> String {
    let draw = |salt: u64| {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(salt);
        hasher.finish()
    };
    format!(
        "call_{:016x}{:016x}",
        draw(0x243f_6a88_85a3_08d3),
        draw(0x1319_8a2e_0370_7344)
    )
}
