//! `oa complete --langfuse` as a built binary, against a loopback Langfuse stand-in (oa-testkit's server answering
//! the ingestion API's 207): one trace, the call's generation carrying its structured-output path, Basic auth from
//! the standard variables, flushed before exit; a missing key is a usage error before anything is sent; a
//! Langfuse failure is a warning; the secret key appears in no output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Output;

use oa_testkit::{Reply, Responder, Server};
use serde_json::{Value, json};
use support::chat;

const SECRET: &str = "sk-lf-cli-SECRET-canary";
/// base64("pk-lf-cli:sk-lf-cli-SECRET-canary").
const BASIC: &str = "Basic cGstbGYtY2xpOnNrLWxmLWNsaS1TRUNSRVQtY2FuYXJ5";

/// A Langfuse stand-in answering every ingestion request with `status` (207: all accepted).
fn langfuse(status: u16) -> Server {
    Server::start(Responder::function(move |_| {
        Reply::json(status, json!({"successes": [], "errors": []}))
    }))
    .unwrap()
}

fn complete(model: &Server, langfuse: Option<&Server>, extra: &[&str], secret: Option<&str>) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let schema = support::answer_schema_file(&dir);
    let mut command = support::complete_command(&model.base_url(), &["--langfuse"]);
    command
        .arg("--schema")
        .arg(&schema)
        .args(extra)
        .arg("What is six times seven?")
        .env_remove("LANGFUSE_SECRET_KEY")
        .env("LANGFUSE_PUBLIC_KEY", "pk-lf-cli");
    if let Some(langfuse) = langfuse {
        command.env("LANGFUSE_HOST", format!("http://{}", langfuse.address()));
    }
    if let Some(secret) = secret {
        command.env("LANGFUSE_SECRET_KEY", secret);
    }
    command.output().unwrap()
}

fn assert_no_secret(output: &Output) {
    for stream in [&output.stdout, &output.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains(SECRET), "the secret key leaked: {text}");
        assert!(
            !text.contains("SECRET-canary"),
            "part of the secret key leaked: {text}"
        );
    }
}

/// Every ingestion event the stand-in received, after checking each request's path and auth.
fn events(langfuse: &Server) -> Vec<Value> {
    let requests = langfuse.requests();
    assert!(!requests.is_empty(), "nothing reached Langfuse");
    requests
        .iter()
        .flat_map(|request| {
            assert_eq!(
                (request.method.as_str(), request.path.as_str()),
                ("POST", "/api/public/ingestion")
            );
            assert_eq!(request.header("authorization"), Some(BASIC));
            request.json().unwrap()["batch"].as_array().unwrap().clone()
        })
        .collect()
}

fn of_type<'e>(events: &'e [Value], kind: &str) -> Vec<&'e Value> {
    events.iter().filter(|event| event["type"] == kind).collect()
}

#[test]
fn one_trace_and_the_calls_generation_carrying_the_path_reach_langfuse() {
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let langfuse = langfuse(207);
    let output = complete(&model, Some(&langfuse), &["--json"], Some(SECRET));
    support::assert_exit(&output, 0);
    assert_no_secret(&output);
    let events = events(&langfuse);
    let traces = of_type(&events, "trace-create");
    assert_eq!(traces.len(), 1, "one trace: {events:#?}");
    let trace_id = traces[0]["body"]["id"].as_str().unwrap();
    assert_eq!(trace_id.len(), 32);
    assert_eq!(traces[0]["body"]["name"], "complete");
    let generations = of_type(&events, "generation-create");
    assert_eq!(
        generations.len(),
        1,
        "one generation for the one attempt: {events:#?}"
    );
    let generation = &generations[0]["body"];
    assert_eq!(generation["traceId"], trace_id);
    assert_eq!(generation["model"], "test-model");
    assert_eq!(generation["level"], "DEFAULT");
    assert_eq!(generation["metadata"]["structured_output_path"], "native");
    assert_eq!(generation["metadata"]["schema_mode"], "unverified");
    assert_eq!(
        generation["usageDetails"],
        json!({"input": 11, "output": 5, "total": 16})
    );
    // Payload off: the prompt and the answer stay home.
    assert!(
        generation.get("input").is_none() && generation.get("output").is_none(),
        "{generation}"
    );
    assert!(!String::from_utf8_lossy(&langfuse.requests()[0].body).contains("six times seven"));
    assert_eq!(
        of_type(&events, "span-create").len(),
        0,
        "a call outside a graph has no node span"
    );
}

/// Under call-level retry the call is still one generation (observability §8.4.3: the attempts are the OTel
/// spans), the terminal one: here the reask that recovered.
#[test]
fn a_reasked_call_is_one_generation_describing_its_last_attempt() {
    let model = Server::start(vec![
        chat("Forty-two.", "stop"),
        chat(r#"{"answer": 42}"#, "stop"),
    ])
    .unwrap();
    let langfuse = langfuse(207);
    let output = complete(&model, Some(&langfuse), &["--reask"], Some(SECRET));
    support::assert_exit(&output, 0);
    assert_eq!(model.n_requests(), 2);
    assert_no_secret(&output);
    let events = events(&langfuse);
    let generations = of_type(&events, "generation-create");
    assert_eq!(generations.len(), 1, "{events:#?}");
    assert_eq!(
        generations[0]["body"]["metadata"]["schema_mode"],
        "unverified_repaired"
    );
    assert_eq!(
        generations[0]["body"]["metadata"]["structured_output_path"],
        "native"
    );
}

#[test]
fn a_missing_secret_key_is_a_usage_error_before_anything_is_sent() {
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let langfuse = langfuse(207);
    let output = complete(&model, Some(&langfuse), &[], None);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("LANGFUSE_SECRET_KEY"), "{stderr}");
    assert_eq!((model.n_requests(), langfuse.n_requests()), (0, 0));
}

#[test]
fn a_langfuse_failure_is_a_warning_and_names_no_key() {
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let langfuse = langfuse(401);
    let output = complete(&model, Some(&langfuse), &[], Some(SECRET));
    assert_eq!(output.status.code(), Some(0), "the call itself succeeded");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("HTTP 401"),
        "{stderr}"
    );
    assert_no_secret(&output);
}
