//! §8.3.2 response mapping: `candidates[0].content.parts` to blocks (text, `thought: true` summaries) and tool
//! calls (`functionCall`), each `thoughtSignature` captured on the block or call it came with; `finishReason` to
//! a finish reason (a function call makes it `tool_calls`); and `usageMetadata` to usage.

use serde_json::Value;

use crate::call::wire::Mapped;
use crate::canonical;
use crate::error::ProviderError;
use crate::model::response::read_counter;
use crate::model::{Blocked, ContentBlock, FinishReason, Message, Usage};
use crate::structured::{CheckedTools, WireToolCall};

/// Maps an atomic response body.
pub(crate) fn map_body(body: &Value, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let root = body
        .as_object()
        .ok_or_else(|| ProviderError::invalid_response("response body is not a JSON object"))?;
    let usage = read_usage(root.get("usageMetadata"));
    let model = root
        .get("modelVersion")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(candidate) = root
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|candidates| candidates.first())
    else {
        // A prompt blocked before any candidate was generated says so, and why, in promptFeedback.
        if let Some(reason) = root
            .get("promptFeedback")
            .and_then(|feedback| feedback.get("blockReason"))
        {
            return Ok(Mapped {
                message: Message::reply(None, Vec::new()),
                finish_reason: FinishReason::ContentFilter,
                usage,
                model,
                response_id: None,
                blocked: Some(Blocked::Prompt(Blocked::code(
                    reason.as_str().unwrap_or_default(),
                ))),
            });
        }
        return Err(ProviderError::invalid_response("response has no candidates[0]"));
    };
    let parts = match candidate.get("content").and_then(|content| content.get("parts")) {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(parts)) => parts.as_slice(),
        Some(_) => {
            return Err(ProviderError::invalid_response(
                "candidates[0].content.parts is not an array",
            ));
        }
    };
    let mut blocks = Vec::new();
    let mut raw_calls = Vec::new();
    for part in parts {
        read_part(part, &mut blocks, &mut raw_calls)?;
    }
    assemble(
        Read {
            blocks,
            raw_calls,
            finish_reason: candidate.get("finishReason").and_then(Value::as_str),
            usage,
            model,
        },
        tools,
    )
}

/// What the mapping reads from a body with a candidate, from the parsed `Value` or by the typed view
/// ([`super::view`]).
pub(crate) struct Read<'a> {
    pub(crate) blocks: Vec<ContentBlock>,
    pub(crate) raw_calls: Vec<WireToolCall>,
    pub(crate) finish_reason: Option<&'a str>,
    pub(crate) usage: Usage,
    pub(crate) model: Option<String>,
}

/// The finish reason, the checked tool calls and the message, from what was read.
pub(crate) fn assemble(read: Read<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let finish_reason = if read.raw_calls.is_empty() {
        match read.finish_reason {
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
    let mut mapped = Mapped::from_blocks(
        read.blocks,
        read.raw_calls,
        finish_reason,
        read.usage,
        read.model,
        tools,
    )?;
    // The filter that stopped the answer, named by the finish reason it sent.
    if finish_reason == FinishReason::ContentFilter {
        mapped.blocked = read
            .finish_reason
            .map(|code| Blocked::Answer(Blocked::code(code)));
    }
    Ok(mapped)
}

/// Reads one part: text (a thought summary when `thought: true`) or a function call; any other part type
/// (inline data, executable code) stays on `raw` only.
fn read_part(
    part: &Value,
    blocks: &mut Vec<ContentBlock>,
    calls: &mut Vec<WireToolCall>,
) -> Result<(), ProviderError> {
    let signature = part
        .get("thoughtSignature")
        .and_then(Value::as_str)
        .filter(|signature| !signature.is_empty())
        .map(str::to_owned);
    if let Some(call) = part.get("functionCall") {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| ProviderError::invalid_response("a functionCall part has no name"))?;
        // Gemini does not always return an id; one is made from the call's position so the result can answer it.
        let id = match call.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => format!("gemini_call_{}", calls.len()),
        };
        calls.push(WireToolCall {
            id,
            name: name.to_owned(),
            arguments: call.get("args").map(canonical::to_string).unwrap_or_default(),
            signature,
        });
        return Ok(());
    }
    match part.get("text") {
        Some(Value::String(text)) if part.get("thought").and_then(Value::as_bool) == Some(true) => {
            blocks.push(ContentBlock::Thinking {
                text: text.clone(),
                signature,
            });
        }
        Some(Value::String(text)) => blocks.push(ContentBlock::Text {
            text: text.clone(),
            signature,
        }),
        Some(_) => return Err(ProviderError::invalid_response("a text part is not a string")),
        None => {}
    }
    Ok(())
}

fn read_usage(usage: Option<&Value>) -> Usage {
    let counter = |name: &str| read_counter(usage.and_then(|usage| usage.get(name)));
    Usage {
        prompt_tokens: counter("promptTokenCount"),
        completion_tokens: counter("candidatesTokenCount"),
        total_tokens: counter("totalTokenCount"),
        cached_tokens: counter("cachedContentTokenCount"),
        cache_creation_tokens: None,
    }
}
