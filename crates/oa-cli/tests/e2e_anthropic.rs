//! `oa complete --mapping anthropic` and `oa probe --mapping anthropic` against the real llama.cpp peer, which serves
//! Anthropic's Messages format at `/v1/messages` and ignores `output_config`: plain text comes back, a structured
//! call on the native path gets prose and reports it as a schema not honored, and the probe says not enforced.
//!
//! The peer comes from `cargo xtask ci` (or `cargo xtask peer -- cargo test -p oa-cli --test e2e_anthropic`) through
//! `OA_LLAMA_BASE_URL`; without it the tests say so loudly, and fail under `CI=true`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output};

use serde_json::{Value, json};

const SCHEMA_NOT_HONORED: &str = "openarmature.structured_output.schema_not_honored";

fn model() -> String {
    std::env::var("OA_LLAMA_MODEL").unwrap_or_else(|_| "SmolLM2-135M-Instruct".to_owned())
}

/// Runs `oa <subcommand> --mapping anthropic --base-url <peer> --model <model> <args>`.
fn oa(subcommand: &str, base_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oa"))
        .args([subcommand, "--mapping", "anthropic", "--base-url", base_url])
        .args(["--model", &model()])
        .args(args)
        .output()
        .unwrap()
}

fn json_of(output: &Output) -> Value {
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&text).unwrap_or_else(|error| {
        panic!(
            "not one JSON object ({error}):\n{text}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn a_plain_completion_returns_the_models_text() {
    let Some(base_url) = support::llama_peer("a_plain_completion_returns_the_models_text") else {
        return;
    };
    let output = oa(
        "complete",
        &base_url,
        &["--temperature", "0", "--max-tokens", "64", "--json", "Say hello."],
    );
    let report = json_of(&output);
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert!(
        report["content"]
            .as_str()
            .is_some_and(|text| !text.trim().is_empty()),
        "{report}"
    );
    assert!(
        ["stop", "length"].contains(&report["finish_reason"].as_str().unwrap()),
        "{report}"
    );
    assert!(report["usage"]["total_tokens"].as_u64().unwrap() > 0, "{report}");
}

#[test]
fn a_structured_call_gets_prose_and_one_schema_not_honored() {
    let Some(base_url) = support::llama_peer("a_structured_call_gets_prose_and_one_schema_not_honored")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    let answer = json!({"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"],
                        "additionalProperties": false});
    std::fs::write(&schema, answer.to_string()).unwrap();
    // At temperature 0 and with room to finish, the model ends its turn (stop_reason end_turn), so the prose is
    // not excused as cut short.
    let output = oa(
        "complete",
        &base_url,
        &[
            "--schema",
            schema.to_str().unwrap(),
            "--system",
            "Answer in one short sentence.",
            "--temperature",
            "0",
            "--max-tokens",
            "256",
            "--json",
            "What is six times seven?",
        ],
    );
    let report = json_of(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    assert_eq!(
        report["error"]["category"],
        json!("structured_output_invalid"),
        "{report}"
    );
    assert_eq!(report["error"]["failure_class"], json!("not_json"), "{report}");
    assert_eq!(report["finish_reason"], json!("stop"), "{report}");
    assert_eq!(report["structured_output_path"], json!("native"));
    let names: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|diagnostic| diagnostic["event_name"].as_str())
        .collect();
    assert_eq!(names, [SCHEMA_NOT_HONORED], "{report}");
}

#[test]
fn the_probe_reports_not_enforced_with_exit_1() {
    let Some(base_url) = support::llama_peer("the_probe_reports_not_enforced_with_exit_1") else {
        return;
    };
    let output = oa("probe", &base_url, &["--json"]);
    let line = json_of(&output);
    assert_eq!(output.status.code(), Some(1), "{line}");
    assert_eq!(line["verdict"], json!("not_enforced"), "{line}");
    assert_eq!(line["path"], json!("native"), "{line}");
    assert!(
        line["content"]
            .as_str()
            .is_some_and(|content| !content.contains("seventeen")),
        "{line}"
    );
}
