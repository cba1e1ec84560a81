//! Runs the built `oa` binary as a user would: files in a temporary directory, exit codes and output checked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{oa, stdout};

struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn person_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0}
        },
        "required": ["name", "age"],
        "additionalProperties": false
    })
}

fn validate_json(scratch: &Scratch, instance: &str) -> (Option<i32>, Value) {
    let schema = scratch.file("schema.json", &person_schema().to_string());
    let instance = scratch.file("instance.json", instance);
    let output = oa(&[&"validate", &schema, &instance, &"--output", &"json"]);
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    (output.status.code(), value)
}

fn locations(report: &Value) -> Vec<Value> {
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["location"].clone())
        .collect()
}

#[test]
fn help_lists_validate_and_exit_codes() {
    let output = oa(&[&"--help"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("validate"), "{text}");
    assert!(text.contains("Exit codes"), "{text}");
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let output = oa(&[&"validate", &"--no-such-flag"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn valid_instance_exits_zero() {
    let scratch = Scratch::new();
    let (code, report) = validate_json(&scratch, r#"{"name": "Ada", "age": 36}"#);
    assert_eq!(code, Some(0));
    assert_eq!(report, json!({"valid": true, "violations": []}));
}

#[test]
fn invalid_instance_reports_every_violation_and_exits_one() {
    let scratch = Scratch::new();
    let (code, report) = validate_json(&scratch, r#"{"age": -1, "extra": true}"#);
    assert_eq!(code, Some(1));
    assert_eq!(report["valid"], json!(false));
    let mut found = locations(&report);
    found.sort_by_key(|v| v.to_string());
    assert_eq!(
        found,
        vec![json!("#/age"), json!("#/extra"), json!("#/name")],
        "{report}"
    );
    for violation in report["violations"].as_array().unwrap() {
        assert!(violation["keyword"].is_string(), "{violation}");
        assert!(violation["schema_location"].is_string(), "{violation}");
        assert!(!violation["message"].as_str().unwrap().is_empty(), "{violation}");
    }
}

#[test]
fn text_output_prints_one_line_per_violation() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", &person_schema().to_string());
    let instance = scratch.file("instance.json", r#"{"name": 7, "age": "x"}"#);
    let output = oa(&[&"validate", &schema, &instance]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(text.contains("#/name"), "{text}");
    assert!(text.contains("#/age"), "{text}");
}

#[test]
fn malformed_instance_is_one_violation_without_location() {
    let scratch = Scratch::new();
    let (code, report) = validate_json(&scratch, "{\"name\": \"Ada\",\n \"age\": }");
    assert_eq!(code, Some(1));
    assert_eq!(report["valid"], json!(false));
    let violations = report["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{report}");
    assert_eq!(violations[0]["location"], Value::Null);
    let message = violations[0]["message"].as_str().unwrap();
    assert!(message.contains("line 2"), "{message}");
}

#[test]
fn invalid_schema_exits_two() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", r#"{"type": "no-such-type"}"#);
    let instance = scratch.file("instance.json", "1");
    let output = oa(&[&"validate", &schema, &instance]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid schema"));
}

#[test]
fn unreadable_instance_exits_two() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", "true");
    let missing: &Path = &scratch.dir.path().join("missing.json");
    let output = oa(&[&"validate", &schema, &missing]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn format_is_an_annotation_unless_asserted() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", r#"{"format": "ipv4"}"#);
    let instance = scratch.file("instance.json", r#""not an address""#);
    assert_eq!(oa(&[&"validate", &schema, &instance]).status.code(), Some(0));
    let asserted = oa(&[&"validate", &schema, &instance, &"--format-assertion"]);
    assert_eq!(asserted.status.code(), Some(1));
}

#[test]
fn batch_prints_one_result_per_line_in_order() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", &person_schema().to_string());
    let batch = scratch.file(
        "batch.jsonl",
        "{\"name\": \"a\", \"age\": 1}\n{\"name\": \"b\"}\nnot json\n{\"name\": \"c\", \"age\": 3}\n",
    );
    let output = oa(&[&"validate", &schema, &"--batch", &batch, &"--output", &"json"]);
    assert_eq!(output.status.code(), Some(1));
    let results: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let valid: Vec<bool> = results.iter().map(|r| r["valid"].as_bool().unwrap()).collect();
    assert_eq!(valid, vec![true, false, false, true]);
    assert_eq!(locations(&results[1]), vec![json!("#/age")]);
    assert_eq!(locations(&results[2]), vec![Value::Null]);
    let lines: Vec<u64> = results.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![1, 2, 3, 4]);
    // Piped: no progress line on stderr, only the summary (a line that is not JSON counts as invalid: it was read).
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "2 valid, 2 invalid, 0 unreadable\n"
    );
}

#[test]
fn batch_shows_progress_on_a_terminal() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", r#"{"type": "integer"}"#);
    let batch = scratch.file("batch.jsonl", "1\n2\n3\n");
    let out = scratch.dir.path().join("out.jsonl");
    // `script` gives the command a pseudo-terminal; stdout goes to a file so only stderr reaches the terminal.
    let command = format!(
        "{} validate {} --batch {} --output json > {}",
        env!("CARGO_BIN_EXE_oa"),
        schema.display(),
        batch.display(),
        out.display()
    );
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    support::assert_exit(&output, 0);
    let terminal = String::from_utf8_lossy(&output.stdout);
    assert!(terminal.contains("validated 3 ("), "{terminal:?}");
    assert!(terminal.contains("/s, "), "{terminal:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 3);
}

#[test]
fn batch_of_valid_lines_exits_zero() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", r#"{"type": "integer"}"#);
    let batch = scratch.file("batch.jsonl", "1\n2\n3\n");
    let output = oa(&[&"validate", &schema, &"--batch", &batch, &"--output", &"json"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output).lines().count(), 3);
}

#[test]
fn demo_runs_offline_and_shows_the_report() {
    let output = oa(&[&"demo"]);
    support::assert_exit(&output, 0);
    let text = stdout(&output);
    for location in [
        "#/starts_at",
        "#/site/lat",
        "#/site/lon",
        "#/attendees/1/role",
        "#/attendees/2/first%20name",
    ] {
        assert!(text.contains(location), "missing {location} in:\n{text}");
    }
    assert!(text.contains("-> valid"), "{text}");
}

#[test]
fn conformance_runs_a_directory_and_prints_totals() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../oa-conformance/fixtures/llm-provider/conformance");
    let output = oa(&[&"conformance", &dir]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let totals = text.lines().last().unwrap();
    let counts: Vec<u64> = totals
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(
        counts[0] >= 22,
        "expected the 15 + 7 cases of 082 and 083 to pass: {totals}"
    );
    assert_eq!(counts[1], 0, "{totals}");
    assert!(totals.ends_with("skipped"), "{totals}");
}

#[test]
fn conformance_json_prints_one_object_per_case() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../oa-conformance/fixtures/llm-provider/conformance");
    let output = oa(&[&"conformance", &dir, &"--json"]);
    assert_eq!(output.status.code(), Some(0));
    let cases: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(cases.len() >= 22);
    for case in &cases {
        assert!(
            case["fixture"].as_str().unwrap().starts_with("llm-provider/"),
            "{case}"
        );
        assert!(
            ["passed", "failed", "skipped"].contains(&case["outcome"].as_str().unwrap()),
            "{case}"
        );
    }
}

#[test]
fn conformance_on_a_missing_directory_is_an_input_error() {
    let scratch = Scratch::new();
    let output = oa(&[&"conformance", &scratch.dir.path().join("nowhere")]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn conformance_on_a_directory_without_fixtures_exits_2_naming_it() {
    let scratch = Scratch::new();
    let empty = scratch.dir.path().join("EMPTYDIR");
    std::fs::create_dir_all(empty.join("observability/conformance")).unwrap();
    std::fs::write(empty.join("observability/conformance/notes.md"), "not a fixture").unwrap();
    let output = oa(&[&"conformance", &empty]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(stderr.contains("EMPTYDIR"), "{stderr}");
    assert!(stdout(&output).is_empty(), "nothing was run");
}

/// Copies oa-conformance's own fixture `file` of `capability` to `to`, creating `to`'s folder.
fn copy_own_fixture(capability: &str, file: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let own = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../oa-conformance/fixtures")
        .join(capability)
        .join("conformance");
    std::fs::copy(own.join(file), to).unwrap();
}

/// A fixture the runner has never seen, under a new name and a new directory: it runs (by its vocabulary, not its
/// name) and passes, found through the capability folders below the directory given.
#[test]
fn conformance_runs_a_renamed_copy_found_below_the_directory_given() {
    let scratch = Scratch::new();
    let root = scratch.dir.path().join("X");
    let suite = root.join("observability/conformance");
    copy_own_fixture(
        "observability",
        "161-structured-output-schema-not-honored.yaml",
        &suite.join("999-copy.yaml"),
    );
    let output = oa(&[&"conformance", &root]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    support::assert_contains(
        &text,
        "passed  observability/999-copy (19 passed, 0 failed, 0 skipped)",
    );
    assert_eq!(text.lines().last(), Some("19 passed, 0 failed, 0 skipped"));
}

/// Issue 37: held-out copies of fixtures v0.118.2 changed or added (013's `otel_observer` block, 158's capability
/// arms and construction errors, 160's `raises` and `metadata_truncation`, 098's tool observations, 084's sessions),
/// under new names in a directory the runner has never seen, are judged exactly as the originals: the same outcome
/// and reason for every case.
#[test]
fn conformance_judges_held_out_copies_of_changed_fixtures_as_the_originals() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/openarmature-spec-0.118/spec/observability/conformance");
    assert!(
        spec.is_dir(),
        "../shared/openarmature-spec-0.118 is missing (looked for {}): place the shared reference material beside the \
         repository",
        spec.display()
    );
    let originals = [
        // In fixture order, so the copies (numbered in this order) are run in the originals' order.
        "013-otel-llm-payload-enabled",
        "084-langfuse-session-user-promotion",
        "098-langfuse-tool-observation",
        "158-langfuse-payload-leak-fail-closed",
        "160-langfuse-error-message-truncation",
    ];
    let scratch = Scratch::new();
    let held_out = scratch.dir.path().join("held/out/observability/conformance");
    let original_dir = scratch.dir.path().join("originals/observability/conformance");
    std::fs::create_dir_all(&held_out).unwrap();
    std::fs::create_dir_all(&original_dir).unwrap();
    for (idx, stem) in originals.iter().enumerate() {
        std::fs::copy(
            spec.join(format!("{stem}.yaml")),
            original_dir.join(format!("{stem}.yaml")),
        )
        .unwrap();
        std::fs::copy(
            spec.join(format!("{stem}.yaml")),
            held_out.join(format!("9{idx:02}-held-out.yaml")),
        )
        .unwrap();
    }
    let judged = |dir: &Path| -> Vec<(String, String, String)> {
        let output = oa(&[&"conformance", &dir, &"--json"]);
        support::assert_exit(&output, 0);
        stdout(&output)
            .lines()
            .map(|line| {
                let case: Value = serde_json::from_str(line).unwrap();
                (
                    case["case"].as_str().unwrap_or_default().to_owned(),
                    case["outcome"].as_str().unwrap().to_owned(),
                    case["reason"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let original = judged(&scratch.dir.path().join("originals"));
    let copy = judged(&scratch.dir.path().join("held"));
    assert_eq!(copy, original);
    let passed = copy.iter().filter(|(_, outcome, _)| outcome == "passed").count();
    // 013's one case, 158's five for a detecting adapter, 160's three LLM cases and its tool case, 098's three, 084's
    // five.
    assert_eq!(passed, 1 + 5 + 4 + 3 + 5, "{copy:?}");
    assert!(
        copy.iter()
            .all(|(_, outcome, reason)| outcome == "passed" || !reason.is_empty())
    );
}

/// Issue 39: capability folders are found below a folder named `conformance` (here both the directory given and
/// the one above it), not reported as "no fixture".
#[test]
fn conformance_finds_capability_folders_below_a_folder_named_conformance() {
    let scratch = Scratch::new();
    let work = scratch.dir.path().join("work");
    let suite = work.join("conformance/llm-provider/conformance");
    copy_own_fixture(
        "llm-provider",
        "083-openai-refusal-finish-reason.yaml",
        &suite.join("083-openai-refusal-finish-reason.yaml"),
    );
    for dir in [work.join("conformance"), work.clone()] {
        let output = oa(&[&"conformance", &dir]);
        let text = stdout(&output);
        assert_eq!(output.status.code(), Some(0), "{}: {text}", dir.display());
        assert_eq!(
            text.lines().last(),
            Some("7 passed, 0 failed, 0 skipped"),
            "{text}"
        );
    }
}

#[test]
fn basic_and_flag_outputs_follow_the_2020_12_formats() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", &person_schema().to_string());
    let instance = scratch.file("instance.json", r#"{"name": "Ada", "age": -1}"#);
    let flag = oa(&[&"validate", &schema, &instance, &"--output", &"flag"]);
    assert_eq!(flag.status.code(), Some(1));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout(&flag)).unwrap(),
        json!({"valid": false})
    );
    let basic = oa(&[&"validate", &schema, &instance, &"--output", &"basic"]);
    assert_eq!(basic.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&basic)).unwrap();
    assert_eq!(report["valid"], json!(false));
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report}");
    assert_eq!(errors[0]["instanceLocation"], json!("/age"));
    assert!(
        errors[0]["keywordLocation"]
            .as_str()
            .unwrap()
            .ends_with("/minimum"),
        "{report}"
    );
    let valid = scratch.file("valid.json", r#"{"name": "Ada", "age": 36}"#);
    let flag = oa(&[&"validate", &schema, &valid, &"--output", &"flag"]);
    assert_eq!(flag.status.code(), Some(0));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout(&flag)).unwrap(),
        json!({"valid": true})
    );
}

#[test]
fn validate_text_is_the_error_message_a_structured_output_failure_carries() {
    // Proposal 0126: the error_message of structured_output_invalid is the every-violation text; `oa validate
    // --output text` prints the same text for the same schema and content.
    let scratch = Scratch::new();
    let schema_value = person_schema();
    let content = r#"{"age": "old", "extra": 1}"#;
    let schema = scratch.file("schema.json", &schema_value.to_string());
    let instance = scratch.file("instance.json", content);
    let output = oa(&[&"validate", &schema, &instance]);
    let printed = stdout(&output);
    let validator = oa_schema::Validator::new(&schema_value).unwrap();
    let violations = validator
        .validate(&oa_schema::parse_json(content).unwrap())
        .unwrap_err();
    assert_eq!(printed.trim_end(), violations.error_message());
    assert_eq!(printed.lines().count(), 3, "{printed}");
}

#[test]
fn draft_flag_reads_a_schema_without_schema_as_that_draft() {
    // Draft 4: `exclusiveMaximum` is a boolean. Read as 2020-12 (the default) the schema is invalid.
    let scratch = Scratch::new();
    let schema = scratch.file(
        "schema.json",
        r#"{"properties": {"n": {"maximum": 3, "exclusiveMaximum": true}}}"#,
    );
    let instance = scratch.file("instance.json", r#"{"n": 3}"#);
    let default = oa(&[&"validate", &schema, &instance]);
    assert_eq!(default.status.code(), Some(2));
    let output = oa(&[
        &"validate",
        &schema,
        &instance,
        &"--draft",
        &"4",
        &"--output",
        &"json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(locations(&report), [json!("#/n")]);
    assert_eq!(report["violations"][0]["keyword"], json!("maximum"));
    let below = scratch.file("below.json", r#"{"n": 2}"#);
    let output = oa(&[&"validate", &schema, &below, &"--draft", &"4"]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn draft_flag_accepts_the_five_drafts_and_nothing_else() {
    let scratch = Scratch::new();
    let schema = scratch.file("schema.json", r#"{"type": "string"}"#);
    let instance = scratch.file("instance.json", r#""text""#);
    for draft in ["4", "6", "7", "2019-09", "2020-12"] {
        let output = oa(&[&"validate", &schema, &instance, &"--draft", &draft]);
        assert_eq!(output.status.code(), Some(0), "--draft {draft}");
    }
    for draft in ["3", "draft7", "2019"] {
        let output = oa(&[&"validate", &schema, &instance, &"--draft", &draft]);
        assert_eq!(output.status.code(), Some(2), "--draft {draft}");
    }
}

#[test]
fn declared_schema_wins_over_the_draft_flag_and_unknown_ones_are_refused() {
    let scratch = Scratch::new();
    // A draft-07 schema: `items` as an array is positional, whatever --draft says.
    let schema = scratch.file(
        "schema.json",
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}"#,
    );
    let instance = scratch.file("instance.json", r#"["a", 2]"#);
    for draft in ["2020-12", "4"] {
        let output = oa(&[
            &"validate",
            &schema,
            &instance,
            &"--draft",
            &draft,
            &"--output",
            &"json",
        ]);
        assert_eq!(output.status.code(), Some(1), "--draft {draft}");
        let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(locations(&report), [json!("#/1")]);
        assert_eq!(report["violations"][0]["keyword"], json!("additionalItems"));
    }
    let draft3 = scratch.file(
        "draft3.json",
        r#"{"$schema": "http://json-schema.org/draft-03/schema#"}"#,
    );
    let output = oa(&[&"validate", &draft3, &instance]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("unsupported dialect"), "{stderr}");
}

/// A catalog of two draft-07 schemas that refer to each other by URL, as SchemaStore's do.
fn catalog(scratch: &Scratch) -> (PathBuf, PathBuf) {
    let dir = scratch.dir.path().join("catalog");
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::write(
        dir.join("address.json"),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "https://schemas.example/address.json",
            "type": "object",
            "properties": { "city": { "type": "string" } },
            "required": ["city"]
        })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("nested/person.json"),
        json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "id": "https://schemas.example/person.json",
            "type": "object",
            "properties": { "home": { "$ref": "https://schemas.example/address.json" } }
        })
        .to_string(),
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a schema").unwrap();
    let schema = scratch.file(
        "schema.json",
        &json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": { "owner": { "$ref": "https://schemas.example/person.json" } }
        })
        .to_string(),
    );
    (dir, schema)
}

#[test]
fn resource_dir_registers_a_catalog_by_id_and_validates_offline() {
    let scratch = Scratch::new();
    let (dir, schema) = catalog(&scratch);
    let instance = scratch.file("instance.json", r#"{"owner": {"home": {"city": 7}}}"#);
    // Without the catalog the reference resolves nowhere: nothing is fetched, and the instance reaches it.
    let output = oa(&[&"validate", &schema, &instance]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no schema oa was given has that URI"), "{stderr}");
    assert!(stderr.contains("oa never fetches schemas"), "{stderr}");
    let output = oa(&[
        &"validate",
        &schema,
        &instance,
        &"--resource-dir",
        &dir,
        &"--output",
        &"json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(locations(&report), [json!("#/owner/home/city")]);
    assert_eq!(
        report["violations"][0]["schema_location"],
        json!("https://schemas.example/address.json#/properties/city/type")
    );
    let valid = scratch.file("valid.json", r#"{"owner": {"home": {"city": "Oslo"}}}"#);
    let output = oa(&[&"validate", &schema, &valid, &"--resource-dir", &dir]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn resource_files_register_by_id_or_by_file_uri() {
    let scratch = Scratch::new();
    let (dir, schema) = catalog(&scratch);
    let instance = scratch.file("instance.json", r#"{"owner": {"home": {}}}"#);
    // One file per flag, the flag repeated.
    let output = oa(&[
        &"validate",
        &schema,
        &instance,
        &"--output",
        &"json",
        &"--resource",
        &dir.join("address.json"),
        &"--resource",
        &dir.join("nested/person.json"),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(locations(&report), [json!("#/owner/home/city")]);
    assert_eq!(report["violations"][0]["keyword"], json!("required"));
    // A resource without `$id` is found by its file URI.
    let plain = scratch.file("plain.json", r#"{"type": "integer"}"#);
    let absolute = std::path::absolute(&plain).unwrap();
    let uri = format!("file://{}", absolute.to_str().unwrap());
    let by_file = scratch.file("by-file.json", &json!({ "$ref": uri }).to_string());
    let text = scratch.file("text.json", r#""seven""#);
    let output = oa(&[&"validate", &by_file, &text, &"--resource", &plain]);
    support::assert_exit(&output, 1);
    let seven = scratch.file("seven.json", "7");
    let output = oa(&[&"validate", &by_file, &seven, &"--resource", &plain]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn unreadable_or_clashing_resources_are_input_errors() {
    let scratch = Scratch::new();
    let (dir, schema) = catalog(&scratch);
    let instance = scratch.file("instance.json", "{}");
    let broken = scratch.file("broken.json", "{");
    for args in [
        vec![dir.join("missing.json")],
        vec![broken],
        vec![dir.join("address.json"), dir.join("address.json")],
    ] {
        let mut command: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"validate", &schema, &instance];
        for arg in &args {
            command.push(&"--resource");
            command.push(arg);
        }
        let output = oa(&command);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("cannot read")
                || stderr.contains("not well-formed JSON")
                || stderr.contains("is already that of"),
            "{args:?}: {stderr}"
        );
    }
    let output = oa(&[
        &"validate",
        &schema,
        &instance,
        &"--resource-dir",
        &dir.join("nowhere"),
    ]);
    assert_eq!(output.status.code(), Some(2));
}

/// The `$schema` URI of each draft, beside its `--draft` name.
const DRAFTS: [(&str, &str); 5] = [
    ("4", "http://json-schema.org/draft-04/schema#"),
    ("6", "http://json-schema.org/draft-06/schema#"),
    ("7", "http://json-schema.org/draft-07/schema#"),
    ("2019-09", "https://json-schema.org/draft/2019-09/schema"),
    ("2020-12", "https://json-schema.org/draft/2020-12/schema"),
];

/// The one schema every draft reads alike (declaring `declared` as its `$schema`, if any), written to `file`.
fn two_violations_schema(scratch: &Scratch, file: &str, declared: Option<&str>) -> PathBuf {
    let mut schema = json!({
        "properties": { "age": { "type": "integer", "minimum": 1 } },
        "required": ["name"]
    });
    if let Some(uri) = declared {
        schema["$schema"] = json!(uri);
    }
    scratch.file(file, &schema.to_string())
}

#[test]
fn every_draft_prints_every_output_alike() {
    let scratch = Scratch::new();
    let instance = scratch.file("instance.json", r#"{"age": 0}"#);
    for (name, uri) in DRAFTS {
        // Chosen by --draft for a schema that declares none, and by its own `$schema`.
        let plain = two_violations_schema(&scratch, &format!("plain-{name}.json"), None);
        let declared = two_violations_schema(&scratch, &format!("declared-{name}.json"), Some(uri));
        let runs: [(&PathBuf, Vec<&dyn AsRef<std::ffi::OsStr>>); 2] =
            [(&plain, vec![&"--draft", &name]), (&declared, vec![])];
        for (schema, extra) in runs {
            let run = |output: &str| {
                let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
                    vec![&"validate", schema, &instance, &"--output"];
                args.push(&output);
                args.extend(extra.iter().copied());
                let result = oa(&args);
                assert_eq!(result.status.code(), Some(1), "draft {name}, --output {output}");
                stdout(&result)
            };
            let report: Value = serde_json::from_str(&run("json")).unwrap();
            assert_eq!(
                locations(&report),
                [json!("#/age"), json!("#/name")],
                "draft {name}"
            );
            let keywords: Vec<&Value> = report["violations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|violation| &violation["keyword"])
                .collect();
            assert_eq!(keywords, [&json!("minimum"), &json!("required")], "draft {name}");
            let basic: Value = serde_json::from_str(&run("basic")).unwrap();
            assert_eq!(basic["valid"], json!(false), "draft {name}");
            let instance_locations: Vec<&Value> = basic["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|unit| &unit["instanceLocation"])
                .collect();
            assert_eq!(
                instance_locations,
                [&json!("/age"), &json!("/name")],
                "draft {name}"
            );
            let flag: Value = serde_json::from_str(&run("flag")).unwrap();
            assert_eq!(flag, json!({"valid": false}), "draft {name}");
            assert_eq!(
                run("text").trim_end(),
                "#/age: minimum: must be at least 1\n#/name: required: required property \"name\" is missing",
                "draft {name}"
            );
        }
    }
}

#[test]
fn draft4_exclusive_minimum_reads_as_a_strict_bound_in_text() {
    let scratch = Scratch::new();
    let schema = scratch.file(
        "schema.json",
        &json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "properties": { "age": { "type": "integer", "minimum": 0, "exclusiveMinimum": true } },
            "required": ["name"]
        })
        .to_string(),
    );
    let instance = scratch.file("instance.json", r#"{"age": 0}"#);
    let text = oa(&[&"validate", &schema, &instance]);
    assert_eq!(text.status.code(), Some(1));
    assert_eq!(
        stdout(&text).trim_end(),
        "#/age: minimum: must be greater than 0\n#/name: required: required property \"name\" is missing"
    );
}
