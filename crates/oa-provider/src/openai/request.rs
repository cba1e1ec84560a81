//! §8.1.1 request mapping: messages, tools, tool_choice, declared config and extras into the Chat Completions
//! body, with the §6 managed-field collision rules. The body is serialized canonically (sorted keys).

use serde_json::{Map, Value, json};

use crate::call::managed::{Managed, StopField};
use crate::call::wire::{WireBody, WireRequest};
use crate::error::ProviderError;
use crate::model::{
    Content, ContentBlock, ImageSource, Mapping, Message, Role, StructuredOutputPath, Tool, ToolCall,
    ToolChoice,
};
use crate::openai::strict::response_format;
use crate::structured::ResponseSchema;

/// Builds the request body.
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
    let value = managed_fields(inputs)?
        .place(&inputs.config.extras, stop)
        .map(Value::Object)?;
    Ok(WireBody {
        value,
        schema: native_schema(inputs).map(|(_, schema)| (&SCHEMA_AT[..], schema.clone())),
    })
}

/// Where the response schema goes in the body: `response_format.json_schema.schema` (§8.1.5).
static SCHEMA_AT: [&str; 3] = ["response_format", "json_schema", "schema"];

/// The native constraint's strictness and schema, on the native paths only; the fallback paths carry no
/// response_format.
fn native_schema<'a>(inputs: &WireRequest<'a>) -> Option<(bool, &'a ResponseSchema)> {
    match inputs.structured {
        Some((StructuredOutputPath::Native, schema)) => Some((true, schema)),
        Some((StructuredOutputPath::NativeUnenforced, schema)) => Some((false, schema)),
        _ => None,
    }
}

fn managed_fields(inputs: &WireRequest<'_>) -> Result<Managed, ProviderError> {
    let mut managed = Managed::new(Mapping::OpenAi);
    managed.emit("model", Value::from(inputs.model));
    managed.emit(
        "messages",
        Value::Array(
            inputs
                .messages
                .iter()
                .map(wire_message)
                .collect::<Result<_, _>>()?,
        ),
    );
    if inputs.stream {
        managed.emit("stream", Value::Bool(true));
        managed.emit("stream_options", json!({"include_usage": true}));
    } else {
        managed.absorb("stream", Value::Bool(false));
    }
    managed.emit_tools(inputs.tools, inputs.tool_choice, wire_tool, wire_tool_choice);
    if let Some((strict, schema)) = native_schema(inputs) {
        managed.emit_native(
            SCHEMA_AT[0],
            response_format(schema, strict),
            &SCHEMA_AT[1..],
            schema,
        );
    }
    for (name, value) in inputs.config.declared_values() {
        if name != "stop_sequences" {
            managed.emit(name, value);
        }
    }
    Ok(managed)
}

fn wire_message(message: &Message) -> Result<Value, ProviderError> {
    let mut wire = Map::new();
    wire.insert("role".to_owned(), Value::from(message.role.as_str()));
    match message.role {
        Role::User => {
            let content = match &message.content {
                Some(Content::Text(text)) => Value::from(text.as_str()),
                Some(Content::Blocks(blocks)) => {
                    Value::Array(blocks.iter().filter_map(wire_user_block).collect())
                }
                None => Value::Null,
            };
            wire.insert("content".to_owned(), content);
        }
        Role::Assistant => {
            // Thinking and redacted-thinking blocks are stripped (§8.1.1); the text blocks join into one string.
            let content = match &message.content {
                Some(Content::Text(text)) if !text.is_empty() => Value::from(text.as_str()),
                Some(Content::Blocks(blocks)) => {
                    let text: String = blocks
                        .iter()
                        .filter_map(|block| match block {
                            ContentBlock::Text { text, .. } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    if text.is_empty() {
                        Value::Null
                    } else {
                        Value::from(text)
                    }
                }
                _ => Value::Null,
            };
            wire.insert("content".to_owned(), content);
            if let Some(calls) = message.tool_calls.as_ref().filter(|calls| !calls.is_empty()) {
                wire.insert(
                    "tool_calls".to_owned(),
                    Value::Array(calls.iter().map(wire_tool_call).collect()),
                );
            }
        }
        Role::System | Role::Tool => {
            let text = match &message.content {
                Some(Content::Text(text)) => text.clone(),
                _ => message.text().unwrap_or_default(),
            };
            wire.insert("content".to_owned(), Value::from(text));
            if let Some(tool_call_id) = &message.tool_call_id {
                wire.insert("tool_call_id".to_owned(), Value::from(tool_call_id.as_str()));
            }
        }
    }
    Ok(Value::Object(wire))
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
