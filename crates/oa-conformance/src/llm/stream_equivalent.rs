//! The non-streamed equivalent of a fixture's `stream_body`: the atomic Chat Completions body the
//! same model output would have produced, so "assembled equals non-streamed" is checked by running
//! the same call atomically against it (llm-provider §6 *Streaming assembly*, fixture 059).

use serde_json::{Map, Value, json};

/// Folds the SSE chunks into one atomic response body. Returns `None` when the chunks carry no choice.
pub(crate) fn atomic_body(chunks: &[Value]) -> Option<Value> {
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut refusal = String::new();
    let mut saw_content = false;
    let mut saw_refusal = false;
    let mut finish_reason = Value::Null;
    let mut usage = None;
    let mut tool_calls: Vec<(Value, String, String)> = Vec::new(); // (id, name, arguments) by index
    let mut head = None;
    for chunk in chunks.iter().filter(|c| c.is_object()) {
        head.get_or_insert(chunk);
        if let Some(found) = chunk.get("usage").filter(|u| !u.is_null()) {
            usage = Some(found.clone());
        }
        for choice in chunk
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let delta = &choice["delta"];
            if let Some(text) = delta["content"].as_str() {
                content.push_str(text);
                saw_content = true;
            }
            if let Some(text) = delta["reasoning_content"]
                .as_str()
                .or_else(|| delta["reasoning"].as_str())
            {
                reasoning.push_str(text);
            }
            if let Some(text) = delta["refusal"].as_str() {
                refusal.push_str(text);
                saw_refusal |= !text.is_empty();
            }
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let idx = call["index"]
                    .as_u64()
                    .and_then(|i| usize::try_from(i).ok())
                    .unwrap_or(0);
                if tool_calls.len() <= idx {
                    tool_calls.resize(idx + 1, (Value::Null, String::new(), String::new()));
                }
                let slot = &mut tool_calls[idx];
                if slot.0.is_null() && !call["id"].is_null() {
                    slot.0 = call["id"].clone();
                }
                if let Some(name) = call["function"]["name"].as_str() {
                    slot.1.push_str(name);
                }
                if let Some(arguments) = call["function"]["arguments"].as_str() {
                    slot.2.push_str(arguments);
                }
            }
            if !choice["finish_reason"].is_null() {
                finish_reason = choice["finish_reason"].clone();
            }
        }
    }
    let head = head?;
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        if saw_content { json!(content) } else { Value::Null },
    );
    if !reasoning.is_empty() {
        message.insert("reasoning_content".into(), json!(reasoning));
    }
    if saw_refusal {
        message.insert("refusal".into(), json!(refusal));
    }
    if !tool_calls.is_empty() {
        let calls: Vec<Value> = tool_calls
            .into_iter()
            .map(|(id, name, arguments)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}))
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    let mut body = json!({
        "id": head["id"],
        "object": "chat.completion",
        "model": head["model"],
        "choices": [{"index": 0, "message": Value::Object(message), "finish_reason": finish_reason}],
    });
    if let (Some(usage), Value::Object(map)) = (usage, &mut body) {
        map.insert("usage".into(), usage);
    }
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_content_tool_calls_reasoning_and_usage() {
        let chunks = vec![
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "hm"}, "finish_reason": null}]}),
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": null}]}),
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "t", "function": {"name": "f", "arguments": "{\"x\""}}]}, "finish_reason": null}]}),
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ":1}"}}]}, "finish_reason": "tool_calls"}]}),
            json!({"id": "c", "model": "m", "choices": [], "usage": {"prompt_tokens": 1}}),
            json!("[DONE]"),
        ];
        let body = atomic_body(&chunks).unwrap();
        let message = &body["choices"][0]["message"];
        assert_eq!(message["content"], "a");
        assert_eq!(message["reasoning_content"], "hm");
        assert_eq!(message["tool_calls"][0]["function"]["arguments"], "{\"x\":1}");
        assert_eq!(message["tool_calls"][0]["id"], "t");
        assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(body["usage"]["prompt_tokens"], 1);
        assert!(atomic_body(&[json!("[DONE]")]).is_none());
    }
}
