//! Fitted schemas on the wire: every corpus schema (`tests/fit_corpus/`), fitted to each mapping, sent by the real
//! provider to a scripted vendor that refuses what that vendor's documentation says it refuses (oa-testkit's
//! `vendor`). No request draws a 400; the native path is taken (OpenAI with `strict: true`); each corpus answer,
//! spelled as the fitted schema wants it and returned by the server, validates against the fitted schema on the way
//! in, and mapped back it is the caller's answer (a property the caller's schema allows to be `null` may come back
//! as `null` rather than absent), which the caller's schema accepts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "fit_support/corpus.rs"]
mod corpus_support;

use oa_provider::fit::fit;
use oa_provider::{
    ApiKey, CompletionRequest, Mapping, Message, ProviderBuilder, RuntimeConfig, StructuredOutputPath,
};
use oa_testkit::vendor::Vendor;
use oa_testkit::{Reply, Script, Server};
use serde_json::Value;

fn vendor(mapping: Mapping) -> Vendor {
    match mapping {
        Mapping::OpenAi => Vendor::OpenAi,
        Mapping::Anthropic => Vendor::Anthropic,
        _ => Vendor::Gemini,
    }
}

/// The vendor's reply carrying `text` as the answer.
fn reply(mapping: Mapping, text: &str) -> Reply {
    match mapping {
        Mapping::OpenAi => oa_testkit::openai::text_reply(text, "stop"),
        Mapping::Anthropic => oa_testkit::anthropic::text_reply(text, "end_turn"),
        _ => oa_testkit::gemini::text_reply(text, "STOP"),
    }
}

fn base_url(mapping: Mapping, server: &Server) -> String {
    match mapping {
        Mapping::Gemini => format!("{}beta", server.base_url()),
        _ => server.base_url(),
    }
}

/// Whether `mapped` is `answer` with, at most, members whose value is `null` added: a property the caller's schema
/// leaves optional and lets be `null` comes back as `null` from a provider that must write every property (OpenAI),
/// and mapping back never removes a `null` the caller's schema allows.
fn same_but_for_added_nulls(mapped: &Value, answer: &Value) -> bool {
    match (mapped, answer) {
        (Value::Object(mapped), Value::Object(answer)) => {
            answer.iter().all(|(name, value)| {
                mapped
                    .get(name)
                    .is_some_and(|held| same_but_for_added_nulls(held, value))
            }) && mapped
                .iter()
                .all(|(name, value)| answer.contains_key(name) || value.is_null())
        }
        (Value::Array(mapped), Value::Array(answer)) => {
            mapped.len() == answer.len()
                && mapped
                    .iter()
                    .zip(answer)
                    .all(|(left, right)| same_but_for_added_nulls(left, right))
        }
        _ => mapped == answer,
    }
}

#[tokio::test]
async fn every_corpus_schema_goes_through_every_scripted_vendor_and_maps_back() {
    let corpus = corpus_support::load();
    assert!(corpus.len() >= 30);
    let (mut n_sent, mut narrowed) = (0, Vec::new());
    for entry in &corpus {
        let caller = oa_schema::Validator::new(&entry.schema).unwrap();
        for answer in &entry.answers {
            assert!(
                caller.is_valid(answer),
                "{}: the corpus answer {answer} is not valid",
                entry.name
            );
        }
        for mapping in Mapping::ALL {
            let fitted = fit(&entry.schema, mapping)
                .unwrap_or_else(|error| panic!("{} on {mapping}: {error}", entry.name));
            let sent = oa_schema::Validator::new(fitted.schema()).unwrap_or_else(|error| {
                panic!(
                    "{} on {mapping}: the fitted schema does not compile: {error}",
                    entry.name
                )
            });
            let mut n_through = 0;
            for answer in &entry.answers {
                let Some(spelled) = corpus_support::encode(answer, &sent) else {
                    narrowed.push(format!("{} on {mapping}: {answer}", entry.name));
                    continue;
                };
                let server = Server::start(
                    vendor(mapping).enforcing(Script::new([reply(mapping, &spelled.to_string())])),
                )
                .unwrap();
                let provider = ProviderBuilder::new(mapping, "test-model")
                    .base_url(base_url(mapping, &server))
                    .api_key(ApiKey::new("test-key"))
                    .build()
                    .unwrap();
                let request = CompletionRequest::new(vec![Message::user("Answer.")])
                    .with_config(RuntimeConfig {
                        max_tokens: Some(1024),
                        ..RuntimeConfig::default()
                    })
                    .with_response_schema(fitted.schema().clone());
                let response = provider
                    .complete(&request)
                    .await
                    .unwrap_or_else(|error| panic!("{} on {mapping}: {error}", entry.name));
                assert_eq!(
                    server.n_requests(),
                    1,
                    "{} on {mapping}: a refusal and a fallback",
                    entry.name
                );
                let body = server.requests()[0].json().unwrap();
                assert!(vendor(mapping).check_request(&body).is_ok());
                assert_eq!(
                    response.structured_output_path,
                    Some(StructuredOutputPath::Native),
                    "{} on {mapping}",
                    entry.name
                );
                if mapping == Mapping::OpenAi {
                    assert_eq!(
                        body.pointer("/response_format/json_schema/strict"),
                        Some(&Value::Bool(true)),
                        "{}",
                        entry.name
                    );
                }
                let mut parsed = response.parsed.unwrap();
                assert_eq!(parsed, spelled);
                fitted.map_back().apply(&mut parsed, &caller);
                assert!(
                    same_but_for_added_nulls(&parsed, answer),
                    "{} on {mapping}: mapped back {parsed}, answered {answer}",
                    entry.name
                );
                assert!(caller.is_valid(&parsed));
                n_through += 1;
                n_sent += 1;
            }
            assert!(
                n_through > 0,
                "{} on {mapping}: no corpus answer survives the fit",
                entry.name
            );
        }
    }
    // What fitting narrows away, each for its documented reason: an open map (`additionalProperties` as a schema)
    // closed to its declared properties, and a value of any type narrowed to the scalar types, on the two providers
    // whose objects must be closed.
    let expected = [
        "pyd_dicts on openai",
        "pyd_dicts on anthropic",
        "zod_tuple_record on openai",
        "zod_tuple_record on anthropic",
    ];
    let narrowed: Vec<&str> = narrowed
        .iter()
        .map(|line| line.split(':').next().unwrap_or_default())
        .collect();
    assert_eq!(narrowed, expected);
    assert!(n_sent >= 150, "{n_sent} answers sent");
}
