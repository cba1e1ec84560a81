//! The observability executor: builds the case's graph on oa-events' runtime, runs it (once, `invocations: N`
//! times, or as `sequential_invocations`) against the mock provider with the OTel observer (in-memory exporters),
//! a Langfuse observer when the case composes one, typed-event collectors, queryable observers and the log bridge,
//! then checks the case's expectations and named invariants.
//!
//! Which cases run is decided by their vocabulary (see `support`); anything it meets that it does not know is
//! `harness_primitive_missing`, so such a case fails rather than passes.

mod capture;
mod expect;
mod graph;
mod invariants;
mod langfuse;
mod outcome;
mod spans;
pub(crate) mod support;

pub(crate) use spans::SpanRecorder;

use std::sync::Arc;
use std::time::Duration;

use oa_events::{EventBus, InvocationError, InvokeOptions, Observer};
use oa_observe::{LangfuseError, LogBridge, ObserverConfig, OtelObserver};
use serde_json::Value;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

use crate::capability::AdapterCapabilities;
use crate::fixture::Case;
use crate::node::Node;

/// Runs one observability case under the adapter's declared capabilities; `Err` carries the first failed
/// expectation.
pub(crate) fn run_case(case: &Case, capabilities: AdapterCapabilities) -> Result<(), String> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| run_case_blocking(case, capabilities))
                .join()
                .unwrap_or_else(|_| Err("harness: the case thread panicked".to_owned()))
        });
    }
    run_case_blocking(case, capabilities)
}

fn run_case_blocking(case: &Case, capabilities: AdapterCapabilities) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("harness: cannot start a tokio runtime: {error}"))?;
    runtime.block_on(execute(&case.body, capabilities))
}

async fn execute(body: &Node, capabilities: AdapterCapabilities) -> Result<(), String> {
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
    let captured = match body.get("direct_call") {
        Some(call) => direct_call(call)?,
        None => capture_run(body, global, capabilities).await?,
    };
    check_construction(
        body.get("expected_construction_error"),
        captured.construction_error.as_ref(),
    )?;
    expect::check_error(body.get("expected_error"), captured.error())?;
    let expected = body.get("expected").unwrap_or(&Node::Null);
    expect::check(expected, &captured)?;
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
        Some(capture_run(&other, false, capabilities).await?)
    } else {
        None
    };
    let context = invariants::Context {
        run: &captured.run,
        responses: &captured.responses,
        body,
        error: captured.error(),
        invocations: &captured.invocations,
        direct_call: captured.direct_call.as_ref(),
        queryable: captured.queryable.as_ref(),
        counterpart: counterpart.as_ref().map(|c| &c.run),
    };
    for invariants in declared {
        invariants::check(invariants, &context)?;
    }
    Ok(())
}

/// One invocation of the case's graph and how it ended.
pub(crate) struct InvocationRun {
    /// Its name in `sequential_invocations`, when it has one.
    pub(crate) name: Option<String>,
    /// The final state, or why it failed.
    pub(crate) result: Result<Value, InvocationError>,
}

/// What one run of a case left behind.
pub(crate) struct Captured {
    pub(crate) run: capture::Run,
    pub(crate) responses: Vec<oa_provider::Response>,
    /// Every invocation, in order.
    pub(crate) invocations: Vec<InvocationRun>,
    /// `direct_call`'s result, for a case that makes one instead of invoking a graph.
    pub(crate) direct_call: Option<Value>,
    /// The case's queryable observers.
    pub(crate) queryable: Option<graph::Queryable>,
    /// Why the Langfuse observer was not built (observability §6), in which case nothing ran.
    pub(crate) construction_error: Option<LangfuseError>,
}

impl Captured {
    /// The first invocation's error.
    pub(crate) fn error(&self) -> Option<&InvocationError> {
        self.invocations.first().and_then(|run| run.result.as_ref().err())
    }
}

/// `direct_call: {operation: get_invocation_metadata}` (046): the read primitive called with no invocation
/// running. `MetadataSnapshot` derefs to `&Map` only, so what it returns is immutable by type.
fn direct_call(call: &Node) -> Result<Captured, String> {
    match call.get("operation").and_then(Node::as_str) {
        Some("get_invocation_metadata") => {
            let snapshot: oa_events::MetadataSnapshot = oa_events::get_invocation_metadata();
            let value = Value::Object((*snapshot).clone());
            Ok(Captured {
                run: capture::Run::default(),
                responses: Vec::new(),
                invocations: Vec::new(),
                queryable: None,
                construction_error: None,
                direct_call: Some(serde_json::json!({
                    "value": value,
                    "type": "immutable_mapping",
                    "exception": null,
                })),
            })
        }
        other => Err(format!(
            "harness_primitive_missing: direct_call operation {other:?}"
        )),
    }
}

/// The OTel observer unless `otel_observer: {attached: false}`, configured by the case's flags: each read from the
/// `otel_observer:` block first (0121 on conformance-adapter §5.5: the block carries the observer's construction
/// knobs), else from the bare case-level key older fixtures use.
fn otel_observer(body: &Node, telemetry: &oa_testkit::Telemetry) -> Result<Option<OtelObserver>, String> {
    let block = body.get("otel_observer");
    let knob = |key: &str| block.and_then(|otel| otel.get(key)).or_else(|| body.get(key));
    if !knob("attached").and_then(Node::as_bool).unwrap_or(true) {
        return Ok(None);
    }
    let flag = |key: &str, default: bool| knob(key).and_then(Node::as_bool).unwrap_or(default);
    let mut config = ObserverConfig::builder()
        .disable_llm_spans(flag("disable_llm_spans", false))
        .disable_provider_payload(flag("disable_provider_payload", true))
        .disable_genai_semconv(flag("disable_genai_semconv", false));
    if let Some(cap) = knob("payload_byte_cap") {
        let cap = cap
            .as_i64()
            .and_then(|cap| usize::try_from(cap).ok())
            .ok_or("fixture_schema_invalid: otel_observer.payload_byte_cap")?;
        config = config.payload_cap(cap);
    }
    let config = config
        .build()
        .map_err(|error| format!("fixture_schema_invalid: {error}"))?;
    let observer = OtelObserver::new(&telemetry.tracer_provider, config);
    Ok(Some(if flag("enable_metrics", false) {
        observer.enable_metrics(&telemetry.meter_provider)
    } else {
        observer
    }))
}

/// The keys of a `sequential_invocations` entry the harness reads.
const SEQUENTIAL_ENTRY_KEYS: &[&str] = &[
    "name",
    "caller_invocation_id",
    "caller_correlation_id",
    "caller_metadata",
    "caller_invocation_label",
];

/// The keys of an `invocations:` list entry the harness reads (084: one session-bound `invoke()` each).
const INVOCATION_ENTRY_KEYS: &[&str] = &[
    "name",
    "caller_invocation_id",
    "caller_correlation_id",
    "caller_metadata",
    "caller_invocation_label",
    "session_id",
    "initial_state",
];

/// One planned invocation: its name in `sequential_invocations`, its options, and its own initial state when its
/// entry gives one (laid over the state's field defaults).
struct Planned {
    name: Option<String>,
    options: InvokeOptions,
    initial_state: Option<Value>,
}

/// The caller-supplied identity an invocation entry (or the case itself) gives.
fn invoke_options(node: &Node) -> Result<InvokeOptions, String> {
    let session_id = match node.get("session_id") {
        None | Some(Node::Null) => None,
        Some(Node::Str(id)) => Some(id.clone()),
        Some(_) => return Err("fixture_schema_invalid: session_id must be a string".to_owned()),
    };
    Ok(InvokeOptions {
        invocation_id: node
            .get("caller_invocation_id")
            .and_then(Node::as_str)
            .map(str::to_owned),
        correlation_id: node
            .get("caller_correlation_id")
            .or_else(|| node.get("correlation_id"))
            .and_then(Node::as_str)
            .map(str::to_owned),
        metadata: node
            .get("caller_metadata")
            .map(Node::to_json)
            .and_then(|metadata| metadata.as_object().cloned())
            .unwrap_or_default(),
        label: node
            .get("caller_invocation_label")
            .and_then(Node::as_str)
            .map(str::to_owned),
        session_id,
    })
}

/// `entry`'s options over the case's `shared` ones: each field the entry gives wins.
fn merged(shared: &InvokeOptions, own: InvokeOptions) -> InvokeOptions {
    InvokeOptions {
        invocation_id: own.invocation_id.or(shared.invocation_id.clone()),
        correlation_id: own.correlation_id.or(shared.correlation_id.clone()),
        metadata: if own.metadata.is_empty() {
            shared.metadata.clone()
        } else {
            own.metadata
        },
        label: own.label.or(shared.label.clone()),
        session_id: own.session_id.or(shared.session_id.clone()),
    }
}

/// The entries of a list of invocations, each checked against the keys the harness reads.
fn entries<'a>(list: &'a Node, keys: &[&str], what: &str) -> Result<&'a [Node], String> {
    let entries = list
        .as_seq()
        .ok_or_else(|| format!("fixture_schema_invalid: {what}"))?;
    for entry in entries {
        for (key, _) in entry.as_map().unwrap_or_default() {
            if !keys.contains(&key.as_str()) {
                return Err(format!("harness_primitive_missing: {what} entry key {key}"));
            }
        }
    }
    Ok(entries)
}

/// The invocations the case asks for: one; `invocations: N` alike; the listed `invocations:` entries (each its
/// own `invoke()`, with its session and initial state); or the listed `sequential_invocations`; all on the same
/// observers.
fn invocation_plan(body: &Node) -> Result<Vec<Planned>, String> {
    let shared = invoke_options(body)?;
    let listed = |entries: &[Node]| -> Result<Vec<Planned>, String> {
        entries
            .iter()
            .map(|entry| {
                Ok(Planned {
                    name: entry.get("name").and_then(Node::as_str).map(str::to_owned),
                    options: merged(&shared, invoke_options(entry)?),
                    initial_state: entry.get("initial_state").map(Node::to_json),
                })
            })
            .collect()
    };
    if let Some(sequential) = body.get("sequential_invocations") {
        // The harness keeps one set of observers for every invocation, which is what this says.
        if sequential.get("observer_persists_across").and_then(Node::as_bool) == Some(false) {
            return Err("harness_primitive_missing: sequential_invocations with fresh observers".to_owned());
        }
        let list = sequential
            .get("invocations")
            .ok_or("fixture_schema_invalid: sequential_invocations.invocations")?;
        return listed(entries(list, SEQUENTIAL_ENTRY_KEYS, "sequential_invocations")?);
    }
    let count = match body.get("invocations") {
        None => 1,
        Some(list @ Node::Seq(_)) => return listed(entries(list, INVOCATION_ENTRY_KEYS, "invocations")?),
        Some(count) => count
            .as_i64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| (1..=16).contains(n))
            .ok_or("harness_primitive_missing: `invocations` other than a count from 1 to 16 or a list")?,
    };
    Ok((0..count)
        .map(|_| Planned {
            name: None,
            options: shared.clone(),
            initial_state: None,
        })
        .collect())
}

/// `expected_construction_error: {category}` (0116, a case key beside `expected:`): the Langfuse observer's
/// construction failed with that category; without it, a construction that failed fails the case.
fn check_construction(want: Option<&Node>, error: Option<&LangfuseError>) -> Result<(), String> {
    match (want, error) {
        (None, None) => Ok(()),
        (None, Some(error)) => Err(format!("the Langfuse observer was not built: {error}")),
        (Some(_), None) => Err("expected_construction_error: the Langfuse observer was built".to_owned()),
        (Some(want), Some(error)) => {
            for (key, value) in want.as_map().unwrap_or_default() {
                match key.as_str() {
                    "category" if value.as_str() == Some(error.category()) => {}
                    "category" => {
                        return Err(format!(
                            "expected_construction_error.category: got {}, expected {:?}",
                            error.category(),
                            value.to_json()
                        ));
                    }
                    other => {
                        return Err(format!(
                            "harness_primitive_missing: expected_construction_error.{other}"
                        ));
                    }
                }
            }
            Ok(())
        }
    }
}

/// Builds and runs the case's graph with its observers, and collects what they saw. The Langfuse observer is built
/// first, with the log bridge installed (its construction may warn, or fail before anything runs: observability
/// §6).
async fn capture_run(
    body: &Node,
    global: bool,
    capabilities: AdapterCapabilities,
) -> Result<Captured, String> {
    let telemetry = oa_testkit::Telemetry::new();
    let bridge = || {
        tracing::Dispatch::new(
            tracing_subscriber::registry().with(LogBridge::new(&telemetry.logger_provider)),
        )
    };
    let langfuse = if langfuse::composed(body) {
        match tracing::dispatcher::with_default(&bridge(), || langfuse::observer(body, capabilities))? {
            Ok(pair) => Some(pair),
            Err(error) => {
                return Ok(Captured {
                    run: capture::Run::collect(&telemetry, &Default::default(), global, None)?,
                    responses: Vec::new(),
                    invocations: Vec::new(),
                    direct_call: None,
                    queryable: None,
                    construction_error: Some(error),
                });
            }
        }
    } else {
        None
    };
    let built = graph::build(body).await?;
    let mut observers: Vec<Arc<dyn Observer>> = Vec::new();
    if let Some(otel) = otel_observer(body, &telemetry)? {
        observers.push(Arc::new(otel));
    }
    let langfuse = langfuse.map(|(observer, recorder)| {
        observers.push(observer);
        recorder
    });
    let mut collectors = capture::collectors(body)?;
    // The harness's own collector (the empty name sorts first): the response-side checks and invariants read it
    // when the case declares no collector of its own.
    collectors
        .entry(String::new())
        .or_insert_with(|| Arc::new(capture::Collector::harness()));
    for collector in collectors.values() {
        observers.push(Arc::clone(collector) as Arc<dyn Observer>);
    }
    observers.extend(built.queryable.observers());
    let bus = EventBus::new(observers);
    let mut invocations = Vec::new();
    for planned in invocation_plan(body)? {
        // An entry's own initial state is laid over the field defaults, as the case's is.
        let mut state = built.initial_state.clone();
        if let (Value::Object(state), Some(Value::Object(own))) = (&mut state, planned.initial_state) {
            state.extend(own);
        }
        let result = built
            .graph
            .invoke(&bus, state, planned.options)
            .with_subscriber(bridge())
            .await;
        invocations.push(InvocationRun {
            name: planned.name,
            result,
        });
    }
    bus.drain(Duration::from_secs(10))
        .await
        .map_err(|error| format!("harness: {error}"))?;
    let run = capture::Run::collect(&telemetry, &collectors, global, langfuse.as_deref())?;
    let responses = built
        .responses
        .lock()
        .map(|responses| responses.clone())
        .map_err(|_| "harness: the response log is poisoned".to_owned())?;
    Ok(Captured {
        run,
        responses,
        invocations,
        direct_call: None,
        queryable: Some(built.queryable.clone()),
        construction_error: None,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::capability::AdapterCapabilities;
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
        super::run_case(&fixture.cases[0], AdapterCapabilities::DECLARED)
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
                super::run_case(&fixture.cases[0], AdapterCapabilities::DECLARED),
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
        assert_eq!(
            super::run_case(
                &parse("reasoning_content").cases[0],
                AdapterCapabilities::DECLARED
            ),
            Ok(())
        );
        // The same deltas under a field no mapping reads: no reasoning token events, no thinking block.
        assert_eq!(
            super::run_case(&parse("thoughts").cases[0], AdapterCapabilities::DECLARED),
            Err("invariant reasoning_content_field_recognized_as_reasoning_kind does not hold".to_owned())
        );
    }

    fn run_text(text: &str) -> Result<(), String> {
        let fixture = Fixture::parse(
            text,
            FixtureId::new("observability", "904-self-test"),
            PathBuf::from("904-self-test.yaml"),
        )
        .map_err(|error| error.to_string())?;
        super::run_case(&fixture.cases[0], AdapterCapabilities::DECLARED)
    }

    /// An LLM node requesting tool call `REQUESTED`, then a node executing `EXECUTED` through the scope.
    const LINKED: &str = r#"
state: {fields: {answer: {type: string, default: ""}, out: {type: record, default: null}}}
entry: ask
nodes:
  ask:
    calls_llm:
      messages: [{role: user, content: "weather?"}]
      stores_response_in: answer
  run_tool:
    calls_tool:
      tool_name: get_weather
      tool_call_id: EXECUTED
      arguments: {city: Paris}
      mock_tool: {returns: {temperature_c: 20}}
      stores_result_in: out
edges:
  - {from: ask, to: run_tool}
  - {from: run_tool, to: END}
initial_state: {}
mock_llm:
  - status: 200
    body:
      id: cc-self
      object: chat.completion
      model: test-model
      choices:
        - index: 0
          message:
            role: assistant
            content: null
            tool_calls: [{id: REQUESTED, type: function, function: {name: get_weather, arguments: "{}"}}]
          finish_reason: tool_calls
typed_observers:
  - {name: collector, kind: typed_event_collector}
OTEL
expected:
  invariants:
    INVARIANT: true
"#;

    fn linked(requested: &str, executed: &str, otel: &str, invariant: &str) -> String {
        LINKED
            .replace("REQUESTED", requested)
            .replace("EXECUTED", executed)
            .replace("OTEL", otel)
            .replace("INVARIANT", invariant)
    }

    #[test]
    fn the_tool_invariants_fail_against_a_run_that_breaks_them() {
        let linking = "tool_call_id_matches_requesting_llm_output_tool_calls_id";
        assert_eq!(run_text(&linked("call_a", "call_a", "", linking)), Ok(()));
        // The execution names an id the model never requested: no linkage.
        assert_eq!(
            run_text(&linked("call_a", "call_b", "", linking)),
            Err(format!("invariant {linking} does not hold"))
        );
        // An execution linked to a request is not standalone.
        assert_eq!(
            run_text(&linked("call_a", "call_a", "", "standalone_tool_call_id_is_null")),
            Err("invariant standalone_tool_call_id_is_null does not hold".to_owned())
        );
        let populated = "payload_on_populates_tool_arguments_and_result";
        let on = "otel_observer: {disable_provider_payload: false}";
        assert_eq!(run_text(&linked("call_a", "call_a", on, populated)), Ok(()));
        assert_eq!(
            run_text(&linked("call_a", "call_a", "", populated)),
            Err(format!("invariant {populated} does not hold"))
        );
        let suppressed = "payload_off_suppresses_tool_arguments_and_result";
        assert_eq!(run_text(&linked("call_a", "call_a", "", suppressed)), Ok(()));
        assert_eq!(
            run_text(&linked("call_a", "call_a", on, suppressed)),
            Err(format!("invariant {suppressed} does not hold"))
        );
        // A successful execution is not a failure.
        assert_eq!(
            run_text(&linked(
                "call_a",
                "call_a",
                "",
                "exactly_one_tool_call_failed_event_observed"
            )),
            Err("invariant exactly_one_tool_call_failed_event_observed does not hold".to_owned())
        );
    }

    /// Two invocations, each bound to its own session.
    const SESSIONS: &str = r#"
state: {fields: {x: {type: int, default: 0}}}
entry: a
nodes:
  a: {update_pure: {x: 1}}
edges:
  - {from: a, to: END}
invocations:
  - {session_id: FIRST, initial_state: {}}
  - {session_id: SECOND, initial_state: {x: 5}}
expected:
  langfuse_traces:
    - sessionId: FIRST
    - sessionId: SECOND
  invariants:
    each_invocation_distinct_trace_id: true
    all_traces_share_session_id: FIRST
    traces_group_into_one_langfuse_session: true
"#;

    #[test]
    fn the_session_invariants_hold_only_when_the_invocations_share_a_session() {
        let sessions =
            |first: &str, second: &str| run_text(&SESSIONS.replace("FIRST", first).replace("SECOND", second));
        assert_eq!(sessions("sess-1", "sess-1"), Ok(()));
        // Each trace keeps its own session (the langfuse_traces block passes), but they do not group.
        assert_eq!(
            sessions("sess-1", "sess-2"),
            Err("invariant all_traces_share_session_id does not hold".to_owned())
        );
    }
}
