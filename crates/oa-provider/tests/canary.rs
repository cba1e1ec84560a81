//! The canary-key test: every failure scenario runs with a recognizable API key (and a secret extra header),
//! and neither appears in any Debug output, error Display, error source, or attempt record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::error::Error as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_provider::{
    ApiKey, AttemptHook, AttemptRecord, Backoff, CompletionRequest, Message, OpenAiProvider, Provider,
    RetryConfig, RuntimeConfig,
};
use oa_testkit::openai::text_completion;
use oa_testkit::{Reply, Server, closed_base_url};
use serde_json::json;

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

fn provider_at(base_url: String) -> OpenAiProvider {
    OpenAiProvider::builder("test-model")
        .base_url(base_url)
        .api_key(ApiKey::new(CANARY))
        .header("api-key", HEADER_CANARY)
        .idle_timeout(Duration::from_millis(300))
        .max_body_bytes(64 * 1024)
        .build()
        .unwrap()
}

async fn scenario(name: &str, replies: Vec<Reply>, request: CompletionRequest) {
    let server = Server::start(replies).unwrap();
    let provider = provider_at(server.base_url());
    assert_clean(&format!("{provider:?}"), name);
    let recorder = Arc::new(Recorder::default());
    let outcome = provider.complete(&request.with_hook(recorder.clone())).await;
    let error = outcome.expect_err(name);
    assert_clean(&format!("{error}"), name);
    assert_clean(&format!("{error:?}"), name);
    let mut source = error.source();
    while let Some(cause) = source {
        assert_clean(&format!("{cause} {cause:?}"), name);
        source = cause.source();
    }
    for text in recorder.0.lock().unwrap().iter() {
        assert_clean(text, name);
    }
    // The key did go out, in the header only.
    if let Some(request) = server.requests().first() {
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {CANARY}").as_str())
        );
        assert!(!String::from_utf8_lossy(&request.body).contains("CANARY"));
    }
}

fn hi() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("hi")])
}

#[tokio::test]
async fn no_failure_scenario_leaks_the_key() {
    let echo = |status: u16| {
        Reply::json(
            status,
            json!({"error": {"message": format!("Incorrect API key provided: {CANARY} / {HEADER_CANARY}")}}),
        )
    };
    let retry = RetryConfig::new(2).with_backoff(Backoff::Fixed(Duration::ZERO));
    scenario("401 echoing the key", vec![echo(401)], hi()).await;
    scenario("404 echoing the key", vec![echo(404)], hi()).await;
    scenario(
        "500 echoing the key, retried",
        vec![echo(500), echo(500)],
        hi().with_retry(retry.clone()),
    )
    .await;
    scenario(
        "429 with garbage Retry-After",
        vec![Reply::json_with_header(429, "Retry-After", "-1", json!({}))],
        hi(),
    )
    .await;
    scenario(
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
    scenario("dropped connection", vec![Reply::Drop], hi()).await;
    scenario(
        "body past the cap",
        vec![Reply::json(200, text_completion(&"x".repeat(100_000)))],
        hi(),
    )
    .await;
    scenario(
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
        "stalled stream",
        vec![Reply::StallAfter { pieces: vec![] }],
        hi().with_stream(true),
    )
    .await;
    scenario(
        "invalid utf-8 stream",
        vec![Reply::Stream {
            pieces: vec![b"data: \xff\n\n".to_vec()],
            pause: Duration::ZERO,
        }],
        hi().with_stream(true),
    )
    .await;
    scenario(
        "error event mid-stream",
        vec![Reply::Stream {
            pieces: vec![
                format!("data: {{\"error\": {{\"message\": \"bad key {CANARY}\"}}}}\n\n").into_bytes(),
            ],
            pause: Duration::ZERO,
        }],
        hi().with_stream(true),
    )
    .await;
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false});
    scenario(
        "structured output invalid",
        vec![Reply::json(200, text_completion("{\"a\":\"x\"}"))],
        hi().with_response_schema(schema),
    )
    .await;
    let collision = RuntimeConfig {
        extras: [("model".to_owned(), json!("other"))].into(),
        ..Default::default()
    };
    scenario("managed-field collision", vec![], hi().with_config(collision)).await;
}

#[tokio::test]
async fn connection_refused_and_ready_do_not_leak() {
    let provider = provider_at(closed_base_url().unwrap());
    let error = provider.complete(&hi()).await.unwrap_err();
    assert_clean(
        &format!("{error} {error:?} {:?}", error.source().map(ToString::to_string)),
        "refused",
    );
    let error = provider.ready().await.unwrap_err();
    assert_clean(&format!("{error} {error:?}"), "ready refused");
    let server = Server::start(vec![Reply::json(401, json!({"error": {"message": CANARY}}))]).unwrap();
    let error = provider_at(server.base_url()).ready().await.unwrap_err();
    assert_clean(&format!("{error} {error:?}"), "ready 401");
}

#[test]
fn builders_and_keys_do_not_print_secrets() {
    let builder = OpenAiProvider::builder("m")
        .api_key(ApiKey::new(CANARY))
        .header("api-key", HEADER_CANARY);
    assert_clean(&format!("{builder:?}"), "builder");
    assert_clean(&format!("{:?}", ApiKey::new(CANARY)), "key");
    let error = OpenAiProvider::builder("m")
        .header("x-secret", format!("{CANARY}\n"))
        .build()
        .unwrap_err();
    assert_clean(&format!("{error} {error:?}"), "build error");
}
