//! Schema enforcement over a real socket with a scripted server: schema_mode and schema_version on every
//! structured result, canary and keyword-probe verdicts, failure classes of real failures, and routing on the
//! capability registry (issue 9).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use oa_provider::enforcement::{
    CapabilityKey, CapabilityRegistry, ProbeOutcome, RoutedProvider, probe_canary, probe_keywords,
    schema_version,
};
use oa_provider::enforcement::{ProbeKind, keyword_probe};
use oa_provider::model::FailureClass;
use oa_provider::{
    AttemptHook, AttemptRecord, CallExtras, Category, CompletionRequest, Message, OpenAiProvider,
    OpenAiProviderBuilder, Provider, Reask, SchemaMode, StructuredOutputPath,
};
use oa_testkit::openai::text_completion;
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};

fn provider_builder_at(server: &Server, native: bool) -> OpenAiProviderBuilder {
    support::openai_builder(server, "test-model").capabilities(support::native(native))
}

fn provider_at(server: &Server, native: bool) -> OpenAiProvider {
    provider_builder_at(server, native).build().unwrap()
}

fn strict_schema() -> Value {
    json!({"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"], "additionalProperties": false})
}

fn loose_schema() -> Value {
    json!({"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]})
}

fn ask(schema: Value) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("Give a value.")]).with_response_schema(schema)
}

fn with_reask(request: CompletionRequest) -> CompletionRequest {
    request.with_retry(support::no_wait(2).with_reask(Reask::template("Fix: {error_message}")))
}

/// A registry holding a fresh canary verdict (`enforces`) for the route of `server`'s provider.
fn registry_with(server: &Server, enforces: bool) -> Arc<CapabilityRegistry> {
    let registry = Arc::new(CapabilityRegistry::new());
    let key = CapabilityKey::new("openai", "test-model", server.base_url());
    let capability = support::fresh_canary(enforces);
    registry.record(key, capability).unwrap();
    registry
}

/// The schema_mode and schema_version of one call: `native` declares the native capability, `verdict` puts a
/// fresh registry verdict for the route in a registry the provider reads (`None`: no registry).
async fn mode_of(
    native: bool,
    verdict: Option<bool>,
    schema: Value,
    replies: Vec<&str>,
    reask: bool,
) -> (Option<SchemaMode>, String) {
    let replies = replies
        .into_iter()
        .map(|text| Reply::json(200, text_completion(text)))
        .collect::<Vec<_>>();
    let server = Server::start(replies).unwrap();
    let request = ask(schema.clone());
    let request = if reask { with_reask(request) } else { request };
    let provider = match verdict {
        None => provider_at(&server, native),
        Some(enforces) => provider_builder_at(&server, native)
            .registry(registry_with(&server, enforces))
            .build()
            .unwrap(),
    };
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(
        response.schema_version.as_deref(),
        Some(schema_version(&schema).as_str())
    );
    (response.schema_mode, response.schema_version.unwrap())
}

#[tokio::test]
async fn schema_mode_names_the_path_the_verdict_and_the_repair() {
    let repaired = vec!["{\"value\":\"x\"}", "{\"value\":1}"];
    let cases = [
        // Native strict: enforced only on a fresh enforcing verdict; no registry, or a negative verdict, is
        // unverified.
        (
            true,
            None,
            strict_schema(),
            vec!["{\"value\":1}"],
            false,
            SchemaMode::Unverified,
        ),
        (
            true,
            None,
            strict_schema(),
            repaired.clone(),
            true,
            SchemaMode::UnverifiedRepaired,
        ),
        (
            true,
            Some(true),
            strict_schema(),
            vec!["{\"value\":1}"],
            false,
            SchemaMode::Enforced,
        ),
        (
            true,
            Some(true),
            strict_schema(),
            repaired.clone(),
            true,
            SchemaMode::EnforcedRepaired,
        ),
        (
            true,
            Some(false),
            strict_schema(),
            vec!["{\"value\":1}"],
            false,
            SchemaMode::Unverified,
        ),
        // Native loose (strict: false) never asked for enforcement, whatever the registry says.
        (
            true,
            Some(true),
            loose_schema(),
            vec!["{\"value\":1}"],
            false,
            SchemaMode::Unenforced,
        ),
        (
            true,
            None,
            loose_schema(),
            vec!["nope", "{\"value\":1}"],
            true,
            SchemaMode::UnenforcedRepaired,
        ),
        (
            false,
            Some(true),
            strict_schema(),
            vec!["{\"value\":1}"],
            false,
            SchemaMode::Prompted,
        ),
        (
            false,
            None,
            strict_schema(),
            vec!["```json\n{\"value\":1}\n```", "{\"value\":1}"],
            true,
            SchemaMode::PromptedRepaired,
        ),
        // Reask configured but not needed: not a repair.
        (
            false,
            None,
            strict_schema(),
            vec!["{\"value\":1}"],
            true,
            SchemaMode::Prompted,
        ),
    ];
    for (native, verdict, schema, replies, reask, want) in cases {
        let (mode, _) = mode_of(native, verdict, schema, replies, reask).await;
        assert_eq!(
            mode,
            Some(want),
            "native {native}, verdict {verdict:?}, reask {reask}"
        );
    }
}

#[tokio::test]
async fn no_schema_no_marker() {
    let server = Server::start(vec![Reply::json(200, text_completion("hello"))]).unwrap();
    let request = CompletionRequest::new(vec![Message::user("Hi.")]);
    let response = provider_at(&server, true).complete(&request).await.unwrap();
    assert_eq!(response.schema_mode, None);
    assert_eq!(response.schema_version, None);
}

#[tokio::test]
async fn schema_version_ignores_key_order_and_matches_the_schema_sent() {
    let one: Value = serde_json::from_str(
        r#"{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{"type":"integer"}}}"#,
    )
    .unwrap();
    let two: Value = serde_json::from_str(
        r#"{"properties":{"value":{"type":"integer"}},"additionalProperties":false,"type":"object","required":["value"]}"#,
    )
    .unwrap();
    let (_, version_one) = mode_of(true, None, one, vec!["{\"value\":1}"], false).await;
    let server = Server::start(vec![Reply::json(200, text_completion("{\"value\":1}"))]).unwrap();
    let response = provider_at(&server, true).complete(&ask(two)).await.unwrap();
    assert_eq!(response.schema_version.as_deref(), Some(version_one.as_str()));
    // The digest is of the schema in the wire body.
    let sent = &server.requests()[0].json().unwrap()["response_format"]["json_schema"]["schema"];
    assert_eq!(schema_version(sent), version_one);
}

#[tokio::test]
async fn canary_verdicts_from_each_kind_of_answer() {
    let server = Server::start(vec![
        Reply::json(200, text_completion("{\"answer\":\"seventeen\"}")),
        Reply::json(200, text_completion("4")),
        Reply::json(200, text_completion("{\"answer\":\"four\"}")),
        Reply::json(401, json!({"error": {"message": "bad key"}})),
    ])
    .unwrap();
    let provider = provider_at(&server, true);
    assert_eq!(probe_canary(&provider).await, ProbeOutcome::Enforced);
    let sent = server.requests()[0].json().unwrap();
    assert_eq!(sent["response_format"]["json_schema"]["strict"], json!(true));
    assert_eq!(sent["max_tokens"], json!(48));
    assert_eq!(
        sent["messages"][0]["content"],
        json!("What is two plus two? Answer with the number.")
    );
    assert_eq!(
        probe_canary(&provider).await,
        ProbeOutcome::NotEnforced {
            content: "4".into(),
            path: Some(StructuredOutputPath::Native)
        }
    );
    assert_eq!(probe_canary(&provider).await.verdict(), "not_enforced");
    match probe_canary(&provider).await {
        ProbeOutcome::Error { category, .. } => assert_eq!(category, Category::Authentication),
        other => panic!("expected an error verdict, got {other:?}"),
    }
    let json = serde_json::to_value(ProbeOutcome::NotEnforced {
        content: "4".into(),
        path: Some(StructuredOutputPath::Native),
    })
    .unwrap();
    assert_eq!(
        json,
        json!({"verdict": "not_enforced", "content": "4", "path": "native"})
    );
}

#[tokio::test]
async fn a_valid_canary_on_the_prompt_path_is_not_enforcement() {
    let server = Server::start(vec![Reply::json(
        200,
        text_completion("{\"answer\":\"seventeen\"}"),
    )])
    .unwrap();
    let outcome = probe_canary(&provider_at(&server, false)).await;
    assert_eq!(
        outcome,
        ProbeOutcome::NotEnforced {
            content: "{\"answer\":\"seventeen\"}".into(),
            path: Some(StructuredOutputPath::PromptAugmentation)
        }
    );
}

#[tokio::test]
async fn the_keyword_matrix_has_a_row_per_keyword_used() {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"type": "integer", "maximum": 3}, "tag": {"enum": ["a"]}},
        "required": ["n"],
        "additionalProperties": false
    });
    // enum, maximum, required, additionalProperties, type: enforced, broken, enforced, broken, enforced.
    let server = Server::start(vec![
        Reply::json(200, text_completion("{\"answer\":\"seventeen\"}")),
        Reply::json(200, text_completion("{\"answer\":4}")),
        Reply::json(200, text_completion("{\"answer\":4,\"zebra\":\"z\"}")),
        Reply::json(200, text_completion("{\"answer\":4,\"explanation\":\"x\"}")),
        Reply::json(200, text_completion("{\"answer\":1}")),
    ])
    .unwrap();
    let matrix = probe_keywords(&provider_at(&server, true), &schema).await;
    let rows: Vec<(&str, &str)> = matrix
        .rows
        .iter()
        .map(|(keyword, outcome)| (keyword.as_str(), outcome.verdict()))
        .collect();
    assert_eq!(
        rows,
        [
            ("enum", "enforced"),
            ("maximum", "not_enforced"),
            ("required", "enforced"),
            ("additionalProperties", "not_enforced"),
            ("type", "enforced")
        ]
    );
    assert!(!matrix.is_all_enforced());
    assert!(!matrix.has_error());
    let sent: Vec<Value> = server
        .requests()
        .iter()
        .map(|captured| captured.json().unwrap())
        .collect();
    assert_eq!(
        sent[1]["response_format"]["json_schema"]["schema"],
        keyword_probe("maximum").unwrap().schema
    );
}

#[tokio::test]
async fn real_failures_classify_by_their_content() {
    let cases = [
        ("Four.", FailureClass::NotJson),
        ("```json\n{\"value\":1}\n```", FailureClass::FencedJson),
        ("[1]", FailureClass::NonObject),
        ("{\"value\":1,\"more\":2}", FailureClass::ExtraKey),
        ("{\"value\":\"one\"}", FailureClass::TypeMismatch),
        ("{}", FailureClass::MissingRequired),
    ];
    for (content, want) in cases {
        let server = Server::start(vec![Reply::json(200, text_completion(content))]).unwrap();
        let error = provider_at(&server, true)
            .complete(&ask(strict_schema()))
            .await
            .unwrap_err();
        let failure = error.structured_output().expect("a structured-output failure");
        assert_eq!(failure.failure_class(), want, "content {content:?}");
    }
}

/// A router whose native provider reads the same registry the router routes on.
fn router(native: &Server, prompted: &Server, registry: &Arc<CapabilityRegistry>) -> RoutedProvider {
    let native_provider = provider_builder_at(native, true)
        .registry(Arc::clone(registry))
        .build()
        .unwrap();
    RoutedProvider::new(
        Arc::new(native_provider),
        Arc::new(provider_at(prompted, false)),
        Arc::clone(registry),
        CapabilityKey::new("openai", "test-model", native.base_url()),
    )
}

#[tokio::test]
async fn routing_is_opt_in_and_unverified_routes_degrade_to_the_prompt_path() {
    let native = Server::start(vec![
        Reply::json(200, text_completion("{\"value\":1}")),
        Reply::json(200, text_completion("{\"value\":2}")),
    ])
    .unwrap();
    let prompted = Server::start(vec![
        Reply::json(200, text_completion("oops")),
        Reply::json(200, text_completion("{\"value\":3}")),
    ])
    .unwrap();
    let registry = Arc::new(CapabilityRegistry::new());
    // Routing off: native, whatever the registry says; with no verdict, unverified.
    let response = router(&native, &prompted, &registry)
        .complete(&ask(strict_schema()))
        .await
        .unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::Unverified));
    // Routing on, no entry: the prompt path, at temperature 0, repaired once.
    let routed = router(&native, &prompted, &registry).with_routing(true);
    assert!(!routed.routes_natively().await);
    let response = routed.complete(&ask(strict_schema())).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 3})));
    assert_eq!(response.schema_mode, Some(SchemaMode::PromptedRepaired));
    let first = prompted.requests()[0].json().unwrap();
    assert_eq!(first["temperature"], json!(0.0));
    assert!(first.get("response_format").is_none());
    // A fresh positive entry sends it natively.
    registry
        .record(routed.key().clone(), support::fresh_canary(true))
        .unwrap();
    let response = routed.complete(&ask(strict_schema())).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 2})));
    assert_eq!(response.schema_mode, Some(SchemaMode::Enforced));
}

/// Counts the attempt records it receives.
#[derive(Default)]
struct CountAttempts(std::sync::atomic::AtomicUsize);

impl AttemptHook for CountAttempts {
    fn on_attempt(&self, _record: &AttemptRecord<'_>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

#[tokio::test]
async fn a_router_passes_the_hook_beside_the_request_on_either_route() {
    let native = Server::start(vec![Reply::json(200, text_completion("{\"value\":1}"))]).unwrap();
    let prompted = Server::start(vec![
        Reply::json(200, text_completion("oops")),
        Reply::json(200, text_completion("{\"value\":3}")),
    ])
    .unwrap();
    let registry = Arc::new(CapabilityRegistry::new());
    let own = Arc::new(CountAttempts::default());
    let request = ask(strict_schema()).with_hook(Arc::clone(&own) as Arc<dyn AttemptHook>);
    // Routing off: the native route, one attempt.
    let beside = Arc::new(CountAttempts::default());
    let hook: Arc<dyn AttemptHook> = beside.clone();
    let response = router(&native, &prompted, &registry)
        .complete_with(&request, &CallExtras::default().with_hook(Arc::clone(&hook)))
        .await
        .unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 1})));
    assert_eq!(beside.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    // Routing on, no verdict: the degraded route, repaired once: two attempts.
    let beside = Arc::new(CountAttempts::default());
    let hook: Arc<dyn AttemptHook> = beside.clone();
    let response = router(&native, &prompted, &registry)
        .with_routing(true)
        .complete_with(&request, &CallExtras::default().with_hook(Arc::clone(&hook)))
        .await
        .unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::PromptedRepaired));
    assert_eq!(beside.0.load(std::sync::atomic::Ordering::Relaxed), 2);
    assert_eq!(
        own.0.load(std::sync::atomic::Ordering::Relaxed),
        0,
        "the request's own hook is replaced"
    );
}

#[tokio::test]
async fn sampled_canaries_feed_the_registry() {
    // Call 1 carries a canary (enforced), call 2 does not, call 3 carries one again (not enforced).
    let native = Server::start(vec![
        Reply::json(200, text_completion("{\"answer\":\"seventeen\"}")),
        Reply::json(200, text_completion("{\"value\":1}")),
        Reply::json(200, text_completion("{\"value\":2}")),
        Reply::json(200, text_completion("4")),
        Reply::json(200, text_completion("{\"value\":3}")),
    ])
    .unwrap();
    let prompted = Server::start(vec![Reply::json(200, text_completion("{\"value\":9}"))]).unwrap();
    let registry = Arc::new(CapabilityRegistry::new());
    let routed = router(&native, &prompted, &registry)
        .with_routing(true)
        .with_sampled_canary(2);
    let key = routed.key().clone();
    let first = routed.complete(&ask(strict_schema())).await.unwrap();
    assert_eq!(first.parsed, Some(json!({"value": 1})));
    let entry = registry.get(&key).expect("the canary recorded an entry");
    assert!(entry.enforces);
    assert_eq!(entry.probe, ProbeKind::Canary);
    let second = routed.complete(&ask(strict_schema())).await.unwrap();
    assert_eq!(second.parsed, Some(json!({"value": 2})));
    // The third call's canary says not enforced, so the call itself degrades to the prompt path.
    let third = routed.complete(&ask(strict_schema())).await.unwrap();
    assert_eq!(third.parsed, Some(json!({"value": 9})));
    assert_eq!(third.schema_mode, Some(SchemaMode::Prompted));
    assert!(!registry.get(&key).unwrap().enforces);
    assert_eq!(
        native.requests().len(),
        4,
        "two canaries and two calls went to the native route"
    );
}
