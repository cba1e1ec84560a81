//! Canned OpenAI Chat Completions bodies, the shape most tests script.

use serde_json::{Value, json};

use crate::Reply;

/// A `chat.completion` body with this assistant message and finish reason, model `test-model`, and usage 5 + 2 = 7
/// tokens.
///
/// ```
/// let body = oa_testkit::openai::completion(serde_json::json!({"role": "assistant", "content": "hi"}), "stop");
/// assert_eq!(body["choices"][0]["message"]["content"], "hi");
/// assert_eq!(body["usage"]["total_tokens"], 7);
/// ```
pub fn completion(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "cc-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    })
}

/// A [`completion`] whose assistant message content is `text`, finishing with `stop`.
///
/// ```
/// assert_eq!(oa_testkit::openai::text_completion("hi")["choices"][0]["finish_reason"], "stop");
/// ```
pub fn text_completion(text: &str) -> Value {
    completion(json!({"role": "assistant", "content": text}), "stop")
}

/// A 200 reply whose assistant message content is `text`, finishing with `finish_reason`.
///
/// ```
/// let reply = oa_testkit::openai::text_reply("hi", "length");
/// assert!(matches!(reply, oa_testkit::Reply::Raw { status: 200, .. }));
/// ```
pub fn text_reply(text: &str, finish_reason: &str) -> Reply {
    Reply::json(
        200,
        completion(json!({"role": "assistant", "content": text}), finish_reason),
    )
}

/// A streamed answer whose content arrives as these deltas: one `chat.completion.chunk` event per delta (the first
/// with the assistant role), then a `stop` chunk, a usage chunk and `[DONE]`, each event a piece of its own written
/// after `pause` (so a client that hangs up mid-stream is seen: [`Server::stream_ends`](crate::Server::stream_ends)).
///
/// ```
/// use oa_testkit::Reply;
///
/// let reply = oa_testkit::openai::content_stream(&["{\"a\"", ": 1}"], std::time::Duration::ZERO);
/// let Reply::Stream { pieces, .. } = reply else { panic!("a stream") };
/// assert_eq!(pieces.len(), 5);
/// assert!(String::from_utf8_lossy(&pieces[1]).contains(r#""content":": 1}""#));
/// ```
pub fn content_stream(deltas: &[&str], pause: std::time::Duration) -> Reply {
    let chunk = |delta: Value, finish_reason: Value| {
        json!({"id": "cc-stream", "object": "chat.completion.chunk", "model": "test-model",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
    };
    let mut events: Vec<Value> = deltas
        .iter()
        .enumerate()
        .map(|(at, text)| {
            let delta = if at == 0 {
                json!({"role": "assistant", "content": text})
            } else {
                json!({"content": text})
            };
            chunk(delta, Value::Null)
        })
        .collect();
    events.push(chunk(json!({}), json!("stop")));
    events.push(json!({"id": "cc-stream", "object": "chat.completion.chunk", "model": "test-model", "choices": [],
                       "usage": {"prompt_tokens": 5, "completion_tokens": deltas.len(), "total_tokens": 5 + deltas.len()}}));
    events.push(json!("[DONE]"));
    Reply::Stream {
        pieces: events
            .iter()
            .map(|event| crate::sse_bytes(std::slice::from_ref(event)))
            .collect(),
        pause,
    }
}
