//! `oa complete`: one (structured) completion through the real provider, reported through the event and
//! observability layers like any application's call: typed events on a bus, spans, log records and metrics through
//! oa-observe (printed with `--trace`, exported with `--otlp`), and the enforcement marker read from a registry.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use oa_events::{EventBus, ObservedProvider, Observer};
use oa_observe::{LangfuseConfig, LangfuseCredentials, LangfuseObserver, ObserverConfig, Telemetry};
use oa_provider::enforcement::{CapabilityRegistry, RoutedProvider};
use oa_provider::fit::{Fallback, SchemaAccount};
use oa_provider::hook::{DeltaKind, PartialValue, TokenDelta};
use oa_provider::model::{AttemptOutcome, AttemptSummary, Blocked, EarlyStop, FailureClass};
use oa_provider::{
    AttemptHook, AttemptRecord, Capabilities, CompletionRequest, FinishReason, Message, Provider,
    ProviderError, Reask, Response, RetryConfig, RuntimeConfig, StructuredOutputFailure, Tool, Usage,
};
use serde_json::{Value, json};

use crate::cli::{CompleteArgs, Mapping};
use crate::endpoint::{open_registry_to_read, warn_if_unreachable, within};
use crate::exit::Exit;
use crate::schema_source::CallSchema;
use crate::tap::Diagnostic;

/// The correction a reask appends after the model's own output (the caller owns every word of it, §7.1).
const REASK_TEMPLATE: &str = "Your previous answer did not match the required JSON Schema. Every problem, each at \
its JSON Pointer:\n{error_message}\nAnswer again with only the corrected JSON.";

/// The max_tokens `oa complete` sends on the anthropic mapping, which requires one, when `--max-tokens` is not given.
const ANTHROPIC_MAX_TOKENS: u64 = 1024;

/// The standard variable naming an OTLP collector's base URL, read when `--otlp` is not given.
const OTLP_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// How long the event bus may take to hand the call's events to the observers before exit.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// How long sending the call's trace to Langfuse may take before exit (the client bounds each request too).
const LANGFUSE_FLUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `oa complete` and reports how it ended.
pub(crate) fn run(args: &CompleteArgs) -> Exit {
    let prepared = build_request(args).and_then(|(request, schema)| {
        let registry = args
            .registry
            .as_deref()
            .map(|location| open_registry_to_read(location, Duration::from_secs(args.stale_after)))
            .transpose()?;
        Ok((request, schema, build_provider(args, registry.clone())?, registry))
    });
    let (request, schema, provider, registry) = match prepared {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("oa complete: {message}");
            return Exit::Usage;
        }
    };
    // Built outside the async runtime: OTLP exports run on the SDK's threads with a blocking HTTP client.
    let telemetry = match telemetry_for(args) {
        Ok(telemetry) => telemetry,
        Err(message) => {
            eprintln!("oa complete: {message}");
            return Exit::Usage;
        }
    };
    let langfuse = match langfuse_for(args) {
        Ok(langfuse) => langfuse,
        Err(message) => {
            eprintln!("oa complete: {message}");
            return Exit::Usage;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("oa complete: cannot start the async runtime: {error}");
            return Exit::Usage;
        }
    };
    // A streamed structured answer is shown as its values complete; a plain one as its tokens arrive.
    let growing = args.stream && args.schema.is_some();
    let hook = Arc::new(CliHook {
        attempts: Mutex::default(),
        accounts: Mutex::default(),
        early_stops: Mutex::default(),
        echo_tokens: args.stream && !args.json && !growing,
        partials: match (growing, args.json) {
            (false, _) => None,
            (true, false) => Some(PartialShow::Lines),
            (true, true) => Some(PartialShow::Json),
        },
        shown_attempt: Mutex::new(0),
        diagnostics: Mutex::default(),
    });
    // Why an OpenAI call would go native_unenforced (the one mapping whose native path can be unenforced); the path
    // does not carry its reason yet, so the schema's first obstacle to strict mode is asked for here.
    let obstacle = request
        .response_schema
        .as_deref()
        .filter(|_| args.endpoint.mapping == Mapping::Openai)
        .and_then(oa_provider::openai::strict_mode_obstacle);
    let request = request.with_hook(hook.clone());
    let outcome = runtime.block_on(async {
        // Metrics on; payload attributes stay off (the default), so prompts and answers never leave through
        // telemetry unless an application asks for it.
        let mut observers: Vec<Arc<dyn Observer>> = match &telemetry {
            Some(telemetry) => vec![Arc::new(
                telemetry
                    .observer(ObserverConfig::default())
                    .enable_metrics(telemetry.meter_provider()),
            )],
            None => Vec::new(),
        };
        if let Some(langfuse) = &langfuse {
            observers.push(Arc::clone(langfuse) as Arc<dyn Observer>);
        }
        let bus = EventBus::new(observers);
        let observed = ObservedProvider::new(provider, bus.clone(), "complete");
        // The provider's diagnostics reach the telemetry's logs through the log bridge, on the call's future.
        let call = observed.complete(&request);
        let outcome = match &telemetry {
            Some(telemetry) => within(args.endpoint.timeouts, telemetry.bridging_logs(call)).await,
            None => within(args.endpoint.timeouts, call).await,
        };
        if let Err(error) = bus.drain(DRAIN_TIMEOUT).await {
            eprintln!("oa complete: warning: {error}");
        }
        if let Some(langfuse) = &langfuse {
            flush_langfuse(langfuse).await;
        }
        outcome
    });
    drop(runtime);
    if let Some(registry) = &registry {
        warn_if_unreachable(registry);
    }
    if let Some(telemetry) = &telemetry {
        finish_telemetry(telemetry, args.trace);
    }
    // Every attempt the hook saw (those before a whole-call --timeout too, which the call's own error cannot hold).
    let attempts = std::mem::take(&mut *hook.attempts.lock().unwrap_or_else(PoisonError::into_inner));
    let early_stops = std::mem::take(&mut *hook.early_stops.lock().unwrap_or_else(PoisonError::into_inner));
    let diagnostics = std::mem::take(&mut *hook.diagnostics.lock().unwrap_or_else(PoisonError::into_inner));
    // The account of the last attempt that sent a schema: the answering one, or the one whose failure is reported.
    let account = hook
        .accounts
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .rev()
        .find_map(Clone::clone);
    if hook.echo_tokens {
        outln!();
    }
    // An answer that reached a reference resolving to nothing has no verdict: an input error naming it.
    let unresolved = match (&schema, &outcome) {
        (Some(schema), Err(error)) => schema.reached_unresolved(error),
        _ => None,
    };
    if let Some(schema) = &schema {
        schema.warn_unreached("oa complete");
    }
    if let Some(message) = unresolved {
        eprintln!("oa complete: {message}");
        return Exit::Usage;
    }
    let ok = outcome.is_ok();
    if args.json {
        outln!(
            "{}",
            to_json(
                &outcome,
                &attempts,
                &early_stops,
                &diagnostics,
                account.as_deref()
            )
        );
    } else {
        print_summary(&outcome, &attempts, &diagnostics, args.stream);
        print_early_stops(&attempts, &early_stops);
        print_account(account.as_deref());
        let path = match &outcome {
            Ok(response) => response.structured_output_path,
            Err(error) => error.structured_output_path(),
        };
        if let (Some(oa_provider::StructuredOutputPath::NativeUnenforced), Some(obstacle)) = (path, obstacle)
        {
            outln!("native_unenforced because: {obstacle}");
        }
    }
    if ok { Exit::Ok } else { Exit::Finding }
}

/// With `--langfuse`, an observer owning an HTTP client built from Langfuse's standard variables (§8.9 mode (b));
/// payload stays off, as for OpenTelemetry.
fn langfuse_for(args: &CompleteArgs) -> Result<Option<Arc<LangfuseObserver>>, String> {
    if !args.langfuse {
        return Ok(None);
    }
    let credentials = LangfuseCredentials::from_env().map_err(|error| format!("--langfuse: {error}"))?;
    let observer = LangfuseObserver::from_credentials(credentials, LangfuseConfig::default())
        .map_err(|error| format!("--langfuse: {error}"))?;
    Ok(Some(Arc::new(observer)))
}

/// Sends what is still queued for Langfuse; a failure is a warning (the call's own outcome stands), and names
/// what failed, never a key.
async fn flush_langfuse(langfuse: &LangfuseObserver) {
    match tokio::time::timeout(LANGFUSE_FLUSH_TIMEOUT, langfuse.flush()).await {
        Ok(Ok(report)) if report.n_rejected > 0 || report.n_dropped > 0 => eprintln!(
            "oa complete: warning: Langfuse rejected {} and dropped {} events: {}",
            report.n_rejected,
            report.n_dropped,
            report.rejections.join("; ")
        ),
        Ok(Ok(_)) => {}
        Ok(Err(error)) => eprintln!("oa complete: warning: {error}"),
        Err(_) => eprintln!(
            "oa complete: warning: sending the trace to Langfuse took longer than {LANGFUSE_FLUSH_TIMEOUT:?}"
        ),
    }
}

/// In memory for `--trace`, OTLP for `--otlp` (or the standard variable), nothing otherwise.
fn telemetry_for(args: &CompleteArgs) -> Result<Option<Telemetry>, String> {
    if args.trace {
        return Ok(Some(Telemetry::in_memory()));
    }
    let endpoint = args.otlp.clone().or_else(|| {
        std::env::var(OTLP_ENDPOINT_ENV)
            .ok()
            .filter(|value| !value.is_empty())
    });
    endpoint
        .map(|endpoint| Telemetry::otlp_http(&endpoint).map_err(|error| format!("--otlp: {error}")))
        .transpose()
}

/// Flushes the telemetry; with `--trace`, prints the span tree and log records to stderr.
fn finish_telemetry(telemetry: &Telemetry, trace: bool) {
    if let Err(error) = telemetry.shutdown() {
        eprintln!("oa complete: warning: {error}");
    }
    if !trace {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "trace: spans");
    for line in oa_observe::span_tree(&telemetry.spans()) {
        let _ = writeln!(stderr, "  {line}");
    }
    let logs = telemetry.log_records();
    let _ = writeln!(stderr, "trace: log records ({})", logs.len());
    for log in logs {
        let _ = writeln!(
            stderr,
            "  {} {}",
            log.severity.as_deref().unwrap_or("-"),
            log.event_name.as_deref().unwrap_or("-")
        );
        for (key, value) in &log.attributes {
            let _ = writeln!(stderr, "     {key}={value}");
        }
    }
}

/// The provider the call goes through: the native route (reading the registry when given), or with `--route` a
/// router over it and its prompt-path twin.
fn build_provider(
    args: &CompleteArgs,
    registry: Option<Arc<CapabilityRegistry>>,
) -> Result<Arc<dyn Provider>, String> {
    let native_capabilities = Capabilities {
        native_response_format: !args.no_native,
        ..Capabilities::default()
    };
    let mut builder = args
        .endpoint
        .provider_builder()?
        .capabilities(native_capabilities)
        .retry_parse_failure(args.retry_parse_failure);
    if let Some(registry) = &registry {
        builder = builder.registry(Arc::clone(registry));
    }
    let native = builder
        .build()
        .map_err(|error| format!("cannot build the provider: {error}"))?;
    let (true, Some(registry)) = (args.route, registry) else {
        return Ok(native);
    };
    let prompted = args
        .endpoint
        .provider_builder()?
        .capabilities(Capabilities {
            native_response_format: false,
            ..Capabilities::default()
        })
        .retry_parse_failure(args.retry_parse_failure)
        .build()
        .map_err(|error| format!("cannot build the provider: {error}"))?;
    let key = native
        .capability_key()
        .ok_or("the provider names no route for the registry")?;
    Ok(Arc::new(
        RoutedProvider::new(native, prompted, registry, key).with_routing(true),
    ))
}

fn build_request(args: &CompleteArgs) -> Result<(CompletionRequest, Option<CallSchema>), String> {
    let mut messages = Vec::new();
    if let Some(system) = &args.system {
        messages.push(Message::system(system));
    }
    if args.message == "-" && args.schema.as_deref() == Some(std::path::Path::new("-")) {
        return Err("standard input (`-`) can stand for only one of MESSAGE and --schema".to_owned());
    }
    // `-` reads the message from standard input, so model input can be piped in.
    let message = if args.message == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|error| format!("cannot read the message from standard input: {error}"))?;
        text
    } else {
        args.message.clone()
    };
    if message.trim().is_empty() {
        return Err("the message is empty: nothing was sent".to_owned());
    }
    let mapping = args.endpoint.mapping;
    if args.stream && mapping != Mapping::Openai {
        return Err(format!(
            "--stream: the {} mapping does not stream (llm-provider §5); send without --stream",
            oa_provider::Mapping::from(mapping)
        ));
    }
    messages.push(Message::user(message));
    let mut request = CompletionRequest::new(messages)
        .with_stream(args.stream)
        .with_early_stop(args.early_stop);
    let schema = args
        .schema
        .as_deref()
        .map(|path| CallSchema::open(path, &args.schema_flags, "oa complete", !args.no_warn))
        .transpose()?;
    if let Some(schema) = &schema {
        request = schema.apply(request, args.fit);
    }
    if let Some(path) = &args.tools {
        request = request.with_tools(read_tools(path)?);
    }
    let config = RuntimeConfig {
        stop_sequences: (!args.stop.is_empty()).then(|| args.stop.clone()),
        max_tokens: args
            .max_tokens
            .or((mapping == Mapping::Anthropic).then_some(ANTHROPIC_MAX_TOKENS)),
        temperature: args.temperature,
        ..RuntimeConfig::default()
    };
    request = request.with_config(config);
    let max_attempts = match (args.max_attempts, args.reask) {
        (Some(0), _) => return Err("--max-attempts must be at least 1".to_owned()),
        (Some(n), _) => n,
        // A reask needs a second attempt to be sent.
        (None, true) => 2,
        (None, false) => 1,
    };
    if max_attempts > 1 || args.reask {
        let mut retry = RetryConfig::new(max_attempts);
        if args.reask {
            retry = retry.with_reask(Reask::template(REASK_TEMPLATE));
        }
        request = request.with_retry(retry);
    }
    Ok((request, schema))
}

/// Reads a `--tools` file: a JSON array of `{name, description, parameters}`.
fn read_tools(path: &std::path::Path) -> Result<Vec<Tool>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a JSON array of {{name, description, parameters}} tools: {e}",
            path.display()
        )
    })
}

/// Keeps each wire attempt's summary, schema account, early stop and diagnostics and, with `--stream`, echoes
/// content deltas as they arrive (or, with `--schema`, each value of the answer as it completes).
struct CliHook {
    attempts: Mutex<Vec<AttemptSummary>>,
    accounts: Mutex<Vec<Option<Arc<SchemaAccount>>>>,
    early_stops: Mutex<Vec<Option<EarlyStop>>>,
    echo_tokens: bool,
    partials: Option<PartialShow>,
    /// The attempt whose values were shown last (a reask's answer is headed by its attempt).
    shown_attempt: Mutex<u32>,
    diagnostics: Mutex<Vec<Diagnostic>>,
}

/// How `--stream --schema` shows the answer's values as they complete.
#[derive(Clone, Copy)]
enum PartialShow {
    /// `POINTER VALUE`, one line each: the same on a terminal and in a pipe, so nothing is redrawn and a reader
    /// (or `grep`) sees every value as it came.
    Lines,
    /// One JSON object per value (`--json`), before the report.
    Json,
}

impl AttemptHook for CliHook {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        if self.echo_tokens && delta.kind == DeltaKind::Content {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(delta.text.as_bytes());
            let _ = stdout.flush();
        }
    }

    fn on_partial(&self, partial: &PartialValue<'_>) {
        let Some(show) = self.partials else { return };
        let line = match show {
            PartialShow::Json => json!({
                "kind": "partial_value",
                "attempt_index": partial.attempt_index,
                "pointer": partial.pointer.as_str(),
                "value": partial.value,
                "certain_violations": partial.certain_violations,
            })
            .to_string(),
            PartialShow::Lines => {
                let mut shown = self.shown_attempt.lock().unwrap_or_else(PoisonError::into_inner);
                let header = if partial.attempt_index == *shown {
                    String::new()
                } else {
                    format!("attempt {}:\n", partial.attempt_index)
                };
                *shown = partial.attempt_index;
                let pointer = if partial.pointer.is_root() {
                    "#"
                } else {
                    partial.pointer.as_str()
                };
                let mark = if partial.certain_violations > 0 {
                    "  (invalid)"
                } else {
                    ""
                };
                format!("{header}{pointer} {}{mark}", partial.value)
            }
        };
        outln!("{line}");
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.attempts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record.summary());
        self.early_stops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record.early_stop().cloned());
        self.accounts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record.schema_account.clone());
        self.diagnostics
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(Diagnostic::of_record(record));
    }
}

fn usage_json(usage: &Usage) -> Value {
    json!({
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    })
}

fn diagnostics_json(diagnostics: &[Diagnostic]) -> Value {
    Value::Array(
        diagnostics
            .iter()
            .map(|d| json!({"event_name": d.event_name, "attributes": Value::Object(d.attributes.clone())}))
            .collect(),
    )
}

/// An attempt's early stop as `--json` prints it: `{pointer, keyword, bytes, deltas}`.
fn early_stop_json(stop: &EarlyStop) -> Value {
    json!({"pointer": stop.pointer.as_str(), "keyword": stop.keyword(), "bytes": stop.bytes, "deltas": stop.deltas})
}

/// Each attempt stopped early, one line each in the text summary.
fn print_early_stops(attempts: &[AttemptSummary], early_stops: &[Option<EarlyStop>]) {
    for (attempt, stop) in attempts.iter().zip(early_stops) {
        if let Some(stop) = stop {
            outln!(
                "early_stop: attempt {} at {} ({}) after {} bytes, {} deltas",
                attempt.attempt_index,
                stop.pointer.to_fragment(),
                stop.keyword(),
                stop.bytes,
                stop.deltas
            );
        }
    }
}

/// Each attempt as `--json` prints it: its usage (null when no response was read), path, marker, outcome and early
/// stop.
fn attempts_json(attempts: &[AttemptSummary], early_stops: &[Option<EarlyStop>]) -> Value {
    Value::Array(
        attempts
            .iter()
            .enumerate()
            .map(|(at, attempt)| {
                let (outcome, category, class) = match attempt.outcome {
                    AttemptOutcome::Ok => ("ok", None, None),
                    AttemptOutcome::Failed {
                        category,
                        failure_class,
                    } => (
                        "failed",
                        Some(category.as_str()),
                        failure_class.map(FailureClass::as_str),
                    ),
                };
                json!({
                    "attempt_index": attempt.attempt_index,
                    "retry_reason": attempt.retry_reason.map(|reason| reason.as_str()),
                    "sent": attempt.sent,
                    "structured_output_path": attempt.structured_output_path.map(|p| p.as_str()),
                    "schema_mode": attempt.schema_mode.map(|m| m.as_str()),
                    "usage": attempt.usage.as_ref().map(usage_json),
                    "outcome": outcome,
                    "category": category,
                    "failure_class": class,
                    "early_stop": early_stops.get(at).and_then(Option::as_ref).map(early_stop_json),
                })
            })
            .collect(),
    )
}

/// The one JSON object `--json` prints; its field names are an interface. `usage` is the spec's terminal figure
/// (the answering or last attempt's), `usage_total` the call's over every attempt, `attempts` each attempt.
fn to_json(
    outcome: &Result<Response, ProviderError>,
    attempts: &[AttemptSummary],
    early_stops: &[Option<EarlyStop>],
    diagnostics: &[Diagnostic],
    account: Option<&SchemaAccount>,
) -> Value {
    let usage_total = usage_json(&Usage::total_of(attempts));
    let mut report = match outcome {
        Ok(response) => json!({
            "ok": true,
            "content": response.message.text(),
            "tool_calls": response.message.tool_calls,
            "parsed": response.parsed,
            "finish_reason": response.finish_reason.as_str(),
            "usage": usage_json(&response.usage),
            "structured_output_path": response.structured_output_path.map(|p| p.as_str()),
            "schema_mode": response.schema_mode.map(|m| m.as_str()),
            "schema_version": response.schema_version,
            "usage_total": usage_total,
            "attempts": attempts_json(attempts, early_stops),
            "blocked": response.blocked.as_ref().map(blocked_json),
            "error": null,
            "diagnostics": diagnostics_json(diagnostics),
        }),
        Err(error) => {
            let failure = error.structured_output();
            json!({
                "ok": false,
                "content": failure.map(|f| f.output_content.clone()),
                "tool_calls": null,
                "parsed": null,
                "finish_reason": failure.map(|f| f.finish_reason.as_str()),
                "usage": failure.map(|f| usage_json(&f.usage)),
                "structured_output_path": error.structured_output_path().map(|p| p.as_str()),
                "schema_mode": error.schema_mode().map(|m| m.as_str()),
                "schema_version": error.schema_version(),
                "usage_total": usage_total,
                "attempts": attempts_json(attempts, early_stops),
                "blocked": failure.and_then(|f| f.blocked.as_ref()).map(blocked_json),
                "error": {
                    "category": error.category().as_str(),
                    "failure_class": error.failure_class().map(FailureClass::as_str),
                    "error_message": failure.map_or_else(|| error.to_string(), |f| f.error_message.clone()),
                    "output_content": failure.map(|f| f.output_content.clone()),
                },
                "diagnostics": diagnostics_json(diagnostics),
            })
        }
    };
    // Issue 36: what was sent and the clauses the provider was not asked to enforce (an empty list without a schema).
    if let Value::Object(fields) = &mut report {
        fields.insert(
            "schema_sent".to_owned(),
            json!(account.map(|account| account.form.as_str())),
        );
        fields.insert(
            "fallback".to_owned(),
            json!(account.and_then(|account| account.fallback)),
        );
        fields.insert(
            "unenforced".to_owned(),
            json!(account.map_or(&[][..], |account| account.unenforced.as_slice())),
        );
    }
    report
}

/// The most account entries the text summary lists one per line.
const SHOWN_UNENFORCED: usize = 20;

/// The account in the text summary: how the schema went, and each clause the provider was not asked to enforce.
fn print_account(account: Option<&SchemaAccount>) {
    let Some(account) = account else { return };
    let fallback = account
        .fallback
        .map(|fallback| match fallback {
            Fallback::Rejected => " (fell back: the provider rejected the schema)",
            Fallback::Unfittable => " (fell back: the schema cannot be fitted to the native path)",
            _ => " (fell back)",
        })
        .unwrap_or_default();
    outln!("schema_sent: {}{fallback}", account.form.as_str());
    outln!("unenforced: {}", account.unenforced.len());
    for clause in account.unenforced.iter().take(SHOWN_UNENFORCED) {
        outln!("  {clause}");
    }
    if account.unenforced.len() > SHOWN_UNENFORCED {
        outln!(
            "  ... and {} more (--json lists them all)",
            account.unenforced.len() - SHOWN_UNENFORCED
        );
    }
}

/// A provider's block as `--json` prints it: `{"stage": "prompt"|"answer", "reason": CODE}`.
fn blocked_json(blocked: &Blocked) -> Value {
    let stage = match blocked {
        Blocked::Prompt(_) => "prompt",
        Blocked::Answer(_) => "answer",
    };
    json!({"stage": stage, "reason": blocked.reason()})
}

fn print_summary(
    outcome: &Result<Response, ProviderError>,
    attempts: &[AttemptSummary],
    diagnostics: &[Diagnostic],
    streamed: bool,
) {
    for diagnostic in diagnostics {
        let attributes = Value::Object(diagnostic.attributes.clone());
        eprintln!("warning: {} {attributes}", diagnostic.event_name);
    }
    let or_none = |value: Option<&str>| value.unwrap_or("-").to_owned();
    match outcome {
        Ok(response) => {
            match &response.parsed {
                Some(parsed) => outln!(
                    "parsed: {}",
                    serde_json::to_string_pretty(parsed).unwrap_or_else(|_| parsed.to_string())
                ),
                None if !streamed => outln!("content: {}", response.message.text().unwrap_or_default()),
                None => {}
            }
            for call in response.message.tool_calls.iter().flatten() {
                outln!("tool_call: {} {} {}", call.id, call.name, call.arguments);
            }
            outln!("finish_reason: {}", response.finish_reason.as_str());
            if let Some(blocked) = &response.blocked {
                outln!("blocked: {}", blocked_line(blocked));
            }
            outln!("usage: {}", usage_summary(&response.usage, attempts));
            outln!(
                "structured_output_path: {}",
                or_none(response.structured_output_path.map(|p| p.as_str()))
            );
            outln!(
                "schema_mode: {}",
                or_none(response.schema_mode.map(|m| m.as_str()))
            );
            outln!("schema_version: {}", or_none(response.schema_version.as_deref()));
            outln!("attempts: {}", attempts.len());
        }
        Err(error) => {
            outln!("error: {}", error.category().as_str());
            match error.structured_output() {
                Some(failure) => {
                    if failure.finish_reason == FinishReason::ContentFilter {
                        outln!("refusal: {}", refusal_line(failure));
                    } else {
                        outln!("output_content: {}", failure.output_content);
                    }
                    outln!("finish_reason: {}", failure.finish_reason.as_str());
                    outln!("failure_class: {}", failure.failure_class().as_str());
                    if let Some(hint) = hint_for(failure) {
                        outln!("hint: {hint}");
                    }
                    outln!("usage: {}", usage_summary(&failure.usage, attempts));
                    outln!("error_message:");
                    for line in failure.error_message.lines() {
                        outln!("  {line}");
                    }
                }
                None => {
                    outln!("message: {error}");
                    if let Some(class) = error.failure_class() {
                        outln!("failure_class: {}", class.as_str());
                    }
                    if let Some(hint) = status_hint(error) {
                        outln!("hint: {hint}");
                    }
                }
            }
            outln!(
                "structured_output_path: {}",
                or_none(error.structured_output_path().map(|p| p.as_str()))
            );
            if error.schema_version().is_some() {
                outln!(
                    "schema_mode: {}",
                    or_none(error.schema_mode().map(|m| m.as_str()))
                );
                outln!("schema_version: {}", or_none(error.schema_version()));
            }
            outln!("attempts: {}", attempts.len());
        }
    }
}

/// One line of advice for an error the provider answered with a status that has a known remedy.
fn status_hint(error: &ProviderError) -> Option<String> {
    if error.is_rate_limit() {
        let wait = error.retry_after().map_or_else(
            || "it sent no Retry-After".to_owned(),
            |wait| format!("Retry-After: {} s", wait.as_secs()),
        );
        return Some(format!(
            "the server is rate limiting ({wait}); --max-attempts N retries, waiting as it asks (up to 60 s)"
        ));
    }
    if error.is_timeout() {
        return Some("--timeout SECS and --connect-timeout SECS set how long to wait".to_owned());
    }
    None
}

/// One line of advice for the failures that have a known cause.
fn hint_for(failure: &StructuredOutputFailure) -> Option<&'static str> {
    if failure.differs_only_in_case() {
        return Some(
            "the answer differs from the schema only in the capitalization of enum or const values, which a native \
             path does not guarantee (Anthropic documents it); it is reported as it came, never re-cased",
        );
    }
    match failure.failure_class() {
        FailureClass::FencedJson => Some(
            "the answer is JSON inside a Markdown code fence; a route that enforces the schema never fences it \
             (check `oa probe`), and a reask (--reask) usually gets it bare",
        ),
        FailureClass::NotJson => Some("the answer is not JSON at all (prose, or cut off by max_tokens)"),
        FailureClass::Refusal => Some(
            "the model or the provider's filter declined to answer (finish_reason content_filter), which is no \
             formatting problem: rephrase the request, or check it against the provider's content policy",
        ),
        _ => None,
    }
}

/// The terminal attempt's usage, and after more than one attempt what the whole call cost:
/// `prompt 160, completion 5, total 165 (this attempt); total over 2 attempts: prompt 267, ...`.
fn usage_summary(usage: &Usage, attempts: &[AttemptSummary]) -> String {
    if attempts.len() < 2 {
        return usage_line(usage);
    }
    format!(
        "{} (this attempt); total over {} attempts: {}",
        usage_line(usage),
        attempts.len(),
        usage_line(&Usage::total_of(attempts))
    )
}

/// What a refusal said: its text, or "no text", with the reason a provider gave for blocking it.
fn refusal_line(failure: &StructuredOutputFailure) -> String {
    let text = if failure.output_content.trim().is_empty() {
        "no text".to_owned()
    } else {
        failure.output_content.clone()
    };
    match &failure.blocked {
        Some(blocked) => format!("{}; {text}", blocked_line(blocked)),
        None => format!("the model refused to answer: {text}"),
    }
}

/// A provider's block in words, naming its reason code.
fn blocked_line(blocked: &Blocked) -> String {
    match blocked {
        Blocked::Prompt(reason) => format!("the provider blocked the prompt (block reason {reason})"),
        Blocked::Answer(reason) => {
            format!("the provider's filter stopped the answer (finish reason {reason})")
        }
    }
}

fn usage_line(usage: &Usage) -> String {
    let count = |n: Option<u64>| n.map_or_else(|| "-".to_owned(), |n| n.to_string());
    format!(
        "prompt {}, completion {}, total {}",
        count(usage.prompt_tokens),
        count(usage.completion_tokens),
        count(usage.total_tokens)
    )
}
