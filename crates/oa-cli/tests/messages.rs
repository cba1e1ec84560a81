//! `oa validate`'s messages say what to do (issue 39, point 8), as a built binary: a comment in a JSONC file, a
//! byte-order mark on a single instance, a draft-07 schema read as 2020-12 because it names no `$schema`, a
//! misspelled keyword (a warning, silenced by `--no-warn`), and `--jobs` without `--batch`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::oa_text as oa;

use std::path::PathBuf;
use std::process::Output;

fn file(dir: &tempfile::TempDir, name: &str, text: &[u8]) -> String {
    let path: PathBuf = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_comment_says_json_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let schema = file(&dir, "s.json", br#"{"type": "object"}"#);
    let tsconfig = file(
        &dir,
        "tsconfig.json",
        b"{\n  // strict mode\n  \"strict\": true\n}\n",
    );
    let output = oa(&["validate", &schema, &tsconfig]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "malformed JSON at line 2, column 3: a comment (`//`): JSON has no comments, remove them (a JSONC file such \
         as tsconfig.json must be stripped of its comments first)\n"
    );
    // The same in a schema file: an input error in the same words.
    let output = oa(&["validate", &tsconfig, &schema]);
    assert_eq!(output.status.code(), Some(2));
    support::assert_contains(&stderr(&output), "a comment (`//`): JSON has no comments");
}

#[test]
fn a_byte_order_mark_on_a_single_instance_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let schema = file(&dir, "s.json", br#"{"type": "object"}"#);
    let instance = file(&dir, "i.json", b"\xEF\xBB\xBF{\"a\": 1}");
    let output = oa(&["validate", &schema, &instance]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "malformed JSON at line 1, column 1: the text starts with a byte-order mark (U+FEFF), which JSON text must \
         not: save it without one\n"
    );
}

#[test]
fn a_draft_7_schema_without_schema_is_pointed_to_draft_7() {
    let dir = tempfile::tempdir().unwrap();
    let schema = file(
        &dir,
        "tuple.json",
        br#"{"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}"#,
    );
    let instance = file(&dir, "i.json", br#"["a", 1]"#);
    let output = oa(&["validate", &schema, &instance]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.trim_end().ends_with(
            "; the schema declares no $schema and was read as draft 2020-12, but it is a valid draft 7 schema: pass \
             --draft 7, or add \"$schema\": \"http://json-schema.org/draft-07/schema\""
        ),
        "{message}"
    );
    let output = oa(&["validate", &schema, &instance, "--draft", "7"]);
    support::assert_exit(&output, 0);
    // A schema invalid in every draft gets no hint.
    let broken = file(&dir, "broken.json", br#"{"type": 5}"#);
    let output = oa(&["validate", &broken, &instance]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!stderr(&output).contains("--draft"), "{}", stderr(&output));
}

#[test]
fn a_misspelled_keyword_is_a_warning_unless_silenced() {
    let dir = tempfile::tempdir().unwrap();
    let schema = file(
        &dir,
        "s.json",
        br#"{"type": "object", "properties": {"name": {"type": "string"}}, "requird": ["name"]}"#,
    );
    let instance = file(&dir, "i.json", b"{}");
    let output = oa(&["validate", &schema, &instance]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "the keyword is ignored, as the draft says"
    );
    assert_eq!(
        stderr(&output),
        "oa validate: warning: schema #: \"requird\" is not a keyword of draft 2020-12 and is ignored; did you mean \
         \"required\"? (--no-warn silences this)\n"
    );
    let output = oa(&["validate", &schema, &instance, "--no-warn"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stderr(&output), "");
    // A custom keyword of a known vocabulary one edit from a keyword (OpenAPI's `example`) stays quiet.
    let openapi = file(&dir, "o.json", br#"{"type": "object", "example": {"a": 1}}"#);
    assert_eq!(stderr(&oa(&["validate", &openapi, &instance])), "");
}

/// `oa complete --schema` and `oa probe --schema` warn the same way, before anything is sent; `--no-warn` silences
/// both (found by `cargo xtask mutants-diff`: a `!` deleted from complete's flag went unnoticed).
#[test]
fn complete_and_probe_warn_about_a_misspelled_schema_keyword_too() {
    let dir = tempfile::tempdir().unwrap();
    let schema = file(
        &dir,
        "s.json",
        br#"{"type": "object", "properties": {"a": {"type": "integer", "maximun": 3}}, "required": ["a"],
             "additionalProperties": false}"#,
    );
    let closed = oa_testkit::closed_base_url().unwrap();
    let warning = "warning: schema #/properties/a: \"maximun\" is not a keyword of draft 2020-12 and is ignored; did \
                   you mean \"maximum\"? (--no-warn silences this)";
    for command in ["complete", "probe"] {
        let mut args = vec![
            command,
            "--base-url",
            &closed,
            "--model",
            "m",
            "--schema",
            &schema,
        ];
        if command == "complete" {
            args.push("hi");
        }
        let output = oa(&args);
        let lines: Vec<String> = stderr(&output).lines().map(str::to_owned).collect();
        assert_eq!(lines[0], format!("oa {command}: {warning}"), "{lines:?}");
        args.insert(1, "--no-warn");
        let output = oa(&args);
        assert!(!stderr(&output).contains("maximun"), "{}", stderr(&output));
    }
}

#[test]
fn jobs_without_batch_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let schema = file(&dir, "s.json", br#"{"type": "object"}"#);
    let instance = file(&dir, "i.json", b"{}");
    let output = oa(&["validate", &schema, &instance, "--jobs", "2"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--batch"), "{}", stderr(&output));
}
