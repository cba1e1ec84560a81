//! `oa demo` as a built binary: offline against its in-process mock (every part of the story present and
//! consistent), and with `--base-url` against the real llama.cpp peer when `OA_LLAMA_BASE_URL` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::oa_text as oa;

fn demo_text(args: &[&str]) -> String {
    let output = oa(args);
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

/// The index of `needle` in `text`, failing the test when it is absent.
fn position(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("missing {needle:?} in:\n{text}"))
}

#[test]
fn the_offline_demo_tells_the_whole_story_in_order() {
    let text = demo_text(&["demo"]);
    let schema: serde_json::Value = serde_json::from_str(include_str!("../src/demo/schema.json")).unwrap();
    let story = [
        "in-process mock model on 127.0.0.1",
        "1. Attempt 0 went on the native_unenforced path",
        "structured_output_invalid (failure class extra_key), every violation at its JSON Pointer:",
        "#/site/lon: type: expected number, got string",
        "2. Attempt 1 (reask)",
        "-> valid",
        "schema_mode:    unenforced_repaired",
        &format!(
            "schema_version: {}",
            oa_provider::enforcement::schema_version(&schema)
        ),
        "invocation_started",
        "node_started          extract_event",
        "llm_attempt           wire attempt 0 -> structured_output_invalid",
        "llm_attempt           wire attempt 1 (reask) -> ok",
        "llm_completion        openai call_",
        "node_completed        extract_event",
        "invocation_completed",
        "openarmature.invocation",
        "extract_event",
        "openarmature.llm.complete [openarmature.llm.attempt_index=0",
        "openarmature.llm.complete [openarmature.llm.attempt_index=1",
        "gateway that silently deletes response_format",
        "not enforced",
        "the unbound model answered: \"Two plus two is four.\"",
        "WARNING openarmature.structured_output.schema_not_honored",
    ];
    let mut last = 0;
    for needle in story {
        let at = position(&text[last..], needle) + last;
        last = at;
    }
    // Exactly one diagnostic: the gateway call, not the main call (its path is native_unenforced).
    assert_eq!(text.matches("WARNING ").count(), 1, "{text}");
    // Seven violations, each on its own line.
    assert_eq!(
        text.lines()
            .filter(|line| line.trim_start().starts_with("#/"))
            .count(),
        7,
        "{text}"
    );
}

#[test]
fn the_demo_against_the_real_peer() {
    let base_url = match std::env::var("OA_LLAMA_BASE_URL") {
        Ok(base_url) if !base_url.is_empty() => base_url,
        _ => {
            let message = "OA_LLAMA_BASE_URL is not set: no llama.cpp peer, so `oa demo --base-url` did NOT run. \
                           Run `cargo xtask ci`, or `cargo xtask peer -- cargo test -p oa-cli --test demo`.";
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("\n!!!!! SKIPPED: {message}\n");
            return;
        }
    };
    let text = demo_text(&[
        "demo",
        "--base-url",
        &base_url,
        "--model",
        "SmolLM2-135M-Instruct",
    ]);
    position(&text, &format!("against the server at {base_url}"));
    position(&text, "1. Attempt 0 went on the native_unenforced path");
    assert!(
        text.contains("llm_completion        openai") || text.contains("llm_failed            openai"),
        "no terminal LLM event in:\n{text}"
    );
    position(
        &text,
        "openarmature.llm.complete [openarmature.llm.attempt_index=0",
    );
    // The real model, unbound behind the gateway, answers the canary in prose (or runs out of tokens); either way
    // the verdict is not enforced.
    position(&text, "not enforced");
}
