//! §8.2.2 response mapping: what was read from a Messages body ([`super::view`]: the content array's blocks, with
//! thinking signatures and redacted thinking, and `tool_use` calls; usage with a derived total) to a §6
//! `Response`, `stop_reason` to a finish reason.

use crate::call::wire::Mapped;
use crate::model::ProviderError;
use crate::model::{ContentBlock, FinishReason, Usage};
use crate::structured::{CheckedTools, WireToolCall};

/// What the mapping reads from a body ([`super::view`]: from its bytes, or from the parsed `Value`).
pub(crate) struct Read<'a> {
    pub(crate) blocks: Vec<ContentBlock>,
    pub(crate) raw_calls: Vec<WireToolCall>,
    pub(crate) stop_reason: Option<&'a str>,
    pub(crate) usage: Usage,
    pub(crate) model: Option<String>,
}

/// The finish reason, the checked tool calls and the message, from what was read.
pub(crate) fn assemble(read: Read<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let finish_reason = match read.stop_reason {
        Some("end_turn" | "stop_sequence" | "pause_turn") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("refusal") => FinishReason::ContentFilter,
        _ => FinishReason::Error,
    };
    Mapped::from_blocks(
        read.blocks,
        read.raw_calls,
        finish_reason,
        read.usage,
        read.model,
        tools,
    )
}
