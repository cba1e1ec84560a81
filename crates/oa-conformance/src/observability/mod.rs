//! The observability executor: builds the case's linear graph on oa-events' runtime, runs it against the mock
//! provider with the OTel observer (in-memory exporters), a typed-event collector and the log bridge, then checks
//! the case's expectations (`observers`, `llm_spans`, `span_tree`, `log_records`, `log_records_absent`).
//!
//! It covers the vocabulary of fixture 161 and the simpler LLM-call fixtures; anything else it meets is
//! `harness_primitive_missing`, so such a fixture fails rather than passes (and stays in the deferral table).

mod capture;
mod expect;
mod graph;
mod invariants;

use std::sync::Arc;
use std::time::Duration;

use oa_events::{EventBus, InvokeOptions, Observer};
use oa_observe::{LogBridge, ObserverConfig, OtelObserver};
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

use crate::fixture::Case;
use crate::node::Node;

/// Runs one observability case; `Err` carries the first failed expectation.
pub(crate) fn run_case(case: &Case) -> Result<(), String> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| run_case_blocking(case))
                .join()
                .unwrap_or_else(|_| Err("harness: the case thread panicked".to_owned()))
        });
    }
    run_case_blocking(case)
}

fn run_case_blocking(case: &Case) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("harness: cannot start a tokio runtime: {error}"))?;
    runtime.block_on(execute(&case.body))
}

/// Top-level case keys this executor understands; any other makes the case `harness_primitive_missing`.
const SUPPORTED_KEYS: &[&str] = &[
    "name",
    "description",
    "state",
    "entry",
    "nodes",
    "edges",
    "initial_state",
    "expected",
    "caller_correlation_id",
    "caller_metadata",
    "disable_llm_spans",
    "disable_provider_payload",
    "disable_genai_semconv",
    "enable_metrics",
    "mock_llm",
    "mock_llm_stream",
    "otel_observer",
    "typed_observers",
    "expected_error",
    "invariants",
    "provider",
    "caller_global_otel_active",
];

async fn execute(body: &Node) -> Result<(), String> {
    for (key, _) in body.as_map().unwrap_or_default() {
        if !SUPPORTED_KEYS.contains(&key.as_str()) {
            return Err(format!("harness_primitive_missing: case key `{key}`"));
        }
    }
    let global = body
        .get("caller_global_otel_active")
        .and_then(Node::as_bool)
        .unwrap_or(false);
    // Held to the end of the case: the global exporter then holds this case's spans only.
    let _global_guard = if global {
        let guard = capture::GLOBAL_LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        capture::global_exporter().reset();
        Some(guard)
    } else {
        None
    };
    let captured = capture_run(body, global).await?;
    expect::check_error(body.get("expected_error"), captured.error.as_ref())?;
    let expected = body.get("expected").unwrap_or(&Node::Null);
    expect::check(expected, &captured.run)?;
    let declared: Vec<&Node> = [expected.get("invariants"), body.get("invariants")]
        .into_iter()
        .flatten()
        .collect();
    // 118's `both_reasoning_field_names_produce_identical_token_events`: the same case run again with the
    // streamed reasoning under the other field name, so the invariant compares two real runs.
    let counterpart = if declared
        .iter()
        .any(|invariants| invariants.get(invariants::BOTH_REASONING_FIELDS).is_some())
    {
        let other = invariants::swap_reasoning_field(body)?;
        Some(capture_run(&other, false).await?)
    } else {
        None
    };
    let context = invariants::Context {
        run: &captured.run,
        responses: &captured.responses,
        body,
        error: captured.error.as_ref(),
        counterpart: counterpart.as_ref().map(|c| &c.run),
    };
    for invariants in declared {
        invariants::check(invariants, &context)?;
    }
    Ok(())
}

/// What one run of a case left behind.
struct Captured {
    run: capture::Run,
    responses: Vec<oa_provider::Response>,
    error: Option<oa_events::InvocationError>,
}

/// Builds and runs the case's graph with its observers, and collects what they saw.
async fn capture_run(body: &Node, global: bool) -> Result<Captured, String> {
    let telemetry = oa_testkit::Telemetry::new();
    let built = graph::build(body).await?;
    let mut observers: Vec<Arc<dyn Observer>> = Vec::new();
    let attached = body
        .get("otel_observer")
        .and_then(|otel| otel.get("attached"))
        .and_then(Node::as_bool)
        .unwrap_or(true);
    if attached {
        let flag = |key: &str, default: bool| body.get(key).and_then(Node::as_bool).unwrap_or(default);
        let config = ObserverConfig::builder()
            .disable_llm_spans(flag("disable_llm_spans", false))
            .disable_provider_payload(flag("disable_provider_payload", true))
            .disable_genai_semconv(flag("disable_genai_semconv", false))
            .enable_metrics(flag("enable_metrics", false))
            .build()
            .map_err(|error| format!("fixture_schema_invalid: {error}"))?;
        observers.push(Arc::new(OtelObserver::new(
            &telemetry.tracer_provider,
            Some(&telemetry.meter_provider),
            config,
        )));
    }
    let mut collectors = capture::collectors(body)?;
    // The harness's own collector (the empty name sorts first): the response-side checks and invariants read it
    // when the case declares no collector of its own.
    collectors
        .entry(String::new())
        .or_insert_with(|| Arc::new(capture::Collector::harness()));
    for collector in collectors.values() {
        observers.push(Arc::clone(collector) as Arc<dyn Observer>);
    }
    let bus = EventBus::new(observers);
    let options = InvokeOptions {
        correlation_id: body
            .get("caller_correlation_id")
            .and_then(Node::as_str)
            .map(str::to_owned),
        metadata: body
            .get("caller_metadata")
            .map(|metadata| metadata.to_json())
            .and_then(|metadata| metadata.as_object().cloned())
            .unwrap_or_default(),
        ..InvokeOptions::default()
    };
    let subscriber = tracing_subscriber::registry().with(LogBridge::new(&telemetry.logger_provider));
    let outcome = built
        .graph
        .invoke(&bus, built.initial_state.clone(), options)
        .with_subscriber(tracing::Dispatch::new(subscriber))
        .await;
    bus.drain(Duration::from_secs(10))
        .await
        .map_err(|error| format!("harness: {error}"))?;
    let run = capture::Run::collect(&telemetry, &collectors, global)?;
    let responses = built
        .responses
        .lock()
        .map(|responses| responses.clone())
        .map_err(|_| "harness: the response log is poisoned".to_owned())?;
    Ok(Captured {
        run,
        responses,
        error: outcome.err(),
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::fixture::{Fixture, FixtureId};

    /// One LLM call whose mock answers `MESSAGE`, asserting the §5.5.10 absence invariant (fixture 086's).
    const ABSENT: &str = r#"
state: {fields: {msg: {type: string, default: ""}}}
entry: ask
nodes:
  ask:
    calls_llm:
      messages: [{role: user, content: "hi"}]
      stores_response_in: msg
edges:
  - {from: ask, to: END}
initial_state: {}
mock_llm:
  - status: 200
    body:
      id: cc-self
      object: chat.completion
      model: test-model
      choices:
        - {index: 0, message: MESSAGE, finish_reason: FINISH}
      usage: {prompt_tokens: 3, completion_tokens: 2, total_tokens: 5}
expected:
  invariants:
    tool_call_attributes_omitted_when_none_requested: true
"#;

    const TEXT: &str = r#"{role: assistant, content: "hello"}"#;
    const TOOL_CALL: &str = r#"{role: assistant, content: null, tool_calls: [{id: call_a, type: function, function: {name: get_weather, arguments: '{"city": "NYC"}'}}]}"#;

    fn run(message: &str, finish: &str) -> Result<(), String> {
        let text = ABSENT.replace("MESSAGE", message).replace("FINISH", finish);
        let fixture = Fixture::parse(
            &text,
            FixtureId::new("observability", "901-self-test"),
            PathBuf::from("901-self-test.yaml"),
        )
        .map_err(|error| error.to_string())?;
        super::run_case(&fixture.cases[0])
    }

    #[test]
    fn tool_call_absence_invariant_holds_only_without_tool_calls() {
        assert_eq!(run(TEXT, "stop"), Ok(()));
        // The contrast: the same case whose completion requests a tool emits the §5.5.10 projections, so the
        // absence invariant must fail rather than pass vacuously.
        let contrast = run(TOOL_CALL, "tool_calls");
        assert_eq!(
            contrast,
            Err("invariant tool_call_attributes_omitted_when_none_requested does not hold".to_owned())
        );
    }

    #[test]
    fn tool_call_identity_invariants_fail_without_tool_calls() {
        for invariant in [
            "tool_call_names_and_ids_index_aligned",
            "count_equals_names_length",
            "identity_projections_survive_payload_off",
        ] {
            let text = ABSENT
                .replace("MESSAGE", TEXT)
                .replace("FINISH", "stop")
                .replace("tool_call_attributes_omitted_when_none_requested", invariant);
            let fixture = Fixture::parse(
                &text,
                FixtureId::new("observability", "901-self-test"),
                PathBuf::from("901-self-test.yaml"),
            )
            .unwrap();
            assert_eq!(
                super::run_case(&fixture.cases[0]),
                Err(format!("invariant {invariant} does not hold")),
            );
        }
    }

    /// A streamed call with `FIELD` carrying two reasoning deltas, asserting 118's reasoning invariants.
    const REASONING: &str = r#"
state: {fields: {answer: {type: string, default: ""}}}
entry: ask
nodes:
  ask:
    calls_llm:
      stream: true
      messages: [{role: user, content: "q"}]
      stores_response_in: answer
edges:
  - {from: ask, to: END}
initial_state: {}
mock_llm_stream:
  - - {choices: [{index: 0, delta: {FIELD: "Let me "}, finish_reason: null}]}
    - {choices: [{index: 0, delta: {FIELD: "think."}, finish_reason: null}]}
    - {choices: [{index: 0, delta: {content: "42"}, finish_reason: stop}]}
    - {choices: [], usage: {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2}}
typed_observers:
  - {name: collector, kind: typed_event_collector}
expected:
  invariants:
    reasoning_content_field_recognized_as_reasoning_kind: true
    reasoning_assembles_into_terminal_thinking_block: true
    both_reasoning_field_names_produce_identical_token_events: true
"#;

    #[test]
    fn reasoning_invariants_fail_when_the_field_is_not_reasoning() {
        let parse = |field: &str| {
            Fixture::parse(
                &REASONING.replace("FIELD", field),
                FixtureId::new("observability", "902-self-test"),
                PathBuf::from("902-self-test.yaml"),
            )
            .unwrap()
        };
        assert_eq!(super::run_case(&parse("reasoning_content").cases[0]), Ok(()));
        // The same deltas under a field no mapping reads: no reasoning token events, no thinking block.
        assert_eq!(
            super::run_case(&parse("thoughts").cases[0]),
            Err("invariant reasoning_content_field_recognized_as_reasoning_kind does not hold".to_owned())
        );
    }
}
