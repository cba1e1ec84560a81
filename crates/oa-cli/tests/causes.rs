//! What `oa complete`, `oa probe` and `oa demo` say when things go wrong, as a built binary against 127.0.0.1: each
//! network cause named with its host:port, timeouts that end the wait, status hints, input errors refused before
//! anything is sent (the server counts zero requests), a refusal read as a refusal and fenced JSON as fenced JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use oa_testkit::{Reply, Server};
use serde_json::json;
use support::{chat, oa_text as oa, refusal};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn complete(base_url: &str, extra: &[&str]) -> Output {
    let mut args = vec!["complete", "--base-url", base_url, "--model", "test-model"];
    args.extend_from_slice(extra);
    args.push("What is six times seven?");
    oa(&args)
}

fn schema_file(dir: &tempfile::TempDir, schema: &serde_json::Value) -> PathBuf {
    let path = dir.path().join("schema.json");
    std::fs::write(&path, schema.to_string()).unwrap();
    path
}

fn answer_schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"],
           "additionalProperties": false})
}

#[test]
fn a_closed_port_is_connection_refused_naming_host_and_port() {
    let base_url = oa_testkit::closed_base_url().unwrap();
    let authority = base_url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();
    let output = complete(&base_url, &[]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    support::assert_contains(&text, &format!("connection refused by {authority}"));
}

#[test]
fn a_server_that_never_answers_ends_at_the_timeout() {
    let server = Server::start(vec![Reply::Hang, Reply::Hang]).unwrap();
    let started = Instant::now();
    let output = complete(&server.base_url(), &["--timeout", "2", "--json"]);
    let elapsed = started.elapsed();
    support::assert_exit(&output, 1);
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let message = report["error"]["error_message"].as_str().unwrap();
    assert!(message.contains("timed out"), "{message}");
    assert!(message.contains("2 s"), "{message}");
}

#[test]
fn a_429_names_retry_after_and_the_retry_flag() {
    let server = Server::start(vec![Reply::json_with_header(
        429,
        "retry-after",
        "7",
        json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}}),
    )])
    .unwrap();
    let output = complete(&server.base_url(), &[]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    support::assert_contains(&text, "provider_rate_limit");
    support::assert_contains(&text, "Retry-After: 7 s");
    support::assert_contains(&text, "--max-attempts");
}

#[test]
fn an_html_page_points_at_the_base_url() {
    let server = Server::start(vec![Reply::Raw {
        status: 404,
        headers: vec![("content-type".to_owned(), "text/html".to_owned())],
        body: b"<!doctype html><title>Not Found</title>".to_vec(),
    }])
    .unwrap();
    let output = complete(&server.base_url(), &[]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    support::assert_contains(&text, "is the base URL the API root");
}

#[test]
fn input_errors_exit_2_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(Vec::<Reply>::new()).unwrap();
    let base_url = server.base_url();
    let not_a_schema = schema_file(&dir, &json!({"type": 12}));
    let not_an_object = dir.path().join("array.json");
    std::fs::write(&not_an_object, json!({"type": "array"}).to_string()).unwrap();
    let not_json = dir.path().join("broken.json");
    std::fs::write(&not_json, "{\"type\": ").unwrap();
    let old_draft = dir.path().join("draft3.json");
    std::fs::write(
        &old_draft,
        json!({"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}).to_string(),
    )
    .unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--schema", not_a_schema.to_str().unwrap()], "invalid schema"),
        (
            vec!["--schema", not_an_object.to_str().unwrap()],
            "type \"object\" at the top",
        ),
        (
            vec!["--schema", not_json.to_str().unwrap()],
            "not well-formed JSON",
        ),
        (vec!["--schema", old_draft.to_str().unwrap()], "schema"),
    ];
    for (extra, words) in cases {
        let output = complete(&base_url, &extra);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {}", stdout(&output));
        assert!(stderr(&output).contains(words), "{extra:?}: {}", stderr(&output));
    }
    let empty = oa(&["complete", "--base-url", &base_url, "--model", "m", "   "]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(stderr(&empty).contains("message is empty"), "{}", stderr(&empty));
    let probe = oa(&[
        "probe",
        "--base-url",
        &base_url,
        "--model",
        "m",
        "--schema",
        not_a_schema.to_str().unwrap(),
    ]);
    assert_eq!(probe.status.code(), Some(2));
    assert!(stderr(&probe).contains("invalid schema"), "{}", stderr(&probe));
    // The same words `oa validate` uses for that schema.
    let validate = oa(&[
        "validate",
        not_a_schema.to_str().unwrap(),
        not_an_object.to_str().unwrap(),
    ]);
    let validate_words = stderr(&validate);
    let complete_words = stderr(&complete(
        &base_url,
        &["--schema", not_a_schema.to_str().unwrap()],
    ));
    assert_eq!(
        complete_words.trim_start_matches("oa complete: "),
        validate_words.trim_start_matches("oa validate: ")
    );
    assert_eq!(server.n_requests(), 0, "nothing was sent");
}

#[test]
fn a_refusal_reads_as_a_refusal_and_fenced_json_as_fenced_json() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir, &answer_schema());
    let server = Server::start(vec![
        refusal("I can't help with that."),
        chat("```json\n{\"answer\": 42}\n```", "stop"),
    ])
    .unwrap();
    let refused = complete(&server.base_url(), &["--schema", schema.to_str().unwrap()]);
    let text = stdout(&refused);
    support::assert_contains(
        &text,
        "refusal: the model refused to answer: I can't help with that.",
    );
    support::assert_contains(&text, "finish_reason: content_filter");
    let fenced = complete(
        &server.base_url(),
        &["--schema", schema.to_str().unwrap(), "--json"],
    );
    let report: serde_json::Value = serde_json::from_slice(&fenced.stdout).unwrap();
    assert_eq!(report["error"]["failure_class"], json!("fenced_json"));
    assert!(
        report["error"]["error_message"]
            .as_str()
            .unwrap()
            .starts_with("content is JSON inside a Markdown code fence"),
        "{report}"
    );
}

#[test]
fn a_refused_probe_is_inconclusive_not_a_finding() {
    let server = Server::start(vec![refusal("I won't answer that.")]).unwrap();
    let output = oa(&[
        "probe",
        "--base-url",
        &server.base_url(),
        "--model",
        "m",
        "--json",
    ]);
    support::assert_exit(&output, 2);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"], json!("error"), "{report}");
    assert!(
        report["message"].as_str().unwrap().contains("inconclusive"),
        "{report}"
    );
}

#[test]
fn the_demo_against_a_dead_endpoint_says_so_and_exits_1() {
    let base_url = oa_testkit::closed_base_url().unwrap();
    let output = oa(&["demo", "--base-url", &base_url, "--timeout", "5"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    support::assert_contains(&text, "did not answer the call");
    support::assert_contains(&text, "connection refused");
    assert!(
        !text.contains("Typed events"),
        "nothing after the failure: {text}"
    );
}

#[test]
fn a_dash_reads_the_message_from_standard_input() {
    use std::io::Write;
    let server = Server::start(vec![chat("forty-two", "stop")]).unwrap();
    let mut child = support::complete_command(&server.base_url(), &["--json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"piped question\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let sent = server.requests()[0].json().unwrap();
    assert_eq!(sent["messages"][0]["content"], json!("piped question\n"));
}
