//! `oa complete --schema` against the real llama.cpp peer: grammar-enforced structured output returns the only
//! value the canary schema allows.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use std::process::Command;

#[test]
fn complete_with_the_canary_schema_returns_the_enum_value() {
    let Some(base_url) = support::llama_peer("complete_with_the_canary_schema_returns_the_enum_value") else {
        return;
    };
    let model = std::env::var("OA_LLAMA_MODEL").unwrap_or_else(|_| "SmolLM2-135M-Instruct".to_owned());
    let dir = tempfile::tempdir().unwrap();
    let schema_path = dir.path().join("canary.json");
    let schema = json!({
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["seventeen"]}},
        "required": ["answer"],
        "additionalProperties": false
    });
    std::fs::write(&schema_path, schema.to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_oa"))
        .args([
            "complete",
            "--base-url",
            &base_url,
            "--model",
            &model,
            "--json",
            "--schema",
        ])
        .arg(&schema_path)
        .arg("What is two plus two? Answer with the number.")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["parsed"], json!({"answer": "seventeen"}), "{report}");
    assert_eq!(report["structured_output_path"], json!("native"));
    // Native strict, but no --registry holds a probe verdict for this route: enforcement is not assumed.
    assert_eq!(report["schema_mode"], json!("unverified"));
    assert_eq!(report["diagnostics"], json!([]));
}
