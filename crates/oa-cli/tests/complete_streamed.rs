//! `oa complete --stream --schema` run as a built binary against a scripted event stream on 127.0.0.1: the answer
//! shown value by value as it completes (plain lines, or JSON objects with --json before the usual report), and
//! `--early-stop` cutting a doomed stream at its first certain violation, the server seeing the close, the reask
//! answering.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Output;
use std::time::Duration;

use oa_testkit::Server;
use oa_testkit::openai::content_stream;
use serde_json::{Value, json};

fn schema_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("triage.json");
    let schema = json!({
        "type": "object",
        "properties": {"severity": {"enum": ["low", "high"]}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["severity"],
        "additionalProperties": false
    });
    std::fs::write(&path, schema.to_string()).unwrap();
    path
}

fn complete(endpoint: &Server, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    support::complete_command(
        &endpoint.base_url(),
        &["--stream", "--schema", schema.to_str().unwrap()],
    )
    .args(extra)
    .arg("Triage this ticket.")
    .output()
    .unwrap()
}

const GOOD: [&str; 5] = [
    "{\"severity\": \"hi",
    "gh\", \"tags\": [\"disk\"",
    ", \"io\"",
    "]",
    "}",
];

/// A doomed answer: `severity` is "urgent" (2nd delta), then `words` more deltas of a string.
fn doomed(words: usize) -> Vec<String> {
    ["{\"severity\": \"urg", "ent\", \"note\": \""]
        .iter()
        .map(|piece| (*piece).to_owned())
        .chain((0..words).map(|_| " word".to_owned()))
        .chain(["\"}".to_owned()])
        .collect()
}

#[test]
fn json_prints_each_value_as_it_completes_then_the_report() {
    let endpoint = Server::start(vec![content_stream(&GOOD, Duration::ZERO)]).unwrap();
    let output = complete(&endpoint, &["--json"]);
    support::assert_exit(&output, 0);
    let stdout = support::stdout(&output);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let (partials, report) = lines.split_at(lines.len() - 1);
    let seen: Vec<(&str, &Value)> = partials
        .iter()
        .map(|line| {
            assert_eq!(
                (line["kind"].as_str(), &line["attempt_index"]),
                (Some("partial_value"), &json!(0))
            );
            assert_eq!(line["certain_violations"], json!(0));
            (line["pointer"].as_str().unwrap(), &line["value"])
        })
        .collect();
    let whole = json!({"severity": "high", "tags": ["disk", "io"]});
    assert_eq!(
        seen,
        [
            ("/severity", &json!("high")),
            ("/tags/0", &json!("disk")),
            ("/tags/1", &json!("io")),
            ("/tags", &json!(["disk", "io"])),
            ("", &whole),
        ]
    );
    // The report keeps its fields; each attempt gains `early_stop` (null here).
    let report = &report[0];
    assert_eq!((&report["ok"], &report["parsed"]), (&json!(true), &whole));
    assert_eq!(report["attempts"][0]["early_stop"], Value::Null);
    assert_eq!(report["attempts"][0]["outcome"], json!("ok"));
}

#[test]
fn plain_lines_when_stdout_is_not_a_terminal() {
    let endpoint = Server::start(vec![content_stream(&GOOD, Duration::ZERO)]).unwrap();
    let output = complete(&endpoint, &[]);
    support::assert_exit(&output, 0);
    let stdout = support::stdout(&output);
    let lines: Vec<&str> = stdout.lines().take(5).collect();
    assert_eq!(
        lines,
        [
            "/severity \"high\"",
            "/tags/0 \"disk\"",
            "/tags/1 \"io\"",
            "/tags [\"disk\",\"io\"]",
            "# {\"severity\":\"high\",\"tags\":[\"disk\",\"io\"]}",
        ]
    );
    // No raw token echo in between.
    assert!(!stdout.contains("\"hi\n"), "{stdout}");
    support::assert_contains(&stdout, "parsed:");
}

#[test]
fn early_stop_cuts_the_stream_and_the_reask_answers() {
    let doomed = doomed(2_000);
    let doomed: Vec<&str> = doomed.iter().map(String::as_str).collect();
    let endpoint = Server::start(vec![
        content_stream(&doomed, Duration::from_millis(2)),
        content_stream(&GOOD, Duration::ZERO),
    ])
    .unwrap();
    let started = std::time::Instant::now();
    let output = complete(&endpoint, &["--early-stop", "--reask", "--json"]);
    support::assert_exit(&output, 0);
    // Not the 4 s the whole doomed stream takes.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let stdout = support::stdout(&output);
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["ok"], json!(true));
    let first = &report["attempts"][0];
    assert_eq!(
        (&first["outcome"], &first["category"]),
        (&json!("failed"), &json!("structured_output_invalid"))
    );
    let bytes = (doomed[0].len() + doomed[1].len()) as u64;
    assert_eq!(
        first["early_stop"],
        json!({"pointer": "/severity", "keyword": "enum", "bytes": bytes, "deltas": 2})
    );
    assert_eq!(report["attempts"][1]["early_stop"], Value::Null);
    // The doomed value was shown, flagged, before the cut.
    support::assert_contains(&stdout, r#""pointer":"/severity","value":"urgent""#);
    let cut = endpoint
        .stream_ends()
        .into_iter()
        .find(|end| end.pieces == doomed.len() + 3)
        .unwrap();
    assert!(cut.client_closed && cut.written <= 2 + 3, "{cut:?}");
}

#[test]
fn without_early_stop_the_doomed_stream_is_read_whole() {
    let doomed = doomed(100);
    let doomed: Vec<&str> = doomed.iter().map(String::as_str).collect();
    let endpoint = Server::start(vec![content_stream(&doomed, Duration::ZERO)]).unwrap();
    let output = complete(&endpoint, &[]);
    support::assert_exit(&output, 1);
    let stdout = support::stdout(&output);
    support::assert_contains(&stdout, "/severity \"urgent\"  (invalid)");
    assert!(!stdout.contains("early_stop:"), "{stdout}");
    let ends = endpoint.stream_ends();
    assert!(!ends[0].client_closed && ends[0].written == ends[0].pieces);
}

#[test]
fn early_stop_in_the_text_summary() {
    let doomed = doomed(300);
    let doomed: Vec<&str> = doomed.iter().map(String::as_str).collect();
    let endpoint = Server::start(vec![content_stream(&doomed, Duration::from_millis(1))]).unwrap();
    let output = complete(&endpoint, &["--early-stop"]);
    support::assert_exit(&output, 1);
    let bytes = doomed[0].len() + doomed[1].len();
    support::assert_contains(
        &support::stdout(&output),
        &format!("early_stop: attempt 0 at #/severity (enum) after {bytes} bytes, 2 deltas"),
    );
}

#[test]
fn early_stop_needs_stream_and_schema() {
    let endpoint = Server::start(Vec::<oa_testkit::Reply>::new()).unwrap();
    let output = support::complete_command(&endpoint.base_url(), &["--early-stop"])
        .arg("hi")
        .output()
        .unwrap();
    support::assert_exit(&output, 2);
    support::assert_contains(&support::stderr(&output), "--stream");
    assert_eq!(endpoint.n_requests(), 0);
}
