//! `complete_as`, the typed call, over a real socket: the content read into the caller's type on the typed route
//! (no `Value` built), repaired by reask when invalid, a value that passes the schema but not the type reported
//! with its location, and a schema outside the streaming plan served by the parse-and-validate route.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::openai_at as provider;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use oa_provider::enforcement::{CapabilityKey, CapabilityRegistry, RoutedProvider};
use oa_provider::model::ParsedAsError;
use oa_provider::{
    AttemptHook, AttemptRecord, CallExtras, Category, CompleteAsError, CompletionRequest, Message,
    OpenAiProvider, Provider, ProviderError, Reask, Response, SchemaMode, StructuredOutputPath, complete_as,
};
use oa_testkit::openai::text_reply;
use oa_testkit::{Reply, Server};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, PartialEq)]
struct Answer {
    city: String,
    population: u32,
    note: Option<String>,
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "population": {"type": "integer", "minimum": 0},
            "note": {"type": ["string", "null"]}
        },
        "required": ["city", "population", "note"],
        "additionalProperties": false
    })
}

fn request(schema: Value) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("Paris?")]).with_response_schema(schema)
}

fn reasking(request: CompletionRequest) -> CompletionRequest {
    request.with_retry(support::no_wait(2).with_reask(Reask::template("{error_message}")))
}

#[tokio::test]
async fn a_valid_answer_is_read_into_the_type_without_a_value() {
    let content = r#"{"city": "Paris", "population": 2102650, "note": null}"#;
    let server = Server::start(vec![text_reply(content, "stop")]).unwrap();
    let typed = complete_as::<Answer>(&provider(&server), &request(schema()))
        .await
        .unwrap();
    assert_eq!(
        typed.value,
        Answer {
            city: "Paris".to_owned(),
            population: 2_102_650,
            note: None
        }
    );
    assert_eq!(typed.response.parsed, None, "the typed route builds no Value");
    assert_eq!(typed.response.message.text().as_deref(), Some(content));
    // Telemetry is that of any structured call.
    assert_eq!(
        typed.response.structured_output_path,
        Some(StructuredOutputPath::Native)
    );
    assert_eq!(typed.response.schema_mode, Some(SchemaMode::Unverified));
    assert!(typed.response.schema_version.is_some());
    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["response_format"]["json_schema"]["strict"], json!(true));
}

#[tokio::test]
async fn the_same_call_made_with_complete_reports_the_same_telemetry() {
    let content = r#"{"city": "Paris", "population": 1, "note": "x"}"#;
    let server = Server::start(vec![text_reply(content, "stop"), text_reply(content, "stop")]).unwrap();
    let provider = provider(&server);
    let typed = complete_as::<Answer>(&provider, &request(schema()))
        .await
        .unwrap();
    let plain = oa_provider::Provider::complete(&provider, &request(schema()))
        .await
        .unwrap();
    assert_eq!(
        typed.response.structured_output_path,
        plain.structured_output_path
    );
    assert_eq!(typed.response.schema_mode, plain.schema_mode);
    assert_eq!(typed.response.schema_version, plain.schema_version);
    assert_eq!(plain.parsed_as::<Answer>().unwrap(), typed.value);
    let [first, second] = &server.requests()[..] else {
        panic!("two requests")
    };
    assert_eq!(first.body, second.body, "the typed call sends the same bytes");
}

#[tokio::test]
async fn an_invalid_answer_fails_with_every_violation_and_is_repaired_by_reask() {
    let server = Server::start(vec![
        text_reply(r#"{"city": "", "population": -1, "note": null}"#, "stop"),
        text_reply(r#"{"city": "Paris", "population": 3, "note": null}"#, "stop"),
    ])
    .unwrap();
    let typed = complete_as::<Answer>(&provider(&server), &reasking(request(schema())))
        .await
        .unwrap();
    assert_eq!(typed.value.population, 3);
    assert_eq!(typed.response.schema_mode, Some(SchemaMode::UnverifiedRepaired));
    // The reask carried the full report of the first answer.
    let reask = server.requests()[1].json().unwrap();
    let correction = reask["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        correction.contains("#/city") && correction.contains("#/population"),
        "{correction}"
    );

    // Without reask, the failure carries every violation.
    let server = Server::start(vec![text_reply(
        r#"{"city": "", "population": -1, "note": null}"#,
        "stop",
    )])
    .unwrap();
    let err = complete_as::<Answer>(&provider(&server), &request(schema()))
        .await
        .unwrap_err();
    let CompleteAsError::Provider(err) = err else {
        panic!("{err:?}")
    };
    assert_eq!(err.category(), Category::StructuredOutputInvalid);
    let violations = err
        .structured_output()
        .and_then(|failure| failure.problem().violations().cloned())
        .unwrap();
    assert_eq!(violations.len(), 2);
}

#[tokio::test]
async fn a_value_valid_for_the_schema_but_not_the_type_names_its_location() {
    // The schema allows any integer; the type wants a u32.
    let loose = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "population": {"type": "integer"},
            "note": {"type": ["string", "null"]}
        },
        "required": ["city", "population", "note"],
        "additionalProperties": false
    });
    let server = Server::start(vec![text_reply(
        r#"{"city": "Paris", "population": -5, "note": null}"#,
        "stop",
    )])
    .unwrap();
    let err = complete_as::<Answer>(&provider(&server), &request(loose))
        .await
        .unwrap_err();
    let CompleteAsError::Parsed(ParsedAsError::Deserialize { location, message }) = err else {
        panic!("{err:?}")
    };
    assert_eq!(location, "/population");
    assert!(!message.is_empty());
}

/// A root under `anyOf` has no container plan (a union needs the value to pick a member): the typed route reads it whole into a value and checks it there (so a
/// valid answer is still decided without the parse-and-validate route), and an invalid one takes that route for its
/// report, which the reask carries.
#[tokio::test]
async fn a_schema_outside_the_streaming_plan_is_read_whole_and_an_invalid_answer_reported() {
    let unplanned = json!({
        "type": "object",
        "anyOf": [{"required": ["city"]}],
        "properties": {"city": {"type": "string"}, "population": {"type": "integer"}, "note": {"type": ["string", "null"]}},
        "required": ["population", "note"]
    });
    let server = Server::start(vec![
        text_reply(r#"{"population": 1, "note": null}"#, "stop"),
        text_reply(r#"{"city": "Paris", "population": 1, "note": null}"#, "stop"),
    ])
    .unwrap();
    let typed = complete_as::<Answer>(&provider(&server), &reasking(request(unplanned)))
        .await
        .unwrap();
    assert_eq!(typed.value.city, "Paris");
    // Where serde_json shows numbers as digits (`arbitrary_precision`, which features unify: oa-cli turns it on in a
    // workspace build), such a container falls back to the parse-and-validate route, which keeps the value.
    let keeps_digits = "1.10"
        .parse::<serde_json::Number>()
        .is_ok_and(|number| number.to_string() == "1.10");
    assert_eq!(
        typed.response.parsed.is_some(),
        keeps_digits,
        "decided on the typed route (no value kept) unless numbers keep their digits"
    );
    assert_eq!(typed.response.schema_mode, Some(SchemaMode::UnenforcedRepaired));
    // The reask's last message names the violation the first answer's report held.
    let reask = server.requests()[1].json().unwrap();
    let last = reask["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .unwrap()
        .to_string();
    assert!(last.contains("city"), "{last}");
}

#[tokio::test]
async fn a_call_without_a_value_says_so() {
    let server = Server::start(vec![Reply::json(
        200,
        oa_testkit::openai::text_completion("plain text"),
    )])
    .unwrap();
    let plain = CompletionRequest::new(vec![Message::user("hi")]);
    let err = complete_as::<Answer>(&provider(&server), &plain)
        .await
        .unwrap_err();
    assert!(
        matches!(err, CompleteAsError::Parsed(ParsedAsError::NoValue)),
        "{err:?}"
    );
}

/// The speed bench's large schema (issue 24): the typed route plans every container of it, so a valid answer never
/// falls back to building a `Value`.
#[tokio::test]
async fn the_benchs_large_schema_is_planned_whole() {
    let schema: Value = serde_json::from_str(include_str!("../benches/speed/large_schema.json")).unwrap();
    let validator = oa_schema::Validator::new(&schema).unwrap();
    assert!(validator.streams_every_container());
    let item = |i: usize| {
        json!({"sku": format!("SKU-{:06}", 100_000 + i), "description": "a widget", "quantity": 1 + i % 7,
               "unit_price": 19.5 + i as f64, "category": "service", "tags": ["bulk"],
               "discount": if i.is_multiple_of(2) { json!(0.1) } else { Value::Null }})
    };
    let address =
        json!({"street": "12 rue de Rivoli", "city": "Paris", "postcode": "75001", "country": "FR"});
    let answer = json!({
        "order_id": "PO-004217",
        "customer": {"name": "Ada", "email": "ada@example.com", "tier": "pro", "billing": address, "shipping": address},
        "items": [item(0), item(1), item(2)],
        "priority": "high",
        "notes": null,
        "totals": {"subtotal": 12_345.5, "tax": 2_469.1, "total": 14_814.6, "currency": "EUR"}
    })
    .to_string();
    assert_eq!(
        validator.deserialize_str::<Value>(&answer).unwrap(),
        oa_schema::parse_json(&answer).unwrap()
    );
    let server = Server::start(vec![text_reply(&answer, "stop")]).unwrap();
    let typed = complete_as::<Value>(&provider(&server), &request(schema))
        .await
        .unwrap();
    assert_eq!(typed.response.parsed, None, "decoded on the typed route");
    assert_eq!(typed.value["items"][1]["unit_price"], json!(20.5));
}

/// A wrapper that knows only `complete`: `complete_as` reaches it through the trait's default `complete_with`,
/// which copies the request to set the decoder, so the typed route still runs.
#[derive(Debug)]
struct OnlyComplete(OpenAiProvider);

#[async_trait::async_trait]
impl Provider for OnlyComplete {
    async fn ready(&self) -> Result<(), ProviderError> {
        self.0.ready().await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        self.0.complete(request).await
    }
}

const PARIS: &str = r#"{"city": "Paris", "population": 2102650, "note": null}"#;

fn assert_typed_route(typed: &oa_provider::Typed<Answer>) {
    assert_eq!(typed.value.city, "Paris");
    assert_eq!(typed.response.parsed, None, "decoded on the typed route");
}

#[tokio::test]
async fn a_provider_that_only_implements_complete_still_gets_the_decoder() {
    let server = Server::start(vec![text_reply(PARIS, "stop")]).unwrap();
    let typed = complete_as::<Answer>(&OnlyComplete(provider(&server)), &request(schema()))
        .await
        .unwrap();
    assert_typed_route(&typed);
}

#[tokio::test]
async fn a_router_passes_the_decoder_on_to_the_native_and_the_degraded_route() {
    for routing in [false, true] {
        let native = Server::start(vec![text_reply(PARIS, "stop")]).unwrap();
        let prompted = Server::start(vec![text_reply(PARIS, "stop")]).unwrap();
        let router = RoutedProvider::new(
            Arc::new(provider(&native)),
            Arc::new(provider(&prompted)),
            Arc::new(CapabilityRegistry::new()),
            CapabilityKey::new("openai", "test-model", native.base_url()),
        )
        .with_routing(routing);
        let typed = complete_as::<Answer>(&router, &request(schema())).await.unwrap();
        assert_typed_route(&typed);
        // Routing off sends natively; on, an unverified route degrades to the prompt path.
        let (sent, idle) = if routing {
            (&prompted, &native)
        } else {
            (&native, &prompted)
        };
        assert_eq!(sent.requests().len(), 1, "routing {routing}");
        assert!(idle.requests().is_empty(), "routing {routing}");
    }
}

/// Counts the attempts it sees.
#[derive(Default)]
struct Attempts(AtomicUsize);

impl AttemptHook for Attempts {
    fn on_attempt(&self, _: &AttemptRecord<'_>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn call_extras_take_the_place_of_the_requests_own_hook_and_decoder_only_when_set() {
    let server = Server::start(vec![text_reply(PARIS, "stop"), text_reply(PARIS, "stop")]).unwrap();
    let provider = provider(&server);
    let own = Arc::new(Attempts::default());
    let passed = Arc::new(Attempts::default());
    let request = request(schema()).with_hook(Arc::clone(&own) as Arc<dyn AttemptHook>);
    let extras = CallExtras::default().with_hook(Arc::clone(&passed) as Arc<dyn AttemptHook>);
    let response = provider.complete_with(&request, &extras).await.unwrap();
    assert_eq!(
        (own.0.load(Ordering::SeqCst), passed.0.load(Ordering::SeqCst)),
        (0, 1)
    );
    assert!(
        response.parsed.is_some(),
        "no decoder anywhere: parse and validate"
    );
    let response = provider.complete_with(&request, &CallExtras::NONE).await.unwrap();
    assert_eq!(
        (own.0.load(Ordering::SeqCst), passed.0.load(Ordering::SeqCst)),
        (1, 1)
    );
    assert!(response.parsed.is_some());
}
