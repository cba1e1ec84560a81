//! §8.2.1 request mapping: system extraction, messages with tool calls as `tool_use` blocks and tool results
//! collapsed into user turns, tools with `input_schema`, `tool_choice`, the declared config (max_tokens required;
//! seed and the penalties refused), `output_config` on the native path, and the §6 managed-field rules. The body
//! is serialized canonically (sorted keys).

use serde_json::{Map, Value, json};

use crate::call::managed::{Managed, StopField};
use crate::call::turns::{Turn, split, tool_result_text};
use crate::call::wire::{WireBody, WireRequest};
use crate::model::ProviderError;
use crate::model::{
    Content, ContentBlock, ImageSource, Mapping, Message, RuntimeConfig, StructuredOutputPath, Tool,
    ToolChoice,
};

/// Builds the request body.
///
/// # Errors
///
/// `provider_invalid_request` without `max_tokens`, with `seed` or a penalty, or when an extras key conflicts with
/// a field the mapping manages.
pub(crate) fn build_body(inputs: &WireRequest<'_>) -> Result<WireBody, ProviderError> {
    let config = inputs.config;
    check_config(config)?;
    let conversation = split(inputs.messages);
    let mut managed = Managed::new(Mapping::Anthropic);
    managed.emit("model", Value::from(inputs.model));
    managed.emit(
        "messages",
        Value::Array(conversation.turns.iter().map(wire_turn).collect()),
    );
    if let Some(system) = conversation.system {
        managed.emit("system", Value::from(system));
    }
    // Atomic only: an extras `stream: true` would make the server answer with events the mapping does not read.
    managed.absorb("stream", Value::Bool(false));
    managed.emit_tools(inputs.tools, inputs.tool_choice, wire_tool, wire_tool_choice);
    let native = match inputs.structured {
        Some((StructuredOutputPath::Native, schema)) => Some(schema),
        _ => None,
    };
    if let Some(schema) = native {
        managed.emit_native(
            SCHEMA_AT[0],
            json!({"format": {"type": "json_schema", "schema": null}}),
            &SCHEMA_AT[1..],
            schema,
        );
    }
    for (name, value) in config.declared_values() {
        if matches!(name, "max_tokens" | "temperature" | "top_p") {
            managed.emit(name, value);
        }
    }
    let stop = StopField {
        key: "stop_sequences",
        declared: config.stop_sequences.clone(),
        coerce_scalar: false,
    };
    let value = managed.place(&config.extras, stop).map(Value::Object)?;
    Ok(WireBody::Value {
        value,
        schema: native.map(|schema| (&SCHEMA_AT[..], schema.clone())),
    })
}

/// Where the response schema goes in the body: `output_config.format.schema` (§8.2.5).
static SCHEMA_AT: [&str; 3] = ["output_config", "format", "schema"];

/// §8.2.1: `max_tokens` is required, and the Messages API has no `seed` and no penalties.
fn check_config(config: &RuntimeConfig) -> Result<(), ProviderError> {
    if config.max_tokens.is_none() {
        return Err(ProviderError::invalid_request(
            "the anthropic mapping requires max_tokens (llm-provider §8.2.1): set it in the call's config",
        ));
    }
    let unsupported = [
        ("seed", config.seed.is_some()),
        ("frequency_penalty", config.frequency_penalty.is_some()),
        ("presence_penalty", config.presence_penalty.is_some()),
    ];
    match unsupported.iter().find(|(_, set)| *set) {
        Some((name, _)) => Err(ProviderError::invalid_request(format!(
            "the anthropic mapping does not support {name} (the Messages API has none; llm-provider §8.2.1): \
             leave it unset"
        ))),
        None => Ok(()),
    }
}

fn wire_turn(turn: &Turn<'_>) -> Value {
    match turn {
        Turn::User(message) => json!({"role": "user", "content": user_content(message)}),
        Turn::Assistant(message) => json!({"role": "assistant", "content": assistant_content(message)}),
        Turn::ToolResults(run) => {
            let results: Vec<Value> = run
                .iter()
                .map(|message| {
                    json!({
                        "type": "tool_result",
                        "tool_use_id": message.tool_call_id.as_deref().unwrap_or_default(),
                        "content": tool_result_text(message),
                    })
                })
                .collect();
            json!({"role": "user", "content": results})
        }
    }
}

fn user_content(message: &Message) -> Value {
    match &message.content {
        Some(Content::Text(text)) => Value::from(text.as_str()),
        Some(Content::Blocks(blocks)) => Value::Array(blocks.iter().filter_map(wire_block).collect()),
        None => Value::Null,
    }
}

/// A plain-text assistant message stays a string; one with reasoning blocks or tool calls is a block array:
/// its blocks in order, then one `tool_use` per call.
fn assistant_content(message: &Message) -> Value {
    let calls = message.tool_calls.as_deref().unwrap_or_default();
    if let (Some(Content::Text(text)), true) = (&message.content, calls.is_empty()) {
        return Value::from(text.as_str());
    }
    let mut blocks: Vec<Value> = match &message.content {
        Some(Content::Text(text)) if !text.is_empty() => vec![json!({"type": "text", "text": text})],
        Some(Content::Blocks(blocks)) => blocks.iter().filter_map(wire_block).collect(),
        _ => Vec::new(),
    };
    blocks.extend(
        calls.iter().map(
            |call| json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}),
        ),
    );
    Value::Array(blocks)
}

/// §8.2.1.1. A text block's signature is another provider's (Anthropic puts none on text) and is not forwarded;
/// a thinking block's signature passes through verbatim.
fn wire_block(block: &ContentBlock) -> Option<Value> {
    Some(match block {
        ContentBlock::Text { text, .. } => json!({"type": "text", "text": text}),
        ContentBlock::Image {
            source, media_type, ..
        } => {
            let source = match source {
                ImageSource::Url { url } => json!({"type": "url", "url": url}),
                ImageSource::Inline { base64_data } => json!({
                    "type": "base64",
                    "media_type": media_type.as_deref().unwrap_or_default(),
                    "data": base64_data,
                }),
            };
            json!({"type": "image", "source": source})
        }
        ContentBlock::Thinking { text, signature } => {
            let mut thinking = Map::new();
            thinking.insert("type".to_owned(), Value::from("thinking"));
            thinking.insert("thinking".to_owned(), Value::from(text.as_str()));
            if let Some(signature) = signature {
                thinking.insert("signature".to_owned(), Value::from(signature.as_str()));
            }
            Value::Object(thinking)
        }
        ContentBlock::RedactedThinking { data } => json!({"type": "redacted_thinking", "data": data}),
    })
}

fn wire_tool(tool: &Tool) -> Value {
    json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters})
}

fn wire_tool_choice(tool_choice: &ToolChoice) -> Value {
    match tool_choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        // The load-bearing rename: the spec's "required" is Anthropic's "any".
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
    }
}
