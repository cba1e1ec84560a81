//! Pre-send checks at the `complete()` boundary (§3, §4, §5): message shapes and order, tool-call id
//! matching, tool names, and `tool_choice` against `tools`. Nothing invalid reaches the wire.

use std::collections::HashSet;

use crate::model::{Category, ProviderError};
use crate::model::{
    Content, ContentBlock, ImageSource, Message, Role, SUPPORTED_MEDIA_TYPES, Tool, ToolChoice,
};

/// Checks the message list against §3 and §5.
pub(crate) fn check_messages(messages: &[Message]) -> Result<(), ProviderError> {
    let Some(last) = messages.last() else {
        return Err(invalid("messages must not be empty"));
    };
    let mut seen_tool_call_ids: HashSet<&str> = HashSet::new();
    for (message_idx, message) in messages.iter().enumerate() {
        check_message(message, message_idx)?;
        match message.role {
            Role::System if message_idx != 0 => {
                return Err(invalid(format!(
                    "messages[{message_idx}]: a system message may only come first"
                )));
            }
            Role::Tool => {
                let id = message.tool_call_id.as_deref().unwrap_or_default();
                if !seen_tool_call_ids.contains(id) {
                    return Err(invalid(format!(
                        "messages[{message_idx}]: tool_call_id does not match an earlier assistant tool call"
                    )));
                }
            }
            Role::Assistant => {
                for call in message.tool_calls.iter().flatten() {
                    seen_tool_call_ids.insert(call.id.as_str());
                }
            }
            _ => {}
        }
    }
    let first_turn = messages.iter().find(|message| message.role != Role::System);
    if let Some(first_turn) = first_turn
        && first_turn.role != Role::User
    {
        return Err(invalid(
            "the message list must begin with a user message (after an optional system message)",
        ));
    }
    if !matches!(last.role, Role::User | Role::Tool) {
        return Err(invalid("the last message must be a user or tool message"));
    }
    Ok(())
}

fn check_message(message: &Message, message_idx: usize) -> Result<(), ProviderError> {
    let at = |what: &str| {
        invalid(format!(
            "messages[{message_idx}] ({}): {what}",
            message.role.as_str()
        ))
    };
    let has_tool_calls = message.tool_calls.as_ref().is_some_and(|calls| !calls.is_empty());
    if message.role != Role::Assistant && message.tool_calls.is_some() {
        return Err(at("tool_calls are only allowed on assistant messages"));
    }
    if message.role != Role::Tool && message.tool_call_id.is_some() {
        return Err(at("tool_call_id is only allowed on tool messages"));
    }
    match message.role {
        Role::System => match &message.content {
            Some(Content::Text(text)) if !text.is_empty() => Ok(()),
            _ => Err(at("content must be a non-empty string")),
        },
        Role::User => match &message.content {
            Some(Content::Text(text)) if !text.is_empty() => Ok(()),
            Some(Content::Blocks(blocks)) if !blocks.is_empty() => blocks
                .iter()
                .try_for_each(|block| check_user_block(block).map_err(|what| at(&what))),
            _ => Err(at(
                "content must be a non-empty string or a non-empty block sequence",
            )),
        },
        Role::Assistant => {
            if let Some(calls) = &message.tool_calls {
                let mut ids = HashSet::new();
                for call in calls {
                    if call.id.is_empty() || call.name.is_empty() {
                        return Err(at("a tool call needs a non-empty id and name"));
                    }
                    if !ids.insert(call.id.as_str()) {
                        return Err(at("tool call ids must be unique within the message"));
                    }
                    if !call.arguments.is_object() {
                        return Err(at("tool call arguments must be a mapping"));
                    }
                }
            }
            match &message.content {
                None if has_tool_calls => Ok(()),
                Some(Content::Text(text)) if has_tool_calls || !text.is_empty() => Ok(()),
                Some(Content::Blocks(blocks)) if has_tool_calls || !blocks.is_empty() => blocks
                    .iter()
                    .try_for_each(|block| check_assistant_block(block).map_err(|what| at(&what))),
                _ => Err(at("content must be non-empty unless the message calls tools")),
            }
        }
        Role::Tool => match (&message.content, &message.tool_call_id) {
            (Some(Content::Text(_)), Some(_)) => Ok(()),
            (_, None) => Err(at("tool_call_id is required")),
            _ => Err(at("content must be a string")),
        },
    }
}

fn check_user_block(block: &ContentBlock) -> Result<(), String> {
    match block {
        ContentBlock::Text { text, .. } if text.is_empty() => {
            Err("a text block needs non-empty text".to_owned())
        }
        ContentBlock::Text { .. } => Ok(()),
        ContentBlock::Image {
            source, media_type, ..
        } => match source {
            ImageSource::Url { url } if url.is_empty() => Err("an image URL must not be empty".to_owned()),
            ImageSource::Url { .. } => Ok(()),
            ImageSource::Inline { base64_data } => match media_type.as_deref() {
                _ if base64_data.is_empty() => Err("inline image data must not be empty".to_owned()),
                None => Err("an inline image needs a media_type".to_owned()),
                Some(media_type) if !SUPPORTED_MEDIA_TYPES.contains(&media_type) => {
                    Err(format!("unsupported inline image media_type {media_type:?}"))
                }
                Some(_) => Ok(()),
            },
        },
        ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => {
            Err("thinking blocks may only appear in assistant messages".to_owned())
        }
    }
}

fn check_assistant_block(block: &ContentBlock) -> Result<(), String> {
    match block {
        ContentBlock::Text { text, .. } | ContentBlock::Thinking { text, .. } if text.is_empty() => {
            Err("a text or thinking block needs non-empty text".to_owned())
        }
        ContentBlock::Image { .. } => Err("image blocks may only appear in user messages".to_owned()),
        _ => Ok(()),
    }
}

/// Checks tool names (§4) and `tool_choice` against them (§5 rules 1 and 2).
pub(crate) fn check_tools(tools: &[Tool], tool_choice: Option<&ToolChoice>) -> Result<(), ProviderError> {
    let mut names = HashSet::new();
    for tool in tools {
        if tool.name.is_empty() {
            return Err(invalid("a tool needs a non-empty name"));
        }
        if !names.insert(tool.name.as_str()) {
            return Err(invalid(format!("duplicate tool name {:?}", tool.name)));
        }
        if !tool.parameters.is_object() {
            return Err(invalid(format!(
                "tool {:?}: parameters must be a JSON Schema object",
                tool.name
            )));
        }
    }
    match tool_choice {
        Some(ToolChoice::Required) if tools.is_empty() => {
            Err(invalid("tool_choice \"required\" needs tools"))
        }
        Some(ToolChoice::Tool { name }) if !names.contains(name.as_str()) => Err(invalid(format!(
            "tool_choice names {name:?}, which is not among the call's tools"
        ))),
        _ => Ok(()),
    }
}

/// Rejects image blocks for a model whose static capabilities say it takes no images.
pub(crate) fn check_image_support(messages: &[Message], image_input: bool) -> Result<(), ProviderError> {
    if image_input {
        return Ok(());
    }
    let has_image = messages.iter().any(|message| {
        matches!(&message.content, Some(Content::Blocks(blocks))
            if blocks.iter().any(|block| matches!(block, ContentBlock::Image { .. })))
    });
    if has_image {
        return Err(ProviderError::new(
            Category::UnsupportedContentBlock,
            "the bound model does not accept image input",
        ));
    }
    Ok(())
}

fn invalid(message: impl Into<String>) -> ProviderError {
    ProviderError::invalid_request(message)
}
