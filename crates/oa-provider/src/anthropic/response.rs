//! §8.2.2 response mapping: what was read from a Messages body ([`super::view`]: the content array's blocks, with
//! thinking signatures and redacted thinking, and `tool_use` calls; usage with a derived total) to a §6
//! `Response`, `stop_reason` to a finish reason.

use crate::call::wire::{BlocksRead, Mapped};
use crate::model::FinishReason;
use crate::model::ProviderError;
use crate::structured::CheckedTools;

/// The finish reason, the checked tool calls and the message, from what was read.
pub(crate) fn assemble(read: BlocksRead<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let finish_reason = match read.wire_finish {
        Some("end_turn" | "stop_sequence" | "pause_turn") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("refusal") => FinishReason::ContentFilter,
        _ => FinishReason::Error,
    };
    Mapped::from_blocks(read, finish_reason, tools)
}
