//! The runner judged on fixtures written here, in a directory it has never seen: a correct fixture
//! passes, and each deliberately wrong expectation or malformed fixture fails with the reason named.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use oa_conformance::{Outcome, Report, run};

/// A correct single-case fixture in the llm-provider vocabulary; the variants below break one thing each.
const BASIC: &str = r#"
mock_provider:
  responses:
    - status: 200
      body:
        id: cc-self
        object: chat.completion
        created: 1700000000
        model: test-model
        choices:
          - {index: 0, message: {role: assistant, content: "Hi there."}, finish_reason: stop}
        usage: {prompt_tokens: 3, completion_tokens: 2, total_tokens: 5}
call:
  operation: complete
  messages: [{role: user, content: "Hi"}]
expected_wire_request:
  model: test-model
  messages: [{role: user, content: "Hi"}]
expected:
  response:
    message: {role: assistant, content: "Hi there.", tool_calls: null}
    finish_reason: stop
    usage: {prompt_tokens: 3, completion_tokens: 2, total_tokens: 5}
    raw_check:
      required_keys: [id, model, usage]
  invariants:
    exactly_one_attempt_issued: true
"#;

fn write_suite(root: &Path, capability: &str, fixtures: &[(&str, String)]) -> PathBuf {
    let dir = root.join(capability).join("conformance");
    std::fs::create_dir_all(&dir).unwrap();
    for (stem, text) in fixtures {
        std::fs::write(dir.join(format!("{stem}.yaml")), text).unwrap();
    }
    dir
}

fn run_one(text: String) -> (Outcome, String) {
    let root = tempfile::tempdir().unwrap();
    let dir = write_suite(root.path(), "llm-provider", &[("901-self-test", text)]);
    let report: Report = run(&[dir]).unwrap();
    assert_eq!(report.cases.len(), 1, "{report:?}");
    let case = &report.cases[0];
    assert_eq!(case.fixture, "llm-provider/901-self-test");
    (case.outcome, case.reason.clone().unwrap_or_default())
}

fn assert_fails(text: String, reason_contains: &str) {
    let (outcome, reason) = run_one(text);
    assert_eq!(
        outcome,
        Outcome::Failed,
        "expected a failure mentioning {reason_contains:?}"
    );
    assert!(
        reason.contains(reason_contains),
        "reason {reason:?} lacks {reason_contains:?}"
    );
}

#[test]
fn the_correct_fixture_passes() {
    let (outcome, reason) = run_one(BASIC.to_owned());
    assert_eq!(outcome, Outcome::Passed, "{reason}");
}

#[test]
fn a_wrong_content_fails() {
    assert_fails(
        BASIC.replace(
            "content: \"Hi there.\", tool_calls",
            "content: \"Bye.\", tool_calls",
        ),
        "/message/content",
    );
}

#[test]
fn a_wrong_finish_reason_fails() {
    assert_fails(
        BASIC.replace(
            "    finish_reason: stop\n    usage",
            "    finish_reason: length\n    usage",
        ),
        "/finish_reason",
    );
}

#[test]
fn a_wrong_usage_counter_fails() {
    assert_fails(
        BASIC.replace(
            "usage: {prompt_tokens: 3, completion_tokens: 2, total_tokens: 5}\n    raw_check",
            "usage: {prompt_tokens: 4}\n    raw_check",
        ),
        "/usage/prompt_tokens",
    );
}

#[test]
fn an_extra_key_on_the_wire_fails() {
    // The wire carries `messages`; an expectation without it must fail as "unexpected key".
    assert_fails(
        BASIC.replace(
            "  messages: [{role: user, content: \"Hi\"}]\nexpected:",
            "expected:",
        ),
        "unexpected key",
    );
}

#[test]
fn a_missing_wire_key_fails() {
    assert_fails(
        BASIC.replace(
            "  model: test-model\n  messages",
            "  model: test-model\n  temperature: 0.5\n  messages",
        ),
        "/temperature",
    );
}

#[test]
fn expecting_an_error_from_a_success_fails() {
    assert_fails(
        BASIC.replace(
            "  response:\n",
            "  raises: {category: provider_unavailable}\n  response:\n",
        ),
        "expected an error",
    );
}

#[test]
fn an_unknown_invariant_fails_the_case() {
    assert_fails(
        BASIC.replace("exactly_one_attempt_issued: true", "made_up_invariant: true"),
        "unknown invariant `made_up_invariant`",
    );
}

#[test]
fn an_invariant_that_does_not_hold_fails() {
    assert_fails(
        BASIC.replace("exactly_one_attempt_issued: true", "no_request_issued: true"),
        "no_request_issued",
    );
}

#[test]
fn a_raw_value_differing_from_the_mock_fails() {
    // raw must carry the mock's own values: asserting a key the body lacks fails.
    assert_fails(
        BASIC.replace(
            "required_keys: [id, model, usage]",
            "required_keys: [id, model, usage, system_fingerprint]",
        ),
        "raw lacks `system_fingerprint`",
    );
}

#[test]
fn an_unknown_directive_is_fixture_directive_unknown() {
    assert_fails(
        BASIC.replace("call:\n", "calll: {}\ncall:\n"),
        "fixture_directive_unknown at /calll",
    );
}

#[test]
fn a_malformed_directive_is_fixture_schema_invalid() {
    assert_fails(
        BASIC.replace("operation: complete", "operation: [complete]"),
        "fixture_schema_invalid at /call/operation",
    );
}

#[test]
fn a_newer_conformance_version_is_unsupported() {
    assert_fails(
        format!("conformance_version: \"9.0.0\"\n{BASIC}"),
        "fixture_version_unsupported",
    );
}

#[test]
fn an_unknown_mapping_is_a_missing_primitive() {
    assert_fails(format!("mapping: cohere\n{BASIC}"), "harness_primitive_missing");
}

#[test]
fn invalid_yaml_is_fixture_schema_invalid() {
    assert_fails("call: [unclosed\n".to_owned(), "fixture_schema_invalid");
}

#[test]
fn a_capability_without_an_executor_fails_loudly() {
    let root = tempfile::tempdir().unwrap();
    let dir = write_suite(
        root.path(),
        "graph-engine",
        &[("001-linear", "entry: a\n".to_owned())],
    );
    let report = run(&[dir]).unwrap();
    assert_eq!(report.cases.len(), 1);
    assert_eq!(report.cases[0].outcome, Outcome::Failed);
    assert!(
        report.cases[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("harness_primitive_missing")
    );
}

#[test]
fn a_spec_root_is_walked_for_conformance_directories_and_cases_are_reported_each() {
    let root = tempfile::tempdir().unwrap();
    let two_cases = format!(
        "cases:\n  - name: first\n{}\n  - name: second\n{}",
        indent(BASIC),
        indent(&BASIC.replace(
            "content: \"Hi there.\", tool_calls",
            "content: \"Nope.\", tool_calls"
        ))
    );
    write_suite(root.path(), "llm-provider", &[("902-two", two_cases)]);
    let report = run(&[root.path().to_path_buf()]).unwrap();
    let outcomes: Vec<(Option<&str>, Outcome)> = report
        .cases
        .iter()
        .map(|c| (c.case.as_deref(), c.outcome))
        .collect();
    assert_eq!(
        outcomes,
        [
            (Some("first"), Outcome::Passed),
            (Some("second"), Outcome::Failed)
        ]
    );
    assert_eq!(report.totals_line(), "1 passed, 1 failed, 0 skipped");
    let json = report.cases[1].to_json();
    assert_eq!(json["fixture"], "llm-provider/902-two");
    assert_eq!(json["outcome"], "failed");
}

#[test]
fn a_missing_directory_is_an_error() {
    assert!(run(&[PathBuf::from("/nonexistent/oa-conformance/dir")]).is_err());
}

/// A streamed OpenAI refusal: its pieces arrive as `delta.refusal`, the last chunk says `stop`.
const STREAMED_REFUSAL: &str = r#"
mock_provider:
  responses:
    - status: 200
      stream_body:
        - {id: s, object: chat.completion.chunk, model: test-model, choices: [{index: 0, delta: {role: assistant, refusal: "I can"}, finish_reason: null}]}
        - {id: s, object: chat.completion.chunk, model: test-model, choices: [{index: 0, delta: {refusal: "'t help"}, finish_reason: null}]}
        - {id: s, object: chat.completion.chunk, model: test-model, choices: [{index: 0, delta: {}, finish_reason: stop}]}
        - {id: s, object: chat.completion.chunk, model: test-model, choices: [], usage: {prompt_tokens: 3, completion_tokens: 2, total_tokens: 5}}
call:
  operation: complete
  stream: true
  messages: [{role: user, content: "Hi"}]
expected:
  response:
    finish_reason: FINISH
  invariants:
    assembled_content_is_ordered_concatenation_of_deltas: true
    usage_and_finish_reason_sourced_from_terminal_chunks: true
"#;

/// A correct refusal stream satisfies both invariants (reading only `delta.content` and the wire `stop`, as they
/// once did, each failed it: no content deltas, and `stop` where the response says `content_filter`).
#[test]
fn the_streaming_invariants_count_refusal_pieces_as_content() {
    let (outcome, reason) = run_one(STREAMED_REFUSAL.replace("FINISH", "content_filter"));
    assert_eq!(outcome, Outcome::Passed, "{reason}");
}

#[test]
fn a_tree_without_fixtures_is_an_error_naming_the_directory() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("cap/conformance")).unwrap();
    let error = run(&[root.path().to_path_buf()]).unwrap_err();
    assert!(matches!(error, oa_conformance::DiscoverError::NoFixtures { .. }));
    assert!(
        error.to_string().contains(&root.path().display().to_string()),
        "{error}"
    );
}

/// A two-node observability graph; `EXTRA` becomes a case key.
const GRAPH: &str = r#"
state: {fields: {v: {type: int, default: 0}}}
entry: a
nodes:
  a: {update: {v: 1}}
  b: {update: {v: 2}}
edges:
  - {from: a, to: b}
  - {from: b, to: END}
initial_state: {}
EXTRA
expected:
  span_tree:
    - name: openarmature.invocation
      status: OK
      children:
        - {name: a, status: OK}
        - {name: b, status: OK}
"#;

#[test]
fn whether_an_observability_case_runs_is_decided_by_its_vocabulary_not_its_name() {
    let root = tempfile::tempdir().unwrap();
    let plain = GRAPH.replace("EXTRA", "");
    let with_subgraph = GRAPH.replace(
        "EXTRA",
        "subgraph: {name: inner, entry: x, nodes: {x: {update: {}}}}",
    );
    // Names no table has ever listed, in a directory the runner has never seen.
    write_suite(
        &root.path().join("somewhere/deep"),
        "observability",
        &[("777-renamed", plain), ("778-renamed", with_subgraph)],
    );
    let report = run(&[root.path().to_path_buf()]).unwrap();
    let outcomes: Vec<(&str, Outcome, Option<&str>)> = report
        .cases
        .iter()
        .map(|c| (c.fixture.as_str(), c.outcome, c.reason.as_deref()))
        .collect();
    assert_eq!(outcomes[0], ("observability/777-renamed", Outcome::Passed, None));
    assert_eq!(outcomes[1].1, Outcome::Skipped);
    assert!(
        outcomes[1].2.unwrap().contains("full graph engine"),
        "{outcomes:?}"
    );
    // The same plain case with a wrong expectation fails: it really ran.
    let wrong = GRAPH
        .replace("EXTRA", "")
        .replace("{name: b, status: OK}", "{name: c, status: OK}");
    let other = tempfile::tempdir().unwrap();
    write_suite(other.path(), "observability", &[("779-wrong", wrong)]);
    let report = run(&[other.path().to_path_buf()]).unwrap();
    assert_eq!(report.cases[0].outcome, Outcome::Failed, "{report:?}");
}

/// Runs `text` as an observability fixture in a fresh directory: each case's (outcome, reason).
fn run_graph(text: String) -> Vec<(Outcome, String)> {
    let root = tempfile::tempdir().unwrap();
    let dir = write_suite(root.path(), "observability", &[("903-self-test", text)]);
    run(&[dir])
        .unwrap()
        .cases
        .into_iter()
        .map(|case| (case.outcome, case.reason.unwrap_or_default()))
        .collect()
}

/// 0120's second obligation: a key the vocabulary knows but no oa runner reads fails the case before it runs,
/// named with its location, at each level the executor reads; the same case without it passes.
#[test]
fn a_recognised_key_no_runner_reads_fails_the_case_naming_it() {
    let plain = GRAPH.replace("EXTRA", "");
    assert_eq!(run_graph(plain.clone()), [(Outcome::Passed, String::new())]);
    for (extra, location) in [
        ("first_run_expected: {}", "at /first_run_expected"),
        ("render_variables: {topic: x}", "at /render_variables"),
    ] {
        let [(outcome, reason)] = run_graph(GRAPH.replace("EXTRA", extra)).try_into().unwrap();
        assert_eq!(outcome, Outcome::Failed, "{extra}");
        assert!(
            reason.starts_with(&format!("harness_primitive_missing {location}: `"))
                && reason.contains("no oa runner reads it"),
            "{extra}: {reason}"
        );
    }
    let node = plain.replace(
        "a: {update: {v: 1}}",
        "a: {update: {v: 1}, calls_llm_from_wrapper: {}}",
    );
    let [(outcome, reason)] = run_graph(node).try_into().unwrap();
    assert_eq!(outcome, Outcome::Failed);
    assert!(reason.contains("at /nodes/a/calls_llm_from_wrapper"), "{reason}");
    let expected = plain.replace("expected:\n", "expected:\n  parent_trace: {span_tree: []}\n");
    let [(outcome, reason)] = run_graph(expected).try_into().unwrap();
    assert_eq!(outcome, Outcome::Failed);
    assert!(reason.contains("at /expected/parent_trace"), "{reason}");
}

/// 0115: a case for another adapter's capability arm is a recognised skip naming why; a capability the adapter
/// does not declare fails the case.
#[test]
fn requires_capability_selects_the_arm_and_an_undeclared_name_fails() {
    let case = |requirement: &str| GRAPH.replace("EXTRA", &format!("requires_capability: {{{requirement}}}"));
    let [(outcome, reason)] = run_graph(case("langfuse_bound_provider_detection: true"))
        .try_into()
        .unwrap();
    assert_eq!((outcome, reason.as_str()), (Outcome::Passed, ""));
    let [(outcome, reason)] = run_graph(case("langfuse_bound_provider_detection: false"))
        .try_into()
        .unwrap();
    assert_eq!(outcome, Outcome::Skipped);
    assert!(
        reason.contains("langfuse_bound_provider_detection: false, and this adapter declares true"),
        "{reason}"
    );
    let [(outcome, reason)] = run_graph(case("telepathy: true")).try_into().unwrap();
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        reason.contains("/requires_capability/telepathy")
            && reason.contains("declares no capability `telepathy`"),
        "{reason}"
    );
}

fn indent(text: &str) -> String {
    text.trim_start_matches('\n')
        .lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn run_works_from_inside_an_async_runtime() {
    // Blocking inside the async test on purpose: this is what an async CLI calling run() does.
    let (outcome, reason) = run_one(BASIC.to_owned());
    assert_eq!(outcome, Outcome::Passed, "{reason}");
}

#[test]
fn run_works_when_called_inside_a_runtime_context() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = runtime.enter();
    let (outcome, reason) = run_one(BASIC.to_owned());
    assert_eq!(outcome, Outcome::Passed, "{reason}");
}
