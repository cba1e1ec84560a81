//! §8.1.2 response mapping: a Chat Completions body (or the assembled stream) to a §6 `Response`, with the
//! refusal rule (0126), usage counters read strictly, and tool calls checked against the declared tools.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::call::wire::Mapped;
use crate::error::ProviderError;
use crate::model::response::read_counter;
use crate::model::{Content, ContentBlock, FinishReason, Message, Usage};
use crate::structured::CheckedTools;
use crate::structured::WireToolCall;

/// Maps an atomic response body: reads it ([`read_value`]) and maps what was read ([`map_read`]), the path the
/// typed view ([`super::view`]) shares.
pub(crate) fn map_body(body: &Value, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    map_read(read_value(body)?, tools)
}

/// What the mapping reads from an atomic body: borrowed from the parsed `Value`, or by the typed view from the
/// body's bytes.
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

/// Reads a parsed body: the reference reading, which the typed view must match.
fn read_value(body: &Value) -> Result<Read<'_>, ProviderError> {
    let Some(root) = body.as_object() else {
        return Err(ProviderError::invalid_response(
            "response body is not a JSON object",
        ));
    };
    let choice = root
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .and_then(Value::as_object)
        .ok_or_else(|| ProviderError::invalid_response("response has no choices[0]"))?;
    let message = choice
        .get("message")
        .and_then(Value::as_object)
        .ok_or_else(|| ProviderError::invalid_response("choices[0] has no message object"))?;
    let fields = MessageFields::read(message);
    let content = match fields.content {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(Cow::Borrowed(text.as_str())),
        Some(_) => {
            return Err(ProviderError::invalid_response(
                "choices[0].message.content is not a string",
            ));
        }
    };
    let raw_calls = match fields.tool_calls {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls.iter().map(read_wire_tool_call).collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(ProviderError::invalid_response(
                "choices[0].message.tool_calls is not an array",
            ));
        }
    };
    Ok(Read {
        content,
        raw_calls,
        reasoning_content: fields.reasoning_content.map(Cow::Borrowed),
        reasoning: fields.reasoning.map(Cow::Borrowed),
        refusal: fields.refusal.map(Cow::Borrowed),
        wire_finish: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(Cow::Borrowed),
        usage: read_usage(root.get("usage")),
        model: root.get("model").and_then(Value::as_str).map(Cow::Borrowed),
    })
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

/// The members of a response message the mapping reads, found in one pass over the message object rather than
/// a lookup per member (most of them are absent from a plain answer, and a miss costs a search too).
#[derive(Default)]
struct MessageFields<'a> {
    content: Option<&'a Value>,
    tool_calls: Option<&'a Value>,
    /// The string values only, as the mapping reads them.
    reasoning_content: Option<&'a str>,
    reasoning: Option<&'a str>,
    refusal: Option<&'a str>,
}

impl<'a> MessageFields<'a> {
    fn read(message: &'a Map<String, Value>) -> Self {
        let mut fields = Self::default();
        for (key, value) in message {
            match key.as_str() {
                "content" => fields.content = Some(value),
                "tool_calls" => fields.tool_calls = Some(value),
                "reasoning_content" => fields.reasoning_content = value.as_str(),
                "reasoning" => fields.reasoning = value.as_str(),
                "refusal" => fields.refusal = value.as_str(),
                _ => {}
            }
        }
        fields
    }
}

fn read_wire_tool_call(value: &Value) -> Result<WireToolCall, ProviderError> {
    let malformed =
        || ProviderError::invalid_response("a tool call is not {id, type, function: {name, arguments}}");
    let call = value.as_object().ok_or_else(malformed)?;
    let function = call
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(malformed)?;
    Ok(WireToolCall {
        id: call
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        name: function
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        arguments: match function.get("arguments") {
            Some(Value::String(arguments)) => arguments.clone(),
            None | Some(Value::Null) => String::new(),
            Some(_) => return Err(malformed()),
        },
        signature: None,
    })
}

/// Reads usage strictly: a counter must be a non-negative integer, anything else is `None` (§7).
pub(crate) fn read_usage(usage: Option<&Value>) -> Usage {
    let Some(Value::Object(usage)) = usage else {
        return Usage::default();
    };
    let cached = usage
        .get("prompt_tokens_details")
        .and_then(|details| details.get("cached_tokens"));
    Usage {
        prompt_tokens: read_counter(usage.get("prompt_tokens")),
        completion_tokens: read_counter(usage.get("completion_tokens")),
        total_tokens: read_counter(usage.get("total_tokens")),
        cached_tokens: read_counter(cached),
        cache_creation_tokens: None,
    }
}
