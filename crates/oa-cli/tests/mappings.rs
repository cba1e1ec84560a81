//! `oa complete --mapping anthropic|gemini` run as a built binary against scripted servers on 127.0.0.1 (no local
//! Gemini server exists; the llama.cpp peer's Anthropic endpoint is exercised in `e2e_anthropic`): a valid
//! structured answer on the native path, a refusal, a truncation, each mapping's fallback with native output
//! declared unavailable, prompt augmentation beside the caller's tools, a reask that recovers, a 429 honoured after
//! its Retry-After, and a key echoed back in an error body that appears nowhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use oa_testkit::{Reply, Server, anthropic, gemini};
use serde_json::{Value, json};

/// How the model finished, in the spec's words; each wire names it its own way.
#[derive(Clone, Copy)]
enum Finish {
    Stop,
    Length,
    Refusal,
}

/// One wire mapping as these tests script it.
struct Wire {
    mapping: &'static str,
    /// Appended to the server's `/v1` base URL (Gemini's root is `/v1beta`).
    base_suffix: &'static str,
    /// The header the key travels in.
    key_header: &'static str,
    text_reply: fn(&str, Finish) -> Reply,
    error_reply: fn(u16, &str) -> Reply,
}

const WIRES: [Wire; 2] = [
    Wire {
        mapping: "anthropic",
        base_suffix: "",
        key_header: "x-api-key",
        text_reply: |text, finish| {
            let stop_reason = match finish {
                Finish::Stop => "end_turn",
                Finish::Length => "max_tokens",
                Finish::Refusal => "refusal",
            };
            anthropic::text_reply(text, stop_reason)
        },
        error_reply: |status, message| anthropic::error_reply(status, "error", message),
    },
    Wire {
        mapping: "gemini",
        base_suffix: "beta",
        key_header: "x-goog-api-key",
        text_reply: |text, finish| {
            let finish_reason = match finish {
                Finish::Stop => "STOP",
                Finish::Length => "MAX_TOKENS",
                Finish::Refusal => "SAFETY",
            };
            gemini::text_reply(text, finish_reason)
        },
        error_reply: |status, message| gemini::error_reply(status, "ERROR", message),
    },
];

fn schema_file(dir: &tempfile::TempDir) -> String {
    support::answer_schema_file(dir).to_str().unwrap().to_owned()
}

fn complete(wire: &Wire, server: &Server, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oa"))
        .args(["complete", "--mapping", wire.mapping, "--model", "test-model"])
        .arg("--base-url")
        .arg(format!("{}{}", server.base_url(), wire.base_suffix))
        .args(extra)
        .arg("What is six times seven?")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .output()
        .unwrap()
}

fn json_of(output: &Output) -> Value {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON object expected:\n{text}");
    serde_json::from_str(&text).unwrap()
}

fn sent(server: &Server, idx: usize) -> Value {
    server.requests()[idx].json().unwrap()
}

#[test]
fn a_valid_structured_answer_on_the_native_path() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    for wire in &WIRES {
        let server = Server::start(vec![(wire.text_reply)(r#"{"answer": 42}"#, Finish::Stop)]).unwrap();
        let output = complete(wire, &server, &["--schema", &schema, "--json"]);
        let report = json_of(&output);
        assert_eq!(output.status.code(), Some(0), "{}: {report}", wire.mapping);
        assert_eq!(report["parsed"], json!({"answer": 42}));
        assert_eq!(report["finish_reason"], json!("stop"));
        assert_eq!(report["structured_output_path"], json!("native"));
        assert_eq!(report["schema_mode"], json!("unverified"));
        assert_eq!(report["usage"]["total_tokens"], json!(7));
        let body = sent(&server, 0);
        let native = match wire.mapping {
            "anthropic" => &body["output_config"]["format"]["schema"],
            _ => &body["generationConfig"]["responseJsonSchema"],
        };
        assert_eq!(native["required"], json!(["answer"]), "{}: {body}", wire.mapping);
    }
}

#[test]
fn a_refusal_is_content_filter_with_its_text() {
    for wire in &WIRES {
        let server = Server::start(vec![(wire.text_reply)(
            "I can't help with that.",
            Finish::Refusal,
        )])
        .unwrap();
        let output = complete(wire, &server, &["--json"]);
        let report = json_of(&output);
        assert_eq!(output.status.code(), Some(0), "{}: {report}", wire.mapping);
        assert_eq!(report["finish_reason"], json!("content_filter"));
        assert_eq!(report["content"], json!("I can't help with that."));
    }
}

/// A refused structured call, on every mapping, is its own failure class with its own hint (never `not_json` and
/// "not JSON at all"), and prints the refusal's text, or "no text" when there is none; Gemini's block names its
/// reason code.
#[test]
fn a_refused_structured_call_is_a_refusal_on_every_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let refusal_hint = "hint: the model or the provider's filter declined to answer (finish_reason content_filter), \
                        which is no formatting problem: rephrase the request, or check it against the provider's \
                        content policy";
    for wire in &WIRES {
        let server = Server::start(vec![
            (wire.text_reply)("I can't help with that.", Finish::Refusal),
            (wire.text_reply)("I can't help with that.", Finish::Refusal),
        ])
        .unwrap();
        let output = complete(wire, &server, &["--schema", &schema]);
        assert_eq!(output.status.code(), Some(1), "{}", wire.mapping);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        let refusal = match wire.mapping {
            "gemini" => {
                "refusal: the provider's filter stopped the answer (finish reason SAFETY); I can't help with that."
            }
            _ => "refusal: the model refused to answer: I can't help with that.",
        };
        assert!(lines.contains(&refusal), "{}: {stdout}", wire.mapping);
        assert!(
            lines.contains(&"failure_class: refusal"),
            "{}: {stdout}",
            wire.mapping
        );
        assert!(lines.contains(&refusal_hint), "{}: {stdout}", wire.mapping);
        assert!(!stdout.contains("not JSON at all"), "{stdout}");
        let report = json_of(&complete(wire, &server, &["--schema", &schema, "--json"]));
        assert_eq!(report["error"]["failure_class"], json!("refusal"), "{report}");
    }
    // A refusal with no words at all (Anthropic: no text block).
    let empty = Reply::json(200, anthropic::message(json!([]), "refusal"));
    let server = Server::start(vec![empty]).unwrap();
    let output = complete(&WIRES[0], &server, &["--schema", &schema]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|line| line == "refusal: the model refused to answer: no text"),
        "{stdout}"
    );
    // A Gemini prompt blocked before any answer: the block reason, and no text.
    let blocked = || Reply::json(200, json!({"promptFeedback": {"blockReason": "SAFETY"}}));
    let server = Server::start(vec![blocked(), blocked()]).unwrap();
    let output = complete(&WIRES[1], &server, &["--schema", &schema]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|line| line == "refusal: the provider blocked the prompt (block reason SAFETY); no text"),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|line| line == "failure_class: refusal"),
        "{stdout}"
    );
    let report = json_of(&complete(&WIRES[1], &server, &["--schema", &schema, "--json"]));
    assert_eq!(report["blocked"], json!({"stage": "prompt", "reason": "SAFETY"}));
}

/// Tool coercion keeps the marker on failure too: `coerced` (then `coerced_repaired`) in `--json` and the summary.
#[test]
fn a_failed_tool_coercion_call_keeps_its_marker() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let server = Server::start(vec![
        anthropic::text_reply("forty-two", "end_turn"),
        anthropic::text_reply("still forty-two", "end_turn"),
        anthropic::text_reply("forty-two", "end_turn"),
    ])
    .unwrap();
    let report = json_of(&complete(
        &WIRES[0],
        &server,
        &["--schema", &schema, "--no-native", "--reask", "--json"],
    ));
    assert_eq!(report["ok"], json!(false));
    assert_eq!(report["structured_output_path"], json!("tool_coercion"));
    assert_eq!(report["schema_mode"], json!("coerced_repaired"));
    assert_eq!(report["schema_version"].as_str().map(str::len), Some(64));
    let modes: Vec<&Value> = report["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attempt| &attempt["schema_mode"])
        .collect();
    assert_eq!(modes, [&json!("coerced"), &json!("coerced_repaired")]);
    let output = complete(&WIRES[0], &server, &["--schema", &schema, "--no-native"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.lines().any(|line| line == "schema_mode: coerced"),
        "{stdout}"
    );
}

#[test]
fn a_truncated_structured_answer_fails_with_length_and_no_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    for wire in &WIRES {
        let server = Server::start(vec![(wire.text_reply)(r#"{"answer": 4"#, Finish::Length)]).unwrap();
        let output = complete(
            wire,
            &server,
            &["--schema", &schema, "--max-tokens", "5", "--json"],
        );
        let report = json_of(&output);
        assert_eq!(output.status.code(), Some(1), "{}: {report}", wire.mapping);
        assert_eq!(report["error"]["category"], json!("structured_output_invalid"));
        assert_eq!(report["finish_reason"], json!("length"));
        assert_eq!(report["diagnostics"], json!([]));
        let body = sent(&server, 0);
        let budget = match wire.mapping {
            "anthropic" => &body["max_tokens"],
            _ => &body["generationConfig"]["maxOutputTokens"],
        };
        assert_eq!(budget, &json!(5));
    }
}

#[test]
fn anthropic_sends_its_required_max_tokens_unless_told() {
    let server = Server::start(vec![anthropic::text_reply("hi", "end_turn")]).unwrap();
    let output = complete(&WIRES[0], &server, &["--json"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(sent(&server, 0)["max_tokens"], json!(1024));
}

#[test]
fn without_native_output_anthropic_coerces_a_tool_and_gemini_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let server = Server::start(vec![anthropic::tool_use_reply(
        "structured_output",
        json!({"answer": 42}),
    )])
    .unwrap();
    let report = json_of(&complete(
        &WIRES[0],
        &server,
        &["--schema", &schema, "--no-native", "--json"],
    ));
    assert_eq!(report["parsed"], json!({"answer": 42}), "{report}");
    assert_eq!(report["structured_output_path"], json!("tool_coercion"));
    assert_eq!(report["schema_mode"], json!("coerced"));
    let body = sent(&server, 0);
    assert!(body.get("output_config").is_none());
    assert_eq!(body["tools"][0]["input_schema"]["required"], json!(["answer"]));
    assert_eq!(body["tool_choice"]["name"], body["tools"][0]["name"]);

    let server = Server::start(vec![gemini::text_reply(r#"{"answer": 42}"#, "STOP")]).unwrap();
    let report = json_of(&complete(
        &WIRES[1],
        &server,
        &["--schema", &schema, "--no-native", "--json"],
    ));
    assert_eq!(
        report["structured_output_path"],
        json!("prompt_augmentation"),
        "{report}"
    );
    assert_eq!(report["schema_mode"], json!("prompted"));
    let body = sent(&server, 0);
    assert!(
        body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("JSON Schema")
    );
}

#[test]
fn with_tools_supplied_the_fallback_is_prompt_augmentation() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    let tools = dir.path().join("tools.json");
    std::fs::write(
        &tools,
        json!([{"name": "calculator", "description": "Multiplies.", "parameters": {"type": "object"}}])
            .to_string(),
    )
    .unwrap();
    let tools = tools.to_str().unwrap();
    for wire in &WIRES {
        let server = Server::start(vec![(wire.text_reply)(r#"{"answer": 42}"#, Finish::Stop)]).unwrap();
        let output = complete(
            wire,
            &server,
            &["--schema", &schema, "--no-native", "--tools", tools, "--json"],
        );
        let report = json_of(&output);
        assert_eq!(output.status.code(), Some(0), "{}: {report}", wire.mapping);
        assert_eq!(report["structured_output_path"], json!("prompt_augmentation"));
        let body = sent(&server, 0);
        let (tool_name, system) = match wire.mapping {
            "anthropic" => (&body["tools"][0]["name"], &body["system"]),
            _ => (
                &body["tools"][0]["functionDeclarations"][0]["name"],
                &body["systemInstruction"]["parts"][0]["text"],
            ),
        };
        assert_eq!(tool_name, &json!("calculator"), "{}: {body}", wire.mapping);
        assert!(system.as_str().unwrap().contains("JSON Schema"), "{body}");
    }
}

#[test]
fn a_reask_recovers_on_the_second_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema_file(&dir);
    for wire in &WIRES {
        let server = Server::start(vec![
            (wire.text_reply)(r#"{"answer": "42"}"#, Finish::Stop),
            (wire.text_reply)(r#"{"answer": 42}"#, Finish::Stop),
        ])
        .unwrap();
        let output = complete(wire, &server, &["--schema", &schema, "--reask", "--json"]);
        let report = json_of(&output);
        assert_eq!(output.status.code(), Some(0), "{}: {report}", wire.mapping);
        assert_eq!(report["attempts"].as_array().unwrap().len(), 2);
        assert_eq!(report["schema_mode"], json!("unverified_repaired"));
        let correction = match wire.mapping {
            "anthropic" => sent(&server, 1)["messages"][2]["content"].clone(),
            _ => sent(&server, 1)["contents"][2]["parts"][0]["text"].clone(),
        };
        assert!(correction.as_str().unwrap().contains("#/answer"), "{correction}");
    }
}

#[test]
fn a_429_is_retried_after_its_retry_after() {
    for wire in &WIRES {
        let limited = match wire.mapping {
            "anthropic" => Reply::json_with_header(
                429,
                "Retry-After",
                "2",
                json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
            ),
            _ => Reply::json_with_header(
                429,
                "Retry-After",
                "2",
                json!({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}),
            ),
        };
        let server = Server::start(vec![limited, (wire.text_reply)("42", Finish::Stop)]).unwrap();
        let started = Instant::now();
        let output = complete(wire, &server, &["--max-attempts", "2", "--json"]);
        let report = json_of(&output);
        assert_eq!(output.status.code(), Some(0), "{}: {report}", wire.mapping);
        assert_eq!(report["content"], json!("42"));
        assert_eq!(report["attempts"].as_array().unwrap().len(), 2);
        // The default backoff waits at most 1 s before the first retry; only Retry-After makes it 2.
        assert!(
            started.elapsed() >= Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_key_echoed_in_an_error_body_appears_nowhere() {
    const KEY: &str = "key-CANARY-5d1e9a7f";
    for wire in &WIRES {
        let server = Server::start(vec![(wire.error_reply)(401, &format!("invalid key {KEY}"))]).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_oa"))
            .args(["complete", "--mapping", wire.mapping, "--model", "test-model"])
            .arg("--base-url")
            .arg(format!("{}{}", server.base_url(), wire.base_suffix))
            .args(["--api-key-env", "OA_TEST_CANARY_KEY", "--trace", "--json", "hi"])
            .env("OA_TEST_CANARY_KEY", KEY)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stdout.contains("provider_authentication"), "{stdout}");
        assert!(stderr.contains("trace: spans"), "{stderr}");
        for text in [&stdout, &stderr] {
            assert!(
                !text.contains("CANARY"),
                "{}: the key leaked:\n{text}",
                wire.mapping
            );
        }
        let request = &server.requests()[0];
        assert_eq!(request.header(wire.key_header), Some(KEY));
        assert!(
            !request.path.contains("CANARY"),
            "no key in the URL: {}",
            request.path
        );
    }
}

#[test]
fn streaming_is_refused_for_the_mappings_that_do_not_stream() {
    for wire in &WIRES {
        let server = Server::start(Vec::<Reply>::new()).unwrap();
        let output = complete(wire, &server, &["--stream"]);
        assert_eq!(output.status.code(), Some(2));
        support::assert_contains(&String::from_utf8_lossy(&output.stderr), "does not stream");
        assert_eq!(server.n_requests(), 0);
    }
}

#[test]
fn the_canary_probe_goes_through_each_mappings_native_path() {
    for wire in &WIRES {
        let server = Server::start(vec![
            (wire.text_reply)(r#"{"answer": "seventeen"}"#, Finish::Stop),
            (wire.text_reply)("Two plus two is four.", Finish::Stop),
        ])
        .unwrap();
        let probe = || {
            Command::new(env!("CARGO_BIN_EXE_oa"))
                .args([
                    "probe",
                    "--mapping",
                    wire.mapping,
                    "--model",
                    "test-model",
                    "--json",
                ])
                .arg("--base-url")
                .arg(format!("{}{}", server.base_url(), wire.base_suffix))
                .output()
                .unwrap()
        };
        let enforced = probe();
        assert_eq!(enforced.status.code(), Some(0), "{}", wire.mapping);
        assert_eq!(
            json_of(&enforced),
            json!({"probe": "canary", "verdict": "enforced"})
        );
        let not_enforced = probe();
        assert_eq!(not_enforced.status.code(), Some(1), "{}", wire.mapping);
        let line = json_of(&not_enforced);
        assert_eq!(line["verdict"], json!("not_enforced"));
        assert_eq!(line["path"], json!("native"));
        let body = sent(&server, 0);
        let enum_sent = match wire.mapping {
            "anthropic" => &body["output_config"]["format"]["schema"]["properties"]["answer"]["enum"],
            _ => &body["generationConfig"]["responseJsonSchema"]["properties"]["answer"]["enum"],
        };
        assert_eq!(enum_sent, &json!(["seventeen"]), "{}: {body}", wire.mapping);
    }
}

#[test]
fn an_answer_off_only_in_capitalization_fails_with_that_hint() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("color.json");
    let color =
        json!({"type": "object", "properties": {"color": {"enum": ["Red", "Green"]}}, "required": ["color"]});
    std::fs::write(&schema, color.to_string()).unwrap();
    let server = Server::start(vec![anthropic::text_reply(r#"{"color": "red"}"#, "end_turn")]).unwrap();
    let output = complete(&WIRES[0], &server, &["--schema", schema.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("failure_class: enum_violation"), "{stdout}");
    assert!(stdout.contains("only in the capitalization"), "{stdout}");
    assert!(stdout.contains(r#"output_content: {"color": "red"}"#), "{stdout}");
}
