//! §8.2.2 response mapping: the content array to blocks (text, thinking with its signature, redacted thinking)
//! and tool calls (from `tool_use`), `stop_reason` to a finish reason, and usage with a derived total.

use serde_json::Value;

use crate::call::wire::Mapped;
use crate::canonical;
use crate::error::ProviderError;
use crate::model::response::read_counter;
use crate::model::{ContentBlock, FinishReason, Usage};
use crate::structured::{CheckedTools, WireToolCall};

/// Maps an atomic response body.
pub(crate) fn map_body(body: &Value, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let root = body
        .as_object()
        .ok_or_else(|| ProviderError::invalid_response("response body is not a JSON object"))?;
    let content = root
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::invalid_response("response has no content array"))?;
    let mut blocks = Vec::new();
    let mut raw_calls = Vec::new();
    for entry in content {
        match read_entry(entry)? {
            Entry::Block(block) => blocks.push(block),
            Entry::Call(call) => raw_calls.push(call),
            Entry::Other => {}
        }
    }
    let usage = root.get("usage");
    let counter = |name: &str| read_counter(usage.and_then(|usage| usage.get(name)));
    assemble(
        Read {
            blocks,
            raw_calls,
            stop_reason: root.get("stop_reason").and_then(Value::as_str),
            usage: Usage::derived(counter("input_tokens"), counter("output_tokens")),
            model: root.get("model").and_then(Value::as_str).map(str::to_owned),
        },
        tools,
    )
}

/// What the mapping reads from a body, from the parsed `Value` or by the typed view ([`super::view`]).
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

/// One content entry, read.
enum Entry {
    Block(ContentBlock),
    Call(WireToolCall),
    /// A type this mapping does not surface (server tools, citations' companions); it stays on `raw`.
    Other,
}

fn read_entry(entry: &Value) -> Result<Entry, ProviderError> {
    let text_of = |key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                ProviderError::invalid_response(format!("a content entry lacks its string {key:?}"))
            })
    };
    Ok(match entry.get("type").and_then(Value::as_str) {
        Some("text") => Entry::Block(ContentBlock::text(text_of("text")?)),
        Some("thinking") => Entry::Block(ContentBlock::Thinking {
            text: text_of("thinking")?,
            signature: entry.get("signature").and_then(Value::as_str).map(str::to_owned),
        }),
        Some("redacted_thinking") => Entry::Block(ContentBlock::RedactedThinking {
            data: text_of("data")?,
        }),
        Some("tool_use") => Entry::Call(WireToolCall {
            id: text_of("id")?,
            name: text_of("name")?,
            // `input` is an object on the wire; the shared check parses and validates it like any arguments.
            arguments: entry.get("input").map(canonical::to_string).unwrap_or_default(),
            signature: None,
        }),
        Some(_) => Entry::Other,
        None => {
            return Err(ProviderError::invalid_response(
                "a content entry has no string type",
            ));
        }
    })
}
