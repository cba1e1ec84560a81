//! `oa probe` as a built binary: its verdicts and exit codes against the real llama.cpp peer (directly, and through
//! a gateway that drops `response_format`), and its error exits, which need no peer.
//!
//! The peer comes from `cargo xtask ci` (or `cargo xtask peer -- cargo test -p oa-cli --test e2e_probe`) through
//! `OA_LLAMA_BASE_URL`; without it the peer tests say so loudly, and fail under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::oa_text as oa;

use std::process::Output;

use oa_testkit::{Responder, Server};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn peer() -> Option<String> {
    support::llama_peer("e2e_probe")
}

const MODEL: &str = "SmolLM2-135M-Instruct";

/// `oa probe --base-url <base_url> --model MODEL <flags> --schema <file>`, the file holding `schema`.
fn probe_with_schema(base_url: &str, schema: &str, flags: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema.json");
    std::fs::write(&path, schema).unwrap();
    let mut args = vec!["probe", "--base-url", base_url, "--model", MODEL];
    args.extend_from_slice(flags);
    args.extend(["--schema", path.to_str().unwrap()]);
    oa(&args)
}

#[test]
fn probe_reports_enforced_with_exit_0() {
    let Some(base_url) = peer() else { return };
    let output = oa(&["probe", "--base-url", &base_url, "--model", MODEL]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    support::assert_contains(&text, "\nenforced: the answer was \"seventeen\"");
    let output = oa(&["probe", "--base-url", &base_url, "--model", MODEL, "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let line: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"probe": "canary", "verdict": "enforced"})
    );
}

#[test]
fn probe_through_a_dropping_gateway_reports_not_enforced_with_exit_1() {
    let Some(base_url) = peer() else { return };
    let gateway = Server::start(Responder::Relay(base_url.clone())).unwrap();
    let output = oa(&[
        "probe",
        "--base-url",
        &gateway.base_url(),
        "--model",
        MODEL,
        "--json",
    ]);
    support::assert_exit(&output, 1);
    let line: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(line["verdict"], "not_enforced");
    assert_eq!(line["path"], "native");
    assert!(
        line["content"]
            .as_str()
            .is_some_and(|content| !content.contains("seventeen")),
        "{line}"
    );
    assert_eq!(gateway.n_stripped(), 1);
}

#[test]
fn probe_with_a_schema_prints_the_keyword_matrix() {
    let Some(base_url) = peer() else { return };
    let output = probe_with_schema(
        &base_url,
        r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}, "required": ["n"], "additionalProperties": false}"#,
        &[],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    for keyword in ["maximum", "required", "additionalProperties", "type"] {
        assert!(
            text.lines()
                .any(|line| line.trim_start().starts_with(keyword) && line.contains("enforced")),
            "no row for {keyword} in:\n{text}"
        );
    }
    assert!(text.trim_end().ends_with("\nenforced"), "{text}");
}

/// Every keyword the schema uses is accounted for: `format: email` and `uniqueItems` get a verdict from their own
/// probes, `format: ipv4` (no probe) is listed as not probed, and the overall verdict never says "enforced" for
/// what was not asked.
#[test]
fn probe_lists_every_keyword_probed_or_not() {
    let Some(base_url) = peer() else { return };
    let schema = serde_json::json!({"type": "object", "properties": {
        "email": {"type": "string", "format": "email"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
        "ip": {"type": "string", "format": "ipv4"}},
        "required": ["email", "tags", "ip"], "additionalProperties": false});
    let output = probe_with_schema(&base_url, &schema.to_string(), &["--json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let verdict_of = |keyword: &str| {
        report["keywords"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["keyword"] == keyword)
            .map(|row| row["verdict"].as_str().unwrap().to_owned())
    };
    for probed in ["format:email", "uniqueItems"] {
        let verdict = verdict_of(probed).unwrap_or_else(|| panic!("{probed} missing: {report}"));
        assert!(
            verdict == "enforced" || verdict == "not_enforced",
            "{probed}: {verdict}"
        );
    }
    assert_eq!(
        verdict_of("format:ipv4").as_deref(),
        Some("not_probed"),
        "{report}"
    );
    assert_ne!(report["verdict"], "enforced", "{report}");
    let expected_exit = if report["verdict"] == "enforced_partial" {
        3
    } else {
        1
    };
    assert_eq!(output.status.code(), Some(expected_exit), "{report}");
}

#[test]
fn probe_of_an_unreachable_endpoint_is_an_error_with_exit_2() {
    // A port that was just free: nothing listens, so the connection is refused at once.
    let base_url = oa_testkit::closed_base_url().unwrap();
    let output = oa(&["probe", "--base-url", &base_url, "--model", MODEL, "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let line: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(line["verdict"], "error");
    assert_eq!(line["category"], "provider_unavailable");
}

#[test]
fn probe_usage_errors_exit_2() {
    let missing_model = oa(&["probe", "--base-url", "http://127.0.0.1:9/v1"]);
    assert_eq!(missing_model.status.code(), Some(2));
    let bad_url = oa(&["probe", "--base-url", "not a url", "--model", MODEL]);
    assert_eq!(bad_url.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_url.stderr).contains("base url"));
    let unset_key = oa(&[
        "probe",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        MODEL,
        "--api-key-env",
        "OA_TEST_SURELY_UNSET_VARIABLE",
    ]);
    assert_eq!(unset_key.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unset_key.stderr).contains("OA_TEST_SURELY_UNSET_VARIABLE"));
}

/// `oa probe --pairs`: one verdict line per pair; the direct route alone exits 0, and adding a route behind a
/// gateway that drops `response_format` makes the run exit 1 (an unverified pair fails the build).
#[test]
fn probe_pairs_prints_a_verdict_per_pair_and_fails_on_an_unverified_one() {
    let Some(base_url) = peer() else { return };
    let gateway = Server::start(Responder::Relay(base_url.clone())).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.json");
    std::fs::write(
        &direct,
        serde_json::json!([{"mapping": "openai", "base_url": base_url, "model": MODEL}]).to_string(),
    )
    .unwrap();
    let both = dir.path().join("both.toml");
    std::fs::write(
        &both,
        format!(
            "[[pair]]\nbase_url = \"{base_url}\"\nmodel = \"{MODEL}\"\n\n[[pair]]\nmapping = \"openai\"\n\
             base_url = \"{}\"\nmodel = \"{MODEL}\"\n",
            gateway.base_url()
        ),
    )
    .unwrap();
    let registry = dir.path().join("registry.json");
    let output = oa(&[
        "probe",
        "--pairs",
        direct.to_str().unwrap(),
        "--registry",
        registry.to_str().unwrap(),
    ]);
    support::assert_exit(&output, 0);
    assert!(stdout(&output).starts_with("enforced "), "{}", stdout(&output));
    let output = oa(&["probe", "--pairs", both.to_str().unwrap(), "--json"]);
    support::assert_exit(&output, 1);
    let verdicts: Vec<String> = stdout(&output)
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["verdict"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(verdicts, ["enforced", "not_enforced"]);
    let recorded: serde_json::Value = serde_json::from_slice(&std::fs::read(&registry).unwrap()).unwrap();
    assert_eq!(recorded["entries"][0]["enforces"], serde_json::json!(true));
}

#[test]
fn probe_pairs_refuses_a_file_that_is_not_a_list_of_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("pairs.toml");
    std::fs::write(&bad, "[[pair]]\nbase_url = \"http://127.0.0.1:1/v1\"\n").unwrap();
    let output = oa(&["probe", "--pairs", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("[[pair]]"));
    let unknown = dir.path().join("unknown.json");
    let closed = oa_testkit::closed_base_url().unwrap();
    std::fs::write(
        &unknown,
        serde_json::json!([{"mapping": "cohere", "base_url": closed, "model": "m"}]).to_string(),
    )
    .unwrap();
    let output = oa(&["probe", "--pairs", unknown.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "an unusable pair is not verified");
    assert!(stdout(&output).starts_with("error"), "{}", stdout(&output));
}
