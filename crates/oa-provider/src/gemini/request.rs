//! §8.3.1 request mapping: `systemInstruction`, `contents` of `user`/`model` turns made of parts (text, thought
//! summaries, inline and file images, `functionCall` with its `thoughtSignature` put back in place, and tool
//! results as `functionResponse` named from the earlier call), `tools` as function declarations, `toolConfig`,
//! and `generationConfig` in camelCase holding the declared config, the extras and, on the native path, the
//! schema. The body is serialized canonically (sorted keys).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::call::managed::{Managed, StopField};
use crate::call::turns::{Turn, split, tool_result_text};
use crate::call::wire::{WireBody, WireRequest};
use crate::model::{Category, ProviderError};
use crate::model::{
    Content, ContentBlock, ImageSource, Mapping, Message, Role, StructuredOutputPath, Tool, ToolChoice,
};
use crate::structured::ResponseSchema;

/// Builds the request body.
///
/// # Errors
///
/// `provider_invalid_request` when an extras key conflicts with a field the mapping manages;
/// `provider_unsupported_content_block` for an image URL whose media type is neither given nor inferable.
pub(crate) fn build_body(inputs: &WireRequest<'_>) -> Result<WireBody, ProviderError> {
    let conversation = split(inputs.messages);
    let names = call_names(inputs.messages);
    let mut root = Map::new();
    root.insert(
        "contents".to_owned(),
        Value::Array(
            conversation
                .turns
                .iter()
                .map(|turn| wire_turn(turn, &names))
                .collect::<Result<_, _>>()?,
        ),
    );
    if let Some(system) = conversation.system {
        root.insert(
            "systemInstruction".to_owned(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !inputs.tools.is_empty() {
        let declarations: Vec<Value> = inputs.tools.iter().map(wire_tool).collect();
        root.insert(
            "tools".to_owned(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    if let Some(tool_choice) = inputs.tool_choice {
        root.insert(
            "toolConfig".to_owned(),
            json!({"functionCallingConfig": wire_tool_choice(tool_choice)}),
        );
    }
    let generation = generation_config(inputs)?;
    if !generation.is_empty() {
        root.insert("generationConfig".to_owned(), Value::Object(generation));
    }
    Ok(WireBody::Value {
        value: Value::Object(root),
        schema: native_schema(inputs).map(|schema| (&SCHEMA_AT[..], schema.clone())),
    })
}

/// Where the response schema goes in the body: `generationConfig.responseJsonSchema` (§8.3.5).
static SCHEMA_AT: [&str; 2] = ["generationConfig", "responseJsonSchema"];

fn native_schema<'a>(inputs: &WireRequest<'a>) -> Option<&'a ResponseSchema> {
    match inputs.structured {
        Some((StructuredOutputPath::Native, schema)) => Some(schema),
        _ => None,
    }
}

/// `generationConfig`: the declared fields under their camelCase names, the native schema, and the extras (placed
/// here, not at the root), with the §6 managed-field rules.
fn generation_config(inputs: &WireRequest<'_>) -> Result<Map<String, Value>, ProviderError> {
    let config = inputs.config;
    let mut managed = Managed::new(Mapping::Gemini);
    for (name, value) in config.declared_values() {
        let wire_name = match name {
            "temperature" => "temperature",
            "top_p" => "topP",
            "max_tokens" => "maxOutputTokens",
            "seed" => "seed",
            "frequency_penalty" => "frequencyPenalty",
            "presence_penalty" => "presencePenalty",
            // stop_sequences is the list-shaped field, merged by `place`.
            _ => continue,
        };
        managed.emit(wire_name, value);
    }
    if let Some(schema) = native_schema(inputs) {
        managed.emit("responseMimeType", Value::from("application/json"));
        // `null` in the schema's place: the body writer puts its canonical text there.
        managed.emit_native(SCHEMA_AT[1], Value::Null, &[], schema);
    }
    let stop = StopField {
        key: "stopSequences",
        declared: config.stop_sequences.clone(),
        coerce_scalar: false,
    };
    managed.place(&config.extras, stop)
}

/// Each tool call's name by id, for the `functionResponse` that answers it (pre-send validation matched every
/// tool message to an earlier call).
fn call_names(messages: &[Message]) -> HashMap<&str, &str> {
    messages
        .iter()
        .filter(|message| message.role == Role::Assistant)
        .flat_map(|message| message.tool_calls.iter().flatten())
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect()
}

fn wire_turn(turn: &Turn<'_>, names: &HashMap<&str, &str>) -> Result<Value, ProviderError> {
    Ok(match turn {
        Turn::User(message) => {
            let parts = match &message.content {
                Some(Content::Text(text)) => vec![json!({"text": text})],
                Some(Content::Blocks(blocks)) => {
                    blocks.iter().filter_map(wire_part).collect::<Result<_, _>>()?
                }
                None => Vec::new(),
            };
            json!({"role": "user", "parts": parts})
        }
        Turn::Assistant(message) => json!({"role": "model", "parts": model_parts(message)?}),
        Turn::ToolResults(run) => {
            let parts: Vec<Value> = run
                .iter()
                .map(|message| {
                    let id = message.tool_call_id.as_deref().unwrap_or_default();
                    json!({"functionResponse": {
                        "name": names.get(id).copied().unwrap_or_default(),
                        "id": id,
                        // §3 tool content is a string; Gemini wants an object, so it is always wrapped.
                        "response": {"result": tool_result_text(message)},
                    }})
                })
                .collect();
            json!({"role": "user", "parts": parts})
        }
    })
}

/// An assistant message's parts: its blocks in order, then one `functionCall` per tool call, each signature put
/// back on the part it came with.
fn model_parts(message: &Message) -> Result<Vec<Value>, ProviderError> {
    let mut parts: Vec<Value> = match &message.content {
        Some(Content::Text(text)) if !text.is_empty() => vec![json!({"text": text})],
        Some(Content::Blocks(blocks)) => blocks.iter().filter_map(wire_part).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    for call in message.tool_calls.iter().flatten() {
        let mut part = Map::new();
        part.insert(
            "functionCall".to_owned(),
            json!({"name": call.name, "id": call.id, "args": call.arguments}),
        );
        with_signature(&mut part, call.signature.as_deref());
        parts.push(Value::Object(part));
    }
    Ok(parts)
}

/// §8.3.1.1. `None` for a block Gemini has no part for (redacted thinking, another provider's reasoning blob).
fn wire_part(block: &ContentBlock) -> Option<Result<Value, ProviderError>> {
    Some(Ok(match block {
        ContentBlock::Text { text, signature } => {
            let mut part = Map::new();
            part.insert("text".to_owned(), Value::from(text.as_str()));
            with_signature(&mut part, signature.as_deref());
            Value::Object(part)
        }
        // A thought summary carries no signature of its own; Gemini's rides on the sibling part.
        ContentBlock::Thinking { text, .. } => json!({"text": text, "thought": true}),
        ContentBlock::RedactedThinking { .. } => return None,
        ContentBlock::Image {
            source, media_type, ..
        } => match source {
            ImageSource::Inline { base64_data } => json!({"inlineData": {
                "mimeType": media_type.as_deref().unwrap_or_default(),
                "data": base64_data,
            }}),
            ImageSource::Url { url } => {
                let mime_type = match media_type.as_deref().or_else(|| inferred_media_type(url)) {
                    Some(mime_type) => mime_type,
                    None => return Some(Err(unknown_media_type())),
                };
                json!({"fileData": {"mimeType": mime_type, "fileUri": url}})
            }
        },
    }))
}

/// `thoughtSignature` only when there is one: the key is omitted, never `null` (§8.3.1.1).
fn with_signature(part: &mut Map<String, Value>, signature: Option<&str>) {
    if let Some(signature) = signature.filter(|signature| !signature.is_empty()) {
        part.insert("thoughtSignature".to_owned(), Value::from(signature));
    }
}

/// The media type an image URL's extension names (query and fragment ignored).
fn inferred_media_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "webp" => Some("image/webp"),
        "gif" => Some("image/gif"),
        "heic" => Some("image/heic"),
        "heif" => Some("image/heif"),
        _ => None,
    }
}

fn unknown_media_type() -> ProviderError {
    ProviderError::new(
        Category::UnsupportedContentBlock,
        "an image URL for the gemini mapping needs a media_type: none was given and the URL's extension names \
         none (fileData requires a mimeType)",
    )
}

fn wire_tool(tool: &Tool) -> Value {
    json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
}

fn wire_tool_choice(tool_choice: &ToolChoice) -> Value {
    match tool_choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        // The load-bearing rename: the spec's "required" is Gemini's "ANY".
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Tool { name } => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_are_inferred_from_the_extension_only() {
        assert_eq!(
            inferred_media_type("https://x.test/cat.JPG?size=2"),
            Some("image/jpeg")
        );
        assert_eq!(
            inferred_media_type("https://x.test/a.png#frag"),
            Some("image/png")
        );
        assert_eq!(inferred_media_type("https://x.test/image"), None);
        assert_eq!(inferred_media_type("https://x.test/a.svg"), None);
    }
}
