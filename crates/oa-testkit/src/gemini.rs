//! Canned Gemini `generateContent` bodies (llm-provider §8.3).

use serde_json::{Value, json};

use crate::Reply;

/// A response body with one candidate of these parts and finish reason, and usage 5 + 2 = 7 tokens.
///
/// ```
/// let body = oa_testkit::gemini::response(serde_json::json!([{"text": "hi"}]), "STOP");
/// assert_eq!(body["candidates"][0]["content"]["parts"][0]["text"], "hi");
/// ```
pub fn response(parts: Value, finish_reason: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish_reason, "index": 0}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7},
        "modelVersion": "gemini-test-001",
        "responseId": "resp-test",
    })
}

/// A 200 reply whose one part is the text `text`, with `finish_reason`.
///
/// ```
/// assert!(matches!(oa_testkit::gemini::text_reply("hi", "STOP"), oa_testkit::Reply::Raw { status: 200, .. }));
/// ```
pub fn text_reply(text: &str, finish_reason: &str) -> Reply {
    Reply::json(200, response(json!([{"text": text}]), finish_reason))
}

/// A Gemini error reply: `{"error": {"code": status, "message": message, "status": code}}`.
///
/// ```
/// assert!(matches!(oa_testkit::gemini::error_reply(429, "RESOURCE_EXHAUSTED", "slow"), oa_testkit::Reply::Raw { status: 429, .. }));
/// ```
pub fn error_reply(status: u16, code: &str, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"error": {"code": status, "message": message, "status": code}}),
    )
}
