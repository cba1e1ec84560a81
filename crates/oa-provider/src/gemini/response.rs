//! §8.3.2 response mapping: what was read from a `generateContent` body ([`super::view`]: the parts of
//! `candidates[0].content` as blocks, text and `thought: true` summaries, and tool calls from `functionCall`,
//! each `thoughtSignature` captured on the block or call it came with; `usageMetadata` as usage) to a §6
//! `Response`, `finishReason` to a finish reason (a function call makes it `tool_calls`).

use crate::call::wire::{BlocksRead, Mapped};
use crate::model::ProviderError;
use crate::model::{Blocked, FinishReason, Message, Usage};
use crate::structured::CheckedTools;

/// The response to a prompt blocked before any candidate was generated, by the reason `promptFeedback` gave.
pub(crate) fn blocked(reason: &str, usage: Usage, model: Option<String>) -> Mapped {
    Mapped {
        message: Message::reply(None, Vec::new()),
        finish_reason: FinishReason::ContentFilter,
        usage,
        model,
        response_id: None,
        blocked: Some(Blocked::Prompt(Blocked::code(reason))),
    }
}

/// The finish reason, the checked tool calls and the message, from what was read.
pub(crate) fn assemble(read: BlocksRead<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let finish_reason = if read.raw_calls.is_empty() {
        match read.wire_finish {
            Some("STOP") => FinishReason::Stop,
            Some("MAX_TOKENS") => FinishReason::Length,
            Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII") => {
                FinishReason::ContentFilter
            }
            _ => FinishReason::Error,
        }
    } else {
        // Gemini has no dedicated tool-call finish reason in every version (§8.3.2).
        FinishReason::ToolCalls
    };
    let wire_finish = read.wire_finish;
    let mut mapped = Mapped::from_blocks(read, finish_reason, tools)?;
    // The filter that stopped the answer, named by the finish reason it sent.
    if finish_reason == FinishReason::ContentFilter {
        mapped.blocked = wire_finish.map(|code| Blocked::Answer(Blocked::code(code)));
    }
    Ok(mapped)
}
