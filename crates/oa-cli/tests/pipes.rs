//! `oa` in a pipeline, as a built binary: a closed stdout keeps the verdict (invalid exits 1 whatever the reader does,
//! a --batch into a closed pipe stops, says so and reports what it judged as partial; no panic), `-` is
//! standard input for SCHEMA, INSTANCE and --batch, a --batch line that cannot be read is that line's own error
//! and the run goes on to a summary on stderr, `--json` is short for `--output json`, and every subcommand's help
//! ends with examples.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::oa_command as oa;

use std::io::{BufRead, BufReader, Write};
use std::process::{Output, Stdio};

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = oa()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Written from another thread: oa streams, so it writes results while this side is still writing input, and a
    // writer that waited for all of its input to be taken before reading would deadlock on the full pipes.
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // oa may exit before reading everything (an input error): a broken pipe here is not the test's failure.
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Runs `args`, reads `lines` lines of stdout (none: the reader is gone before anything is written), closes the
/// pipe, and returns how the process ended and its stderr: what `oa ... | head -1` does.
fn close_stdout_after(args: &[&str], lines: usize) -> (Option<i32>, String) {
    let mut child = oa()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..lines {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
    }
    // The reader is dropped here: every later write meets a closed pipe.
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `oa ... | head -1`.
fn read_one_line_then_close(args: &[&str]) -> (Option<i32>, String) {
    close_stdout_after(args, 1)
}

/// Runs `args` with stdout a pipe whose reader is already gone: every write meets a closed pipe.
fn with_stdout_closed(args: &[&str]) -> (Option<i32>, String) {
    close_stdout_after(args, 0)
}

fn schema_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("schema.json");
    std::fs::write(
        &path,
        r#"{"type": "object", "properties": {"a": {"type": "integer"}}}"#,
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

/// `oa validate s.json bad.json | head -1` (`set -o pipefail`): invalid exits 1 however the reader goes away (after
/// the first line, or before anything), every time; valid exits 0; nothing panics.
#[test]
fn a_closed_stdout_keeps_the_verdict_of_a_single_instance() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}}"#,
    )
    .unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"a": "x", "b": "y", "c": "z"}"#).unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(&good, r#"{"a": 1}"#).unwrap();
    let (schema, bad, good) = (
        schema.to_str().unwrap(),
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
    );
    for _ in 0..20 {
        let (code, stderr) = read_one_line_then_close(&["validate", schema, bad]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        let (code, stderr) = with_stdout_closed(&["validate", schema, bad]);
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(stderr, "", "a closed pipe is not an error to report");
    }
    assert_eq!(with_stdout_closed(&["validate", schema, good]).0, Some(0));
    let (code, stderr) = with_stdout_closed(&["validate", schema, bad, "--json"]);
    assert_eq!(code, Some(1), "{stderr}");
}

/// `--batch` into a closed pipe stops reading, says on stderr after how many lines and why, and exits with the
/// verdict of the lines it judged, under a summary marked partial; on any number of jobs.
#[test]
fn a_batch_into_a_closed_pipe_stops_and_reports_what_it_judged() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let lines: String = (0..20_000)
        .map(|idx| {
            if idx == 1 {
                "{\"a\": \"x\"}\n".to_owned()
            } else {
                format!("{{\"a\": {idx}}}\n")
            }
        })
        .collect();
    let invalid_early = dir.path().join("invalid_early.jsonl");
    std::fs::write(&invalid_early, &lines).unwrap();
    let all_valid = dir.path().join("all_valid.jsonl");
    std::fs::write(&all_valid, lines.replace("\"x\"", "1")).unwrap();
    for jobs in ["1", "2"] {
        for (file, has_invalid) in [(&invalid_early, true), (&all_valid, false)] {
            let args = [
                "validate",
                &schema,
                "--batch",
                file.to_str().unwrap(),
                "--jobs",
                jobs,
            ];
            for (code, stderr) in [with_stdout_closed(&args), read_one_line_then_close(&args)] {
                let stderr_lines: Vec<&str> = stderr.lines().collect();
                assert_eq!(stderr_lines.len(), 2, "jobs {jobs}: {stderr}");
                let judged: usize = stderr_lines[0]
                    .strip_prefix("oa validate: stopped after ")
                    .and_then(|rest| rest.strip_suffix(" lines because the output closed"))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("jobs {jobs}: {stderr}"));
                assert!((1..20_000).contains(&judged), "jobs {jobs}: {stderr}");
                let summary = stderr_lines[1]
                    .strip_prefix("partial: ")
                    .unwrap_or_else(|| panic!("jobs {jobs}: {stderr}"));
                let counts: Vec<usize> = summary
                    .split(", ")
                    .map(|part| part.split(' ').next().unwrap().parse().unwrap())
                    .collect();
                assert_eq!(counts.iter().sum::<usize>(), judged, "{summary}");
                // Line 2 is the invalid one: the verdict is 1 exactly when it was judged.
                let judged_invalid = has_invalid && judged >= 2;
                assert_eq!(counts[1], usize::from(judged_invalid), "{summary}");
                assert_eq!(code, Some(i32::from(judged_invalid)), "jobs {jobs}: {stderr}");
            }
        }
    }
    // Every line judged though the output closed (its one line's write failed): not partial, no "stopped".
    let one = dir.path().join("one.jsonl");
    std::fs::write(&one, "{\"a\": \"x\"}\n").unwrap();
    for jobs in ["1", "2"] {
        let (code, stderr) = with_stdout_closed(&[
            "validate",
            &schema,
            "--batch",
            one.to_str().unwrap(),
            "--jobs",
            jobs,
        ]);
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(stderr, "0 valid, 1 invalid, 0 unreadable\n", "jobs {jobs}");
    }
    // The demo, into a closed pipe: no panic, no "Broken pipe".
    let (code, stderr) = read_one_line_then_close(&["demo"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
}

#[test]
fn a_dash_is_standard_input_for_schema_instance_and_batch() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let instance = dir.path().join("i.json");
    std::fs::write(&instance, r#"{"a": "x"}"#).unwrap();
    let by_instance = with_stdin(&["validate", &schema, "-"], br#"{"a": 1}"#);
    assert_eq!(by_instance.status.code(), Some(0));
    let by_schema = with_stdin(
        &["validate", "-", instance.to_str().unwrap()],
        br#"{"properties": {"a": {"type": "integer"}}}"#,
    );
    assert_eq!(by_schema.status.code(), Some(1), "the instance is invalid");
    let by_batch = with_stdin(
        &["validate", &schema, "--batch", "-"],
        b"{\"a\": 1}\n{\"a\": 2}\n",
    );
    assert_eq!(by_batch.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&by_batch.stdout).lines().count(), 2);
    let twice = with_stdin(&["validate", "-", "-"], b"{}");
    assert_eq!(twice.status.code(), Some(2));
}

#[test]
fn each_unreadable_batch_line_is_its_own_error_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let input = b"{\"a\": 1}\n\xff\xfe\n\xef\xbb\xbf{\"a\": 2}\n{\"a\": \"x\"}\n\n{\"a\": 3}\n";
    let output = with_stdin(
        &["validate", &schema, "--batch", "-", "--json", "--jobs", "2"],
        input,
    );
    assert_eq!(output.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let summary: Vec<(u64, bool, bool)> = lines
        .iter()
        .map(|line| {
            (
                line["line"].as_u64().unwrap(),
                line["valid"].as_bool().unwrap(),
                line["unreadable"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, true, false),
            (2, false, true),
            (3, false, true),
            (4, false, false),
            (5, false, true),
            (6, true, false)
        ]
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim(),
        "2 valid, 1 invalid, 3 unreadable"
    );
}

#[test]
fn batch_results_keep_input_order_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let input: String = (0..9_000)
        .map(|idx| {
            if idx % 7 == 0 {
                format!("{{\"a\": \"s{idx}\"}}\n")
            } else {
                format!("{{\"a\": {idx}}}\n")
            }
        })
        .collect();
    let one = with_stdin(
        &["validate", &schema, "--batch", "-", "--json", "--jobs", "1"],
        input.as_bytes(),
    );
    let four = with_stdin(
        &["validate", &schema, "--batch", "-", "--json", "--jobs", "4"],
        input.as_bytes(),
    );
    assert_eq!(one.stdout, four.stdout);
    assert_eq!(String::from_utf8_lossy(&one.stdout).lines().count(), 9_000);
}

#[test]
fn json_is_short_for_output_json() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let short = with_stdin(&["validate", &schema, "-", "--json"], br#"{"a": "x"}"#);
    let long = with_stdin(&["validate", &schema, "-", "--output", "json"], br#"{"a": "x"}"#);
    assert_eq!(short.stdout, long.stdout);
    assert!(String::from_utf8_lossy(&short.stdout).starts_with("{\"valid\":false"));
}

#[test]
fn every_subcommand_help_ends_with_examples() {
    for subcommand in ["validate", "conformance", "complete", "probe", "demo"] {
        let output = oa().args([subcommand, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&output.stdout);
        let examples = help
            .split("Examples:")
            .nth(1)
            .unwrap_or_else(|| panic!("{subcommand}: {help}"));
        assert!(
            examples
                .lines()
                .filter(|line| line.trim_start().starts_with("oa "))
                .count()
                >= 2
                || examples.contains("| oa "),
            "{subcommand}: {examples}"
        );
    }
    let top = oa().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&top.stdout);
    assert!(help.contains("complete"), "{help}");
}
