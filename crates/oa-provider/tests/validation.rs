//! Pre-send validation (§3, §4, §5): nothing shape-invalid reaches the wire; each case is
//! `provider_invalid_request` (or `provider_unsupported_content_block` for a statically known image limit).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use oa_provider::{Capabilities, Category, CompletionRequest, Message, Provider, Tool, ToolChoice};
use oa_testkit::Server;
use serde_json::{Value, json};

/// Builds the request from JSON (a malformed message is itself the rejection) and sends it to a server with no
/// replies; returns the category and asserts nothing was sent.
async fn rejection(
    messages: Value,
    tools: Value,
    tool_choice: Option<Value>,
    capabilities: Capabilities,
) -> Category {
    let messages: Result<Vec<Message>, _> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(Message::from_json)
        .collect();
    let messages = match messages {
        Ok(messages) => messages,
        Err(error) => return error.category(),
    };
    let mut request =
        CompletionRequest::new(messages).with_tools(serde_json::from_value::<Vec<Tool>>(tools).unwrap());
    if let Some(tool_choice) = tool_choice {
        request = request.with_tool_choice(ToolChoice::from_json(&tool_choice).unwrap());
    }
    let server = Server::start(vec![]).unwrap();
    let provider = support::openai_builder(&server, "m")
        .capabilities(capabilities)
        .build()
        .unwrap();
    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        server.requests().is_empty(),
        "a rejected request reached the wire: {error}"
    );
    error.category()
}

async fn check_messages(messages: Value) {
    assert_eq!(
        rejection(messages.clone(), json!([]), None, Capabilities::default()).await,
        Category::InvalidRequest,
        "{messages}"
    );
}

#[tokio::test]
async fn message_shape_violations_are_invalid_request() {
    let cases = [
        json!([]),
        json!([{"role": "user", "content": "First"}, {"role": "system", "content": "Late"}]),
        json!([{"role": "user", "content": "Run"}, {"role": "tool", "content": "r", "tool_call_id": "nonexistent"}]),
        json!([{"role": "user", "content": ""}]),
        json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": null}, {"role": "user", "content": "q"}]),
        json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]),
        json!([{"role": "assistant", "content": "a"}, {"role": "user", "content": "q"}]),
        json!([{"role": "system", "content": ""}, {"role": "user", "content": "q"}]),
        json!([{"role": "user", "content": "q", "tool_call_id": "x"}]),
        json!([{"role": "user", "content": []}]),
        json!([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
        json!([{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "d"}]}]),
        json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/a.png"}, "detail": "ultra"}]}]),
        json!([{"role": "user", "content": [{"type": "image", "source": {"type": "inline", "base64_data": "ABC="}}]}]),
        json!([{"role": "user", "content": [{"type": "image", "source": {"type": "inline", "base64_data": "ABC="}, "media_type": "application/pdf"}]}]),
        json!([{"role": "user", "content": [{"type": "thinking", "text": "no"}]}]),
        json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]}, {"role": "user", "content": "q"}]),
        json!([{"role": "wizard", "content": "q"}]),
    ];
    for messages in cases {
        check_messages(messages).await;
    }
}

#[tokio::test]
async fn tool_and_tool_choice_violations_are_invalid_request() {
    let user = json!([{"role": "user", "content": "Hi"}]);
    let tool = |name: &str| json!({"name": name, "description": "d", "parameters": {"type": "object", "properties": {}}});
    let cases = [
        (json!([tool("dup"), tool("dup")]), None),
        (json!([]), Some(json!("required"))),
        (json!([]), Some(json!({"type": "tool", "name": "search"}))),
        (
            json!([tool("summarize")]),
            Some(json!({"type": "tool", "name": "search"})),
        ),
        (
            json!([{"name": "t", "description": "d", "parameters": "not a schema"}]),
            None,
        ),
    ];
    for (tools, tool_choice) in cases {
        assert_eq!(
            rejection(user.clone(), tools.clone(), tool_choice, Capabilities::default()).await,
            Category::InvalidRequest,
            "{tools}"
        );
    }
    for malformed in [
        json!("sometimes"),
        json!({"type": "function", "name": "x"}),
        json!(3),
    ] {
        assert_eq!(
            ToolChoice::from_json(&malformed).unwrap_err().category(),
            Category::InvalidRequest
        );
    }
}

#[tokio::test]
async fn images_for_a_text_only_model_are_refused_before_sending() {
    let messages = json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}, {"type": "text", "text": "describe"}]}]);
    let text_only = Capabilities {
        image_input: false,
        ..Default::default()
    };
    assert_eq!(
        rejection(messages, json!([]), None, text_only).await,
        Category::UnsupportedContentBlock
    );
}

#[test]
fn valid_shapes_pass_message_json_round_trip() {
    let message = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c", "name": "n", "arguments": {"a": 1}}]});
    let parsed = Message::from_json(&message).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), message);
    let config = json!({"temperature": 0.5, "extras": {"x": [1]}});
    let parsed = oa_provider::RuntimeConfig::from_json(&config).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), config);
    assert!(
        oa_provider::RuntimeConfig::from_json(&json!({"repetition_penalty": 1.0})).is_err(),
        "undeclared keys belong in extras"
    );
}

/// Proposal 0122: extras are a container, so a declared field and a same-named extras key are two values,
/// addressed separately, each kept through a round trip and a per-attempt merge (which of them reaches the wire is
/// the mapping's managed-field rule, tested in `wire.rs`).
#[test]
fn a_declared_field_and_a_same_named_extras_key_are_addressed_separately() {
    let config = json!({"temperature": 0.5, "extras": {"temperature": 0.9, "top_k": 40}});
    let parsed = oa_provider::RuntimeConfig::from_json(&config).unwrap();
    assert_eq!(parsed.temperature, Some(0.5));
    assert_eq!(parsed.extras["temperature"], json!(0.9));
    assert_eq!(serde_json::to_value(&parsed).unwrap(), config);
    let override_ = oa_provider::RuntimeConfig::from_json(&json!({"extras": {"temperature": 0.1}})).unwrap();
    let merged = parsed.merged_with(&override_);
    assert_eq!(
        merged.temperature,
        Some(0.5),
        "an extras key never reaches the declared field"
    );
    assert_eq!(merged.extras["temperature"], json!(0.1));
    let declared = oa_provider::RuntimeConfig::from_json(&json!({"temperature": 0.2})).unwrap();
    let merged = parsed.merged_with(&declared);
    assert_eq!(merged.temperature, Some(0.2));
    assert_eq!(
        merged.extras["temperature"],
        json!(0.9),
        "nor the declared field the extras key"
    );
}
