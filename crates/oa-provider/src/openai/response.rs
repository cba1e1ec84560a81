//! §8.1.2 response mapping: what was read from a Chat Completions body ([`super::view`]) or assembled from a
//! stream to a §6 `Response`, with the refusal rule (0126) and tool calls checked against the declared tools.

use std::borrow::Cow;

use crate::call::wire::Mapped;
use crate::model::ProviderError;
use crate::model::{Content, ContentBlock, FinishReason, Message, Usage};
use crate::structured::CheckedTools;
use crate::structured::WireToolCall;

/// What the mapping reads from an atomic body ([`super::view`]: from its bytes, or from the parsed `Value`).
#[derive(Debug, Default)]
pub(crate) struct Read<'a> {
    /// `choices[0].message.content`, when a string.
    pub(crate) content: Option<Cow<'a, str>>,
    /// `choices[0].message.tool_calls`, read.
    pub(crate) raw_calls: Vec<WireToolCall>,
    /// The string values only, as the mapping reads them.
    pub(crate) reasoning_content: Option<Cow<'a, str>>,
    pub(crate) reasoning: Option<Cow<'a, str>>,
    pub(crate) refusal: Option<Cow<'a, str>>,
    /// `choices[0].finish_reason`, when a string.
    pub(crate) wire_finish: Option<Cow<'a, str>>,
    /// The usage block, read strictly.
    pub(crate) usage: Usage,
    /// The top-level `model`, when a string.
    pub(crate) model: Option<Cow<'a, str>>,
}

/// Maps what was read from an atomic body: the refusal rule, reasoning, and the shared [`assemble`].
pub(crate) fn map_read(read: Read<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    // `reasoning_content` first, when it is a string, else `reasoning`; an empty text is none.
    let reasoning = read
        .reasoning_content
        .or(read.reasoning)
        .filter(|text| !text.is_empty())
        .map(Cow::into_owned);
    let refusal = read.refusal.map(Cow::into_owned).unwrap_or_default();
    // 0126 on §8.1.2: a non-empty refusal without tool calls is the message's content.
    let content = if !refusal.is_empty() && read.raw_calls.is_empty() {
        Some(refusal.clone())
    } else {
        read.content.map(Cow::into_owned)
    };
    let mut mapped = assemble(
        Assembly {
            content,
            reasoning,
            refusal,
            raw_calls: read.raw_calls,
            wire_finish: read.wire_finish.as_deref(),
            usage: read.usage,
        },
        tools,
    )?;
    mapped.model = read.model.map(Cow::into_owned);
    Ok(mapped)
}

/// The pieces both the atomic and the streamed path end with.
#[derive(Debug)]
pub(crate) struct Assembly<'a> {
    pub(crate) content: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) refusal: String,
    pub(crate) raw_calls: Vec<WireToolCall>,
    pub(crate) wire_finish: Option<&'a str>,
    pub(crate) usage: Usage,
}

/// Builds the §6 message, finish reason and usage; checks tool calls unless the finish reason is `error`.
pub(crate) fn assemble(assembly: Assembly<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let mut finish_reason = match assembly.wire_finish {
        Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("content_filter") => FinishReason::ContentFilter,
        _ => FinishReason::Error,
    };
    let content = assembly.content;
    // 0126 on §8.1.2 and §8.1.6: a non-empty refusal without tool calls finishes as content_filter, whatever
    // the wire said. Its text is already the content (atomic: replaced; streamed: its pieces were content deltas).
    if !assembly.refusal.is_empty() && assembly.raw_calls.is_empty() {
        finish_reason = FinishReason::ContentFilter;
    }
    let degraded = finish_reason == FinishReason::Error;
    let tool_calls = assembly
        .raw_calls
        .into_iter()
        .map(|call| tools.check(call, degraded))
        .collect::<Result<Vec<_>, _>>()?;
    let content = match (assembly.reasoning, content) {
        (Some(reasoning), content) => {
            let mut blocks = vec![ContentBlock::Thinking {
                text: reasoning,
                signature: None,
            }];
            if let Some(text) = content.filter(|text| !text.is_empty()) {
                blocks.push(ContentBlock::text(text));
            }
            Some(Content::Blocks(blocks))
        }
        (None, content) => content.map(Content::Text),
    };
    Ok(Mapped {
        message: Message::reply(content, tool_calls),
        finish_reason,
        usage: assembly.usage,
        model: None,
        response_id: None,
        blocked: None,
    })
}
