//! Side channels that fail speak up, once, on stderr, naming where and why, and never cost the call: a capability
//! registry that cannot be read (a Redis port nothing listens on, a file that is not there) reads as unverified with
//! one warning; `oa probe --registry` with a store it cannot reach exits 2 naming it, before any probe is sent; an
//! OTLP collector or a Langfuse host that is down is named with its URL and cause.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output};

use oa_testkit::{Reply, Responder, Server};
use serde_json::{Value, json};
use support::chat;

fn oa(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_oa"));
    command
        .args(args)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OPENAI_API_KEY")
        .env_remove("LANGFUSE_HOST")
        .envs(env.iter().copied());
    command.output().unwrap()
}

/// `oa complete` against `model` (model `m`) with `extra` flags, asking "hi".
fn complete(model: &Server, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let base_url = model.base_url();
    let mut args = vec!["complete", "--base-url", &base_url, "--model", "m"];
    args.extend_from_slice(extra);
    args.push("hi");
    oa(&args, env)
}

/// `host:port` of a port on 127.0.0.1 that refuses connections.
fn closed_address() -> String {
    let closed = oa_testkit::closed_base_url().unwrap();
    closed
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned()
}

fn schema_file(dir: &tempfile::TempDir) -> String {
    support::answer_schema_file(dir).to_str().unwrap().to_owned()
}

/// The stderr lines that mention `needle`.
fn lines_with(output: &Output, needle: &str) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| line.contains(needle))
        .map(str::to_owned)
        .collect()
}

#[test]
fn an_unreachable_redis_registry_is_one_warning_naming_it_and_the_call_goes_on_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let address = closed_address();
    let registry = format!("redis://:hunter2-secret@{address}/0");
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let output = complete(
        &model,
        &["--schema", &schema, "--registry", &registry, "--json"],
        &[],
    );
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["schema_mode"], json!("unverified"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("hunter2"), "{stderr}");
    let warnings = lines_with(&output, "--registry");
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].starts_with("oa complete: warning: --registry could not be read")
            && warnings[0].contains(&format!("redis://{address}/0"))
            && warnings[0].contains("connection refused")
            && warnings[0].ends_with("the route read as unverified"),
        "{stderr}"
    );
}

#[test]
fn a_registry_file_that_is_not_there_is_a_warning_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let missing = dir.path().join("caps.json");
    let missing = missing.to_str().unwrap();
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let output = complete(&model, &["--schema", &schema, "--registry", missing], &[]);
    assert_eq!(output.status.code(), Some(0));
    let warnings = lines_with(&output, missing);
    assert_eq!(
        warnings,
        [format!(
            "oa complete: warning: --registry {missing}: no such file (`oa probe --registry {missing}` writes \
             one): the route reads as unverified"
        )]
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("schema_mode: unverified"));
}

#[test]
fn probe_with_an_unreachable_store_exits_2_naming_it_before_probing() {
    let address = closed_address();
    let registry = format!("redis://:hunter2-secret@{address}/0");
    let model = Server::start(Vec::<Reply>::new()).unwrap();
    let output = oa(
        &[
            "probe",
            "--base-url",
            &model.base_url(),
            "--model",
            "m",
            "--registry",
            &registry,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("oa probe: --registry cannot be reached: ")
            && stderr.contains(&format!("redis://{address}/0"))
            && stderr.contains("connection refused"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(!stderr.contains("Io failure"), "{stderr}");
    assert_eq!(model.requests().len(), 0, "no probe is sent");
}

#[test]
fn a_collector_that_is_down_is_named_once_with_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let address = closed_address();
    let collector = format!("http://{address}");
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let output = complete(&model, &["--schema", &schema, "--otlp", &collector], &[]);
    assert_eq!(output.status.code(), Some(0), "the call itself succeeded");
    let warnings = lines_with(&output, "OTLP export");
    assert_eq!(warnings.len(), 1, "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        warnings[0].starts_with(&format!("oa complete: warning: OTLP export to {collector}/v1/"))
            && warnings[0].contains("failed: Connection refused"),
        "{warnings:?}"
    );
    // A collector that answers an error status is named with the status.
    let refusing = Server::start(Responder::function(|_| Reply::json(503, json!({})))).unwrap();
    let collector = format!("http://{}", refusing.address());
    let model = Server::start(vec![chat(r#"{"answer": 42}"#, "stop")]).unwrap();
    let output = complete(&model, &["--otlp", &collector], &[]);
    let warnings = lines_with(&output, "OTLP export");
    assert_eq!(warnings.len(), 1, "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        warnings[0].contains("the collector answered HTTP 503"),
        "{warnings:?}"
    );
    // A URL with credentials is refused before anything is sent, naming none of them.
    let output = complete(&model, &["--otlp", "http://user:pw-secret@127.0.0.1:1"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("pw-secret"));
}

#[test]
fn a_langfuse_host_that_is_down_is_named_with_its_cause() {
    let address = closed_address();
    let model = Server::start(vec![chat("hello", "stop")]).unwrap();
    let output = complete(
        &model,
        &["--langfuse"],
        &[
            ("LANGFUSE_PUBLIC_KEY", "pk-lf-side"),
            ("LANGFUSE_SECRET_KEY", "sk-lf-side-SECRET"),
            ("LANGFUSE_HOST", &format!("http://{address}")),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "the call itself succeeded");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let warnings = lines_with(&output, "Langfuse");
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(&format!("http://{address}/api/public/ingestion"))
            && warnings[0].contains("Connection refused"),
        "{stderr}"
    );
    assert!(!stderr.contains("SECRET"), "{stderr}");
}
