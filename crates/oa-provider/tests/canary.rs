//! The canary-key test, on every wire mapping: each failure scenario runs with a recognizable API key (and a secret
//! extra header), and neither appears in any Debug output, error Display, error source, or attempt record; the key
//! goes out only in the mapping's own header (`Authorization: Bearer`, `x-api-key`, `x-goog-api-key`), never in
//! the URL or the body.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::error::Error as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_provider::{
    AnthropicProvider, ApiKey, AttemptHook, AttemptRecord, CompletionRequest, GeminiProvider, Mapping,
    Message, OpenAiProvider, Provider, ProviderBuilder, RuntimeConfig,
};
use oa_testkit::{Reply, Server, anthropic, closed_base_url, gemini, openai};
use serde_json::{Value, json};

const CANARY: &str = "sk-CANARY-7f3a9c1e5b2d";
const HEADER_CANARY: &str = "hdr-CANARY-44e1";

#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl AttemptHook for Recorder {
    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        let mut texts = self.0.lock().unwrap();
        texts.push(format!("{record:?}"));
        texts.push(record.request.body.unwrap_or_default().to_owned());
        texts.push(format!("{:?}", record.request.messages));
        if let Err(error) = record.outcome {
            texts.push(format!("{error} {error:?}"));
        }
    }
}

fn assert_clean(text: &str, context: &str) {
    assert!(!text.contains(CANARY), "{context}: the key leaked: {text}");
    assert!(!text.contains("CANARY"), "{context}: a canary leaked: {text}");
}

fn provider_at(mapping: Mapping, base_url: String) -> Arc<dyn Provider> {
    ProviderBuilder::new(mapping, "test-model")
        .base_url(base_url)
        .api_key(ApiKey::new(CANARY))
        .header("api-key", HEADER_CANARY)
        .idle_timeout(Duration::from_millis(300))
        .max_body_bytes(64 * 1024)
        .build()
        .unwrap()
}

/// The header the key must arrive in, with its exact value, on `mapping`.
fn key_header(mapping: Mapping) -> (&'static str, String) {
    match mapping {
        Mapping::OpenAi => ("authorization", format!("Bearer {CANARY}")),
        Mapping::Anthropic => ("x-api-key", CANARY.to_owned()),
        _ => ("x-goog-api-key", CANARY.to_owned()),
    }
}

/// A 200 reply whose answer is `text`, in `mapping`'s shape.
fn text_reply(mapping: Mapping, text: &str) -> Reply {
    match mapping {
        Mapping::OpenAi => openai::text_reply(text, "stop"),
        Mapping::Anthropic => anthropic::text_reply(text, "end_turn"),
        _ => gemini::text_reply(text, "STOP"),
    }
}

async fn scenario(mapping: Mapping, name: &str, replies: Vec<Reply>, request: CompletionRequest) {
    let name = format!("{mapping}: {name}");
    let server = Server::start(replies).unwrap();
    let provider = provider_at(mapping, server.base_url());
    assert_clean(&format!("{provider:?}"), &name);
    let recorder = Arc::new(Recorder::default());
    let outcome = provider.complete(&request.with_hook(recorder.clone())).await;
    let error = outcome.expect_err(&name);
    assert_clean(&format!("{error}"), &name);
    assert_clean(&format!("{error:?}"), &name);
    let mut source = error.source();
    while let Some(cause) = source {
        assert_clean(&format!("{cause} {cause:?}"), &name);
        source = cause.source();
    }
    for text in recorder.0.lock().unwrap().iter() {
        assert_clean(text, &name);
    }
    // The key did go out, in the mapping's header only.
    if let Some(request) = server.requests().first() {
        let (header, value) = key_header(mapping);
        assert_eq!(request.header(header), Some(value.as_str()), "{name}");
        for other in ["authorization", "x-api-key", "x-goog-api-key"]
            .iter()
            .filter(|other| **other != header)
        {
            assert_eq!(request.header(other), None, "{name}: the key went out in {other}");
        }
        assert!(!request.path.contains("CANARY"), "{name}: the key is in the URL");
        assert!(
            !String::from_utf8_lossy(&request.body).contains("CANARY"),
            "{name}"
        );
    }
}

/// One user message with a token budget (the Anthropic mapping requires one).
fn hi() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("hi")]).with_config(RuntimeConfig {
        max_tokens: Some(16),
        ..RuntimeConfig::default()
    })
}

fn echo(status: u16) -> Reply {
    // Every mapping's error envelope reads error.message; this one echoes both secrets.
    Reply::json(
        status,
        json!({"error": {"message": format!("Incorrect API key provided: {CANARY} / {HEADER_CANARY}"),
                         "type": CANARY, "status": HEADER_CANARY}}),
    )
}

#[tokio::test]
async fn no_failure_scenario_leaks_the_key_on_any_mapping() {
    for mapping in Mapping::ALL {
        let retry = support::no_wait(2);
        scenario(mapping, "401 echoing the key", vec![echo(401)], hi()).await;
        scenario(mapping, "404 echoing the key", vec![echo(404)], hi()).await;
        scenario(
            mapping,
            "500 echoing the key, retried",
            vec![echo(500), echo(500)],
            hi().with_retry(retry.clone()),
        )
        .await;
        scenario(
            mapping,
            "429 with garbage Retry-After",
            vec![Reply::json_with_header(429, "Retry-After", "-1", json!({}))],
            hi(),
        )
        .await;
        scenario(
            mapping,
            "redirect",
            vec![Reply::json_with_header(
                302,
                "Location",
                &format!("http://127.0.0.1:1/?key={CANARY}"),
                json!({}),
            )],
            hi(),
        )
        .await;
        scenario(mapping, "dropped connection", vec![Reply::Drop], hi()).await;
        scenario(
            mapping,
            "body past the cap",
            vec![text_reply(mapping, &"x".repeat(100_000))],
            hi(),
        )
        .await;
        scenario(
            mapping,
            "not json",
            vec![Reply::Raw {
                status: 200,
                headers: vec![],
                body: CANARY.as_bytes().to_vec(),
            }],
            hi(),
        )
        .await;
        scenario(
            mapping,
            "stalled body",
            vec![Reply::StallAfter {
                pieces: vec![b"{\"partial\": ".to_vec()],
            }],
            hi(),
        )
        .await;
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false});
        scenario(
            mapping,
            "structured output invalid",
            vec![text_reply(mapping, "{\"a\":\"x\"}")],
            hi().with_response_schema(schema),
        )
        .await;
        let collision_key = match mapping {
            Mapping::Gemini => "maxOutputTokens",
            _ => "max_tokens",
        };
        let mut collision = hi();
        collision
            .config
            .extras
            .insert(collision_key.to_owned(), json!(CANARY));
        scenario(mapping, "managed-field collision", vec![], collision).await;
        // Streaming: OpenAI's stream failures; the other mappings refuse a stream call before sending.
        scenario(
            mapping,
            "stalled stream",
            vec![Reply::StallAfter { pieces: vec![] }],
            hi().with_stream(true),
        )
        .await;
    }
}

#[tokio::test]
async fn openai_stream_failures_do_not_leak() {
    scenario(
        Mapping::OpenAi,
        "invalid utf-8 stream",
        vec![Reply::sse_text(b"data: \xff\n\n".to_vec())],
        hi().with_stream(true),
    )
    .await;
    scenario(
        Mapping::OpenAi,
        "error event mid-stream",
        vec![Reply::sse_text(
            format!("data: {{\"error\": {{\"message\": \"bad key {CANARY}\"}}}}\n\n").into_bytes(),
        )],
        hi().with_stream(true),
    )
    .await;
}

#[tokio::test]
async fn connection_refused_and_ready_do_not_leak_on_any_mapping() {
    for mapping in Mapping::ALL {
        let context = mapping.as_str();
        let provider = provider_at(mapping, closed_base_url().unwrap());
        let error = provider.complete(&hi()).await.unwrap_err();
        assert_clean(
            &format!("{error} {error:?} {:?}", error.source().map(ToString::to_string)),
            context,
        );
        let error = provider.ready().await.unwrap_err();
        assert_clean(&format!("{error} {error:?}"), context);
        let server = Server::start(vec![Reply::json(401, json!({"error": {"message": CANARY}}))]).unwrap();
        let error = provider_at(mapping, server.base_url()).ready().await.unwrap_err();
        assert_clean(&format!("{error} {error:?}"), context);
        let (header, value) = key_header(mapping);
        assert_eq!(server.requests()[0].header(header), Some(value.as_str()));
    }
}

#[test]
fn builders_and_keys_do_not_print_secrets() {
    let builders = [
        format!(
            "{:?}",
            OpenAiProvider::builder("m")
                .api_key(ApiKey::new(CANARY))
                .header("api-key", HEADER_CANARY)
        ),
        format!(
            "{:?}",
            AnthropicProvider::builder("m")
                .api_key(ApiKey::new(CANARY))
                .header("api-key", HEADER_CANARY)
        ),
        format!(
            "{:?}",
            GeminiProvider::builder("m")
                .api_key(ApiKey::new(CANARY))
                .header("api-key", HEADER_CANARY)
        ),
    ];
    for builder in &builders {
        assert_clean(builder, "builder");
    }
    assert_clean(&format!("{:?}", ApiKey::new(CANARY)), "key");
    for mapping in Mapping::ALL {
        let error = ProviderBuilder::new(mapping, "m")
            .header("x-secret", format!("{CANARY}\n"))
            .build()
            .unwrap_err();
        assert_clean(&format!("{error} {error:?}"), "build error");
        // A key that is not a valid header value is refused without naming it.
        let error = ProviderBuilder::new(mapping, "m")
            .api_key(ApiKey::new(format!("{CANARY}\r\n")))
            .build()
            .unwrap_err();
        assert_clean(&format!("{error} {error:?}"), "bad key");
        let keyed = ProviderBuilder::new(mapping, "m")
            .base_url(format!("http://127.0.0.1:9/v1?key={CANARY}"))
            .build()
            .unwrap_err();
        assert_clean(&format!("{keyed} {keyed:?}"), "keyed base url");
    }
}

/// The check can fail: a response body the provider echoes verbatim would carry the canary, and is caught.
#[test]
fn the_check_catches_a_leak() {
    let leaked: Value = json!({"message": CANARY});
    let panic = std::panic::catch_unwind(|| assert_clean(&leaked.to_string(), "probe")).unwrap_err();
    assert!(panic.downcast_ref::<String>().unwrap().contains("probe"));
}

/// Found by the `openai_response`, `anthropic_response` and `gemini_response` fuzz targets (their first crashes,
/// kept here as given): a tool call whose name (or id) is the key, echoed back by a hostile or echoing server, was
/// quoted in the `provider_invalid_response` error ("tool call names undeclared tool ...") unscrubbed.
#[tokio::test]
async fn a_tool_call_named_with_the_key_is_not_quoted_in_the_error() {
    let bodies = [
        (
            Mapping::OpenAi,
            r#"{"choices":[{"message":{"content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"sk-CANARY","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
        ),
        (
            Mapping::Anthropic,
            r#"{"content":[{"type":"tool_use","id":"sk-CANARY","name":"sk-CANARY","input":[]}],"stop_reason":"tool_use"}"#,
        ),
        (
            Mapping::Gemini,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"sk-CANARY","id":"","args":null}}]}}]}"#,
        ),
    ];
    for (mapping, body) in bodies {
        let body: Value = serde_json::from_str(&body.replace("sk-CANARY", CANARY)).unwrap();
        scenario(
            mapping,
            "tool call named with the key",
            vec![Reply::json(200, body)],
            hi(),
        )
        .await;
    }
    let stream = oa_testkit::sse_bytes(&[
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": CANARY, "type": "function",
            "function": {"name": CANARY, "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}),
        json!("[DONE]"),
    ]);
    scenario(
        Mapping::OpenAi,
        "streamed tool call named with the key",
        vec![Reply::sse_text(stream)],
        hi().with_stream(true),
    )
    .await;
}
