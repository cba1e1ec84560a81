//! Call-level retry (§7.1) over a real socket: transient retries, exhaustion, non-transient errors, Retry-After
//! up to a cap, per_attempt_override, reask, and the attempt record of every wire attempt (0126).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::no_wait;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_provider::model::RetryReason;
use oa_provider::{
    AttemptHook, AttemptRecord, Category, CompletionRequest, Message, Provider, Reask, RuntimeConfig,
    StructuredOutputPath,
};
use oa_testkit::openai::{completion, text_completion};
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};

/// What the hook saw of one attempt.
#[derive(Debug, Clone)]
struct Seen {
    index: u32,
    reason: Option<RetryReason>,
    category: Option<Category>,
    body: Option<Value>,
    n_messages: usize,
    temperature: Option<f64>,
    path: Option<StructuredOutputPath>,
    total_tokens: Option<u64>,
}

#[derive(Default)]
struct Attempts(Mutex<Vec<Seen>>);

impl AttemptHook for Attempts {
    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.0.lock().unwrap().push(Seen {
            index: record.attempt_index,
            reason: record.retry_reason,
            category: record.outcome.err().map(|error| error.category()),
            body: record
                .request
                .body
                .map(|body| serde_json::from_str(body).unwrap()),
            n_messages: record.request.messages.len(),
            temperature: record.request.config.temperature,
            path: record.structured_output_path,
            total_tokens: record.usage().and_then(|usage| usage.total_tokens),
        });
    }
}

async fn run(
    replies: Vec<Reply>,
    request: CompletionRequest,
) -> (
    Result<oa_provider::Response, oa_provider::ProviderError>,
    Vec<Seen>,
    usize,
) {
    let server = Server::start(replies).unwrap();
    let provider = support::openai_builder(&server, "test-model").build().unwrap();
    let attempts = Arc::new(Attempts::default());
    let outcome = provider.complete(&request.with_hook(attempts.clone())).await;
    let seen = attempts.0.lock().unwrap().clone();
    (outcome, seen, server.requests().len())
}

fn go() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("go")])
}

fn unavailable() -> Reply {
    Reply::json(
        503,
        json!({"error": {"type": "service_unavailable", "message": "service down"}}),
    )
}

#[tokio::test]
async fn a_transient_failure_is_retried_and_the_success_returned() {
    let (outcome, seen, n_requests) = run(
        vec![unavailable(), Reply::json(200, text_completion("ok"))],
        go().with_retry(no_wait(2)),
    )
    .await;
    assert_eq!(outcome.unwrap().message, Message::assistant("ok"));
    assert_eq!(n_requests, 2);
    assert_eq!(
        (seen[0].index, seen[0].reason, seen[0].category),
        (0, None, Some(Category::Unavailable))
    );
    assert_eq!(
        (seen[1].index, seen[1].reason, seen[1].category),
        (1, Some(RetryReason::Transient), None)
    );
    assert_eq!(seen[1].total_tokens, Some(7));
}

#[tokio::test]
async fn exhaustion_propagates_the_last_error() {
    let (outcome, seen, n_requests) = run(
        vec![unavailable(), unavailable(), unavailable()],
        go().with_retry(no_wait(3)),
    )
    .await;
    assert_eq!(outcome.unwrap_err().category(), Category::Unavailable);
    assert_eq!((n_requests, seen.len()), (3, 3));
}

#[tokio::test]
async fn non_transient_errors_are_not_retried() {
    let reply = Reply::json(401, json!({"error": {"message": "bad key"}}));
    let (outcome, seen, n_requests) = run(vec![reply], go().with_retry(no_wait(3))).await;
    assert_eq!(outcome.unwrap_err().category(), Category::Authentication);
    assert_eq!((n_requests, seen.len()), (1, 1));
}

#[tokio::test]
async fn without_retry_a_transient_error_raises_at_once() {
    let (outcome, _, n_requests) =
        run(vec![unavailable(), Reply::json(200, text_completion("ok"))], go()).await;
    assert!(outcome.unwrap_err().is_unavailable());
    assert_eq!(n_requests, 1);
}

#[tokio::test]
async fn retry_after_is_honoured_up_to_the_cap() {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let recorded = waits.clone();
    let retry = no_wait(5)
        .with_retry_after_cap(Duration::from_millis(20))
        .with_on_retry(move |_, _, wait| recorded.lock().unwrap().push(wait));
    let limited = |value: &str| {
        Reply::json_with_header(429, "Retry-After", value, json!({"error": {"message": "slow"}}))
    };
    let replies = vec![
        limited("0.01"),
        limited("99999999"),
        limited("-4"),
        limited("garbage"),
        Reply::json(200, text_completion("ok")),
    ];
    let (outcome, _, n_requests) = run(replies, go().with_retry(retry)).await;
    outcome.unwrap();
    assert_eq!(n_requests, 5);
    let expected = [
        Duration::from_millis(10),
        Duration::from_millis(20),
        Duration::ZERO,
        Duration::ZERO,
    ];
    assert_eq!(*waits.lock().unwrap(), expected);
}

#[tokio::test]
async fn per_attempt_override_applies_to_retries_only_and_carries_forward() {
    let base = RuntimeConfig {
        temperature: Some(0.2),
        max_tokens: Some(50),
        ..Default::default()
    };
    let schedule = vec![
        RuntimeConfig {
            temperature: Some(0.7),
            ..Default::default()
        },
        RuntimeConfig {
            temperature: Some(1.0),
            ..Default::default()
        },
    ];
    let retry = no_wait(4).with_per_attempt_override(schedule);
    let request = go().with_config(base.clone()).with_retry(retry);
    let replies = vec![
        unavailable(),
        unavailable(),
        unavailable(),
        Reply::json(200, text_completion("ok")),
    ];
    let server = Server::start(replies).unwrap();
    let provider = support::openai_builder(&server, "test-model").build().unwrap();
    provider.complete(&request).await.unwrap();
    let temperatures: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| request.json().unwrap()["temperature"].clone())
        .collect();
    assert_eq!(temperatures, [json!(0.2), json!(0.7), json!(1.0), json!(1.0)]);
    assert!(
        server
            .requests()
            .iter()
            .all(|request| request.json().unwrap()["max_tokens"] == json!(50)),
        "unset override fields inherit"
    );
    assert_eq!(request.config, base, "the caller's config is untouched");
}

fn person_schema() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"], "additionalProperties": false})
}

fn person(content: &str) -> Reply {
    Reply::json(
        200,
        completion(json!({"role": "assistant", "content": content}), "stop"),
    )
}

#[tokio::test]
async fn reask_appends_the_model_output_and_the_callers_correction() {
    let retry = no_wait(2).with_reask(Reask::template(
        "Your previous output {output_content} was invalid. Return corrected JSON.",
    ));
    let request = CompletionRequest::new(vec![Message::user("Generate a person record.")])
        .with_response_schema(person_schema())
        .with_retry(retry);
    let caller_messages = request.messages.clone();
    let server = Server::start(vec![
        person("{\"name\":\"Alice\"}"),
        person("{\"name\":\"Alice\",\"age\":30}"),
    ])
    .unwrap();
    let provider = support::openai_builder(&server, "test-model").build().unwrap();
    let attempts = Arc::new(Attempts::default());
    let response = provider
        .complete(&request.clone().with_hook(attempts.clone()))
        .await
        .unwrap();
    assert_eq!(response.parsed, Some(json!({"name": "Alice", "age": 30})));
    assert_eq!(request.messages, caller_messages);
    let second = server.requests()[1].json().unwrap();
    assert_eq!(
        second["messages"],
        json!([
            {"role": "user", "content": "Generate a person record."},
            {"role": "assistant", "content": "{\"name\":\"Alice\"}"},
            {"role": "user", "content": "Your previous output {\"name\":\"Alice\"} was invalid. Return corrected JSON."}
        ])
    );
    let seen = attempts.0.lock().unwrap().clone();
    assert_eq!(
        (seen[0].category, seen[1].reason),
        (Some(Category::StructuredOutputInvalid), Some(RetryReason::Reask))
    );
    assert_eq!(
        seen[1].n_messages, 3,
        "the record holds the messages as reask extended them"
    );
    assert_eq!(
        seen[1].body.as_ref().unwrap()["messages"],
        second["messages"],
        "the record's body is the bytes sent"
    );
    assert_eq!(seen[0].path, Some(StructuredOutputPath::Native));
}

#[tokio::test]
async fn reask_accumulates_and_stops_at_the_budget_without_building_a_last_correction() {
    let n_built = Arc::new(Mutex::new(0));
    let counter = n_built.clone();
    let reask = Reask::from_fn(move |failure| {
        *counter.lock().unwrap() += 1;
        format!("fix: {}", failure.error_message)
    });
    let request = go()
        .with_response_schema(person_schema())
        .with_retry(no_wait(3).with_reask(reask));
    let replies = vec![
        person("{\"name\":\"A\"}"),
        person("{\"name\":\"B\"}"),
        person("{\"name\":\"C\"}"),
    ];
    let (outcome, seen, n_requests) = run(replies, request).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.category(), Category::StructuredOutputInvalid);
    assert_eq!(
        error.structured_output().unwrap().output_content,
        "{\"name\":\"C\"}"
    );
    assert_eq!(n_requests, 3);
    assert_eq!(
        *n_built.lock().unwrap(),
        2,
        "no correction is built after the last attempt"
    );
    assert_eq!(
        seen.iter().map(|seen| seen.n_messages).collect::<Vec<_>>(),
        [1, 3, 5]
    );
    assert!(
        seen[2].body.as_ref().unwrap()["messages"][2]["content"]
            .as_str()
            .unwrap()
            .contains("#/age")
    );
}

#[tokio::test]
async fn without_reask_structured_output_invalid_is_not_retried() {
    let request = go().with_response_schema(person_schema()).with_retry(no_wait(3));
    let (outcome, _, n_requests) =
        run(vec![person("{}"), person("{\"name\":\"A\",\"age\":1}")], request).await;
    assert_eq!(outcome.unwrap_err().category(), Category::StructuredOutputInvalid);
    assert_eq!(n_requests, 1);
}

#[tokio::test]
async fn a_transient_retry_between_reasks_appends_nothing() {
    let request = go()
        .with_response_schema(person_schema())
        .with_retry(no_wait(3).with_reask(Reask::template("again")));
    let replies = vec![person("{}"), unavailable(), person("{\"name\":\"A\",\"age\":1}")];
    let (outcome, seen, _) = run(replies, request).await;
    outcome.unwrap();
    assert_eq!(
        seen.iter().map(|seen| seen.n_messages).collect::<Vec<_>>(),
        [1, 3, 3]
    );
    assert_eq!(seen[1].reason, Some(RetryReason::Reask));
    assert_eq!(seen[2].reason, Some(RetryReason::Transient));
}

#[tokio::test]
async fn reask_and_override_compose() {
    let schedule = vec![RuntimeConfig {
        temperature: Some(0.9),
        ..Default::default()
    }];
    let retry = no_wait(2)
        .with_reask(Reask::template("again"))
        .with_per_attempt_override(schedule);
    let request = go().with_response_schema(person_schema()).with_retry(retry);
    let (outcome, seen, _) = run(vec![person("{}"), person("{\"name\":\"A\",\"age\":1}")], request).await;
    outcome.unwrap();
    assert_eq!((seen[0].temperature, seen[1].temperature), (None, Some(0.9)));
    assert_eq!(seen[1].n_messages, 3);
}

#[tokio::test]
async fn a_custom_classifier_decides() {
    let retry = no_wait(3).with_classifier(|error| error.category() == Category::Authentication);
    let replies = vec![
        Reply::json(401, json!({"error": {"message": "x"}})),
        Reply::json(200, text_completion("ok")),
    ];
    let (outcome, _, n_requests) = run(replies, go().with_retry(retry)).await;
    outcome.unwrap();
    assert_eq!(n_requests, 2);
}

/// A usage of `prompt` + `completion` tokens, as a body reports it.
fn billed(text: &str, prompt: u64, completion: u64) -> Reply {
    let mut body = text_completion(text);
    body["usage"] = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                           "total_tokens": prompt + completion});
    Reply::json(200, body)
}

fn object_schema() -> Value {
    json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
           "additionalProperties": false})
}

/// What a call cost is on its result: `usage` is the answering attempt's (the spec's figure), `usage_total` the
/// sum over every attempt, and `attempts` each attempt's usage, path, marker and outcome, as the hook saw them.
#[tokio::test]
async fn a_reasked_call_carries_its_total_usage_and_each_attempts() {
    let request = go()
        .with_response_schema(object_schema())
        .with_retry(no_wait(3).with_reask(Reask::template("fix: {error_message}")));
    let (outcome, seen, n_requests) = run(
        vec![
            billed("prose", 100, 7),
            unavailable(),
            billed(r#"{"a": 1}"#, 160, 5),
        ],
        request,
    )
    .await;
    let response = outcome.unwrap();
    assert_eq!(n_requests, 3);
    assert_eq!(response.usage.total_tokens, Some(165), "the answering attempt's");
    assert_eq!(response.usage_total.prompt_tokens, Some(260));
    assert_eq!(response.usage_total.completion_tokens, Some(12));
    assert_eq!(response.usage_total.total_tokens, Some(272));
    let usages: Vec<Option<u64>> = response
        .attempts
        .iter()
        .map(|attempt| attempt.usage.and_then(|usage| usage.total_tokens))
        .collect();
    assert_eq!(usages, [Some(107), None, Some(165)], "a 503 reports no usage");
    let hooked: Vec<Option<u64>> = seen.iter().map(|seen| seen.total_tokens).collect();
    assert_eq!(usages, hooked);
    let outcomes: Vec<oa_provider::model::AttemptOutcome> =
        response.attempts.iter().map(|attempt| attempt.outcome).collect();
    assert_eq!(
        outcomes,
        [
            oa_provider::model::AttemptOutcome::Failed {
                category: Category::StructuredOutputInvalid,
                failure_class: Some(oa_provider::model::FailureClass::NotJson)
            },
            oa_provider::model::AttemptOutcome::Failed {
                category: Category::Unavailable,
                failure_class: None
            },
            oa_provider::model::AttemptOutcome::Ok,
        ]
    );
    let modes: Vec<Option<oa_provider::SchemaMode>> = response
        .attempts
        .iter()
        .map(|attempt| attempt.schema_mode)
        .collect();
    assert_eq!(
        modes,
        [
            Some(oa_provider::SchemaMode::Unverified),
            Some(oa_provider::SchemaMode::UnverifiedRepaired),
            Some(oa_provider::SchemaMode::UnverifiedRepaired)
        ]
    );
    assert!(
        response
            .attempts
            .iter()
            .all(|attempt| attempt.sent
                && attempt.structured_output_path == Some(StructuredOutputPath::Native))
    );
}

/// A failed call carries the same account, and its marker: the schema_mode of the attempt that failed and the
/// call's schema_version.
#[tokio::test]
async fn a_failed_call_carries_its_total_usage_and_its_marker() {
    let request = go()
        .with_response_schema(object_schema())
        .with_retry(no_wait(2).with_reask(Reask::template("fix: {error_message}")));
    let (outcome, _, _) = run(
        vec![billed("prose", 100, 7), billed("still prose", 160, 5)],
        request,
    )
    .await;
    let error = outcome.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.usage.total_tokens, Some(165), "the last attempt's");
    assert_eq!(error.usage_total().total_tokens, Some(272));
    assert_eq!(error.attempts().len(), 2);
    assert_eq!(
        error.schema_mode(),
        Some(oa_provider::SchemaMode::UnverifiedRepaired)
    );
    assert_eq!(
        error.schema_version(),
        Some(oa_provider::enforcement::schema_version(&object_schema()).as_str())
    );
    // A call without a schema has no marker; one rejected before sending keeps its schema_version.
    let (plain, _, _) = run(vec![unavailable()], go()).await;
    let plain = plain.unwrap_err();
    assert_eq!((plain.schema_mode(), plain.schema_version()), (None, None));
    assert_eq!(plain.attempts().len(), 1);
    assert_eq!(plain.usage_total(), oa_provider::Usage::default());
    let rejected = CompletionRequest::new(Vec::new()).with_response_schema(object_schema());
    let (rejected, _, n_requests) = run(Vec::new(), rejected).await;
    let rejected = rejected.unwrap_err();
    assert_eq!(n_requests, 0);
    assert_eq!(rejected.schema_mode(), None, "nothing was sent");
    assert_eq!(
        rejected.schema_version(),
        Some(oa_provider::enforcement::schema_version(&object_schema()).as_str())
    );
    assert!(!rejected.attempts()[0].sent);
}
