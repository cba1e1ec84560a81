//! The tool-coercion path (§8.2.5.1): for a route without native structured output and a call without tools of
//! its own, the schema goes as the input schema of one synthetic tool that `tool_choice` forces, and the answer
//! is read back from that tool call's input. Vendor-neutral: the wire format only encodes tools and tool choice
//! as it always does; which mapping takes this path is the wire format's `fallback_path`.

use serde_json::Value;

use crate::call::wire::Mapped;
use crate::canonical;
use crate::model::ProviderError;
use crate::model::{Content, ContentBlock, FinishReason, Tool, ToolChoice};

/// The synthetic tool's name. It never meets a caller's tool: coercion is taken only when the call has none.
pub(crate) const SYNTHETIC_TOOL_NAME: &str = "structured_output";

/// The synthetic tool's description: it only states what the schema already demands.
const SYNTHETIC_TOOL_DESCRIPTION: &str =
    "Give your answer as this tool's input. The input schema is the required format of the answer.";

/// The one tool a coerced request carries: `parameters` is the response_schema.
pub(crate) fn synthetic_tool(schema: &Value) -> Tool {
    Tool::new(SYNTHETIC_TOOL_NAME, SYNTHETIC_TOOL_DESCRIPTION, schema.clone())
}

/// The `tool_choice` that forces the synthetic tool.
pub(crate) fn forced_choice() -> ToolChoice {
    ToolChoice::Tool {
        name: SYNTHETIC_TOOL_NAME.to_owned(),
    }
}

/// Reads a coerced response as structured content: the single tool call's input becomes the message's text (as
/// canonical JSON), the call itself is dropped (it was oa's, not the caller's), reasoning blocks stay, and a
/// `tool_calls` finish reads as `stop` (the model answered through the forced tool). Its name is not checked:
/// `tool_choice` forced the only tool there was. Without a tool call the text content stays, so a refusal or a
/// model that ignored the forced tool is validated, and fails, as what it said; `length` and `content_filter` are
/// kept as they came, never coerced.
///
/// # Errors
///
/// `provider_invalid_response` when more than one tool call came back: which one holds the answer is unknowable.
pub(crate) fn read_back(mapped: Mapped) -> Result<Mapped, ProviderError> {
    let Mapped {
        mut message,
        finish_reason,
        usage,
        model,
        response_id,
        blocked,
    } = mapped;
    let mut calls = message.tool_calls.take().unwrap_or_default();
    if calls.len() > 1 {
        return Err(ProviderError::invalid_response(format!(
            "tool coercion expects one call of the synthetic tool, got {}",
            calls.len()
        )));
    }
    if let Some(call) = calls.pop() {
        let answer = canonical::to_string(&call.arguments);
        let mut blocks: Vec<ContentBlock> = match message.content.take() {
            Some(Content::Blocks(blocks)) => blocks
                .into_iter()
                .filter(|block| !matches!(block, ContentBlock::Text { .. }))
                .collect(),
            _ => Vec::new(),
        };
        message.content = Some(if blocks.is_empty() {
            Content::Text(answer)
        } else {
            blocks.push(ContentBlock::text(answer));
            Content::Blocks(blocks)
        });
    }
    let finish_reason = match finish_reason {
        FinishReason::ToolCalls => FinishReason::Stop,
        other => other,
    };
    Ok(Mapped {
        message,
        finish_reason,
        usage,
        model,
        response_id,
        blocked,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{Message, Role, ToolCall, Usage};

    fn mapped(content: Option<Content>, calls: Vec<ToolCall>, finish_reason: FinishReason) -> Mapped {
        Mapped {
            message: Message {
                role: Role::Assistant,
                content,
                tool_calls: Some(calls),
                tool_call_id: None,
            },
            finish_reason,
            usage: Usage::default(),
            model: None,
            response_id: None,
            blocked: None,
        }
    }

    fn call(arguments: Value) -> ToolCall {
        ToolCall {
            id: "toolu_1".to_owned(),
            name: "*".to_owned(),
            arguments,
            signature: None,
        }
    }

    #[test]
    fn the_one_call_becomes_the_content_and_the_finish_is_stop() {
        let thinking = ContentBlock::Thinking {
            text: "hm".to_owned(),
            signature: Some("s".to_owned()),
        };
        let content = Content::Blocks(vec![thinking.clone(), ContentBlock::text("Here:")]);
        let read = read_back(mapped(
            Some(content),
            vec![call(json!({"b": 1, "a": [true]}))],
            FinishReason::ToolCalls,
        ))
        .unwrap();
        assert_eq!(read.finish_reason, FinishReason::Stop);
        assert_eq!(read.message.tool_calls, None);
        assert_eq!(
            read.message.content,
            Some(Content::Blocks(vec![
                thinking,
                ContentBlock::text(r#"{"a":[true],"b":1}"#)
            ]))
        );
    }

    #[test]
    fn without_a_call_the_text_stays_and_refusal_or_length_are_kept() {
        for finish in [FinishReason::ContentFilter, FinishReason::Length] {
            let read = read_back(mapped(Some(Content::Text("I can't.".to_owned())), vec![], finish)).unwrap();
            assert_eq!(read.finish_reason, finish);
            assert_eq!(read.message.text().as_deref(), Some("I can't."));
        }
    }

    #[test]
    fn two_calls_are_an_invalid_response() {
        let error = read_back(mapped(
            None,
            vec![call(json!({})), call(json!({}))],
            FinishReason::ToolCalls,
        ))
        .unwrap_err();
        assert!(error.is_invalid_response());
    }

    #[test]
    fn the_synthetic_tool_carries_the_schema_and_is_forced() {
        let schema = json!({"type": "object"});
        let tool = synthetic_tool(&schema);
        assert_eq!(tool.parameters, schema);
        assert!(!tool.description.is_empty());
        assert_eq!(
            forced_choice(),
            ToolChoice::Tool {
                name: tool.name.clone()
            }
        );
    }
}
