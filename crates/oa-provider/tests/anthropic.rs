//! The §8.2 Anthropic Messages mapping over a real socket: the request as sent (path, headers, body), the
//! pre-send refusals, the response mapping, errors, and structured output on its three paths (native
//! `output_config.format`, tool coercion, prompt augmentation) with 0126's inherent non-conformance cases
//! surfaced, never coerced.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_provider::model::{ContentBlock, FailureClass};
use oa_provider::{
    AnthropicProvider, ApiKey, Category, Content, FinishReason, Message, Provider, Reask, RuntimeConfig,
    SchemaMode, StructuredOutputPath, Tool, ToolCall, ToolChoice,
};
use oa_provider::{CompletionRequest, Mapping};
use oa_testkit::anthropic::{error_reply, message, text_reply, tool_use_reply};
use oa_testkit::{Reply, Server};
use serde_json::json;
use support::value_schema;

fn provider(server: &Server, native: bool) -> AnthropicProvider {
    AnthropicProvider::builder("claude-test")
        .base_url(server.base_url())
        .api_key(ApiKey::new("sk-ant-test-key"))
        .capabilities(support::native(native))
        .build()
        .unwrap()
}

fn budget(max_tokens: u64) -> RuntimeConfig {
    RuntimeConfig {
        max_tokens: Some(max_tokens),
        ..RuntimeConfig::default()
    }
}

fn ask(text: &str) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user(text)]).with_config(budget(64))
}

/// One attempt's mapping, path, schema_mode and diagnostic count.
type Seen = (Mapping, Option<StructuredOutputPath>, Option<SchemaMode>, usize);

/// Every attempt, as seen.
type Records = support::Recorded<Seen>;

fn recorded(request: CompletionRequest) -> (CompletionRequest, Arc<Records>) {
    let records = Arc::new(Records::new(|record| {
        (
            record.mapping,
            record.structured_output_path,
            record.schema_mode,
            record.diagnostics.len(),
        )
    }));
    (request.with_hook(records.clone()), records)
}

#[tokio::test]
async fn the_request_goes_to_messages_with_the_key_in_x_api_key_and_the_spec_shape() {
    let server = Server::start(vec![text_reply("It's sunny.", "end_turn")]).unwrap();
    let mut assistant = Message::assistant("");
    assistant.content = None;
    assistant.tool_calls = Some(vec![ToolCall {
        id: "toolu_1".into(),
        name: "get_weather".into(),
        arguments: json!({"location": "SF"}),
        signature: Some("gemini-signature".into()),
    }]);
    let request = CompletionRequest::new(vec![
        Message::system("Be brief."),
        Message::user("Weather in SF?"),
        assistant,
        Message::tool("toolu_1", "72F"),
    ])
    .with_tools(vec![Tool::new(
        "get_weather",
        "Weather.",
        json!({"type": "object", "properties": {"location": {"type": "string"}}}),
    )])
    .with_tool_choice(ToolChoice::Required)
    .with_config(RuntimeConfig {
        temperature: Some(0.5),
        stop_sequences: Some(vec!["END".into()]),
        ..budget(128)
    });
    let response = provider(&server, true).complete(&request).await.unwrap();
    assert_eq!(
        response.message.content,
        Some(Content::Text("It's sunny.".into()))
    );
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.usage.total_tokens, Some(7), "derived: 5 + 2");
    assert_eq!(response.model.as_deref(), Some("claude-test"));
    let sent = &server.requests()[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some("sk-ant-test-key"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.json().unwrap(),
        json!({
            "model": "claude-test",
            "max_tokens": 128,
            "temperature": 0.5,
            "stop_sequences": ["END"],
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "Weather in SF?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "SF"}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "72F"}]}
            ],
            "tools": [{"name": "get_weather", "description": "Weather.",
                       "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}}}],
            "tool_choice": {"type": "any"}
        })
    );
}

#[tokio::test]
async fn refused_before_sending_without_max_tokens_with_seed_or_when_streaming() {
    let server = Server::start(Vec::<Reply>::new()).unwrap();
    let provider = provider(&server, true);
    let bare = CompletionRequest::new(vec![Message::user("hi")]);
    let error = provider.complete(&bare).await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest);
    assert!(error.message().contains("max_tokens"), "{}", error.message());
    let seeded = ask("hi").with_config(RuntimeConfig {
        seed: Some(7),
        ..budget(64)
    });
    let error = provider.complete(&seeded).await.unwrap_err();
    assert!(error.message().contains("seed"), "{}", error.message());
    let streamed = ask("hi").with_stream(true);
    let error = provider.complete(&streamed).await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest);
    assert!(
        error
            .message()
            .contains("anthropic mapping does not support streaming"),
        "{}",
        error.message()
    );
    assert_eq!(server.n_requests(), 0);
}

#[tokio::test]
async fn thinking_blocks_come_back_as_blocks_and_go_out_verbatim() {
    let content = json!([
        {"type": "thinking", "thinking": "Let me see.", "signature": "sig-a"},
        {"type": "redacted_thinking", "data": "blob"},
        {"type": "text", "text": "42."}
    ]);
    let server = Server::start(vec![
        Reply::json(200, message(content.clone(), "end_turn")),
        text_reply("Yes.", "end_turn"),
    ])
    .unwrap();
    let provider = provider(&server, true);
    let first = provider.complete(&ask("Answer?")).await.unwrap();
    let blocks = match &first.message.content {
        Some(Content::Blocks(blocks)) => blocks.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        blocks[0],
        ContentBlock::Thinking {
            text: "Let me see.".into(),
            signature: Some("sig-a".into())
        }
    );
    let mut history = vec![Message::user("Answer?"), first.message.clone()];
    history.push(Message::user("Sure?"));
    provider
        .complete(&CompletionRequest::new(history).with_config(budget(64)))
        .await
        .unwrap();
    let sent = server.requests()[1].json().unwrap();
    assert_eq!(sent["messages"][1]["content"], content);
}

#[tokio::test]
async fn statuses_map_to_categories_with_retry_after_on_a_429() {
    let cases = [
        (
            error_reply(401, "authentication_error", "bad key"),
            Category::Authentication,
        ),
        (error_reply(402, "billing_error", "pay"), Category::Authentication),
        (
            error_reply(404, "not_found_error", "model: claude-x"),
            Category::InvalidModel,
        ),
        (
            error_reply(413, "request_too_large", "big"),
            Category::InvalidRequest,
        ),
        (
            error_reply(529, "overloaded_error", "busy"),
            Category::Unavailable,
        ),
        (
            error_reply(400, "invalid_request_error", "image media type not supported"),
            Category::UnsupportedContentBlock,
        ),
        (
            error_reply(400, "invalid_request_error", "bad field"),
            Category::InvalidRequest,
        ),
    ];
    support::assert_categories(cases, |server| provider(server, true), &ask("x")).await;
    let limited = Reply::json_with_header(
        429,
        "Retry-After",
        "2",
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
    );
    let server = Server::start(vec![limited]).unwrap();
    let error = provider(&server, true).complete(&ask("x")).await.unwrap_err();
    assert_eq!(error.category(), Category::RateLimit);
    assert_eq!(error.retry_after(), Some(Duration::from_secs(2)));
    assert_eq!(error.vendor_code(), Some("rate_limit_error"));
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_that_wait() {
    let limited = Reply::json_with_header(
        429,
        "Retry-After",
        "0.03",
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
    );
    let server = Server::start(vec![limited, text_reply("ok", "end_turn")]).unwrap();
    let waits = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&waits);
    let retry = support::no_wait(2)
        .with_on_retry(move |_, error, wait| seen.lock().unwrap().push((error.category(), wait)));
    let response = provider(&server, true)
        .complete(&ask("x").with_retry(retry))
        .await
        .unwrap();
    assert_eq!(response.message.text().as_deref(), Some("ok"));
    assert_eq!(
        *waits.lock().unwrap(),
        [(Category::RateLimit, Duration::from_millis(30))]
    );
    assert_eq!(server.n_requests(), 2);
}

#[tokio::test]
async fn native_structured_output_sends_output_config_and_parses() {
    let server = Server::start(vec![text_reply(r#"{"value":42}"#, "end_turn")]).unwrap();
    let (request, records) = recorded(ask("Generate.").with_response_schema(value_schema()));
    let response = provider(&server, true).complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 42})));
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::Native)
    );
    assert_eq!(response.schema_mode, Some(SchemaMode::Unverified));
    let sent = server.requests()[0].json().unwrap();
    assert_eq!(
        sent["output_config"],
        json!({"format": {"type": "json_schema", "schema": value_schema()}})
    );
    assert!(sent.get("tools").is_none() && sent.get("tool_choice").is_none());
    assert_eq!(
        records.seen()[0],
        (
            Mapping::Anthropic,
            Some(StructuredOutputPath::Native),
            Some(SchemaMode::Unverified),
            0
        )
    );
}

#[tokio::test]
async fn the_capitalization_case_fails_validation_on_a_normal_finish_without_a_diagnostic() {
    let schema = json!({"type": "object", "properties": {"color": {"enum": ["Red", "Green"]}}, "required": ["color"], "additionalProperties": false});
    let server = Server::start(vec![text_reply(r#"{"color":"red"}"#, "end_turn")]).unwrap();
    let (request, records) = recorded(ask("Color?").with_response_schema(schema));
    let error = provider(&server, true).complete(&request).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.finish_reason, FinishReason::Stop);
    assert_eq!(failure.failure_class(), FailureClass::EnumViolation);
    assert_eq!(
        failure.output_content, r#"{"color":"red"}"#,
        "surfaced verbatim, not re-cased"
    );
    assert!(failure.differs_only_in_case());
    assert!(
        failure.error_message.contains("#/color"),
        "{}",
        failure.error_message
    );
    assert_eq!(records.seen()[0].3, 0, "an object is never schema_not_honored");
}

#[tokio::test]
async fn a_refusal_and_a_truncation_are_surfaced_with_their_finish_reasons() {
    let server = Server::start(vec![
        text_reply("I can't help with that.", "refusal"),
        text_reply(r#"{"value": 4"#, "max_tokens"),
        text_reply("I can't help with that.", "refusal"),
    ])
    .unwrap();
    let provider = provider(&server, true);
    for (finish, class) in [
        (FinishReason::ContentFilter, FailureClass::Refusal),
        (FinishReason::Length, FailureClass::NotJson),
    ] {
        let (request, records) = recorded(ask("Generate.").with_response_schema(value_schema()));
        let error = provider.complete(&request).await.unwrap_err();
        let failure = error.structured_output().unwrap();
        assert_eq!((failure.finish_reason, failure.failure_class()), (finish, class));
        assert_eq!(records.seen()[0].3, 0, "cut short or refused: no diagnostic");
    }
    let response = provider.complete(&ask("Say something bad.")).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
    assert_eq!(
        response.message.text().as_deref(),
        Some("I can't help with that.")
    );
}

#[tokio::test]
async fn prose_on_the_native_path_earns_one_schema_not_honored_unless_a_stop_sequence_rode_in_extras() {
    let server = Server::start(vec![
        text_reply("The value is 42.", "end_turn"),
        text_reply("The value is 42.", "end_turn"),
    ])
    .unwrap();
    let provider = provider(&server, true);
    let (request, records) = recorded(ask("Generate.").with_response_schema(value_schema()));
    provider.complete(&request).await.unwrap_err();
    assert_eq!(records.seen()[0].3, 1);
    let mut config = budget(64);
    config.extras.insert("stop_sequences".into(), json!(["###"]));
    let (request, records) = recorded(
        ask("Generate.")
            .with_config(config)
            .with_response_schema(value_schema()),
    );
    provider.complete(&request).await.unwrap_err();
    assert_eq!(records.seen()[0].3, 0, "a stop sequence may cut prose short");
    assert_eq!(
        server.requests()[1].json().unwrap()["stop_sequences"],
        json!(["###"])
    );
}

#[tokio::test]
async fn without_native_output_and_tools_the_schema_goes_as_a_forced_synthetic_tool() {
    let server = Server::start(vec![tool_use_reply("structured_output", json!({"value": 42}))]).unwrap();
    let (request, records) = recorded(ask("Generate.").with_response_schema(value_schema()));
    let response = provider(&server, false).complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 42})));
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(
        response.message.tool_calls, None,
        "the synthetic call is oa's, not the caller's"
    );
    assert_eq!(response.message.text().as_deref(), Some(r#"{"value":42}"#));
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::ToolCoercion)
    );
    assert_eq!(response.schema_mode, Some(SchemaMode::Coerced));
    let sent = server.requests()[0].json().unwrap();
    assert!(sent.get("output_config").is_none());
    let tool = &sent["tools"][0];
    assert_eq!(tool["input_schema"], value_schema());
    assert!(!tool["description"].as_str().unwrap().is_empty());
    assert_eq!(sent["tool_choice"], json!({"type": "tool", "name": tool["name"]}));
    assert_eq!(records.seen()[0].1, Some(StructuredOutputPath::ToolCoercion));
}

#[tokio::test]
async fn a_coerced_answer_that_fails_is_reasked_and_recovers() {
    let server = Server::start(vec![
        tool_use_reply("structured_output", json!({"value": "42"})),
        tool_use_reply("structured_output", json!({"value": 42})),
    ])
    .unwrap();
    let retry = support::no_wait(2).with_reask(Reask::template("Fix: {error_message}"));
    let request = ask("Generate.")
        .with_response_schema(value_schema())
        .with_retry(retry);
    let response = provider(&server, false).complete(&request).await.unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::CoercedRepaired));
    let second = server.requests()[1].json().unwrap();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": r#"{"value":"42"}"#})
    );
    assert!(messages[2]["content"].as_str().unwrap().contains("#/value"));
    assert_eq!(second["tool_choice"]["type"], json!("tool"), "still coerced");
}

#[tokio::test]
async fn a_coerced_call_answered_in_text_fails_on_that_text() {
    let server = Server::start(vec![text_reply("I'd rather not.", "refusal")]).unwrap();
    let error = provider(&server, false)
        .complete(&ask("Generate.").with_response_schema(value_schema()))
        .await
        .unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.output_content, "I'd rather not.");
    assert_eq!(failure.finish_reason, FinishReason::ContentFilter);
    assert_eq!(
        error.structured_output_path(),
        Some(StructuredOutputPath::ToolCoercion)
    );
}

#[tokio::test]
async fn with_tools_of_its_own_the_fallback_is_prompt_augmentation() {
    let server = Server::start(vec![text_reply(r#"{"value":1}"#, "end_turn")]).unwrap();
    let request = CompletionRequest::new(vec![Message::system("Be exact."), Message::user("Generate.")])
        .with_config(budget(64))
        .with_tools(vec![Tool::new("lookup", "Looks up.", json!({"type": "object"}))])
        .with_response_schema(value_schema());
    let response = provider(&server, false).complete(&request).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::PromptAugmentation)
    );
    assert_eq!(response.schema_mode, Some(SchemaMode::Prompted));
    let sent = server.requests()[0].json().unwrap();
    let system = sent["system"].as_str().unwrap();
    assert!(system.starts_with("Be exact.\n\n"), "{system}");
    assert!(system.contains(r#""required":["value"]"#), "{system}");
    assert!(sent.get("output_config").is_none());
    assert_eq!(sent["tools"][0]["name"], json!("lookup"));
}

#[tokio::test]
async fn a_rejected_output_config_falls_back_to_coercion_for_this_and_later_calls() {
    let server = Server::start(vec![
        error_reply(
            400,
            "invalid_request_error",
            "output_config: Extra inputs are not permitted",
        ),
        tool_use_reply("structured_output", json!({"value": 1})),
        tool_use_reply("structured_output", json!({"value": 2})),
    ])
    .unwrap();
    let provider = provider(&server, true);
    let request = ask("Generate.").with_response_schema(value_schema());
    let first = provider.complete(&request).await.unwrap();
    assert_eq!(
        first.structured_output_path,
        Some(StructuredOutputPath::ToolCoercion)
    );
    let second = provider.complete(&request).await.unwrap();
    assert_eq!(second.parsed, Some(json!({"value": 2})));
    assert!(
        server.requests()[2]
            .json()
            .unwrap()
            .get("output_config")
            .is_none()
    );
}

#[tokio::test]
async fn ready_looks_the_model_up() {
    let server = Server::start(vec![
        Reply::json(200, json!({"type": "model", "id": "claude-test"})),
        error_reply(404, "not_found_error", "model: claude-test"),
    ])
    .unwrap();
    let provider = provider(&server, true);
    provider.ready().await.unwrap();
    let error = provider.ready().await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidModel);
    let sent = server.requests();
    assert_eq!(
        (sent[0].method.as_str(), sent[0].path.as_str()),
        ("GET", "/v1/models/claude-test")
    );
    assert_eq!(sent[0].header("x-api-key"), Some("sk-ant-test-key"));
}

#[tokio::test]
async fn output_config_is_managed_on_the_native_path_only() {
    let server = Server::start(vec![tool_use_reply("structured_output", json!({"value": 1}))]).unwrap();
    let mut config = budget(64);
    config
        .extras
        .insert("output_config".into(), json!({"effort": "low"}));
    let request = ask("Generate.")
        .with_config(config)
        .with_response_schema(value_schema());
    let error = provider(&server, true).complete(&request).await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest);
    assert!(error.message().contains("output_config"), "{}", error.message());
    assert_eq!(server.n_requests(), 0);
    // On the coercion path the mapping produces no output_config, so the extra rides untouched.
    provider(&server, false).complete(&request).await.unwrap();
    assert_eq!(
        server.requests()[0].json().unwrap()["output_config"],
        json!({"effort": "low"})
    );
}

#[tokio::test]
async fn prose_on_the_coercion_path_is_never_schema_not_honored() {
    // What the llama.cpp peer does: it ignores the forced tool and answers in prose, ending its turn.
    let server = Server::start(vec![text_reply("Four.", "end_turn")]).unwrap();
    let (request, records) = recorded(ask("Generate.").with_response_schema(value_schema()));
    let error = provider(&server, false).complete(&request).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(
        (failure.finish_reason, failure.failure_class()),
        (FinishReason::Stop, FailureClass::NotJson)
    );
    assert_eq!(
        records.seen()[0],
        (
            Mapping::Anthropic,
            Some(StructuredOutputPath::ToolCoercion),
            Some(SchemaMode::Coerced),
            0
        ),
        "0126 excludes tool_coercion from the diagnostic"
    );
}

/// Found by cargo-mutants (the degraded test turned around went unnoticed): a normal finish checks each tool call
/// against the declared tools; an unknown stop reason (finish reason `error`) reports the calls as they came.
#[tokio::test]
async fn tool_calls_are_checked_against_declared_tools_unless_degraded() {
    let lookup = || vec![Tool::new("lookup", "Looks up.", json!({"type": "object"}))];
    let undeclared = json!([{"type": "tool_use", "id": "toolu_1", "name": "undeclared", "input": {}}]);
    let server = Server::start(vec![Reply::json(200, message(undeclared.clone(), "tool_use"))]).unwrap();
    let error = provider(&server, false)
        .complete(&ask("Look it up.").with_tools(lookup()))
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::InvalidResponse, "{error}");
    assert!(error.to_string().contains("undeclared"), "{error}");

    let server = Server::start(vec![Reply::json(200, message(undeclared, "a_new_stop_reason"))]).unwrap();
    let response = provider(&server, false)
        .complete(&ask("Look it up.").with_tools(lookup()))
        .await
        .unwrap();
    assert_eq!(response.finish_reason, FinishReason::Error);
    let calls = response.message.tool_calls.unwrap();
    assert_eq!(calls[0].name, "undeclared");
}
