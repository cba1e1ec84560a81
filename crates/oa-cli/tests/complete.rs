//! `oa complete` run as a built binary against a scripted endpoint on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use oa_testkit::Server;
use serde_json::{Value, json};
use std::process::{Command, Output};
use support::{chat, refusal, streamed_refusal};

const SCHEMA_NOT_HONORED: &str = "openarmature.structured_output.schema_not_honored";

fn schema_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    support::answer_schema_file(dir)
}

fn complete(endpoint: &Server, extra: &[&str]) -> Output {
    support::complete_command(&endpoint.base_url(), extra)
        .arg("What is six times seven?")
        .output()
        .unwrap()
}

/// `oa complete --schema <the answer schema> --json` against a server that sends `reply`.
fn structured_json(reply: oa_testkit::Reply) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let endpoint = Server::start(vec![reply]).unwrap();
    complete(&endpoint, &["--schema", schema.to_str().unwrap(), "--json"])
}

fn json_of(output: &Output) -> Value {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(
        text.lines().count(),
        1,
        "exactly one JSON object expected on stdout:\n{text}"
    );
    serde_json::from_str(&text).unwrap()
}

fn event_names(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["event_name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_valid_structured_answer() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let endpoint = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let output = complete(&endpoint, &["--schema", schema.to_str().unwrap(), "--json"]);
    support::assert_exit(&output, 0);
    let report = json_of(&output);
    assert_eq!(report["ok"], json!(true));
    assert_eq!(report["parsed"], json!({"answer": 42}));
    assert_eq!(report["finish_reason"], json!("stop"));
    assert_eq!(report["usage"]["total_tokens"], json!(16));
    assert_eq!(report["structured_output_path"], json!("native"));
    assert_eq!(report["schema_mode"], json!("unverified"));
    assert_eq!(report["schema_version"].as_str().unwrap().len(), 64);
    assert_eq!(report["attempts"].as_array().unwrap().len(), 1);
    assert_eq!(report["error"], Value::Null);
    assert_eq!(report["diagnostics"], json!([]));
    let sent = &endpoint.requests()[0].json().unwrap();
    assert_eq!(sent["response_format"]["type"], json!("json_schema"));
    assert_eq!(sent["response_format"]["json_schema"]["strict"], json!(true));
}

#[test]
fn a_refusal_is_content_filter_with_the_refusal_text() {
    let endpoint = Server::start(vec![refusal("I can't help with that.")]).unwrap();
    let report = json_of(&complete(&endpoint, &["--json"]));
    assert_eq!(report["ok"], json!(true), "{report}");
    assert_eq!(report["finish_reason"], json!("content_filter"));
    assert_eq!(report["content"], json!("I can't help with that."));
}

#[test]
fn a_streamed_refusal_is_content_filter_with_the_refusal_text() {
    let endpoint = Server::start(vec![streamed_refusal("I can't ", "help with that.")]).unwrap();
    let report = json_of(&complete(&endpoint, &["--stream", "--json"]));
    assert_eq!(report["ok"], json!(true), "{report}");
    assert_eq!(report["finish_reason"], json!("content_filter"));
    assert_eq!(report["content"], json!("I can't help with that."));
    assert_eq!(endpoint.requests()[0].json().unwrap()["stream"], json!(true));
}

#[test]
fn prose_on_the_native_path_with_stop_shows_one_schema_not_honored() {
    let output = structured_json(chat("The answer is 42.", "stop"));
    assert_eq!(output.status.code(), Some(1));
    let report = json_of(&output);
    assert_eq!(report["ok"], json!(false));
    assert_eq!(report["error"]["category"], json!("structured_output_invalid"));
    assert_eq!(report["error"]["output_content"], json!("The answer is 42."));
    assert!(
        report["error"]["error_message"]
            .as_str()
            .unwrap()
            .contains("line 1"),
        "{report}"
    );
    assert_eq!(event_names(&report), vec![SCHEMA_NOT_HONORED.to_owned()]);
    let attributes = &report["diagnostics"][0]["attributes"];
    assert_eq!(attributes["openarmature.llm.model"], json!("test-model"));
    assert_eq!(attributes["openarmature.llm.attempt_index"], json!(0));
}

#[test]
fn the_same_prose_cut_off_by_length_shows_no_diagnostic() {
    let output = structured_json(chat("The answer is", "length"));
    assert_eq!(output.status.code(), Some(1));
    let report = json_of(&output);
    assert_eq!(report["finish_reason"], json!("length"));
    assert_eq!(report["diagnostics"], json!([]));
}

#[test]
fn the_readable_summary_prints_the_diagnostic_as_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let endpoint = Server::start(vec![chat("The answer is 42.", "stop")]).unwrap();
    let output = complete(&endpoint, &["--schema", schema.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("error: structured_output_invalid"), "{stdout}");
    assert!(stdout.contains("structured_output_path: native"), "{stdout}");
    support::assert_contains(&stderr, &format!("warning: {SCHEMA_NOT_HONORED}"));
}

#[test]
fn a_reask_recovers_on_the_second_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let endpoint = Server::start(vec![
        chat(r#"{"answer": "42"}"#, "stop"),
        chat(r#"{"answer": 42}"#, "stop"),
    ])
    .unwrap();
    let output = complete(
        &endpoint,
        &["--schema", schema.to_str().unwrap(), "--reask", "--json"],
    );
    support::assert_exit(&output, 0);
    let report = json_of(&output);
    assert_eq!(report["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(report["schema_mode"], json!("unverified_repaired"));
    assert_eq!(report["parsed"], json!({"answer": 42}));
    // The second request carries the model's first output and the violation at its pointer.
    let second = &endpoint.requests()[1].json().unwrap();
    let messages = second["messages"].as_array().unwrap();
    let correction = messages.last().unwrap()["content"].as_str().unwrap();
    assert!(correction.contains("#/answer"), "{correction}");
}

#[test]
fn no_native_takes_the_prompt_augmentation_path() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let endpoint = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let output = complete(
        &endpoint,
        &["--schema", schema.to_str().unwrap(), "--no-native", "--json"],
    );
    assert_eq!(output.status.code(), Some(0));
    let report = json_of(&output);
    assert_eq!(report["structured_output_path"], json!("prompt_augmentation"));
    assert_eq!(report["schema_mode"], json!("prompted"));
    assert!(
        endpoint.requests()[0]
            .json()
            .unwrap()
            .get("response_format")
            .is_none()
    );
}

#[test]
fn stop_sequences_are_sent() {
    let endpoint = Server::start(vec![chat("forty-two", "stop")]).unwrap();
    let output = complete(&endpoint, &["--stop", "END", "--stop", "###", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        endpoint.requests()[0].json().unwrap()["stop"],
        json!(["END", "###"])
    );
}

#[test]
fn a_missing_key_variable_is_a_usage_error() {
    let endpoint = Server::start(vec![]).unwrap();
    let output = complete(&endpoint, &["--api-key-env", "OA_TEST_SURELY_UNSET_VARIABLE"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn an_unreachable_endpoint_is_a_failed_call() {
    let output = Command::new(env!("CARGO_BIN_EXE_oa"))
        .args([
            "complete",
            "--base-url",
            &oa_testkit::closed_base_url().unwrap(),
            "--model",
            "m",
            "--json",
            "hi",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = json_of(&output);
    assert_eq!(report["ok"], json!(false));
    assert_eq!(report["error"]["category"], json!("provider_unavailable"));
}

#[test]
fn the_failure_error_message_is_what_oa_validate_prints() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let content = r#"{"answer": "forty-two", "unit": "none"}"#;
    let endpoint = Server::start(vec![chat(content, "stop")]).unwrap();
    let report = json_of(&complete(
        &endpoint,
        &["--schema", schema.to_str().unwrap(), "--json"],
    ));
    let error_message = report["error"]["error_message"].as_str().unwrap();
    let instance = dir.path().join("content.json");
    std::fs::write(&instance, content).unwrap();
    let validate = Command::new(env!("CARGO_BIN_EXE_oa"))
        .arg("validate")
        .arg(&schema)
        .arg(&instance)
        .output()
        .unwrap();
    assert_eq!(validate.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(validate.stdout).unwrap().trim_end(),
        error_message
    );
    assert_eq!(error_message.lines().count(), 2, "{error_message}");
}

/// A Chat Completions reply with `content` and its own token counts.
fn billed(content: &str, prompt: u64, completion: u64) -> oa_testkit::Reply {
    oa_testkit::Reply::json(
        200,
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        }),
    )
}

/// The issue's case: two attempts billed 107 and 165 tokens. `usage` stays the answering attempt's (the spec's
/// figure); the summary says so and adds the total over both; `--json` adds `usage_total` and each attempt's usage,
/// path and outcome.
#[test]
fn a_reasked_call_reports_what_every_attempt_cost() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let schema = schema.to_str().unwrap();
    let replies = || {
        vec![
            billed(r#"{"answer": "42"}"#, 100, 7),
            billed(r#"{"answer": 42}"#, 160, 5),
        ]
    };
    let endpoint = Server::start(replies()).unwrap();
    let output = complete(&endpoint, &["--schema", schema, "--reask"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.lines().any(|line| line
            == "usage: prompt 160, completion 5, total 165 (this attempt); total over 2 attempts: prompt 260, \
                completion 12, total 272"),
        "{stdout}"
    );
    assert!(stdout.lines().any(|line| line == "attempts: 2"), "{stdout}");
    let endpoint = Server::start(replies()).unwrap();
    let report = json_of(&complete(&endpoint, &["--schema", schema, "--reask", "--json"]));
    assert_eq!(report["usage"]["total_tokens"], json!(165));
    assert_eq!(
        report["usage_total"],
        json!({"prompt_tokens": 260, "completion_tokens": 12, "total_tokens": 272})
    );
    assert_eq!(
        report["attempts"],
        json!([
            {"attempt_index": 0, "retry_reason": null, "sent": true, "structured_output_path": "native",
             "schema_mode": "unverified", "outcome": "failed", "category": "structured_output_invalid",
             "failure_class": "type_mismatch", "early_stop": null,
             "usage": {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}},
            {"attempt_index": 1, "retry_reason": "reask", "sent": true, "structured_output_path": "native",
             "schema_mode": "unverified_repaired", "outcome": "ok", "category": null, "failure_class": null,
             "early_stop": null, "usage": {"prompt_tokens": 160, "completion_tokens": 5, "total_tokens": 165}}
        ])
    );
    // One attempt: the usage line as before, and usage_total equal to usage.
    let endpoint = Server::start(vec![billed(r#"{"answer": 42}"#, 160, 5)]).unwrap();
    let output = complete(&endpoint, &["--schema", schema]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|line| line == "usage: prompt 160, completion 5, total 165"),
        "{stdout}"
    );
}

/// A failed call keeps its marker on each OpenAI path (tool coercion is in `mappings`): `schema_mode` and
/// `schema_version` in `--json` and the summary, never null for a call that had a schema; and what the failed
/// call cost.
#[test]
fn a_failed_call_keeps_its_marker_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let strict = schema_file(&dir);
    let loose = dir.path().join("loose.json");
    std::fs::write(
        &loose,
        r#"{"type": "object", "properties": {"answer": {"type": "integer"}}}"#,
    )
    .unwrap();
    let cases: [(&std::path::Path, &[&str], &str, &str); 3] = [
        (&strict, &[], "native", "unverified_repaired"),
        (&loose, &[], "native_unenforced", "unenforced_repaired"),
        (
            &strict,
            &["--no-native"],
            "prompt_augmentation",
            "prompted_repaired",
        ),
    ];
    for (schema, extra, path, mode) in cases {
        let replies = || vec![billed("prose", 100, 7), billed("more prose", 160, 5)];
        let endpoint = Server::start(replies()).unwrap();
        let mut args = vec!["--schema", schema.to_str().unwrap(), "--reask", "--json"];
        args.extend_from_slice(extra);
        let output = complete(&endpoint, &args);
        assert_eq!(output.status.code(), Some(1), "{path}");
        let report = json_of(&output);
        assert_eq!(report["structured_output_path"], json!(path));
        assert_eq!(report["schema_mode"], json!(mode), "{path}: {report}");
        assert_eq!(
            report["schema_version"].as_str().map(str::len),
            Some(64),
            "{path}"
        );
        assert_eq!(report["usage"]["total_tokens"], json!(165), "{path}");
        assert_eq!(report["usage_total"]["total_tokens"], json!(272), "{path}");
        let endpoint = Server::start(replies()).unwrap();
        args.retain(|arg| *arg != "--json");
        let output = complete(&endpoint, &args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.lines().any(|line| line == format!("schema_mode: {mode}")),
            "{path}: {stdout}"
        );
        assert!(
            stdout
                .lines()
                .any(|line| line.starts_with("schema_version: ") && line.len() == 16 + 64),
            "{path}: {stdout}"
        );
    }
}
