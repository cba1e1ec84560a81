//! Any schema, any provider (issue 36) through the call path, over a real socket: a declared draft honoured in
//! validation and the reask, the request's schema options (resources, default draft) part of what compiles it, a
//! schema that refers to other documents sent as its bundle, fitting opt-in with the answer mapped back, the account
//! of unenforced clauses on every attempt record, a rejected schema taking the mapping's fallback (or, fitted,
//! refitted once), and `schema_mode` `enforced` only with an empty account and a covering verdict.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::SystemTime;

use oa_provider::enforcement::{Capability, KeywordSet, ProbeKind};
use oa_provider::enforcement::{CapabilityRegistry, schema_version};
use oa_provider::fit::{Fallback, Reason, SchemaAccount, SchemaForm, native_schema};
use oa_provider::retry::Backoff;
use oa_provider::{
    AnthropicProvider, Category, CompletionRequest, Mapping, Message, OpenAiProvider, Provider, Reask,
    RetryConfig, SchemaMode, StructuredOutputPath, complete_as,
};
use oa_schema::{Draft, Validator};
use oa_testkit::vendor::Vendor;
use oa_testkit::{Reply, Request, Responder, Script, Server};
use serde_json::{Value, json};

/// What one attempt record said about its schema: its path, marker and account.
type Said = (
    Option<StructuredOutputPath>,
    Option<SchemaMode>,
    Option<Arc<SchemaAccount>>,
);

/// What each attempt record said about its schema.
type Accounts = support::Recorded<Said>;

impl Accounts {
    fn of_schema() -> Self {
        Self::new(|record| {
            (
                record.structured_output_path,
                record.schema_mode,
                record.schema_account.clone(),
            )
        })
    }

    fn last(&self) -> Arc<SchemaAccount> {
        self.seen().last().unwrap().2.clone().unwrap()
    }

    fn len(&self) -> usize {
        self.seen().len()
    }
}

fn ask(schema: Value) -> CompletionRequest {
    let config = oa_provider::RuntimeConfig {
        max_tokens: Some(256),
        ..oa_provider::RuntimeConfig::default()
    };
    CompletionRequest::new(vec![Message::user("Answer.")])
        .with_response_schema(schema)
        .with_config(config)
}

fn openai(server: &Server) -> OpenAiProvider {
    support::openai_builder(server, "m").build().unwrap()
}

fn anthropic(server: &Server) -> AnthropicProvider {
    AnthropicProvider::builder("m")
        .base_url(server.base_url())
        .no_api_key()
        .build()
        .unwrap()
}

/// The (pointer, keyword, reason) triples of an account.
fn triples(account: &SchemaAccount) -> Vec<(String, String, Reason)> {
    account
        .unenforced
        .iter()
        .map(|clause| (clause.pointer.to_string(), clause.keyword.clone(), clause.reason))
        .collect()
}

/// A draft-04 schema: `exclusiveMaximum: true` makes `maximum` exclusive. Validation, the report and the reask's
/// correction follow draft 4, exactly as oa-schema judges the schema on its own.
#[tokio::test]
async fn a_declared_draft_is_honoured_in_validation_the_report_and_the_reask() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "maximum": 3, "exclusiveMaximum": true}},
        "required": ["n"]
    });
    let server = Server::start(vec![
        oa_testkit::openai::text_reply(r#"{"n": 3}"#, "stop"),
        oa_testkit::openai::text_reply(r#"{"n": 2}"#, "stop"),
    ])
    .unwrap();
    let request = ask(schema.clone()).with_retry(
        RetryConfig::new(2)
            .with_backoff(Backoff::Fixed(std::time::Duration::ZERO))
            .with_reask(Reask::template("{error_message}")),
    );
    let response = openai(&server).complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"n": 2})));
    let expected = Validator::new(&schema)
        .unwrap()
        .validate(&json!({"n": 3}))
        .unwrap_err()
        .error_message();
    let second = server.requests()[1].json().unwrap();
    let correction = second["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    assert_eq!(correction, json!(expected), "the reask carries draft 4's report");
    // Sent as written: the spec's verbatim rule holds for any draft.
    let first = server.requests()[0].json().unwrap();
    assert_eq!(first["response_format"]["json_schema"]["schema"], schema);
    assert_eq!(
        response.schema_version.as_deref(),
        Some(schema_version(&schema).as_str())
    );
}

/// The options are part of what a schema compiles to: the same schema read as draft 4 (where `exclusiveMaximum` is
/// a boolean) compiles, read as 2020-12 (the default) it is not a valid schema, whichever call comes first.
#[tokio::test]
async fn the_compiled_schema_is_keyed_by_its_options_too() {
    let schema =
        json!({"type": "object", "properties": {"key_probe_n": {"maximum": 3, "exclusiveMaximum": true}}});
    let draft4 = Arc::new(Validator::options().default_draft(Draft::Draft4));
    for _ in 0..2 {
        let server = Server::start(vec![oa_testkit::openai::text_reply(
            r#"{"key_probe_n": 3}"#,
            "stop",
        )])
        .unwrap();
        let plain = openai(&server).complete(&ask(schema.clone())).await.unwrap_err();
        assert_eq!(plain.category(), Category::InvalidRequest, "{plain}");
        assert!(server.requests().is_empty());
        let request = ask(schema.clone()).with_schema_options(Arc::clone(&draft4));
        let error = openai(&server).complete(&request).await.unwrap_err();
        let failure = error
            .structured_output()
            .expect("read as draft 4, 3 is not below 3");
        assert_eq!(failure.violations().map(oa_schema::Violations::len), Some(1));
    }
}

/// A schema that refers to another file (by a relative `$ref`, resolved against its base URI from a resource) goes to
/// the provider as its bundle, which the provider can read without fetching anything; the record says so, and the
/// schema_version is the bundle's. The referenced document's clauses are validated.
#[tokio::test]
async fn a_schema_that_refers_to_other_documents_is_sent_as_its_bundle() {
    let options = Validator::options()
        .base_uri("file:///schemas/person.json")
        .resource(
            "file:///schemas/address.json",
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        );
    let schema =
        json!({"type": "object", "properties": {"home": {"$ref": "address.json"}}, "required": ["home"]});
    let server = Server::start(vec![
        oa_testkit::openai::text_reply(r#"{"home": {}}"#, "stop"),
        oa_testkit::openai::text_reply(r#"{"home": {"city": "Oslo"}}"#, "stop"),
    ])
    .unwrap();
    let hook = Arc::new(Accounts::of_schema());
    let request = ask(schema).with_schema_options(options).with_hook(hook.clone());
    let error = openai(&server).complete(&request).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert!(
        failure.error_message.contains("city"),
        "{}",
        failure.error_message
    );
    let response = openai(&server).complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"home": {"city": "Oslo"}})));
    let sent = server.requests()[1].json().unwrap()["response_format"]["json_schema"]["schema"].clone();
    let text = sent.to_string();
    assert!(
        !text.contains("\"$ref\":\"address.json"),
        "no reference outside the document: {text}"
    );
    assert_eq!(sent["properties"]["home"]["$ref"], json!("#/$defs/address.json"));
    assert_eq!(sent["$defs"]["address.json"]["required"], json!(["city"]));
    assert_eq!(
        response.schema_version.as_deref(),
        Some(schema_version(&sent).as_str())
    );
    assert_eq!(hook.last().form, SchemaForm::Bundled);
}

/// The schema the scripted Anthropic vendor refuses (`maxLength` and `minimum` are 400s there).
fn constrained() -> Value {
    json!({
        "type": "object",
        "properties": {
            "summary": {"type": "string", "maxLength": 280},
            "score": {"type": "integer", "minimum": 0}
        },
        "required": ["summary", "score"],
        "additionalProperties": false
    })
}

/// Without fitting, Anthropic's 400 for the schema is not a failed call: the mapping's fallback (tool coercion)
/// answers, the record says why, and every clause is listed as not accepted. The rejection is about this schema, so
/// the next call's schema still goes natively.
#[tokio::test]
async fn a_rejected_schema_takes_the_fallback_with_the_account_saying_so() {
    let answer = json!({"summary": "short", "score": 3});
    let server = Server::start(Vendor::Anthropic.enforcing(Script::new([
        oa_testkit::anthropic::tool_use_reply("structured_output", answer.clone()),
        oa_testkit::anthropic::text_reply(r#"{"ok": true}"#, "end_turn"),
    ])))
    .unwrap();
    let provider = anthropic(&server);
    let hook = Arc::new(Accounts::of_schema());
    let request = ask(constrained()).with_hook(hook.clone());
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(answer));
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::ToolCoercion)
    );
    assert_eq!(response.schema_mode, Some(SchemaMode::Coerced));
    assert_eq!(hook.len(), 2, "the rejected native attempt, then the fallback");
    let account = hook.last();
    assert_eq!(account.fallback, Some(Fallback::Rejected));
    assert_eq!(account.form, SchemaForm::Verbatim);
    // One entry for the whole schema: none of its clauses was accepted.
    assert_eq!(
        triples(&account),
        [("".to_owned(), "*".to_owned(), Reason::NotAccepted)]
    );
    // A schema the vendor takes still goes natively on this provider.
    let fine = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                      "additionalProperties": false});
    let response = provider.complete(&ask(fine)).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::Native)
    );
    assert_eq!(server.requests().len(), 3);
}

/// Fitted, the same schema goes natively with no 400: the clauses Anthropic refuses are dropped, validated locally
/// (an answer breaking one fails the call), and the account lists exactly what fitting dropped beside the clauses no
/// verdict covers.
#[tokio::test]
async fn a_fitted_schema_goes_natively_and_the_account_lists_what_fitting_dropped() {
    let long = "x".repeat(300);
    let server = Server::start(Vendor::Anthropic.enforcing(Script::new([
        oa_testkit::anthropic::text_reply(&json!({"summary": long, "score": 1}).to_string(), "end_turn"),
        oa_testkit::anthropic::text_reply(r#"{"summary": "ok", "score": 1}"#, "end_turn"),
    ])))
    .unwrap();
    let provider = anthropic(&server);
    let hook = Arc::new(Accounts::of_schema());
    let request = ask(constrained()).with_fit(true).with_hook(hook.clone());
    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        error
            .structured_output()
            .unwrap()
            .error_message
            .contains("maxLength"),
        "the dropped clause is still judged locally"
    );
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::Native)
    );
    assert_eq!(server.requests().len(), 2, "no 400");
    let account = hook.last();
    assert_eq!(account.form, SchemaForm::Fitted);
    let fitting: Vec<(String, String, Reason)> = triples(&account)
        .into_iter()
        .filter(|(_, keyword, _)| keyword != "*")
        .collect();
    // No verdict at all: the rest is one unverified entry.
    assert!(triples(&account).contains(&("".to_owned(), "*".to_owned(), Reason::NotVerified)));
    assert_eq!(
        fitting,
        [
            (
                "/properties/score".to_owned(),
                "minimum".to_owned(),
                Reason::DroppedRejected
            ),
            (
                "/properties/summary".to_owned(),
                "maxLength".to_owned(),
                Reason::DroppedRejected
            ),
        ]
    );
    let planned = native_schema(&request, Mapping::Anthropic).unwrap().unwrap();
    assert_eq!(
        planned
            .account()
            .iter()
            .map(|clause| (clause.pointer.to_string(), clause.keyword.clone(), clause.reason))
            .collect::<Vec<_>>(),
        fitting
    );
    assert_eq!(response.schema_version.as_deref(), Some(planned.schema_version()));
    let sent = server.requests()[1].json().unwrap()["output_config"]["format"]["schema"].clone();
    assert_eq!(&sent, planned.schema());
}

/// A vendor stricter than the table: it refuses `pattern`, which the table says OpenAI enforces. The fitted schema
/// is fitted again once without it, the call succeeds on the native path, and the account says `pattern` was not
/// accepted. A 400 that names nothing a refit may drop falls back instead.
#[tokio::test]
async fn a_stricter_vendor_is_refitted_once_without_the_clause_it_names() {
    let refuses = |keyword: &'static str| {
        Responder::function(move |request: &Request| {
            let body = request.json().unwrap_or_default();
            let schema = body.pointer("/response_format/json_schema/schema");
            if schema.is_some_and(|schema| schema.to_string().contains(&format!("\"{keyword}\""))) {
                return Reply::json(
                    400,
                    json!({"error": {"type": "invalid_request_error", "param": "response_format",
                        "code": "invalid_json_schema", "message": format!(
                        "Invalid schema for response_format 'x': In context=('properties', 'code'), '{keyword}' is not permitted.")}}),
                );
            }
            oa_testkit::openai::text_reply(r#"{"code": "ab"}"#, "stop")
        })
    };
    let schema = json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[a-z]+$"}},
                        "required": ["code"], "additionalProperties": false});
    let server = Server::start(refuses("pattern")).unwrap();
    let hook = Arc::new(Accounts::of_schema());
    let request = ask(schema.clone()).with_fit(true).with_hook(hook.clone());
    let response = openai(&server).complete(&request).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::Native)
    );
    assert_eq!(server.requests().len(), 2, "one 400, one refit");
    let account = hook.last();
    assert_eq!(account.form, SchemaForm::Refitted);
    assert!(
        triples(&account).contains(&(
            "/properties/code".to_owned(),
            "pattern".to_owned(),
            Reason::NotAccepted
        )),
        "{account:?}"
    );
    let refitted = server.requests()[1].json().unwrap();
    assert!(
        refitted
            .pointer("/response_format/json_schema/schema/properties/code/pattern")
            .is_none()
    );
    // `required` cannot be dropped: the call falls back to the prompt, which the vendor does not check.
    let server = Server::start(refuses("required")).unwrap();
    let hook = Arc::new(Accounts::of_schema());
    let request = ask(schema).with_fit(true).with_hook(hook.clone());
    let response = openai(&server).complete(&request).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::PromptAugmentation)
    );
    assert_eq!(hook.last().fallback, Some(Fallback::Rejected));
}

/// `enforced` needs an empty account and a fresh verdict covering every keyword sent: the canary covers `enum`,
/// `required`, a closed object and `type`, not `maxLength`; a per-keyword verdict that covers it makes the call
/// enforced.
#[tokio::test]
async fn schema_mode_is_enforced_only_with_an_empty_account_and_a_covering_verdict() {
    let canary_shaped = json!({"type": "object", "properties": {"answer": {"type": "string", "enum": ["a", "b"]}},
                               "required": ["answer"], "additionalProperties": false});
    let mut bounded = canary_shaped.clone();
    bounded["properties"]["answer"]["maxLength"] = json!(1);
    let server = Server::start(vec![
        oa_testkit::openai::text_reply(r#"{"answer": "a"}"#, "stop");
        4
    ])
    .unwrap();
    let registry = Arc::new(CapabilityRegistry::new());
    let provider = support::openai_builder(&server, "m")
        .registry(Arc::clone(&registry))
        .build()
        .unwrap();
    let record = |probe, keywords| {
        registry
            .record(
                provider.capability_key().unwrap(),
                Capability {
                    enforces: true,
                    checked_at: SystemTime::now(),
                    probe,
                    keywords,
                },
            )
            .unwrap();
    };
    record(ProbeKind::Canary, KeywordSet::EMPTY);
    let hook = Arc::new(Accounts::of_schema());
    let response = provider
        .complete(&ask(canary_shaped).with_hook(hook.clone()))
        .await
        .unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::Enforced));
    assert!(hook.last().unenforced.is_empty());
    let response = provider
        .complete(&ask(bounded.clone()).with_hook(hook.clone()))
        .await
        .unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::Unverified));
    assert_eq!(
        triples(&hook.last()),
        [(
            "/properties/answer".to_owned(),
            "maxLength".to_owned(),
            Reason::NotVerified
        )]
    );
    // A verdict from the keyword probes, covering `maxLength` too.
    std::thread::sleep(std::time::Duration::from_millis(2));
    record(
        ProbeKind::ProductionSchema,
        KeywordSet::of(["enum", "required", "additionalProperties", "type", "maxLength"]),
    );
    let response = provider
        .complete(&ask(bounded).with_hook(hook.clone()))
        .await
        .unwrap();
    assert_eq!(response.schema_mode, Some(SchemaMode::Enforced));
    assert!(hook.last().unenforced.is_empty());
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct Person {
    name: String,
    nick: Option<String>,
}

/// OpenAI's strict mode needs every property required: fitted, the optional `nick` is sent required and nullable, and
/// the `null` the model writes for "no nick" is removed before the caller's schema (which does not allow `null`
/// there) judges the answer. A typed call then takes the value route.
#[tokio::test]
async fn a_fitted_answer_is_mapped_back_before_validation() {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}, "nick": {"type": "string"}},
                        "required": ["name"], "additionalProperties": false});
    let server = Server::start(vec![
        oa_testkit::openai::text_reply(
            r#"{"name": "Ada", "nick": null}"#,
            "stop"
        );
        2
    ])
    .unwrap();
    let request = ask(schema.clone()).with_fit(true);
    let response = openai(&server).complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"name": "Ada"})));
    let sent = server.requests()[0].json().unwrap();
    assert_eq!(
        sent["response_format"]["json_schema"]["schema"]["required"],
        json!(["name", "nick"])
    );
    let typed = complete_as::<Person>(&openai(&server), &request).await.unwrap();
    assert_eq!(
        typed.value,
        Person {
            name: "Ada".into(),
            nick: None
        }
    );
    assert!(
        typed.response.parsed.is_some(),
        "the value route, after mapping back"
    );
    // Without fitting the same answer is judged as written: the caller's schema refuses the null.
    let server = Server::start(vec![oa_testkit::openai::text_reply(
        r#"{"name": "Ada", "nick": null}"#,
        "stop",
    )])
    .unwrap();
    assert!(openai(&server).complete(&ask(schema)).await.is_err());
}

/// The typed route works with any draft it can plan: a draft-07 schema decodes straight into the type.
#[tokio::test]
async fn the_typed_route_reads_a_draft_07_schema() {
    let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                        "properties": {"name": {"type": "string"}, "nick": {"type": ["string", "null"]}},
                        "required": ["name", "nick"], "additionalProperties": false});
    let server = Server::start(vec![oa_testkit::openai::text_reply(
        r#"{"name": "Ada", "nick": "A"}"#,
        "stop",
    )])
    .unwrap();
    let typed = complete_as::<Person>(&openai(&server), &ask(schema))
        .await
        .unwrap();
    assert_eq!(typed.value.nick.as_deref(), Some("A"));
    assert!(typed.response.parsed.is_none(), "decoded on the typed route");
}
