//! §8.1.2 response mapping and §8.1.3 error mapping over a real socket: messages, finish reasons, the refusal
//! rule, usage counters, tool-call checks, HTTP statuses, Retry-After, redirects, size caps, `ready()`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use oa_provider::model::ContentBlock;
use oa_provider::{
    Category, CompletionRequest, Content, FinishReason, Message, OpenAiProvider, Provider, Tool, Usage,
};
use oa_testkit::openai::{completion, text_completion};
use oa_testkit::{Reply, Server, closed_base_url};
use serde_json::{Value, json};

fn provider_at(base_url: String) -> OpenAiProvider {
    OpenAiProvider::builder("test-model")
        .base_url(base_url)
        .no_api_key()
        .build()
        .unwrap()
}

fn hi() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("Hi")])
}

fn weather_tool() -> Tool {
    Tool::new(
        "get_weather",
        "Weather.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}),
    )
}

async fn complete_with(
    reply: Reply,
    request: CompletionRequest,
) -> Result<oa_provider::Response, oa_provider::ProviderError> {
    let server = Server::start(vec![reply]).unwrap();
    provider_at(server.base_url()).complete(&request).await
}

#[tokio::test]
async fn basic_completion_maps_message_finish_usage_and_raw() {
    let body = text_completion("Hello!");
    let response = complete_with(Reply::json(200, body.clone()), hi()).await.unwrap();
    assert_eq!(response.message, Message::assistant("Hello!"));
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.usage.total_tokens, Some(7));
    assert_eq!(response.raw, body);
    assert_eq!(response.model.as_deref(), Some("test-model"));
    assert_eq!(response.parsed, None);
    assert_eq!(response.structured_output_path, None);
}

#[tokio::test]
async fn finish_reasons_map_including_legacy_and_unknown() {
    for (wire, expected) in [
        ("stop", FinishReason::Stop),
        ("length", FinishReason::Length),
        ("content_filter", FinishReason::ContentFilter),
        ("something_new", FinishReason::Error),
    ] {
        let body = completion(json!({"role": "assistant", "content": "x"}), wire);
        assert_eq!(
            complete_with(Reply::json(200, body), hi())
                .await
                .unwrap()
                .finish_reason,
            expected,
            "{wire}"
        );
    }
    let legacy = completion(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}),
        "function_call",
    );
    let response = complete_with(Reply::json(200, legacy), hi().with_tools(vec![weather_tool()]))
        .await
        .unwrap();
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    let calls = response.message.tool_calls.unwrap();
    assert_eq!(
        (calls[0].id.as_str(), &calls[0].arguments),
        ("c1", &json!({"city": "Oslo"}))
    );
}

#[tokio::test]
async fn refusal_becomes_content_filter_with_the_refusal_as_content() {
    for wire_finish in ["stop", "length"] {
        let body = completion(
            json!({"role": "assistant", "content": null, "refusal": "I can't help with that."}),
            wire_finish,
        );
        let response = complete_with(Reply::json(200, body.clone()), hi()).await.unwrap();
        assert_eq!(response.finish_reason, FinishReason::ContentFilter);
        assert_eq!(
            response.message.content,
            Some(Content::Text("I can't help with that.".into()))
        );
        assert_eq!(response.raw, body, "raw keeps the response as received");
    }
    for refusal in [Value::Null, json!("")] {
        let body = completion(
            json!({"role": "assistant", "content": "fine", "refusal": refusal}),
            "stop",
        );
        let response = complete_with(Reply::json(200, body), hi()).await.unwrap();
        assert_eq!(response.finish_reason, FinishReason::Stop);
        assert_eq!(response.message.content, Some(Content::Text("fine".into())));
    }
}

#[tokio::test]
async fn reasoning_extension_becomes_a_thinking_block() {
    let body = completion(
        json!({"role": "assistant", "reasoning_content": "Let me think.", "content": "42"}),
        "stop",
    );
    let response = complete_with(Reply::json(200, body), hi()).await.unwrap();
    assert_eq!(
        response.message.content,
        Some(Content::Blocks(vec![
            ContentBlock::Thinking {
                text: "Let me think.".into(),
                signature: None
            },
            ContentBlock::text("42")
        ]))
    );
}

#[tokio::test]
async fn malformed_usage_counters_are_not_reported_and_stay_on_raw() {
    let mut body = text_completion("x");
    body["usage"] = json!({"prompt_tokens": "abc", "completion_tokens": 5, "total_tokens": -3, "prompt_tokens_details": {"cached_tokens": 0}});
    let response = complete_with(Reply::json(200, body), hi()).await.unwrap();
    assert_eq!(
        response.usage,
        Usage {
            prompt_tokens: None,
            completion_tokens: Some(5),
            total_tokens: None,
            cached_tokens: Some(0),
            cache_creation_tokens: None
        }
    );
    assert_eq!(response.raw["usage"]["prompt_tokens"], json!("abc"));
    for malformed in [json!(true), json!(1.5), json!(null)] {
        let mut body = text_completion("x");
        body["usage"] = json!({"prompt_tokens": malformed, "completion_tokens": 5, "total_tokens": 10});
        let usage = complete_with(Reply::json(200, body), hi()).await.unwrap().usage;
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (None, Some(5)));
    }
    let mut body = text_completion("x");
    body.as_object_mut().unwrap().remove("usage");
    assert_eq!(
        complete_with(Reply::json(200, body), hi()).await.unwrap().usage,
        Usage::default()
    );
}

#[tokio::test]
async fn tool_calls_are_checked_against_declared_tools_unless_degraded() {
    let call = |name: &str, arguments: &str| json!({"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}});
    for bad in [
        call("undeclared", "{\"city\":\"a\"}"),
        call("get_weather", "{not json"),
        call("get_weather", "[1]"),
    ] {
        let body = completion(
            json!({"role": "assistant", "content": null, "tool_calls": [bad]}),
            "tool_calls",
        );
        let error = complete_with(Reply::json(200, body), hi().with_tools(vec![weather_tool()]))
            .await
            .unwrap_err();
        assert_eq!(error.category(), Category::InvalidResponse, "{error}");
    }
    // Under finish_reason error, the partial response is the response: unparseable arguments become null.
    let body = completion(
        json!({"role": "assistant", "content": null, "tool_calls": [call("get_weather", "{\"city\":\"Bos"), call("unknown", "{}")]}),
        "error_mid_stream",
    );
    let response = complete_with(Reply::json(200, body), hi().with_tools(vec![weather_tool()]))
        .await
        .unwrap();
    assert_eq!(response.finish_reason, FinishReason::Error);
    let calls = response.message.tool_calls.unwrap();
    assert_eq!(calls[0].arguments, Value::Null);
    assert_eq!(calls[1].name, "unknown");
}

#[tokio::test]
async fn malformed_bodies_are_invalid_response() {
    for body in [
        json!({"id": "x", "object": "chat.completion"}),
        json!({"choices": []}),
        json!([1, 2]),
        json!({"choices": [{"message": {"content": 5}}]}),
    ] {
        let error = complete_with(Reply::json(200, body), hi()).await.unwrap_err();
        assert_eq!(error.category(), Category::InvalidResponse, "{error}");
    }
    let error = complete_with(
        Reply::Raw {
            status: 200,
            headers: vec![],
            body: b"<html>".to_vec(),
        },
        hi(),
    )
    .await
    .unwrap_err();
    assert_eq!(error.category(), Category::InvalidResponse);
}

#[tokio::test]
async fn http_statuses_map_to_categories() {
    let error_body = |kind: &str, code: &str, message: &str| json!({"error": {"type": kind, "code": code, "message": message}});
    let cases = [
        (
            401,
            error_body("invalid_request_error", "invalid_api_key", "Incorrect API key"),
            Category::Authentication,
        ),
        (403, error_body("", "", "forbidden"), Category::Authentication),
        (
            404,
            error_body(
                "invalid_request_error",
                "model_not_found",
                "The model 'x' does not exist",
            ),
            Category::InvalidModel,
        ),
        (404, error_body("", "", "no such route"), Category::InvalidRequest),
        (
            503,
            error_body("model_not_loaded", "", "Model is configured but not loaded"),
            Category::ModelNotLoaded,
        ),
        (
            503,
            error_body("service_unavailable", "", "down"),
            Category::Unavailable,
        ),
        (500, error_body("server_error", "", "boom"), Category::Unavailable),
        (
            429,
            error_body("rate_limit_error", "", "slow down"),
            Category::RateLimit,
        ),
        (
            400,
            error_body(
                "invalid_request_error",
                "image_content_not_supported",
                "no images",
            ),
            Category::UnsupportedContentBlock,
        ),
        (
            400,
            error_body("invalid_request_error", "", "bad request"),
            Category::InvalidRequest,
        ),
        (422, json!("not an object"), Category::InvalidRequest),
    ];
    for (status, body, category) in cases {
        let error = complete_with(Reply::json(status, body), hi()).await.unwrap_err();
        assert_eq!(
            (error.category(), error.status()),
            (category, Some(status)),
            "{error}"
        );
    }
}

#[tokio::test]
async fn retry_after_is_read_clamped_or_ignored() {
    for (header, expected) in [
        ("30", Some(Duration::from_secs(30))),
        ("0.5", Some(Duration::from_millis(500))),
        ("1e12", Some(oa_provider::retry::MAX_RETRY_AFTER)),
        ("-5", None),
        ("soon", None),
        ("NaN", None),
        // An HTTP-date in the past means "now"; one in the far future is clamped.
        ("Wed, 21 Oct 2015 07:28:00 GMT", Some(Duration::ZERO)),
        (
            "Fri, 01 Jan 2100 00:00:00 GMT",
            Some(oa_provider::retry::MAX_RETRY_AFTER),
        ),
        ("Wed, 21 Oct 2015 07:28:00 PST", None),
    ] {
        let reply =
            Reply::json_with_header(429, "Retry-After", header, json!({"error": {"message": "slow"}}));
        let error = complete_with(reply, hi()).await.unwrap_err();
        assert!(error.is_rate_limit());
        assert_eq!(error.retry_after(), expected, "{header}");
    }
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let server = Server::start(vec![Reply::json_with_header(
        307,
        "Location",
        "http://127.0.0.1:1/v1/chat/completions",
        json!({}),
    )])
    .unwrap();
    let error = provider_at(server.base_url()).complete(&hi()).await.unwrap_err();
    assert_eq!(
        (error.category(), error.status()),
        (Category::InvalidResponse, Some(307))
    );
    assert_eq!(
        server.requests().len(),
        1,
        "exactly one request: the redirect was not followed"
    );
}

#[tokio::test]
async fn connection_failures_are_unavailable() {
    let error = provider_at(closed_base_url().unwrap())
        .complete(&hi())
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::Unavailable);
    let error = complete_with(Reply::Drop, hi()).await.unwrap_err();
    assert_eq!(error.category(), Category::Unavailable);
}

#[tokio::test]
async fn bodies_past_the_cap_are_refused() {
    let server = Server::start(vec![Reply::json(200, text_completion(&"x".repeat(4096)))]).unwrap();
    let provider = support::openai_builder(&server, "test-model")
        .max_body_bytes(1024)
        .build()
        .unwrap();
    let error = provider.complete(&hi()).await.unwrap_err();
    assert_eq!(error.category(), Category::InvalidResponse);
    assert!(error.message().contains("1024"), "{error}");
}

#[tokio::test]
async fn a_server_that_never_answers_hits_the_idle_gap() {
    let server = Server::start(vec![Reply::StallAfter { pieces: vec![] }]).unwrap();
    let provider = support::openai_builder(&server, "test-model")
        .idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let request = hi().with_stream(true);
    let error = provider.complete(&request).await.unwrap_err();
    assert!(error.is_unavailable() && error.is_timeout(), "{error:?}");
}

/// A complete answer's head with a `content-length` of `body_len`, then the body as `pieces`, each after `pause`.
fn paced_body(body: &[u8], pause: Duration, n_pieces: usize) -> Reply {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let mut pieces = vec![(Duration::ZERO, head.into_bytes())];
    let size = body.len().div_ceil(n_pieces);
    pieces.extend(body.chunks(size).map(|piece| (pause, piece.to_vec())));
    Reply::Paced { pieces }
}

#[tokio::test]
async fn a_body_trickling_in_forever_hits_the_total_deadline() {
    // Slow loris on an atomic answer: each piece comes well inside the idle gap, so only the total deadline ends it.
    let body = text_completion("slow").to_string().into_bytes();
    let server = Server::start(vec![paced_body(&body, Duration::from_millis(60), body.len())]).unwrap();
    let provider = support::openai_builder(&server, "test-model")
        .idle_timeout(Duration::from_millis(250))
        .total_timeout(Duration::from_millis(700))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let error = provider.complete(&hi()).await.unwrap_err();
    assert_eq!(
        error.transport_cause(),
        Some(oa_provider::model::TransportCause::TotalTimeout),
        "{error:?}"
    );
    assert!(error.message().contains("total timeout of 700 ms"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_body_whose_pieces_keep_coming_inside_the_idle_gap_completes() {
    // Six pieces 120 ms apart: 720 ms in all, well past one idle gap of 300 ms, but no gap between reads is that long.
    let body = text_completion("steady").to_string().into_bytes();
    let server = Server::start(vec![paced_body(&body, Duration::from_millis(120), 6)]).unwrap();
    let provider = support::openai_builder(&server, "test-model")
        .idle_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let response = provider.complete(&hi()).await.unwrap();
    assert_eq!(response.message.text().as_deref(), Some("steady"));
}

#[tokio::test]
async fn ready_checks_listing_and_load_state() {
    let listing = |entries: Value| Reply::json(200, json!({"object": "list", "data": entries}));
    let cases = [
        (listing(json!([{"id": "test-model", "status": "loaded"}])), None),
        (listing(json!([{"id": "test-model"}])), None),
        (
            listing(json!([{"id": "test-model", "status": "not_loaded"}])),
            Some(Category::ModelNotLoaded),
        ),
        (listing(json!([{"id": "other"}])), Some(Category::InvalidModel)),
        (
            Reply::json(401, json!({"error": {"message": "Invalid API key"}})),
            Some(Category::Authentication),
        ),
        (
            Reply::json(200, json!({"object": "list"})),
            Some(Category::InvalidResponse),
        ),
    ];
    for (reply, expected) in cases {
        let server = Server::start(vec![reply]).unwrap();
        let outcome = provider_at(server.base_url()).ready().await;
        assert_eq!(
            outcome.as_ref().err().map(|error| error.category()),
            expected,
            "{outcome:?}"
        );
        let requests = server.requests();
        assert_eq!(
            (requests[0].method.as_str(), requests[0].path.as_str()),
            ("GET", "/v1/models")
        );
    }
    let error = provider_at(closed_base_url().unwrap()).ready().await.unwrap_err();
    assert_eq!(error.category(), Category::Unavailable);
}

#[tokio::test]
async fn api_key_and_extra_headers_are_sent() {
    let server = Server::start(vec![Reply::json(200, text_completion("ok"))]).unwrap();
    let provider = OpenAiProvider::builder("test-model")
        .base_url(server.base_url())
        .api_key(oa_provider::ApiKey::new("sk-test"))
        .header("X-Tenant", "acme")
        .build()
        .unwrap();
    provider.complete(&hi()).await.unwrap();
    let request = &server.requests()[0];
    assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(request.header("x-tenant"), Some("acme"));
    assert_eq!(request.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn api_key_is_read_from_the_named_environment_variable() {
    // A variable name unique to this test, so no other test races on it.
    let server = Server::start(vec![
        Reply::json(200, text_completion("ok")),
        Reply::json(200, text_completion("ok")),
    ])
    .unwrap();
    // SAFETY-free: edition 2024 makes set_var unsafe, and unsafe code is forbidden; so read an unset variable.
    let provider = OpenAiProvider::builder("test-model")
        .base_url(server.base_url())
        .api_key_env("OA_PROVIDER_TEST_UNSET_KEY")
        .build()
        .unwrap();
    provider.complete(&hi()).await.unwrap();
    assert_eq!(
        server.requests()[0].header("authorization"),
        None,
        "an unset variable sends no key"
    );
}

#[tokio::test]
async fn builder_rejects_bad_base_urls_and_headers() {
    for base_url in [
        "not a url",
        "ftp://x/v1",
        "http://x/v1?key=secret",
        "http://x/v1#f",
    ] {
        let error = OpenAiProvider::builder("m")
            .base_url(base_url)
            .build()
            .unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
    }
    let error = OpenAiProvider::builder("m")
        .header("X-Bad", "line\nbreak-secret")
        .build()
        .unwrap_err();
    assert!(!error.to_string().contains("secret"));
}

#[tokio::test]
async fn response_id_is_the_body_id_string_and_none_otherwise() {
    let mut body = text_completion("Hello!");
    body["id"] = json!("chatcmpl-abc");
    let response = complete_with(Reply::json(200, body.clone()), hi()).await.unwrap();
    assert_eq!(response.response_id.as_deref(), Some("chatcmpl-abc"));
    assert_eq!(response.raw["id"], "chatcmpl-abc");
    for id in [json!(7), json!(null)] {
        body["id"] = id;
        let response = complete_with(Reply::json(200, body.clone()), hi()).await.unwrap();
        assert_eq!(response.response_id, None, "id {}", body["id"]);
        assert_eq!(response.raw, body);
    }
    body.as_object_mut().unwrap().remove("id");
    let response = complete_with(Reply::json(200, body), hi()).await.unwrap();
    assert_eq!(response.response_id, None);
}
