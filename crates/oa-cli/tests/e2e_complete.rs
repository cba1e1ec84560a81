//! `oa complete --schema` against the real llama.cpp peer, with the enforcement marker earned from the registry:
//! unverified without one; enforced after `oa probe --registry` recorded the route; and behind a gateway that
//! drops `response_format`, a recorded "not enforcing" verdict sends `--route` to the prompt path.
//!
//! The peer comes from `cargo xtask ci` (or `cargo xtask peer -- cargo test -p oa-cli --test e2e_complete`);
//! without it the test says so loudly, and fails under `CI=true`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::{Command, Output};

use oa_testkit::{Responder, Server};
use serde_json::{Value, json};

const QUESTION: &str = "What is two plus two? Answer with the number.";

fn model() -> String {
    std::env::var("OA_LLAMA_MODEL").unwrap_or_else(|_| "SmolLM2-135M-Instruct".to_owned())
}

fn oa(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oa"))
        .args(args)
        .args(paths)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .output()
        .unwrap()
}

/// `oa complete --json --schema SCHEMA [extra] QUESTION` against `base_url`.
fn complete(base_url: &str, schema: &Path, extra: &[&str]) -> (Value, Output) {
    let model = model();
    let mut args = vec!["complete", "--base-url", base_url, "--model", &model, "--json"];
    args.extend_from_slice(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_oa"))
        .args(&args)
        .arg("--schema")
        .arg(schema)
        .arg(QUESTION)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (report, output)
}

#[test]
fn the_marker_is_earned_from_the_registry_and_routing_degrades_an_unenforcing_route() {
    let Some(base_url) = support::llama_peer("e2e_complete") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("canary.json");
    std::fs::write(
        &schema,
        json!({"type": "object", "properties": {"answer": {"type": "string", "enum": ["seventeen"]}},
               "required": ["answer"], "additionalProperties": false})
        .to_string(),
    )
    .unwrap();

    // No registry: the grammar binds the answer, but nothing verified the route.
    let (report, _) = complete(&base_url, &schema, &[]);
    assert_eq!(report["parsed"], json!({"answer": "seventeen"}), "{report}");
    assert_eq!(report["structured_output_path"], json!("native"));
    assert_eq!(report["schema_mode"], json!("unverified"));
    assert_eq!(report["diagnostics"], json!([]));

    // The probe records the route as enforcing; the same call reading that registry is enforced.
    let registry = dir.path().join("registry.json");
    let model = model();
    let probe = oa(
        &["probe", "--base-url", &base_url, "--model", &model, "--registry"],
        &[&registry],
    );
    support::assert_exit(&probe, 0);
    let (report, _) = complete(&base_url, &schema, &["--registry", registry.to_str().unwrap()]);
    assert_eq!(report["parsed"], json!({"answer": "seventeen"}), "{report}");
    assert_eq!(report["schema_mode"], json!("enforced"));

    // Behind a gateway that drops response_format: the probe records "not enforcing" for that route ...
    let gateway = Server::start(Responder::Relay(base_url.clone())).unwrap();
    let gateway_registry = dir.path().join("gateway.json");
    let probe = oa(
        &[
            "probe",
            "--base-url",
            &gateway.base_url(),
            "--model",
            &model,
            "--registry",
        ],
        &[&gateway_registry],
    );
    support::assert_exit(&probe, 1);
    let recorded: Value = serde_json::from_slice(&std::fs::read(&gateway_registry).unwrap()).unwrap();
    assert_eq!(recorded["entries"][0]["enforces"], json!(false), "{recorded}");

    // ... and --route sends the call to the prompt path, at temperature 0 with one repair.
    let n_before = gateway.n_requests();
    let (report, output) = complete(
        &gateway.base_url(),
        &schema,
        &[
            "--registry",
            gateway_registry.to_str().unwrap(),
            "--route",
            "--trace",
        ],
    );
    assert_eq!(
        report["structured_output_path"],
        json!("prompt_augmentation"),
        "{report}"
    );
    let sent: Vec<Value> = gateway.requests()[n_before..]
        .iter()
        .map(|request| request.json().unwrap())
        .collect();
    assert!(!sent.is_empty() && sent.len() <= 2, "{sent:?}");
    for body in &sent {
        assert_eq!(body["temperature"], json!(0.0), "{body}");
        assert!(body.get("response_format").is_none(), "{body}");
    }
    // The marker rides every attempt's span; a result, when the small model manages one, carries it too.
    let stderr = String::from_utf8_lossy(&output.stderr);
    support::assert_contains(&stderr, "openarmature.llm.schema_mode=prompted");
    if report["ok"] == json!(true) {
        let mode = report["schema_mode"].as_str().unwrap();
        assert!(mode == "prompted" || mode == "prompted_repaired", "{report}");
    } else {
        // SmolLM2-135M rarely writes bare JSON from a prompt alone: the failure names the prompt path.
        assert_eq!(
            report["error"]["category"],
            json!("structured_output_invalid"),
            "{report}"
        );
        assert_eq!(
            report["attempts"].as_array().unwrap().len(),
            2,
            "the degraded path repairs once"
        );
        support::assert_contains(&stderr, "openarmature.llm.schema_mode=prompted_repaired");
    }
}
