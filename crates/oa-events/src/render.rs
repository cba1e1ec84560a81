//! Typed-event-native forms of provider values: messages with inline image bytes redacted (observability §5.5.5),
//! tool calls as `{id, name, arguments}`, and the §5.5.2 request-parameter family.

use oa_provider::model::{ContentBlock, ImageSource};
use oa_provider::{Content, FinishReason, Message, Response, RuntimeConfig, ToolCall, Usage};
use serde_json::{Map, Value, json};

use crate::event::LlmResponseFields;

/// The message list in typed-event-native form, `{role, content, tool_calls?, tool_call_id?}`, with every inline
/// image source replaced by `{type: "inline_redacted", byte_count}` (a hard rule: bytes never reach an event).
pub fn render_messages(messages: &[Message]) -> Vec<Value> {
    messages.iter().map(render_message).collect()
}

fn render_message(message: &Message) -> Value {
    let mut object = Map::new();
    object.insert("role".into(), Value::from(message.role.as_str()));
    let content = match &message.content {
        None => Value::Null,
        Some(Content::Text(text)) => Value::from(text.as_str()),
        Some(Content::Blocks(blocks)) => Value::Array(blocks.iter().map(render_block).collect()),
    };
    object.insert("content".into(), content);
    if let Some(tool_calls) = &message.tool_calls {
        object.insert("tool_calls".into(), Value::Array(render_tool_calls(tool_calls)));
    }
    if let Some(tool_call_id) = &message.tool_call_id {
        object.insert("tool_call_id".into(), Value::from(tool_call_id.as_str()));
    }
    Value::Object(object)
}

fn render_block(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Image {
            source: ImageSource::Inline { base64_data },
            media_type,
            detail,
        } => {
            let mut object = Map::new();
            object.insert("type".into(), Value::from("image"));
            object.insert(
                "source".into(),
                json!({"type": "inline_redacted", "byte_count": base64_data.len()}),
            );
            object.insert("media_type".into(), json!(media_type));
            if let Some(detail) = detail {
                object.insert("detail".into(), Value::from(detail.as_str()));
            }
            Value::Object(object)
        }
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

/// Tool calls as `[{id, name, arguments}]` (observability §5.5.5 *Tool-call serialization*).
pub fn render_tool_calls(tool_calls: &[ToolCall]) -> Vec<Value> {
    tool_calls
        .iter()
        .map(|call| json!({"id": call.id, "name": call.name, "arguments": call.arguments}))
        .collect()
}

/// The §5.5.2 request parameters the config sets, keyed by their GenAI names without the prefix.
pub fn request_params(config: &RuntimeConfig) -> Map<String, Value> {
    config
        .declared_values()
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
}

/// The extras bag as a JSON object.
pub fn request_extras(config: &RuntimeConfig) -> Map<String, Value> {
    config
        .extras
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// The response-side fields of a successful response.
pub(crate) fn response_fields(response: &Response) -> LlmResponseFields {
    LlmResponseFields {
        response_model: response.model.clone(),
        response_id: response.response_id.clone(),
        usage: Some(response.usage),
        finish_reason: Some(response.finish_reason),
        output_content: content_text(response.message.content.as_ref()),
        output_tool_calls: response.message.tool_calls.as_deref().map(render_tool_calls),
    }
}

/// The response-side fields of a `structured_output_invalid` failure.
pub(crate) fn failure_fields(failure: &oa_provider::StructuredOutputFailure) -> LlmResponseFields {
    LlmResponseFields {
        response_model: failure.model.clone(),
        response_id: failure.response_id.clone(),
        usage: Some(failure.usage),
        finish_reason: Some(failure.finish_reason),
        output_content: Some(failure.output_content.clone()),
        output_tool_calls: None,
    }
}

/// Whether `fields` are what [`response_fields`] makes of `response`, compared without building anything (the
/// terminal event shares its attempt's fields only when they are the outcome's).
pub(crate) fn response_matches(fields: &LlmResponseFields, response: &Response) -> bool {
    let content_matches = match response.message.content.as_ref() {
        None => fields.output_content.is_none(),
        Some(Content::Text(text)) => {
            fields.output_content.as_deref() == (!text.is_empty()).then_some(text.as_str())
        }
        // Joined text blocks: compared as built (rare, and not on any hot path).
        Some(blocks @ Content::Blocks(_)) => fields.output_content == content_text(Some(blocks)),
    };
    let tool_calls_match = match (&fields.output_tool_calls, &response.message.tool_calls) {
        (None, None) => true,
        (Some(rendered), Some(calls)) => *rendered == render_tool_calls(calls),
        _ => false,
    };
    content_matches
        && tool_calls_match
        && surface_matches(
            fields,
            response.model.as_deref(),
            response.response_id.as_deref(),
            response.usage,
            response.finish_reason,
        )
}

/// Whether `fields` are what [`failure_fields`] makes of `failure`, compared without building anything.
pub(crate) fn failure_matches(
    fields: &LlmResponseFields,
    failure: &oa_provider::StructuredOutputFailure,
) -> bool {
    fields.output_content.as_deref() == Some(failure.output_content.as_str())
        && fields.output_tool_calls.is_none()
        && surface_matches(
            fields,
            failure.model.as_deref(),
            failure.response_id.as_deref(),
            failure.usage,
            failure.finish_reason,
        )
}

fn surface_matches(
    fields: &LlmResponseFields,
    model: Option<&str>,
    response_id: Option<&str>,
    usage: Usage,
    finish_reason: FinishReason,
) -> bool {
    fields.response_model.as_deref() == model
        && fields.response_id.as_deref() == response_id
        && fields.usage == Some(usage)
        && fields.finish_reason == Some(finish_reason)
}

/// The content as text: a string verbatim, text blocks joined; `None` when there is no (or empty) content.
fn content_text(content: Option<&Content>) -> Option<String> {
    let text = match content? {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect(),
    };
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use oa_provider::model::ImageDetail;

    use super::*;

    #[test]
    fn inline_images_are_redacted_and_urls_kept() {
        let message = Message::user_blocks(vec![
            ContentBlock::text("look"),
            ContentBlock::Image {
                source: ImageSource::Inline {
                    base64_data: "aGVsbG8=".into(),
                },
                media_type: Some("image/png".into()),
                detail: Some(ImageDetail::High),
            },
            ContentBlock::Image {
                source: ImageSource::Url {
                    url: "https://example.invalid/a.png".into(),
                },
                media_type: None,
                detail: None,
            },
        ]);
        let rendered = render_messages(&[message]);
        assert_eq!(
            rendered[0]["content"][1],
            json!({"type": "image", "source": {"type": "inline_redacted", "byte_count": 8},
                   "media_type": "image/png", "detail": "high"})
        );
        assert_eq!(
            rendered[0]["content"][2]["source"]["url"],
            "https://example.invalid/a.png"
        );
        assert!(!rendered[0].to_string().contains("aGVsbG8="));
    }
}
