//! The §8.3 Gemini mapping over a real socket: the request as sent (the model in the URL path, the key in
//! `x-goog-api-key` and never in a query, `systemInstruction`, `contents`, camelCase `generationConfig`), the
//! response mapping with thought signatures, errors, and structured output on its two paths (native
//! `responseJsonSchema`, prompt augmentation). No local Gemini server exists: these scripted replies are the only
//! Gemini these tests talk to.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_provider::model::{Blocked, ContentBlock, FailureClass};
use oa_provider::{
    ApiKey, Category, CompletionRequest, Content, FinishReason, GeminiProvider, Message, Provider,
    RuntimeConfig, SchemaMode, StructuredOutputPath, Tool, ToolChoice,
};
use oa_testkit::gemini::{error_reply, response, text_reply};
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};
use support::value_schema;

fn provider_for(server: &Server, model: &str, native: bool) -> GeminiProvider {
    GeminiProvider::builder(model)
        .base_url(format!("{}beta", server.base_url()))
        .api_key(ApiKey::new("AIza-test-key"))
        .capabilities(support::native(native))
        .build()
        .unwrap()
}

fn provider(server: &Server, native: bool) -> GeminiProvider {
    provider_for(server, "gemini-test", native)
}

fn ask(text: &str) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user(text)])
}

/// "Weather?" with a `get_weather` tool that takes any object.
fn weather_ask() -> CompletionRequest {
    ask("Weather?").with_tools(vec![Tool::new(
        "get_weather",
        "Weather.",
        json!({"type": "object"}),
    )])
}

/// Every attempt's diagnostic count.
fn diagnostic_counts() -> Arc<support::Recorded<usize>> {
    Arc::new(support::Recorded::new(|record| record.diagnostics.len()))
}

#[tokio::test]
async fn the_model_is_in_the_path_the_key_in_x_goog_api_key_and_the_body_in_gemini_shape() {
    let server = Server::start(vec![text_reply("It's sunny.", "STOP")]).unwrap();
    let mut assistant = Message::assistant("");
    assistant.content = Some(Content::Blocks(vec![ContentBlock::Thinking {
        text: "Check the tool.".into(),
        signature: Some("anthropic-signature".into()),
    }]));
    assistant.tool_calls = Some(vec![oa_provider::ToolCall {
        id: "call_1".into(),
        name: "get_weather".into(),
        arguments: json!({"location": "SF"}),
        signature: Some("sig-g1".into()),
    }]);
    let mut config = RuntimeConfig {
        temperature: Some(0.5),
        top_p: Some(0.9),
        max_tokens: Some(128),
        seed: Some(7),
        stop_sequences: Some(vec!["END".into()]),
        ..RuntimeConfig::default()
    };
    config.extras.insert("topK".into(), json!(40));
    let request = CompletionRequest::new(vec![
        Message::system("Be brief."),
        Message::user("Weather in SF?"),
        assistant,
        Message::tool("call_1", "72F"),
    ])
    .with_tools(vec![Tool::new(
        "get_weather",
        "Weather.",
        json!({"type": "object"}),
    )])
    .with_tool_choice(ToolChoice::Tool {
        name: "get_weather".into(),
    })
    .with_config(config);
    let response = provider(&server, true).complete(&request).await.unwrap();
    assert_eq!(
        response.message.content,
        Some(Content::Text("It's sunny.".into()))
    );
    assert_eq!(response.usage.total_tokens, Some(7));
    assert_eq!(response.model.as_deref(), Some("gemini-test-001"));
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1beta/models/gemini-test:generateContent");
    assert!(!sent.path.contains('?'), "no key in a query");
    assert_eq!(sent.header("x-goog-api-key"), Some("AIza-test-key"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.json().unwrap(),
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in SF?"}]},
                {"role": "model", "parts": [
                    {"text": "Check the tool.", "thought": true},
                    {"functionCall": {"name": "get_weather", "id": "call_1", "args": {"location": "SF"}},
                     "thoughtSignature": "sig-g1"}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "get_weather", "id": "call_1", "response": {"result": "72F"}}}
                ]}
            ],
            "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Weather.",
                                                 "parameters": {"type": "object"}}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
            "generationConfig": {"temperature": 0.5, "topP": 0.9, "maxOutputTokens": 128, "seed": 7,
                                 "stopSequences": ["END"], "topK": 40}
        })
    );
}

#[tokio::test]
async fn a_model_name_cannot_leave_its_path_segment() {
    let server = Server::start(vec![text_reply("ok", "STOP")]).unwrap();
    provider_for(&server, "../x?key=y", true)
        .complete(&ask("hi"))
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].path,
        "/v1beta/models/..%2Fx%3Fkey%3Dy:generateContent"
    );
}

#[tokio::test]
async fn signatures_are_captured_where_they_came_and_a_function_call_finishes_tool_calls() {
    let parts = json!([
        {"text": "Let me check.", "thought": true},
        {"text": "Checking.", "thoughtSignature": "sig-text"},
        {"functionCall": {"name": "get_weather", "args": {"location": "SF"}}, "thoughtSignature": "sig-call"}
    ]);
    let server = Server::start(vec![Reply::json(200, response(parts, "STOP"))]).unwrap();
    let request = weather_ask();
    let answer = provider(&server, true).complete(&request).await.unwrap();
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        answer.message.content,
        Some(Content::Blocks(vec![
            ContentBlock::Thinking {
                text: "Let me check.".into(),
                signature: None
            },
            ContentBlock::Text {
                text: "Checking.".into(),
                signature: Some("sig-text".into())
            },
        ]))
    );
    let call = &answer.message.tool_calls.as_ref().unwrap()[0];
    assert_eq!(call.signature.as_deref(), Some("sig-call"));
    assert_eq!(call.id, "gemini_call_0", "minted when Gemini sends none");
}

#[tokio::test]
async fn finish_reasons_and_a_blocked_prompt() {
    let cases = [
        ("MAX_TOKENS", FinishReason::Length),
        ("SAFETY", FinishReason::ContentFilter),
        ("RECITATION", FinishReason::ContentFilter),
        ("MALFORMED_FUNCTION_CALL", FinishReason::Error),
        ("IMAGE_SAFETY", FinishReason::Error),
    ];
    for (wire, finish) in cases {
        let server = Server::start(vec![text_reply("x", wire)]).unwrap();
        let answer = provider(&server, true).complete(&ask("hi")).await.unwrap();
        assert_eq!(answer.finish_reason, finish, "{wire}");
        let blocked = (finish == FinishReason::ContentFilter).then(|| Blocked::Answer(wire.to_owned()));
        assert_eq!(answer.blocked, blocked, "{wire}");
    }
    let blocked = Reply::json(200, json!({"promptFeedback": {"blockReason": "SAFETY"}}));
    let server = Server::start(vec![blocked]).unwrap();
    let answer = provider(&server, true).complete(&ask("hi")).await.unwrap();
    assert_eq!(answer.finish_reason, FinishReason::ContentFilter);
    assert_eq!(answer.message.content, None);
    assert_eq!(answer.blocked, Some(Blocked::Prompt("SAFETY".to_owned())));
}

/// A blocked prompt on a structured call is a refusal (never `not_json`) whose failure and error message name the
/// block reason; a reason that is not a code (a hostile server echoing text) is not repeated.
#[tokio::test]
async fn a_blocked_structured_call_is_a_refusal_naming_its_reason() {
    let replies = vec![
        Reply::json(
            200,
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}),
        ),
        Reply::json(
            200,
            json!({"promptFeedback": {"blockReason": "the key is AIza-test-key"}}),
        ),
    ];
    let server = Server::start(replies).unwrap();
    let request = ask("hi").with_response_schema(json!({"type": "object"}));
    let error = provider(&server, true).complete(&request).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.failure_class(), FailureClass::Refusal);
    assert_eq!(
        failure.blocked,
        Some(Blocked::Prompt("PROHIBITED_CONTENT".to_owned()))
    );
    assert!(
        failure
            .error_message
            .starts_with("the provider blocked the prompt (block reason PROHIBITED_CONTENT)"),
        "{}",
        failure.error_message
    );
    let error = provider(&server, true).complete(&request).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.blocked, Some(Blocked::Prompt("unrecognized".to_owned())));
    assert!(!format!("{error:?} {error}").contains("AIza-test-key"));
}

#[tokio::test]
async fn statuses_map_to_categories_with_retry_after_on_a_429() {
    let cases = [
        (
            error_reply(400, "INVALID_ARGUMENT", "bad"),
            Category::InvalidRequest,
        ),
        (
            error_reply(400, "INVALID_ARGUMENT", "Unsupported MIME type: image/svg"),
            Category::UnsupportedContentBlock,
        ),
        (
            error_reply(403, "PERMISSION_DENIED", "denied"),
            Category::Authentication,
        ),
        (
            error_reply(404, "NOT_FOUND", "models/x is not found"),
            Category::InvalidModel,
        ),
        (error_reply(500, "INTERNAL", "oops"), Category::Unavailable),
        (
            error_reply(504, "DEADLINE_EXCEEDED", "slow"),
            Category::Unavailable,
        ),
    ];
    support::assert_categories(cases, |server| provider(server, true), &ask("x")).await;
    let limited = Reply::json_with_header(
        429,
        "Retry-After",
        "0.03",
        json!({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}),
    );
    let server = Server::start(vec![limited, text_reply("ok", "STOP")]).unwrap();
    let waits = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&waits);
    let retry = support::no_wait(2).with_on_retry(move |_, error, wait| {
        seen.lock()
            .unwrap()
            .push((error.category(), error.vendor_code().map(str::to_owned), wait))
    });
    provider(&server, true)
        .complete(&ask("x").with_retry(retry))
        .await
        .unwrap();
    assert_eq!(
        *waits.lock().unwrap(),
        [(
            Category::RateLimit,
            Some("RESOURCE_EXHAUSTED".to_owned()),
            Duration::from_millis(30)
        )]
    );
}

#[tokio::test]
async fn refused_before_sending_when_streaming_or_an_image_url_names_no_media_type() {
    let server = Server::start(Vec::<Reply>::new()).unwrap();
    let provider = provider(&server, true);
    let error = provider.complete(&ask("hi").with_stream(true)).await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest);
    assert!(
        error
            .message()
            .contains("gemini mapping does not support streaming")
    );
    let image = Message::user_blocks(vec![
        ContentBlock::Image {
            source: oa_provider::model::ImageSource::Url {
                url: "https://example.com/picture".into(),
            },
            media_type: None,
            detail: None,
        },
        ContentBlock::text("What is it?"),
    ]);
    let error = provider
        .complete(&CompletionRequest::new(vec![image]))
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::UnsupportedContentBlock);
    assert_eq!(server.n_requests(), 0);
}

#[tokio::test]
async fn native_structured_output_sends_response_json_schema_and_parses() {
    let server = Server::start(vec![text_reply(r#"{"value":42}"#, "STOP")]).unwrap();
    let request = ask("Generate.")
        .with_config(RuntimeConfig {
            max_tokens: Some(64),
            ..RuntimeConfig::default()
        })
        .with_response_schema(value_schema());
    let answer = provider(&server, true).complete(&request).await.unwrap();
    assert_eq!(answer.parsed, Some(json!({"value": 42})));
    assert_eq!(answer.structured_output_path, Some(StructuredOutputPath::Native));
    assert_eq!(answer.schema_mode, Some(SchemaMode::Unverified));
    assert_eq!(
        server.requests()[0].json().unwrap()["generationConfig"],
        json!({"maxOutputTokens": 64, "responseMimeType": "application/json", "responseJsonSchema": value_schema()})
    );
}

#[tokio::test]
async fn a_keyword_outside_geminis_subset_fails_validation_without_a_diagnostic() {
    let schema = json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "required": ["code"]});
    let server = Server::start(vec![text_reply(r#"{"code":"abc"}"#, "STOP")]).unwrap();
    let diagnostics = diagnostic_counts();
    let request = ask("Code?")
        .with_response_schema(schema)
        .with_hook(diagnostics.clone());
    let error = provider(&server, true).complete(&request).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.finish_reason, FinishReason::Stop);
    assert_eq!(failure.failure_class(), FailureClass::Other);
    assert!(!failure.differs_only_in_case());
    assert!(
        failure.error_message.contains("#/code"),
        "{}",
        failure.error_message
    );
    assert_eq!(*diagnostics.seen(), [0]);
}

#[tokio::test]
async fn prose_on_the_native_path_earns_one_schema_not_honored_unless_stop_sequences_rode_in_extras() {
    let server = Server::start(vec![
        text_reply("The value is 42.", "STOP"),
        text_reply("The value is 42.", "STOP"),
    ])
    .unwrap();
    let provider = provider(&server, true);
    let diagnostics = diagnostic_counts();
    let request = ask("Generate.")
        .with_response_schema(value_schema())
        .with_hook(diagnostics.clone());
    provider.complete(&request).await.unwrap_err();
    let mut config = RuntimeConfig::default();
    config.extras.insert("stopSequences".into(), json!(["###"]));
    provider
        .complete(&request.clone().with_config(config))
        .await
        .unwrap_err();
    assert_eq!(*diagnostics.seen(), [1, 0]);
    assert_eq!(
        server.requests()[1].json().unwrap()["generationConfig"]["stopSequences"],
        json!(["###"])
    );
}

#[tokio::test]
async fn without_native_output_the_schema_joins_the_system_instruction() {
    let server = Server::start(vec![text_reply(r#"{"value":42}"#, "STOP")]).unwrap();
    let request = ask("Generate.").with_response_schema(value_schema());
    let answer = provider(&server, false).complete(&request).await.unwrap();
    assert_eq!(answer.parsed, Some(json!({"value": 42})));
    assert_eq!(
        answer.structured_output_path,
        Some(StructuredOutputPath::PromptAugmentation)
    );
    assert_eq!(answer.schema_mode, Some(SchemaMode::Prompted));
    let sent = server.requests()[0].json().unwrap();
    let directive = sent["systemInstruction"]["parts"][0]["text"].as_str().unwrap();
    assert!(directive.contains(r#""required":["value"]"#), "{directive}");
    assert!(sent.get("generationConfig").is_none());
}

#[tokio::test]
async fn ready_looks_the_model_up() {
    let server = Server::start(vec![
        Reply::json(200, json!({"name": "models/gemini-test"})),
        error_reply(404, "NOT_FOUND", "models/gemini-test is not found"),
    ])
    .unwrap();
    let provider = provider(&server, true);
    provider.ready().await.unwrap();
    assert_eq!(
        provider.ready().await.unwrap_err().category(),
        Category::InvalidModel
    );
    let sent = server.requests();
    assert_eq!(sent[0].path, "/v1beta/models/gemini-test");
    assert_eq!(sent[0].header("x-goog-api-key"), Some("AIza-test-key"));
}

#[tokio::test]
async fn managed_generation_config_fields_refuse_a_conflicting_extra_and_let_the_rest_ride() {
    let server = Server::start(vec![text_reply(r#"{"value":1}"#, "STOP")]).unwrap();
    let with_extras = |pairs: &[(&str, Value)], temperature: Option<f64>| {
        let mut config = RuntimeConfig {
            temperature,
            ..RuntimeConfig::default()
        };
        for (key, value) in pairs {
            config.extras.insert((*key).to_owned(), value.clone());
        }
        ask("Generate.")
            .with_response_schema(value_schema())
            .with_config(config)
    };
    let native = provider(&server, true);
    for request in [
        with_extras(&[("temperature", json!(0.9))], Some(0.2)),
        with_extras(&[("responseMimeType", json!("text/plain"))], None),
    ] {
        let error = native.complete(&request).await.unwrap_err();
        assert_eq!(error.category(), Category::InvalidRequest, "{}", error.message());
        assert!(error.message().contains("gemini mapping"), "{}", error.message());
    }
    assert_eq!(server.n_requests(), 0);
    // Off the native path responseMimeType is not managed, and an undeclared temperature rides too.
    let request = with_extras(
        &[
            ("responseMimeType", json!("text/plain")),
            ("temperature", json!(0.9)),
        ],
        None,
    );
    provider(&server, false).complete(&request).await.unwrap();
    assert_eq!(
        server.requests()[0].json().unwrap()["generationConfig"],
        json!({"responseMimeType": "text/plain", "temperature": 0.9})
    );
}

#[tokio::test]
async fn structurally_equal_requests_are_byte_identical() {
    let server = Server::start(vec![text_reply("ok", "STOP"), text_reply("ok", "STOP")]).unwrap();
    let provider = provider(&server, true);
    let parameters_a: Value = serde_json::from_str(
        r#"{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}"#,
    )
    .unwrap();
    let parameters_b: Value = serde_json::from_str(
        r#"{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"}"#,
    )
    .unwrap();
    for parameters in [parameters_a, parameters_b] {
        let mut config = RuntimeConfig::default();
        config.extras.insert("topK".into(), json!(3));
        config.extras.insert("candidateCount".into(), json!(1));
        let request = CompletionRequest::new(vec![Message::system("S."), Message::user("hi")])
            .with_tools(vec![Tool::new("f", "F.", parameters)])
            .with_config(config)
            .with_response_schema(value_schema());
        provider.complete(&request).await.unwrap_err();
    }
    let requests = server.requests();
    assert_eq!(requests[0].body, requests[1].body);
}

/// Found by cargo-mutants (the degraded test turned around went unnoticed): a function call to a tool the request
/// did not declare is an invalid response, not a call passed on.
#[tokio::test]
async fn a_call_to_an_undeclared_function_is_an_invalid_response() {
    let call = json!([{"functionCall": {"name": "undeclared", "id": "call_1", "args": {}}}]);
    let server = Server::start(vec![Reply::json(200, response(call, "STOP"))]).unwrap();
    let request = weather_ask();
    let error = provider(&server, false).complete(&request).await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidResponse, "{error}");
    assert!(error.to_string().contains("undeclared"), "{error}");
}

/// Found by cargo-mutants (the id guard turned either way went unnoticed): a call's own id is kept, and a call
/// without one, or with an empty one, gets one made from its position.
#[tokio::test]
async fn a_call_keeps_its_own_id_and_one_without_gets_its_position() {
    let calls = json!([
        {"functionCall": {"name": "get_weather", "id": "", "args": {}}},
        {"functionCall": {"name": "get_weather", "id": "call_own", "args": {}}},
        {"functionCall": {"name": "get_weather", "args": {}}}
    ]);
    let server = Server::start(vec![Reply::json(200, response(calls, "STOP"))]).unwrap();
    let request = weather_ask();
    let response = provider(&server, false).complete(&request).await.unwrap();
    let ids: Vec<String> = response
        .message
        .tool_calls
        .unwrap()
        .into_iter()
        .map(|call| call.id)
        .collect();
    assert_eq!(ids, ["gemini_call_0", "call_own", "gemini_call_2"]);
}
