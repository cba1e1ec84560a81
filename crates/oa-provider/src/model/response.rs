//! The §6 `Response`: the assistant message, finish reason, nullable usage, parsed value, raw body, model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::SchemaMode;
use crate::model::{AttemptSummary, Message, RawJson};
use crate::model::{ParsedAsError, deserialize_as};

/// Why the model stopped (§6); the spec closes the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Finished naturally.
    Stop,
    /// Hit the token budget.
    Length,
    /// Returned tool calls and awaits their results.
    ToolCalls,
    /// Blocked, truncated or refused by the provider's filter (an OpenAI refusal maps here).
    ContentFilter,
    /// A degraded but parseable response (also any finish reason the mapping does not know).
    Error,
}

impl FinishReason {
    /// The spec string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::Length => "length",
            Self::ToolCalls => "tool_calls",
            Self::ContentFilter => "content_filter",
            Self::Error => "error",
        }
    }
}

/// A provider's own statement that it blocked a call, with its reason code: what a refusal that has no text can
/// still say. Gemini's codes (`SAFETY`, `PROHIBITED_CONTENT`, `BLOCKLIST`, ...) are kept as sent when they read as
/// a code (up to 40 capitals, digits and underscores), and as `unrecognized` otherwise, so no echoed text rides on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "stage", content = "reason")]
pub enum Blocked {
    /// The prompt was blocked before any answer was generated (Gemini `promptFeedback.blockReason`).
    Prompt(String),
    /// The answer was stopped by the provider's filter (a Gemini candidate's `finishReason`).
    Answer(String),
}

impl Blocked {
    /// The reason code.
    pub fn reason(&self) -> &str {
        match self {
            Self::Prompt(reason) | Self::Answer(reason) => reason,
        }
    }

    /// `code` as a reason: kept when it reads as a vendor's code, else `unrecognized`.
    pub(crate) fn code(code: &str) -> String {
        let is_code = !code.is_empty()
            && code.len() <= 40
            && code
                .bytes()
                .all(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit() || byte == b'_');
        if is_code {
            code.to_owned()
        } else {
            "unrecognized".to_owned()
        }
    }
}

/// Token accounting (§6). Each counter is `None` when not reported or malformed on the wire (§7 *Malformed
/// usage counter*); the malformed value stays on [`Response::raw`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens.
    pub prompt_tokens: Option<u64>,
    /// Output tokens.
    pub completion_tokens: Option<u64>,
    /// Their total, as the provider reported it.
    pub total_tokens: Option<u64>,
    /// Input tokens served from a prefix cache (`0` is a reported miss); absent when not reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// Input tokens written to a cache; no mapping reports it (the §6 implicit-cache field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_tokens: Option<u64>,
}

impl Usage {
    /// Usage from the two counters a mapping reports without a total (§8.2): the total is their sum, and not
    /// reported when either is not (never the surviving addend).
    pub(crate) fn derived(prompt_tokens: Option<u64>, completion_tokens: Option<u64>) -> Self {
        Self {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens
                .zip(completion_tokens)
                .and_then(|(prompt, completion)| prompt.checked_add(completion)),
            cached_tokens: None,
            cache_creation_tokens: None,
        }
    }
}

/// Which way a structured-output call asked for its schema (graph-engine §6 `structured_output_path`, 0126).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutputPath {
    /// The schema went as the provider's native constraint in a form that constrains decoding (`strict: true`).
    Native,
    /// The schema went natively in a form that does not constrain decoding (`strict: false`).
    NativeUnenforced,
    /// The schema went as a synthetic tool's input schema, with `tool_choice` forcing that tool, and the answer was
    /// read back from the tool call's input (§8.2.5.1 fallback, Anthropic only).
    ToolCoercion,
    /// The schema went as a system directive in the prompt (§8.1.5.1, §8.2.5.1, §8.3.5.1 fallback).
    PromptAugmentation,
}

impl StructuredOutputPath {
    /// The spec string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::NativeUnenforced => "native_unenforced",
            Self::ToolCoercion => "tool_coercion",
            Self::PromptAugmentation => "prompt_augmentation",
        }
    }
}

impl Response {
    /// The validated structured value as `T`.
    ///
    /// # Errors
    ///
    /// [`ParsedAsError::NoValue`] when there is no validated value; [`ParsedAsError::Deserialize`] naming the
    /// location and serde's message when the value passed the schema but does not fit `T` (the schema said less
    /// than the type).
    pub fn parsed_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, ParsedAsError> {
        let value = self.parsed.as_ref().ok_or(ParsedAsError::NoValue)?;
        deserialize_as(value)
    }
}

/// The result of a successful `complete()` (§6).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    /// The assistant message; `role` is always assistant.
    pub message: Message,
    /// The normalized finish reason.
    pub finish_reason: FinishReason,
    /// Token usage, counters nullable.
    pub usage: Usage,
    /// The validated structured value; `None` without a schema, when the model called tools, or when the call was
    /// made with [`complete_as`](crate::complete_as) and its content was read straight into the caller's type on
    /// the typed route (no `Value` is built there: the value is [`Typed::value`](crate::Typed::value)).
    pub parsed: Option<Value>,
    /// The provider's response as JSON, verbatim (for a stream, the assembled form); parsed on first read when the
    /// mapping read the body through its typed view.
    pub raw: RawJson,
    /// The model the provider says answered, when it said.
    pub model: Option<String>,
    /// The provider's identifier for this response (the body's `id` string), when it gave one: what observability
    /// reports as `gen_ai.response.id`, read by the mapping so nothing downstream parses `raw` for it.
    pub response_id: Option<String>,
    /// The provider's statement that it blocked the prompt or the answer, with its reason code (finish reason
    /// `content_filter`); `None` when it made none.
    pub blocked: Option<Blocked>,
    /// The structured-output path of the request this response answers; `None` without a schema.
    pub structured_output_path: Option<StructuredOutputPath>,
    /// How the structured value was produced (path, and whether a reask repaired it); `None` without a schema.
    pub schema_mode: Option<SchemaMode>,
    /// SHA-256 (hex) of the canonical JSON of the schema sent; `None` without a schema.
    pub schema_version: Option<String>,
    /// The call's usage over all its attempts ([`Usage::total_of`] of [`attempts`](Self::attempts)); `usage` is
    /// the answering attempt's alone (the spec's figure, which events and the Langfuse generation carry).
    pub usage_total: Usage,
    /// Every wire attempt of the call, in order, with its usage, path, marker and outcome (the last is this
    /// response's).
    pub attempts: Vec<AttemptSummary>,
}
