//! §8.1.1 request mapping over a real socket: the body the provider sends for each input, byte stability
//! (fixture 054), and the §6 managed-field collision rules (fixtures 072-077, 081).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use oa_provider::json::{canonical_json, json_equal};
use oa_provider::{Category, CompletionRequest, Message, Provider, RuntimeConfig, Tool, ToolChoice};
use oa_testkit::openai::text_completion;
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};
use support::openai_at as provider_for;

fn request_from(call: &Value) -> CompletionRequest {
    let messages = call["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| Message::from_json(m).unwrap())
        .collect();
    let mut request = CompletionRequest::new(messages);
    if let Some(tools) = call.get("tools") {
        request.tools = serde_json::from_value::<Vec<Tool>>(tools.clone()).unwrap();
    }
    if let Some(tool_choice) = call.get("tool_choice") {
        request.tool_choice = Some(ToolChoice::from_json(tool_choice).unwrap());
    }
    if let Some(config) = call.get("config") {
        request.config = RuntimeConfig::from_json(config).unwrap();
    }
    request.stream = call.get("stream").and_then(Value::as_bool).unwrap_or(false);
    request
}

/// Sends `call` and returns the captured body bytes.
async fn sent_bytes(call: Value) -> Vec<u8> {
    let server = Server::start(vec![Reply::json(200, text_completion("ok"))]).unwrap();
    let provider = provider_for(&server);
    provider.complete(&request_from(&call)).await.unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    requests[0].body.clone()
}

/// Sends `call` and checks the body sent: the value expected, in its canonical bytes (keys sorted recursively, no
/// whitespace), however the mapping wrote it.
async fn check(call: Value, expected: Value) {
    let bytes = sent_bytes(call).await;
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(json_equal(&body, &expected), "sent {body}\nexpected {expected}");
    assert_eq!(canonical_json(&body).as_bytes(), bytes.as_slice());
}

async fn check_rejected(call: Value) {
    let server = Server::start(vec![]).unwrap();
    let error = provider_for(&server)
        .complete(&request_from(&call))
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest, "{error}");
    assert!(
        server.requests().is_empty(),
        "a rejected request reached the wire"
    );
}

#[tokio::test]
async fn simple_text_completion() {
    check(
        json!({"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}]}),
        json!({"model": "test-model", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}]}),
    )
    .await;
}

#[tokio::test]
async fn tool_calls_serialize_arguments_and_tools_map_to_functions() {
    check(
        json!({
            "messages": [
                {"role": "user", "content": "What's 2+2?"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "call_xyz", "name": "calculate", "arguments": {"expression": "2+2"}}]},
                {"role": "tool", "content": "4", "tool_call_id": "call_xyz"}
            ],
            "tools": [{"name": "calculate", "description": "Evaluate.", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}]
        }),
        json!({
            "model": "test-model",
            "messages": [
                {"role": "user", "content": "What's 2+2?"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "call_xyz", "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"2+2\"}"}}]},
                {"role": "tool", "content": "4", "tool_call_id": "call_xyz"}
            ],
            "tools": [{"type": "function", "function": {"name": "calculate", "description": "Evaluate.", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}]
        }),
    )
    .await;
}

#[tokio::test]
async fn declared_config_fields_map_and_stop_sequences_rename_and_extras_ride_at_root() {
    check(
        json!({
            "messages": [{"role": "user", "content": "hi"}],
            "config": {"temperature": 0.7, "max_tokens": 256, "top_p": 0.95, "seed": 42, "frequency_penalty": 0.3,
                       "presence_penalty": 0.4, "stop_sequences": ["END", "STOP"], "extras": {"repetition_penalty": 1.05}}
        }),
        json!({
            "model": "test-model", "messages": [{"role": "user", "content": "hi"}],
            "temperature": 0.7, "max_tokens": 256, "top_p": 0.95, "seed": 42, "frequency_penalty": 0.3,
            "presence_penalty": 0.4, "stop": ["END", "STOP"], "repetition_penalty": 1.05
        }),
    )
    .await;
}

#[tokio::test]
async fn tool_choice_modes_map_to_openai_forms() {
    let tools = json!([{"name": "search", "description": "Search.", "parameters": {"type": "object", "properties": {}}}]);
    let wire_tools = json!([{"type": "function", "function": {"name": "search", "description": "Search.", "parameters": {"type": "object", "properties": {}}}}]);
    for (choice, wire) in [
        (json!("auto"), json!("auto")),
        (json!("required"), json!("required")),
        (json!("none"), json!("none")),
        (
            json!({"type": "tool", "name": "search"}),
            json!({"type": "function", "function": {"name": "search"}}),
        ),
    ] {
        check(
            json!({"messages": [{"role": "user", "content": "go"}], "tools": tools, "tool_choice": choice}),
            json!({"model": "test-model", "messages": [{"role": "user", "content": "go"}], "tools": wire_tools, "tool_choice": wire}),
        )
        .await;
    }
}

#[tokio::test]
async fn content_blocks_map_to_openai_content_array_in_order() {
    check(
        json!({"messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "detail": "high"},
            {"type": "text", "text": "describe"},
            {"type": "image", "source": {"type": "inline", "base64_data": "QUJD"}, "media_type": "image/png"}
        ]}]}),
        json!({"model": "test-model", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "high"}},
            {"type": "text", "text": "describe"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}
        ]}]}),
    )
    .await;
}

#[tokio::test]
async fn thinking_blocks_are_stripped_on_send() {
    check(
        json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "thinking", "text": "hmm", "signature": "sig"}, {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "42."}]},
            {"role": "user", "content": "sure?"}
        ], "config": {"max_tokens": 64}}),
        json!({"model": "test-model", "max_tokens": 64, "messages": [
            {"role": "user", "content": "q"}, {"role": "assistant", "content": "42."}, {"role": "user", "content": "sure?"}
        ]}),
    )
    .await;
}

#[tokio::test]
async fn streaming_request_sets_stream_and_include_usage() {
    let server = Server::start(vec![Reply::sse(&[
        json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}),
        json!("[DONE]"),
    ])])
    .unwrap();
    let request = request_from(&json!({"messages": [{"role": "user", "content": "hi"}], "stream": true}));
    provider_for(&server).complete(&request).await.unwrap();
    let body = server.requests()[0].json().unwrap();
    let expected = json!({"model": "test-model", "messages": [{"role": "user", "content": "hi"}], "stream": true, "stream_options": {"include_usage": true}});
    assert!(json_equal(&body, &expected), "{body}");
}

#[tokio::test]
async fn identical_input_gives_identical_bytes_whatever_the_key_order() {
    // Fixture 054's rule: structurally equal input, byte-identical wire bodies; keys sorted recursively.
    let first = json!({
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "t", "description": "d", "parameters": {"type": "object", "required": ["b", "a"], "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}}],
        "config": {"temperature": 0.5, "extras": {"zeta": 1, "alpha": {"y": 2, "x": 1}}}
    });
    let second = json!({
        "config": {"extras": {"alpha": {"x": 1, "y": 2}, "zeta": 1}, "temperature": 0.5},
        "tools": [{"parameters": {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["b", "a"], "type": "object"}, "description": "d", "name": "t"}],
        "messages": [{"content": "hi", "role": "user"}]
    });
    let first_bytes = sent_bytes(first.clone()).await;
    assert_eq!(first_bytes, sent_bytes(first).await);
    assert_eq!(first_bytes, sent_bytes(second).await);
    let text = String::from_utf8(first_bytes).unwrap();
    assert!(
        text.starts_with("{\"alpha\":{\"x\":1,\"y\":2},\"messages\":"),
        "{text}"
    );
}

#[tokio::test]
async fn managed_structural_and_declared_collisions_are_rejected_before_sending() {
    let user = json!([{"role": "user", "content": "hi"}]);
    check_rejected(json!({"messages": user, "config": {"extras": {"model": "other-model"}}})).await;
    check_rejected(json!({"messages": user, "config": {"extras": {"messages": []}}})).await;
    check_rejected(json!({"messages": user, "config": {"temperature": 0.7, "extras": {"temperature": 0.2}}}))
        .await;
    check_rejected(json!({"messages": user, "stream": true, "config": {"extras": {"stream": false}}})).await;
    check_rejected(json!({"messages": user, "config": {"extras": {"stream": true}}})).await;
    check_rejected(json!({"messages": user, "stream": true, "config": {"extras": {"stream_options": {"include_usage": false}}}})).await;
}

#[tokio::test]
async fn matching_collisions_are_no_ops_and_unmanaged_keys_ride_untouched() {
    let user = json!([{"role": "user", "content": "hi"}]);
    check(
        json!({"messages": user, "config": {"temperature": 0.7, "extras": {"temperature": 0.7, "model": "test-model", "stream": false, "messages": user}}}),
        json!({"model": "test-model", "messages": user, "temperature": 0.7}),
    )
    .await;
    // Numeric equality: 1 and 1.0 are the same value.
    check(
        json!({"messages": user, "config": {"max_tokens": 1, "extras": {"max_tokens": 1.0}}}),
        json!({"model": "test-model", "messages": user, "max_tokens": 1}),
    )
    .await;
    // Not streaming: stream_options is unmanaged and rides; no schema: response_format rides.
    check(
        json!({"messages": user, "config": {"extras": {"stream_options": {"include_usage": false}, "response_format": {"type": "json_object"}}}}),
        json!({"model": "test-model", "messages": user, "stream_options": {"include_usage": false}, "response_format": {"type": "json_object"}}),
    )
    .await;
    // Without stop_sequences, an extras stop rides verbatim (the escape hatch).
    check(
        json!({"messages": user, "config": {"extras": {"stop": 5}}}),
        json!({"model": "test-model", "messages": user, "stop": 5}),
    )
    .await;
}

#[tokio::test]
async fn extras_stop_merges_with_declared_stop_sequences() {
    let user = json!([{"role": "user", "content": "hi"}]);
    for (extra, wire) in [
        (json!(["END"]), json!(["STOP", "END"])),
        (json!(["STOP"]), json!(["STOP"])),
        (json!("END"), json!(["STOP", "END"])),
        (json!(["END", 123]), json!(["STOP"])),
        (json!(5), json!(["STOP"])),
    ] {
        check(
            json!({"messages": user, "config": {"stop_sequences": ["STOP"], "extras": {"stop": extra}}}),
            json!({"model": "test-model", "messages": user, "stop": wire}),
        )
        .await;
    }
}
