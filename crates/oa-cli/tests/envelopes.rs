//! LM Studio's two failure envelopes through `oa complete --json`, against a scripted server on 127.0.0.1: the
//! engine's parse failure (HTTP 400 or 500, direct or under its exact prefix, as a string or in the message field)
//! is `provider_output_parse_failed`, resent once with identical bytes only with `--retry-parse-failure`; the
//! lazy-grammar rejection is `structured_output_unsupported` and sends the call down the prompt path; near-misses
//! stay ordinary provider errors with no class.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Output;

use oa_testkit::{Reply, Server};
use serde_json::{Value, json};
use support::chat;

const PARSE_FAILURE: &str = "The model produced output that does not match the expected peg-native format";
const PREFIX: &str = "Engine protocol predict stream returned an error: ";
const LAZY: &str = "Cannot combine structured output constraints with lazy grammar";

fn engine() -> Value {
    json!({"code": 500, "type": "server_error", "message": PARSE_FAILURE})
}

fn complete(server: &Server, extra: &[&str]) -> (Value, Output) {
    let dir = tempfile::tempdir().unwrap();
    let schema = support::answer_schema_file(&dir);
    let output = support::complete_command(&server.base_url(), &["--json"])
        .arg("--schema")
        .arg(&schema)
        .args(extra)
        .arg("What is six times seven?")
        .output()
        .unwrap();
    (serde_json::from_slice(&output.stdout).unwrap(), output)
}

fn parse_failure_bodies() -> Vec<Value> {
    let prefixed = format!("{PREFIX}{}", engine());
    vec![
        json!({"error": engine()}),
        json!({"error": prefixed}),
        json!({"error": {"message": prefixed, "type": "server_error"}}),
    ]
}

#[test]
fn the_parse_failure_is_classed_in_every_shape_and_status() {
    for status in [400, 500] {
        for body in parse_failure_bodies() {
            let server = Server::start(vec![Reply::json(status, body.clone())]).unwrap();
            let (report, _) = complete(&server, &[]);
            assert_eq!(report["ok"], json!(false));
            assert_eq!(
                report["error"]["failure_class"],
                json!("provider_output_parse_failed"),
                "{status} {body}: {report}"
            );
            assert_eq!(server.n_requests(), 1, "no resend without the opt-in");
        }
    }
}

#[test]
fn with_the_opt_in_it_is_resent_once_with_identical_bytes() {
    let server = Server::start(vec![
        Reply::json(400, json!({"error": engine()})),
        chat(r#"{"answer": 42}"#, "stop"),
    ])
    .unwrap();
    let (report, _) = complete(&server, &["--retry-parse-failure"]);
    assert_eq!(report["parsed"], json!({"answer": 42}), "{report}");
    assert_eq!(report["attempts"].as_array().unwrap().len(), 2);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, requests[1].body, "identical bytes");
    // Only once: a second parse failure is returned.
    let server = Server::start(vec![
        Reply::json(500, json!({"error": engine()})),
        Reply::json(500, json!({"error": engine()})),
        chat(r#"{"answer": 42}"#, "stop"),
    ])
    .unwrap();
    let (report, _) = complete(&server, &["--retry-parse-failure"]);
    assert_eq!(
        report["error"]["failure_class"],
        json!("provider_output_parse_failed")
    );
    assert_eq!(server.n_requests(), 2);
}

#[test]
fn the_lazy_grammar_rejection_sends_the_call_down_the_prompt_path() {
    for body in [json!({"error": LAZY}), json!({"error": {"message": LAZY}})] {
        let server = Server::start(vec![
            Reply::json(400, body.clone()),
            chat(r#"{"answer": 42}"#, "stop"),
        ])
        .unwrap();
        let (report, _) = complete(&server, &[]);
        assert_eq!(report["parsed"], json!({"answer": 42}), "{body}: {report}");
        assert_eq!(report["structured_output_path"], json!("prompt_augmentation"));
        let requests = server.requests();
        assert!(requests[0].json().unwrap().get("response_format").is_some());
        assert!(requests[1].json().unwrap().get("response_format").is_none());
    }
}

#[test]
fn near_misses_stay_ordinary_errors() {
    let mut wrong_code = engine();
    wrong_code["code"] = json!(501);
    let mut wrong_message = engine();
    wrong_message["message"] = json!(format!("{PARSE_FAILURE} (retry later)"));
    let cases = [
        (400, json!({"error": wrong_code})),
        (500, json!({"error": wrong_message})),
        (400, json!({"error": format!("{PREFIX}{{not json")})),
        (400, json!({"error": engine().to_string()})),
        (503, json!({"error": engine()})),
        (400, json!({"error": format!("{LAZY}.")})),
    ];
    for (status, body) in cases {
        let server = Server::start(vec![Reply::json(status, body.clone())]).unwrap();
        let (report, _) = complete(&server, &["--retry-parse-failure"]);
        assert_eq!(report["ok"], json!(false), "{status} {body}");
        assert_eq!(
            report["error"]["failure_class"],
            Value::Null,
            "{status} {body}: {report}"
        );
        assert_eq!(server.n_requests(), 1, "{status} {body}: no resend, no fallback");
    }
}
