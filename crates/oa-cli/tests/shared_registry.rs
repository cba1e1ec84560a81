//! The capability registry shared through a real `redis-server` (started by oa-testkit on 127.0.0.1), across
//! processes of the built binary: `oa probe --registry redis://…` in one process, `oa complete --registry redis://…`
//! in another. Against the llama.cpp peer when it is up; the concurrency test needs only scripted servers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::oa_text as oa;

use std::process::Command;
use std::time::Duration;

use oa_testkit::{RedisServer, Responder, Server};
use serde_json::{Value, json};

const QUESTION: &str = "What is two plus two? Answer with the number.";

fn canary_schema(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("canary.json");
    std::fs::write(
        &path,
        json!({"type": "object", "properties": {"answer": {"type": "string", "enum": ["seventeen"]}},
               "required": ["answer"], "additionalProperties": false})
        .to_string(),
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

/// `oa complete --json` with the canary schema, reading `registry`, in its own process.
fn complete(base_url: &str, model: &str, schema: &str, registry: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "complete",
        "--base-url",
        base_url,
        "--model",
        model,
        "--json",
        "--schema",
        schema,
        "--registry",
        registry,
    ];
    args.extend_from_slice(extra);
    args.push(QUESTION);
    let output = oa(&args);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_verdict_probed_in_one_process_marks_calls_in_another_until_it_expires_or_redis_goes() {
    let Some(base_url) = support::llama_peer("shared_registry") else {
        return;
    };
    let Some(mut redis) = RedisServer::start("shared_registry") else {
        return;
    };
    let model = std::env::var("OA_LLAMA_MODEL").unwrap_or_else(|_| "SmolLM2-135M-Instruct".to_owned());
    let dir = tempfile::tempdir().unwrap();
    let schema = canary_schema(&dir);
    let url = redis.url();
    // A short staleness window, so the key's expiry can be watched.
    let probe = oa(&[
        "probe",
        "--base-url",
        &base_url,
        "--model",
        &model,
        "--registry",
        &url,
        "--stale-after",
        "4",
    ]);
    support::assert_exit(&probe, 0);
    let report = complete(&base_url, &model, &schema, &url, &["--stale-after", "4"]);
    assert_eq!(report["schema_mode"], json!("enforced"), "{report}");
    std::thread::sleep(Duration::from_secs(5));
    let report = complete(&base_url, &model, &schema, &url, &["--stale-after", "4"]);
    assert_eq!(report["schema_mode"], json!("unverified"), "expired: {report}");
    // Redis stopped: unverified, and the call still succeeds.
    redis.stop();
    let report = complete(&base_url, &model, &schema, &url, &[]);
    assert_eq!(report["ok"], json!(true), "{report}");
    assert_eq!(report["schema_mode"], json!("unverified"), "{report}");
}

#[test]
fn processes_probing_and_reading_at_once_see_whole_verdicts() {
    let Some(redis) = RedisServer::start("shared_registry::processes") else {
        return;
    };
    // Every request answers the canary's only legal value: probes say enforced, calls validate.
    let server = Server::start(Responder::function(|_| {
        support::chat(r#"{"answer": "seventeen"}"#, "stop")
    }))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let schema = canary_schema(&dir);
    let url = redis.url();
    let base_url = server.base_url();
    let mut children = Vec::new();
    for idx in 0..6 {
        let mut command = Command::new(env!("CARGO_BIN_EXE_oa"));
        if idx % 2 == 0 {
            command.args([
                "probe",
                "--base-url",
                &base_url,
                "--model",
                "m",
                "--registry",
                &url,
            ]);
        } else {
            command.args([
                "complete",
                "--base-url",
                &base_url,
                "--model",
                "m",
                "--json",
                "--schema",
                &schema,
                "--registry",
                &url,
                QUESTION,
            ]);
        }
        let child = command
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        children.push((idx, child));
    }
    // All six run at once; now collect them.
    for (idx, child) in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "process {idx}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        if idx % 2 == 1 {
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            let mode = report["schema_mode"].as_str().unwrap();
            // Before the first probe completed, unverified; after, enforced; never anything torn or in between.
            assert!(mode == "enforced" || mode == "unverified", "{report}");
        }
    }
    // After the probes, a new process reads the verdict they recorded.
    let report = complete(&base_url, "m", &schema, &url, &[]);
    assert_eq!(report["schema_mode"], json!("enforced"), "{report}");
}
