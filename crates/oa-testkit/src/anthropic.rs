//! Canned Anthropic Messages bodies (llm-provider §8.2).

use serde_json::{Value, json};

use crate::Reply;

/// A `message` body with this content array and stop reason, model `claude-test`, and usage 5 + 2 input/output
/// tokens (no total: the mapping derives it).
///
/// ```
/// let body = oa_testkit::anthropic::message(serde_json::json!([{"type": "text", "text": "hi"}]), "end_turn");
/// assert_eq!(body["content"][0]["text"], "hi");
/// assert!(body["usage"].get("total_tokens").is_none());
/// ```
pub fn message(content: Value, stop_reason: &str) -> Value {
    json!({
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {"input_tokens": 5, "output_tokens": 2},
    })
}

/// A 200 reply whose content is one text block `text`, with `stop_reason`.
///
/// ```
/// assert!(matches!(oa_testkit::anthropic::text_reply("hi", "end_turn"), oa_testkit::Reply::Raw { status: 200, .. }));
/// ```
pub fn text_reply(text: &str, stop_reason: &str) -> Reply {
    Reply::json(200, message(json!([{"type": "text", "text": text}]), stop_reason))
}

/// A 200 reply whose content is one `tool_use` block calling `name` with `input`, stopping with `tool_use`.
///
/// ```
/// let reply = oa_testkit::anthropic::tool_use_reply("structured_output", serde_json::json!({"a": 1}));
/// assert!(matches!(reply, oa_testkit::Reply::Raw { status: 200, .. }));
/// ```
pub fn tool_use_reply(name: &str, input: Value) -> Reply {
    Reply::json(
        200,
        message(
            json!([{"type": "tool_use", "id": "toolu_test", "name": name, "input": input}]),
            "tool_use",
        ),
    )
}

/// An Anthropic error reply: `{"type": "error", "error": {"type": kind, "message": message}}`.
///
/// ```
/// assert!(matches!(oa_testkit::anthropic::error_reply(429, "rate_limit_error", "slow"), oa_testkit::Reply::Raw { status: 429, .. }));
/// ```
pub fn error_reply(status: u16, kind: &str, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_test"}),
    )
}
