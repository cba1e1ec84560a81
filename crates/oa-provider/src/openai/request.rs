//! §8.1.1 request mapping: messages, tools, tool_choice, declared config and extras into the Chat Completions
//! body, with the §6 managed-field collision rules. The body is serialized canonically (sorted keys).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use crate::call::managed::{Managed, StopField, WriteCanonical};
use crate::call::wire::{WireBody, WireRequest};
use crate::canonical;
use crate::model::ProviderError;
use crate::model::{
    Content, ContentBlock, ImageSource, Mapping, Message, Role, StructuredOutputPath, Tool, ToolCall,
    ToolChoice,
};
use crate::openai::strict::response_format;
use crate::structured::ResponseSchema;

/// Builds the request body, written straight to its canonical text: the messages and the native constraint write
/// themselves (see [`WriteCanonical`]), so no `Value` tree of the body is built per request.
///
/// # Errors
///
/// `provider_invalid_request` when an extras key conflicts with a field the mapping manages.
pub(crate) fn build_body(inputs: &WireRequest<'_>) -> Result<WireBody, ProviderError> {
    let stop = StopField {
        key: "stop",
        declared: inputs.config.stop_sequences.clone(),
        coerce_scalar: true,
    };
    let messages = WireMessages(inputs.messages);
    let format = native_schema(inputs).map(|(strict, schema)| NativeFormat(response_format(schema, strict)));
    let mut managed = Managed::new(Mapping::OpenAi);
    managed.emit("model", Value::from(inputs.model));
    managed.emit_written("messages", &messages);
    if inputs.stream {
        managed.emit("stream", Value::Bool(true));
        managed.emit("stream_options", json!({"include_usage": true}));
    } else {
        managed.absorb("stream", Value::Bool(false));
    }
    managed.emit_tools(inputs.tools, inputs.tool_choice, wire_tool, wire_tool_choice);
    if let Some(format) = &format {
        managed.emit_written("response_format", format);
    }
    for (name, value) in inputs.config.declared_values() {
        if name != "stop_sequences" {
            managed.emit(name, value);
        }
    }
    managed.write(&inputs.config.extras, stop).map(WireBody::Text)
}

/// The native constraint's strictness and schema, on the native paths only; the fallback paths carry no
/// response_format.
fn native_schema<'a>(inputs: &WireRequest<'a>) -> Option<(bool, &'a ResponseSchema)> {
    match inputs.structured {
        Some((StructuredOutputPath::Native, schema)) => Some((true, schema)),
        Some((StructuredOutputPath::NativeUnenforced, schema)) => Some((false, schema)),
        _ => None,
    }
}

/// `response_format` (§8.1.5) as its three cached pieces of canonical text.
struct NativeFormat<'s>([&'s str; 3]);

impl WriteCanonical for NativeFormat<'_> {
    fn write_canonical(&self, out: &mut Vec<u8>) {
        for piece in self.0 {
            out.extend_from_slice(piece.as_bytes());
        }
    }

    fn len_hint(&self) -> usize {
        self.0.iter().map(|piece| piece.len()).sum()
    }
}

/// The `messages` array, each message written as Chat Completions takes it.
struct WireMessages<'m>(&'m [Message]);

impl WriteCanonical for WireMessages<'_> {
    fn write_canonical(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (message_idx, message) in self.0.iter().enumerate() {
            if message_idx > 0 {
                out.push(b',');
            }
            wire_message(message).write(out);
        }
        out.push(b']');
    }

    fn len_hint(&self) -> usize {
        self.0
            .iter()
            .map(|message| match &message.content {
                Some(Content::Text(text)) => text.len() + 48,
                _ => 48,
            })
            .sum()
    }
}

/// One message on the wire, borrowing the caller's text. Its members are written in key order (`content`, `role`,
/// `tool_call_id`, `tool_calls`), as the canonical writer orders them.
struct WireMessage<'m> {
    content: WireContent<'m>,
    role: &'static str,
    tool_call_id: Option<&'m str>,
    tool_calls: Option<Value>,
}

enum WireContent<'m> {
    Null,
    Text(Cow<'m, str>),
    /// A user message's content blocks.
    Blocks(Value),
}

impl WireMessage<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#"{"content":"#);
        match &self.content {
            WireContent::Null => out.extend_from_slice(b"null"),
            WireContent::Text(text) => canonical::write_str(text, out),
            WireContent::Blocks(blocks) => canonical::write(blocks, out),
        }
        out.extend_from_slice(br#","role":"#);
        canonical::write_str(self.role, out);
        if let Some(tool_call_id) = self.tool_call_id {
            out.extend_from_slice(br#","tool_call_id":"#);
            canonical::write_str(tool_call_id, out);
        }
        if let Some(tool_calls) = &self.tool_calls {
            out.extend_from_slice(br#","tool_calls":"#);
            canonical::write(tool_calls, out);
        }
        out.push(b'}');
    }
}

fn wire_message(message: &Message) -> WireMessage<'_> {
    let role = message.role.as_str();
    match message.role {
        Role::User => WireMessage {
            content: match &message.content {
                Some(Content::Text(text)) => WireContent::Text(Cow::Borrowed(text)),
                Some(Content::Blocks(blocks)) => {
                    WireContent::Blocks(Value::Array(blocks.iter().filter_map(wire_user_block).collect()))
                }
                None => WireContent::Null,
            },
            role,
            tool_call_id: None,
            tool_calls: None,
        },
        Role::Assistant => {
            // Thinking and redacted-thinking blocks are stripped (§8.1.1); the text blocks join into one string.
            let content = match &message.content {
                Some(Content::Text(text)) if !text.is_empty() => WireContent::Text(Cow::Borrowed(text)),
                Some(Content::Blocks(blocks)) => {
                    let text = Content::text_of(blocks);
                    if text.is_empty() {
                        WireContent::Null
                    } else {
                        WireContent::Text(Cow::Owned(text))
                    }
                }
                _ => WireContent::Null,
            };
            WireMessage {
                content,
                role,
                tool_call_id: None,
                tool_calls: message
                    .tool_calls
                    .as_ref()
                    .filter(|calls| !calls.is_empty())
                    .map(|calls| Value::Array(calls.iter().map(wire_tool_call).collect())),
            }
        }
        Role::System | Role::Tool => WireMessage {
            content: WireContent::Text(match &message.content {
                Some(Content::Text(text)) => Cow::Borrowed(text),
                _ => Cow::Owned(message.text().unwrap_or_default()),
            }),
            role,
            tool_call_id: message.tool_call_id.as_deref(),
            tool_calls: None,
        },
    }
}

fn wire_user_block(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::Text { text, .. } => Some(json!({"type": "text", "text": text})),
        ContentBlock::Image {
            source,
            media_type,
            detail,
        } => {
            let url = match source {
                ImageSource::Url { url } => url.clone(),
                ImageSource::Inline { base64_data } => {
                    format!(
                        "data:{};base64,{base64_data}",
                        media_type.as_deref().unwrap_or_default()
                    )
                }
            };
            let mut image_url = Map::new();
            image_url.insert("url".to_owned(), Value::from(url));
            if let Some(detail) = detail {
                image_url.insert("detail".to_owned(), Value::from(detail.as_str()));
            }
            Some(json!({"type": "image_url", "image_url": Value::Object(image_url)}))
        }
        // Validation keeps reasoning blocks out of user messages; were one here it would be stripped.
        ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => None,
    }
}

fn wire_tool_call(call: &ToolCall) -> Value {
    // Arguments are a JSON-encoded string on the wire; serialized canonically so identical input is identical
    // bytes.
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": crate::canonical::to_string(&call.arguments)},
    })
}

fn wire_tool(tool: &Tool) -> Value {
    json!({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    })
}

fn wire_tool_choice(tool_choice: &ToolChoice) -> Value {
    match tool_choice {
        ToolChoice::Auto => Value::from("auto"),
        ToolChoice::Required => Value::from("required"),
        ToolChoice::None => Value::from("none"),
        ToolChoice::Tool { name } => json!({"type": "function", "function": {"name": name}}),
    }
}
