//! `oa demo`: the main job on the embedded default, with no API key and no network.
//!
//! An in-process OpenAI-compatible mock model on 127.0.0.1 answers one structured-output call: its first answer
//! breaks the schema in several places, oa reports every violation at its JSON Pointer, reasks once, and returns
//! the corrected value stamped with its `schema_mode` and `schema_version`. The typed events of the call are
//! printed in delivery order, then the same route behind a gateway that drops `response_format` shows the canary
//! verdict and the `schema_not_honored` diagnostic. `--base-url` sends all of it to a real server instead.

mod mock;
mod typed;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use oa_events::{Event, EventBus, Graph, InvokeOptions, Observer, ObserverError};
use oa_observe::SpanData;
use oa_observe::{ObserverConfig, Telemetry};
use oa_provider::enforcement::{ProbeOutcome, probe_canary};
use oa_provider::retry::Backoff;
use oa_provider::{
    CompletionRequest, Mapping, Message, OpenAiProvider, ProviderBuilder, ProviderError, Reask, Response,
    RetryConfig, RuntimeConfig, StructuredOutputPath,
};
use oa_testkit::{Responder, Server};
use serde_json::{Value, json};

use crate::cli::DemoArgs;
use crate::exit::Exit;
use crate::tap::{Diagnostic, DiagnosticTap};

const SCHEMA: &str = include_str!("schema.json");
const FIRST_ANSWER: &str = include_str!("first_answer.json");
const SECOND_ANSWER: &str = include_str!("second_answer.json");

const QUESTION: &str = "Extract the event from this message: \"Rust meetup on 3 December 2026 at 18:30 UTC in \
                        Hall B (47.37 N, 8.54 E). Ada speaks, Linus hosts, Grace joins as a guest. Tentative.\"";
const REASK: &str = "Your JSON did not match the schema. Every violation:\n{error_message}\n\
                     Reply with the corrected JSON only.";

/// Runs the demo and prints it for a newcomer.
pub(crate) fn run(args: &DemoArgs) -> Exit {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("oa demo: cannot start the async runtime: {error}");
            return Exit::Usage;
        }
    };
    match demo(args, &runtime) {
        Ok(exit) => exit,
        Err(message) => {
            eprintln!("oa demo: {message}");
            Exit::Usage
        }
    }
}

fn demo(args: &DemoArgs, runtime: &tokio::runtime::Runtime) -> Result<Exit, String> {
    let schema: Value = serde_json::from_str(SCHEMA).map_err(|e| format!("embedded schema: {e}"))?;
    // The mock model, when there is one, serves until the demo ends.
    let mut mock = None;
    let (base_url, model, where_) = match &args.base_url {
        Some(base_url) => (
            base_url.clone(),
            args.model.clone(),
            format!("the server at {base_url}"),
        ),
        None => {
            let answers = vec![FIRST_ANSWER.to_owned(), SECOND_ANSWER.to_owned()];
            let started = mock::start(answers).map_err(|e| format!("cannot start the mock model: {e}"))?;
            (
                mock.insert(started).base_url(),
                "demo-model".to_owned(),
                "an in-process mock model on 127.0.0.1 (no key, no network)".to_owned(),
            )
        }
    };
    let provider = args
        .timeouts
        .apply(ProviderBuilder::new(Mapping::OpenAi, &model))
        .base_url(&base_url)
        .no_api_key()
        .build()
        .map_err(|e| format!("cannot build the provider: {e}"))?;

    outln!("oa demo: structured output you can trust, against {where_}\n");
    outln!("The schema asks for an event: title, starts_at (date-time), site {{name, lat, lon}},");
    outln!("at most 3 attendees each with a \"first name\" and a role, and a status.");
    outln!(
        "One call, with reask on: `complete()` returns a validated value or a report of every violation.\n"
    );

    let obstacle = oa_provider::openai::strict_mode_obstacle(&schema);
    let (outcome, events, spans) = runtime.block_on(structured_call(Arc::clone(&provider), schema))?;
    if let Err(error) = &outcome
        && !error.is_structured_output_invalid()
    {
        // The endpoint itself failed (unreachable, refused, not serving): nothing after this would mean anything.
        outln!("The endpoint at {base_url} did not answer the call:");
        outln!("   {error}");
        outln!("   The rest of the demo needs an endpoint that answers; nothing more is shown.");
        return Ok(Exit::Finding);
    }
    print_attempts(&events);
    print_outcome(&outcome, obstacle.as_ref());
    print_events(&events);
    outln!("The OpenTelemetry span tree oa-observe drew from those events:");
    for line in oa_observe::span_tree(&spans) {
        outln!("   {line}");
    }
    outln!();

    // A gateway that deletes `response_format`, as one whose API model predates structured output does, silently.
    let gateway = Server::start(Responder::Relay(base_url.clone()))
        .map_err(|e| format!("cannot start the gateway: {e}"))?;
    let behind_gateway = DiagnosticTap::new(
        OpenAiProvider::builder(&model)
            .base_url(gateway.base_url())
            .no_api_key()
            .build()
            .map_err(|e| format!("cannot build the provider: {e}"))?,
    );
    let verdict = runtime.block_on(probe_canary(&behind_gateway));
    let diagnostics = behind_gateway.take();
    print_gateway(&verdict, &diagnostics);
    Ok(Exit::Ok)
}

/// What the demo keeps of the call's result for printing.
type Outcome = Result<Response, ProviderError>;

/// Runs the structured call as the one node of a graph, so the event layer sees it, and returns its outcome and
/// the events delivered.
async fn structured_call(
    provider: Arc<dyn oa_provider::Provider>,
    schema: Value,
) -> Result<(Outcome, Vec<Event>, Vec<SpanData>), String> {
    let recorder = Arc::new(Recorder::default());
    let telemetry = Telemetry::in_memory();
    let config = ObserverConfig::builder()
        .build()
        .map_err(|e| format!("observer config: {e}"))?;
    let otel = telemetry.observer(config);
    let bus = EventBus::new(vec![
        Arc::clone(&recorder) as Arc<dyn Observer>,
        Arc::new(otel) as Arc<dyn Observer>,
    ]);
    let slot: Arc<Mutex<Option<Outcome>>> = Arc::new(Mutex::new(None));
    let node_slot = Arc::clone(&slot);
    let graph = Graph::builder()
        .node("extract_event", move |_state| {
            let provider = Arc::clone(&provider);
            let slot = Arc::clone(&node_slot);
            let schema = schema.clone();
            async move {
                let request = CompletionRequest::new(vec![Message::user(QUESTION)])
                    .with_response_schema(schema)
                    .with_config(RuntimeConfig {
                        // Enough for the embedded answers; small enough that a rambling real model stops soon.
                        max_tokens: Some(120),
                        temperature: Some(0.0),
                        ..RuntimeConfig::default()
                    })
                    .with_retry(
                        RetryConfig::new(2)
                            .with_backoff(Backoff::Fixed(Duration::ZERO))
                            .with_reask(Reask::template(REASK)),
                    );
                let outcome = oa_events::complete(provider.as_ref(), request).await;
                let update = match &outcome {
                    Ok(response) => json!({"event": response.parsed}),
                    Err(_) => json!({}),
                };
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
                Ok(update)
            }
        })
        .build()
        .map_err(|e| format!("demo graph: {e}"))?;
    graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .await
        .map_err(|e| format!("demo graph: {e}"))?;
    bus.drain(Duration::from_secs(5))
        .await
        .map_err(|e| format!("event delivery: {e}"))?;
    let outcome = slot
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .ok_or("the demo node did not run")?;
    let _ = telemetry.tracer_provider().force_flush();
    Ok((outcome, recorder.take(), telemetry.spans()))
}

/// An observer that keeps every event, to print them after delivery.
#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<Event>>);

impl Recorder {
    fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[async_trait]
impl Observer for Recorder {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event.clone());
        Ok(())
    }
}

fn print_attempts(events: &[Event]) {
    for event in events {
        let Event::LlmAttempt(attempt) = event else {
            continue;
        };
        let content = attempt
            .response
            .as_ref()
            .and_then(|response| response.output_content.as_deref())
            .unwrap_or("");
        let path = attempt
            .request
            .structured_output_path
            .map_or("none", |path| path.as_str());
        match attempt.wire_attempt_index {
            0 => outln!("1. Attempt 0 went on the {path} path. The model answered:"),
            index => outln!(
                "{}. Attempt {index} ({}) appended that answer and one correction naming every violation. \
                 The model answered:",
                index + 1,
                attempt.retry_reason.map_or("retry", |value| value.as_str())
            ),
        }
        outln!("{}", indent(content));
        match (&attempt.error_category, &attempt.error_message) {
            (Some(category), Some(message)) => {
                outln!(
                    "   -> {category} (failure class {}), every violation at its JSON Pointer:",
                    attempt.failure_class.map_or("other", |value| value.as_str()),
                );
                outln!("{}\n", indent(message));
            }
            _ => outln!("   -> valid\n"),
        }
    }
}

fn print_outcome(outcome: &Outcome, obstacle: Option<&oa_provider::openai::StrictObstacle>) {
    match outcome {
        Ok(response) => {
            outln!("The caller gets the validated value, read back as a Rust type (`parsed_as::<Event>()`):");
            match response.parsed_as::<typed::Event>() {
                Ok(event) => outln!("{}", indent(&format!("{event:#?}"))),
                Err(error) => outln!("   (not readable as the demo's type: {error})"),
            }
            outln!("stamped with how it was produced:");
            outln!(
                "   schema_mode:    {}",
                response.schema_mode.map_or("none", |mode| mode.as_str())
            );
            outln!(
                "   schema_version: {}  (SHA-256 of the canonical schema sent)",
                response.schema_version.as_deref().unwrap_or("none")
            );
            if let (Some(StructuredOutputPath::NativeUnenforced), Some(obstacle)) =
                (response.structured_output_path, obstacle)
            {
                outln!("   (unenforced: the strict-mode predicate stopped at {obstacle},");
                outln!(
                    "   so it went with strict: false and only oa's validation stood between the model and"
                );
                outln!("   the caller.)");
            }
            outln!();
        }
        Err(error) => {
            outln!("The call failed: {}", error.category());
            if let Some(failure) = error.structured_output() {
                outln!("{}", indent(&failure.error_message));
            }
            outln!();
        }
    }
}

fn print_events(events: &[Event]) {
    outln!("Typed events, in delivery order (what observers and OpenTelemetry spans are built from):");
    for event in events {
        let line = match event {
            Event::InvocationStarted(started) => format!("invocation_started    {}", started.invocation_id),
            Event::InvocationCompleted(done) => format!(
                "invocation_completed  {}{}",
                done.invocation_id,
                done.error
                    .as_deref()
                    .map(|e| format!(" error: {e}"))
                    .unwrap_or_default()
            ),
            Event::NodeStarted(node) => format!("node_started          {}", node.scope.node_name),
            Event::NodeCompleted(node) => format!("node_completed        {}", node.scope.node_name),
            Event::LlmAttempt(attempt) => format!(
                "llm_attempt           wire attempt {}{} -> {}",
                attempt.wire_attempt_index,
                attempt
                    .retry_reason
                    .map(|reason| format!(" ({})", reason.as_str()))
                    .unwrap_or_default(),
                attempt.error_category.map_or("ok", |value| value.as_str())
            ),
            Event::LlmToken(token) => format!("llm_token             {:?}", token.delta),
            Event::LlmCompletion(completion) => format!(
                "llm_completion        {} {} finish_reason {} path {}",
                completion.request.provider,
                completion.request.call_id,
                completion
                    .response
                    .finish_reason
                    .map_or("none", |value| value.as_str()),
                completion
                    .request
                    .structured_output_path
                    .map_or("none", |path| path.as_str())
            ),
            Event::LlmFailed(failed) => format!(
                "llm_failed            {} {} {}",
                failed.request.provider, failed.request.call_id, failed.error_category
            ),
            other => format!("{other:?}"),
        };
        outln!("   {line}");
    }
    outln!();
}

fn print_gateway(verdict: &ProbeOutcome, diagnostics: &[Diagnostic]) {
    outln!("The same route behind a gateway that silently deletes response_format:");
    outln!(
        "   canary probe (only {:?} is legal; the true answer is 4): {}",
        oa_provider::enforcement::canary_schema()["properties"]["answer"]["enum"][0]
            .as_str()
            .unwrap_or_default(),
        verdict.verdict().replace('_', " ")
    );
    if let ProbeOutcome::NotEnforced { content, .. } = verdict {
        outln!("   the unbound model answered: {content:?}");
    }
    if diagnostics.is_empty() {
        outln!("   no diagnostic was emitted");
    }
    for diagnostic in diagnostics {
        outln!("   WARNING {}", diagnostic.event_name);
        for (name, value) in &diagnostic.attributes {
            outln!("      {name} = {value}");
        }
    }
    outln!("   `oa probe --base-url <gateway>` exits 1 here; straight to the model it exits 0.");
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|line| format!("   {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
