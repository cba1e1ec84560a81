//! The §3 message shape: roles, content (text or content blocks), tool calls.
//!
//! The types serialize to, and deserialize from, the spec's JSON shape, so fixtures and callers can build them
//! from JSON with [`Message::from_json`]. Shape rules that span fields or messages are checked at the
//! `complete()` boundary (see `validate`), not here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ProviderError;

/// Media types an inline image may declare (§3.1.2 requires the first three; OpenAI also accepts GIF); `complete()`
/// refuses another before sending.
pub const SUPPORTED_MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// Who speaks a message (§3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions; only first in the list.
    System,
    /// The caller's turn.
    User,
    /// The model's turn (text, tool calls, reasoning blocks).
    Assistant,
    /// A tool's result, answering an earlier assistant tool call.
    Tool,
}

impl Role {
    /// The spec's (and OpenAI's) role string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }
}

/// A message's content: a plain string, or an ordered, non-empty sequence of blocks (§3.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Text-only content.
    Text(String),
    /// Content blocks in the order the model should perceive them.
    Blocks(Vec<ContentBlock>),
}

impl Content {
    /// The content a mapping reports for a response's blocks, in order: none for no block, the text itself for a
    /// single text block without a signature (as a plain-text answer reads on every mapping), the blocks otherwise.
    pub(crate) fn from_blocks(mut blocks: Vec<ContentBlock>) -> Option<Self> {
        match blocks.as_slice() {
            [] => None,
            [ContentBlock::Text { signature: None, .. }] => match blocks.pop() {
                Some(ContentBlock::Text { text, .. }) => Some(Self::Text(text)),
                _ => None,
            },
            _ => Some(Self::Blocks(blocks)),
        }
    }

    /// The text blocks of `blocks` joined, in order (thinking and other blocks are not text).
    pub(crate) fn text_of(blocks: &[ContentBlock]) -> String {
        blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A typed content block (§3.1), discriminated by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// A text block (§3.1.1).
    Text {
        /// Non-empty text.
        text: String,
        /// Provider-bound reasoning-continuity token; never constructed by callers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// An image block (§3.1.2), user messages only.
    Image {
        /// Where the image comes from.
        source: ImageSource,
        /// Required for inline sources (`image/png`, `image/jpeg`, `image/webp` at least).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
        /// Fidelity hint; providers that ignore it do so silently.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<ImageDetail>,
    },
    /// Provider-emitted reasoning (§3.1.4), assistant messages only.
    Thinking {
        /// The reasoning text.
        text: String,
        /// Provider-bound verification token.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Redacted reasoning (§3.1.5), assistant messages only.
    RedactedThinking {
        /// Opaque provider blob, passed through unchanged.
        data: String,
    },
}

impl ContentBlock {
    /// A text block with no signature.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            signature: None,
        }
    }
}

/// An image's source (§3.1.3): exactly one of a URL or inline base64 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    /// Referenced by URL (`http(s)`, `data:` or another scheme the provider accepts), passed through unchanged.
    Url {
        /// The URL, verbatim.
        url: String,
    },
    /// Inline base64 bytes, never inspected or re-encoded.
    Inline {
        /// The base64 text.
        base64_data: String,
    },
}

/// The image fidelity hint (§3.1.2); the spec closes the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageDetail {
    /// Provider decides.
    Auto,
    /// Cheaper, coarser.
    Low,
    /// Finer, costlier.
    High,
}

impl ImageDetail {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Low => "low",
            Self::High => "high",
        }
    }
}

/// A tool call the model asked for (§3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id, preserved verbatim.
    pub id: String,
    /// The tool's name; declared in the call's tools unless the finish reason is `error`.
    pub name: String,
    /// The parsed arguments; `null` only under `finish_reason: "error"` when the bytes did not parse.
    #[serde(default)]
    pub arguments: Value,
    /// Provider-bound reasoning-continuity token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// One message of a conversation (§3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The discriminator.
    pub role: Role,
    /// Text or blocks; `None` is allowed only on an assistant message that calls tools.
    #[serde(default)]
    pub content: Option<Content>,
    /// Tool calls, assistant messages only; `None` when there are none.
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The assistant tool call this tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Self::with_text(Role::System, text)
    }

    /// A user message with text content.
    pub fn user(text: impl Into<String>) -> Self {
        Self::with_text(Role::User, text)
    }

    /// A user message with content blocks.
    pub fn user_blocks(blocks: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::User,
            content: Some(Content::Blocks(blocks)),
            tool_calls: None,
            tool_call_id: None,
        }
    }

    /// An assistant message with text content.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::with_text(Role::Assistant, text)
    }

    /// A tool result answering the assistant tool call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            content: Some(Content::Text(text.into())),
            tool_calls: None,
            tool_call_id: Some(tool_call_id.into()),
        }
    }

    /// An assistant reply as a mapping reads one: its content, and its tool calls (`None` when there are none).
    pub(crate) fn reply(content: Option<Content>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            role: Role::Assistant,
            content,
            tool_calls: if tool_calls.is_empty() {
                None
            } else {
                Some(tool_calls)
            },
            tool_call_id: None,
        }
    }

    fn with_text(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(Content::Text(text.into())),
            tool_calls: None,
            tool_call_id: None,
        }
    }

    /// Reads a message from the spec's JSON shape.
    ///
    /// # Errors
    ///
    /// `provider_invalid_request` when the JSON is not a message (unknown role or block type, an image without
    /// a source, a detail outside `auto`/`low`/`high`, ...).
    pub fn from_json(value: &Value) -> Result<Self, ProviderError> {
        Self::deserialize(value)
            .map_err(|error| ProviderError::invalid_request(format!("malformed message: {error}")))
    }

    /// The text of the content: the string, or the text blocks concatenated; `None` without content.
    pub fn text(&self) -> Option<String> {
        match self.content.as_ref()? {
            Content::Text(text) => Some(text.clone()),
            Content::Blocks(blocks) => Some(Content::text_of(blocks)),
        }
    }
}
