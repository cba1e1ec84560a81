//! `oa validate` on a failed union, as a built binary: the text groups the members as alternatives (every
//! violation still printed), `--discriminate` reports against the member the tag names, `--max-violations N` caps
//! the report (json gains an "omitted" count only then), and neither flag is accepted with basic or flag output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::process::{Command, Output};

const SCHEMA: &str = r#"{"type": "object", "properties": {"steps": {"type": "array", "items": {"oneOf": [
  {"type": "object", "properties": {"tool": {"const": "read"}, "path": {"type": "string"}},
   "required": ["tool", "path"], "additionalProperties": false},
  {"type": "object", "properties": {"tool": {"const": "write"}, "path": {"type": "string"}, "text": {"type": "string"}},
   "required": ["tool", "path", "text"], "additionalProperties": false},
  {"type": "object", "properties": {"tool": {"const": "search"}, "query": {"type": "string"}},
   "required": ["tool", "query"], "additionalProperties": false},
  {"type": "object", "properties": {"tool": {"const": "done"}}, "required": ["tool"], "additionalProperties": false}
]}}}}"#;

/// Two real mistakes in the second step: `path` is a number and `text` is missing.
const INSTANCE: &str = r#"{"steps": [{"tool": "read", "path": "a"}, {"tool": "write", "path": 3}]}"#;

fn validate(extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    let instance = dir.path().join("instance.json");
    std::fs::write(&schema, SCHEMA).unwrap();
    std::fs::write(&instance, INSTANCE).unwrap();
    Command::new(env!("CARGO_BIN_EXE_oa"))
        .arg("validate")
        .arg(&schema)
        .arg(&instance)
        .args(extra)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_text_groups_a_failed_union_as_alternatives() {
    let output = validate(&[]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let expected_start = "#/steps/1: oneOf: one of these 4 alternatives must hold (/properties/steps/items/oneOf):\n  \
                          alternative 0:\n    #/steps/1/path: type: expected string, got integer\n";
    assert!(text.starts_with(expected_start), "{text}");
    for member in 0..4 {
        assert!(text.contains(&format!("\n  alternative {member}:\n")), "{text}");
    }
    // Every violation the json report names is printed once under some alternative.
    let json: Value = serde_json::from_slice(&validate(&["--json"]).stdout).unwrap();
    let violations = json["violations"].as_array().unwrap();
    let member_lines = text.lines().filter(|line| line.starts_with("    #")).count();
    assert_eq!(member_lines, violations.len(), "{text}");
    assert!(
        json.get("omitted").is_none(),
        "json gains nothing unless asked: {json}"
    );
}

#[test]
fn discriminate_reports_against_the_member_the_tag_names() {
    let output = validate(&["--discriminate"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "#/steps/1/path: type: expected string, got integer\n\
         #/steps/1/text: required: required property \"text\" is missing\n"
    );
}

/// `--max-violations N` caps whole alternatives: the heading keeps the union's 4 members, the member closest to
/// valid (`write`, two real mistakes and its tag right) is the one kept, and the last line says how many violations
/// and alternatives were left out; json gains `omitted` and `omitted_alternatives`.
#[test]
fn max_violations_caps_whole_alternatives_and_counts_the_rest() {
    let full: Value = serde_json::from_slice(&validate(&["--json"]).stdout).unwrap();
    let total = full["violations"].as_array().unwrap().len();
    assert!(total > 3);
    let capped: Value =
        serde_json::from_slice(&validate(&["--json", "--max-violations", "3"]).stdout).unwrap();
    assert_eq!(capped["violations"].as_array().unwrap().len(), 2);
    assert_eq!(
        capped["omitted"].as_u64(),
        Some(u64::try_from(total - 2).unwrap())
    );
    assert_eq!(capped["omitted_alternatives"].as_u64(), Some(3));
    let output = validate(&["--max-violations", "3"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        format!(
            "#/steps/1: oneOf: one of these 4 alternatives must hold (/properties/steps/items/oneOf), 1 shown, \
             closest to valid first:\n  \
             alternative 1:\n    \
             #/steps/1/path: type: expected string, got integer\n    \
             #/steps/1/text: required: required property \"text\" is missing\n\
             ... and {} more (3 alternatives not shown)\n",
            total - 2
        )
    );
}

#[test]
fn report_views_are_refused_with_standard_output_formats() {
    for format in ["basic", "flag"] {
        let output = validate(&["--output", format, "--max-violations", "1"]);
        assert_eq!(output.status.code(), Some(2), "{format}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("--max-violations"));
    }
    assert_eq!(validate(&["--max-violations", "0"]).status.code(), Some(2));
}
