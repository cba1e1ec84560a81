//! Shared CLI test helpers: canned Chat Completions replies for oa-testkit's server, and the llama.cpp peer's
//! address.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use oa_testkit::Reply;
use serde_json::{Value, json};

/// Writes the schema most CLI tests ask for, `{"answer": integer}` (required, closed), into `dir`.
pub fn answer_schema_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("schema.json");
    let schema = json!({
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
        "additionalProperties": false
    });
    std::fs::write(&path, schema.to_string()).unwrap();
    path
}

/// A Chat Completions response with one choice.
pub fn chat(content: &str, finish_reason: &str) -> Reply {
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}
        }),
    )
}

/// A Chat Completions response whose message is a refusal.
pub fn refusal(text: &str) -> Reply {
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
        }),
    )
}

/// A streamed refusal, in two pieces.
pub fn streamed_refusal(first: &str, second: &str) -> Reply {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c", "object": "chat.completion.chunk", "model": "test-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    Reply::sse(&[
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(json!({"refusal": first}), Value::Null),
        chunk(json!({"refusal": second}), Value::Null),
        chunk(json!({}), json!("stop")),
        json!("[DONE]"),
    ])
}

/// The real llama.cpp peer's base URL, from `OA_LLAMA_BASE_URL` (set by `cargo xtask ci`). Without it: a loud
/// message and `None` outside CI; a failure under `CI=true`.
pub fn llama_peer(test: &str) -> Option<String> {
    match std::env::var("OA_LLAMA_BASE_URL") {
        Ok(base_url) if !base_url.is_empty() => Some(base_url),
        _ => {
            let message = format!(
                "OA_LLAMA_BASE_URL is not set: no llama.cpp peer, so the end-to-end test {test} did NOT run. \
                 Run `cargo xtask ci`, or `cargo xtask peer -- cargo test -p oa-cli`."
            );
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("\n!!!!! SKIPPED: {message}\n");
            None
        }
    }
}

/// The built `oa` binary, with the environment variables that would reach outside a test removed (an OpenAI API
/// key, an OTLP endpoint): the caller adds arguments and runs it.
pub fn oa_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_oa"));
    command
        .env_remove("OPENAI_API_KEY")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    command
}

/// Runs the built `oa` binary (as [`oa_command`] sets it up) with `args`, waiting for it.
pub fn oa(args: &[&dyn AsRef<std::ffi::OsStr>]) -> std::process::Output {
    oa_command().args(args).output().unwrap()
}

/// [`oa`] for arguments that are all text.
pub fn oa_text(args: &[&str]) -> std::process::Output {
    oa_command().args(args).output().unwrap()
}

/// `oa complete --base-url <base_url> --model test-model <flags>` (as [`oa_command`] sets it up): the caller adds
/// the rest and the message.
pub fn complete_command(base_url: &str, flags: &[&str]) -> std::process::Command {
    let mut command = oa_command();
    command
        .args(["complete", "--base-url", base_url, "--model", "test-model"])
        .args(flags);
    command
}

/// A finished run's standard output.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// A finished run's standard error.
pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// `../shared/schemastore`, or `None` (loudly; a failure under `CI=true`).
pub fn schemastore(test: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemastore");
    if dir.join("schemas/package.json").is_file() {
        return Some(dir);
    }
    let message = format!(
        "the SchemaStore catalog is not at {}: the test {test} did NOT run",
        dir.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("\n!!!!! SKIPPED: {message}\n");
    None
}

/// Asserts that a finished run exited with `code`, showing what it wrote to both streams when it did not.
#[track_caller]
pub fn assert_exit(output: &std::process::Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Asserts that `text` contains `part`, showing the whole text when it does not.
#[track_caller]
pub fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} not in:\n{text}");
}
