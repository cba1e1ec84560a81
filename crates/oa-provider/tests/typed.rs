//! Typed structured output: the schema derived from a Rust type is strict-compatible, compiles, accepts every value
//! of the type, and `parsed_as` gives the value back; the cases that cannot go strict say so at their pointer.

#![cfg(feature = "schemars")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::HashMap;

use oa_provider::fuzzing::is_strict_compatible;
use oa_provider::model::ParsedAsError;
use oa_provider::{FinishReason, Message, Response, Usage, output_schema};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Status {
    Confirmed,
    Tentative,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Role {
    Speaker,
    Host,
    Guest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Site {
    name: String,
    floor: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Attendee {
    first_name: String,
    role: Role,
    email: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Event {
    title: String,
    status: Status,
    site: Option<Site>,
    attendees: Vec<Attendee>,
    tags: Option<Vec<Role>>,
    capacity: u32,
    ratio: f64,
    confirmed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Agenda {
    events: Vec<Event>,
    host: Option<Attendee>,
    note: Option<String>,
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::Speaker), Just(Role::Host), Just(Role::Guest)]
}

fn attendee() -> impl Strategy<Value = Attendee> {
    (
        "[a-zA-Zé ]{0,12}",
        role(),
        proptest::option::of("[a-z]{1,8}@[a-z]{1,8}\\.org"),
    )
        .prop_map(|(first_name, role, email)| Attendee {
            first_name,
            role,
            email,
        })
}

fn event() -> impl Strategy<Value = Event> {
    let status = prop_oneof![
        Just(Status::Confirmed),
        Just(Status::Tentative),
        Just(Status::Cancelled)
    ];
    let site = proptest::option::of(
        ("\\PC{0,10}", proptest::option::of(-3i32..40)).prop_map(|(name, floor)| Site { name, floor }),
    );
    (
        "\\PC{0,16}",
        status,
        site,
        proptest::collection::vec(attendee(), 0..4),
        proptest::option::of(proptest::collection::vec(role(), 0..3)),
        any::<u32>(),
        -1.0e6f64..1.0e6,
        any::<bool>(),
    )
        .prop_map(
            |(title, status, site, attendees, tags, capacity, ratio, confirmed)| Event {
                title,
                status,
                site,
                attendees,
                tags,
                capacity,
                ratio,
                confirmed,
            },
        )
}

fn agenda() -> impl Strategy<Value = Agenda> {
    (
        proptest::collection::vec(event(), 0..3),
        proptest::option::of(attendee()),
        proptest::option::of("\\PC{0,20}"),
    )
        .prop_map(|(events, host, note)| Agenda { events, host, note })
}

fn response_with(parsed: Value) -> Response {
    Response {
        message: Message::assistant(parsed.to_string()),
        finish_reason: FinishReason::Stop,
        usage: Usage::default(),
        parsed: Some(parsed),
        raw: Value::Null.into(),
        model: None,
        response_id: None,
        blocked: None,
        structured_output_path: None,
        schema_mode: None,
        schema_version: None,
        usage_total: Usage::default(),
        attempts: Vec::new(),
    }
}

/// Every check the issue asks of one type: strict, compiles, accepts `value`, reads back equal.
fn holds_for<T>(value: &T)
where
    T: JsonSchema + Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let output = output_schema::<T>();
    assert!(output.reasons.is_empty(), "{:?}", output.reasons);
    assert!(is_strict_compatible(&output.schema), "{}", output.schema);
    let validator = oa_schema::Validator::new(&output.schema).unwrap();
    let encoded = serde_json::to_value(value).unwrap();
    if let Err(violations) = validator.validate(&encoded) {
        panic!("{}\n{encoded}\n{}", violations.error_message(), output.schema);
    }
    let back: T = response_with(encoded).parsed_as().unwrap();
    assert_eq!(&back, value);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn derived_schemas_are_strict_and_round_trip_events(value in event()) {
        holds_for(&value);
    }

    #[test]
    fn derived_schemas_are_strict_and_round_trip_agendas(value in agenda()) {
        holds_for(&value);
    }

    #[test]
    fn derived_schemas_are_strict_and_round_trip_attendees(value in attendee()) {
        holds_for(&value);
    }
}

#[test]
fn optional_fields_become_required_unions_with_null_and_objects_close() {
    let schema = output_schema::<Site>().schema;
    assert_eq!(schema["title"], json!("Site"));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["required"], json!(["floor", "name"]));
    assert_eq!(schema["properties"]["floor"]["type"], json!(["integer", "null"]));
    // Nested types stay as $defs behind $ref, each closed.
    let agenda = output_schema::<Agenda>().schema;
    assert_eq!(agenda["$defs"]["Event"]["additionalProperties"], json!(false));
    assert_eq!(
        agenda["$defs"]["Attendee"]["required"],
        json!(["email", "first_name", "role"])
    );
    let events = &agenda["properties"]["events"]["items"]["$ref"];
    assert_eq!(events, &json!("#/$defs/Event"));
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Scores {
    by_name: HashMap<String, u32>,
    #[serde(default)]
    bonus: u32,
}

#[test]
fn a_map_with_free_keys_and_a_non_null_default_field_are_named_and_not_strict() {
    let output = output_schema::<Scores>();
    let pointers: Vec<&str> = output
        .reasons
        .iter()
        .map(|(pointer, _)| pointer.as_str())
        .collect();
    assert_eq!(
        pointers,
        ["/properties/bonus", "/properties/by_name/additionalProperties"],
        "{:?}",
        output.reasons
    );
    // The predicate agrees, so such a call goes native_unenforced and oa's validation still stands.
    assert!(!is_strict_compatible(&output.schema));
}

#[derive(Debug, Deserialize)]
struct Narrow {
    #[allow(dead_code)]
    count: u8,
}

#[test]
fn a_value_the_schema_passed_but_the_type_rejects_is_a_typed_error_at_its_location() {
    let error = response_with(json!({"count": 300}))
        .parsed_as::<Narrow>()
        .unwrap_err();
    match &error {
        ParsedAsError::Deserialize { location, message } => {
            assert_eq!(location, "/count");
            // serde's own words (with exact numbers on, serde_json says "invalid number" for an out-of-range one).
            assert!(!message.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("#/count"), "{error}");
    let mut no_value = response_with(json!({}));
    no_value.parsed = None;
    assert_eq!(
        no_value.parsed_as::<Narrow>().unwrap_err(),
        ParsedAsError::NoValue
    );
}

/// Against a local server: the body carries T's derived strict schema with `strict: true` under T's name; an
/// answer missing a required field fails naming that field at its pointer; the reask's answer comes back as T.
#[tokio::test]
async fn with_output_sends_the_strict_schema_and_returns_the_type_after_a_reask() {
    use oa_provider::retry::Backoff;
    use oa_provider::{CompletionRequest, Provider, Reask, RetryConfig};
    use oa_testkit::Server;
    use oa_testkit::openai::text_reply;

    let server = Server::start(vec![
        text_reply(r#"{"name": "Hall B"}"#, "stop"),
        text_reply(r#"{"name": "Hall B", "floor": 2}"#, "stop"),
    ])
    .unwrap();
    let provider = support::openai_builder(&server, "test-model").build().unwrap();
    let request = CompletionRequest::new(vec![Message::user("Where?")]).with_output::<Site>();
    let error = provider.complete(&request).await.unwrap_err();
    let failure = error.structured_output().expect("structured_output_invalid");
    let missing: Vec<String> = failure
        .violations()
        .unwrap()
        .iter()
        .map(|violation| violation.instance_location().to_fragment())
        .collect();
    assert_eq!(missing, ["#/floor"], "{}", failure.error_message);
    assert!(
        failure.error_message.contains("\"floor\""),
        "{}",
        failure.error_message
    );
    let sent = server.requests()[0].json().unwrap();
    let format = &sent["response_format"]["json_schema"];
    assert_eq!(format["strict"], json!(true));
    assert_eq!(format["name"], json!("Site"));
    assert_eq!(format["schema"], output_schema::<Site>().schema);

    let server = Server::start(vec![
        text_reply(r#"{"name": "Hall B"}"#, "stop"),
        text_reply(r#"{"name": "Hall B", "floor": 2}"#, "stop"),
    ])
    .unwrap();
    let provider = support::openai_builder(&server, "test-model").build().unwrap();
    let request = request.with_retry(
        RetryConfig::new(2)
            .with_backoff(Backoff::Fixed(std::time::Duration::ZERO))
            .with_reask(Reask::template("{error_message}")),
    );
    let site: Site = provider.complete(&request).await.unwrap().parsed_as().unwrap();
    assert_eq!(
        site,
        Site {
            name: "Hall B".into(),
            floor: Some(2)
        }
    );
}
