//! The driver: N structured calls, C at a time, through an `OpenAiProvider` wrapped in an `ObservedProvider` whose
//! bus carries the OpenTelemetry observer of `Telemetry::in_memory()` and a tally, against oa-testkit's chaos
//! server on 127.0.0.1. Every call is judged against what the server chose; memory is read at the start, after a
//! checkpoint, at the end, and every few milliseconds for the peak.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use oa_events::{EventBus, ObservedProvider, Observer};
use oa_observe::{ObserverConfig, Telemetry};
use oa_provider::retry::Backoff;
use oa_provider::{
    ApiKey, CompletionRequest, Message, OpenAiProvider, Provider, ProviderError, Reask, Response, RetryConfig,
};
use oa_testkit::{Chaos, ChaosSettings, Server};
use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::expect::{CallEnd, call_end, differences};
use crate::rss::rss_kib;
use crate::tally::{Counts, Tally, TallyObserver};

/// Attempts per call: the first and three retries.
pub const MAX_ATTEMPTS: u32 = 4;

/// The client's body cap; the chaos's oversized bodies pass it.
const MAX_BODY_BYTES: usize = 64 << 10;

/// The client's SSE line cap; the chaos's oversized lines pass it.
const MAX_SSE_LINE_BYTES: usize = 16 << 10;

/// The key the provider sends; no error, event or span may carry it.
const API_KEY: &str = "sk-soak-0123456789abcdef";

/// The wait between retries, and the cap on a Retry-After: milliseconds, so the soak runs in minutes.
const RETRY_WAIT: Duration = Duration::from_millis(1);
const RETRY_AFTER_CAP: Duration = Duration::from_millis(2);

/// How many mismatches are kept in words for the report.
const KEPT_MISMATCHES: usize = 20;

/// How often memory and the calls in flight are sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// How often (in calls) the bus is drained and the exported spans and log records are taken and checked: often,
/// so what waits in memory stays small beside what the stack itself holds.
const TAKE_EVERY: u64 = 100;

/// How long a drain of the event bus may take.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(120);

/// What a run does.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Structured calls to make.
    pub calls: u64,
    /// Calls in flight at once.
    pub concurrency: usize,
    /// The chaos seed.
    pub seed: u64,
    /// The client's idle timeout; a stall lasts three times it, an attempt at most five times it.
    pub idle_timeout: Duration,
    /// A wait before every reply's first byte (a load test holds calls in flight with it).
    pub hold: Duration,
    /// After this many calls, memory is read: the baseline of the soak's bound.
    pub checkpoint: u64,
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Calls made.
    pub calls: u64,
    /// Calls that returned a value.
    pub ok: u64,
    /// Calls that returned a typed error.
    pub failed: u64,
    /// Calls that did neither within their deadline.
    pub lost: u64,
    /// Calls whose task panicked.
    pub panicked: u64,
    /// Calls (and end-of-run totals) that did not match what the server chose.
    pub mismatches: u64,
    /// The first mismatches, in words.
    pub mismatch_notes: Vec<String>,
    /// Requests the server saw, over all calls.
    pub attempts: u64,
    /// Attempts that must have been stopped early (streamed with early stop, a wrong shape), over all calls.
    pub early_stops: u64,
    /// What the event bus delivered.
    pub events: Counts,
    /// Spans exported.
    pub spans: u64,
    /// Log records exported.
    pub log_records: u64,
    /// Resident memory before the first call, KiB.
    pub rss_start_kib: u64,
    /// After how many calls memory was read for the bound.
    pub checkpoint: u64,
    /// Resident memory after the checkpoint's calls, KiB (`None` when the run was shorter).
    pub rss_checkpoint_kib: Option<u64>,
    /// Resident memory after the last call, KiB.
    pub rss_end_kib: u64,
    /// Resident memory after every `checkpoint` calls, KiB: the curve the bound is a point of.
    pub rss_trace_kib: Vec<u64>,
    /// The highest resident memory sampled, KiB.
    pub rss_peak_kib: u64,
    /// The most calls in flight at once (sampled).
    pub peak_in_flight: usize,
    /// The highest resident memory sampled while that many calls were in flight, KiB.
    pub rss_at_peak_in_flight_kib: u64,
    /// Wall-clock seconds of the calls.
    pub seconds: f64,
}

/// What every call task shares.
struct Shared {
    provider: ObservedProvider,
    chaos: Arc<Chaos>,
    schema: Value,
    retry: RetryConfig,
    seed: u64,
    deadline: Duration,
    in_flight: AtomicUsize,
}

/// How one call ended.
enum Ended {
    Returned {
        ok: bool,
        attempts: u32,
        early_stops: u32,
        mismatch: Option<String>,
    },
    Lost {
        call: u64,
    },
}

/// The memory and concurrency figures the sampler keeps.
#[derive(Default)]
struct Peaks {
    rss_kib: AtomicU64,
    in_flight: AtomicUsize,
    rss_at_peak_in_flight_kib: AtomicU64,
    stop: AtomicBool,
}

/// Runs the soak.
///
/// # Errors
///
/// When the server, the provider or the runtime cannot be set up.
pub async fn run(settings: &Settings) -> Result<Report, String> {
    let idle = settings.idle_timeout;
    let chaos = Chaos::new(
        settings.seed,
        ChaosSettings {
            max_body_bytes: MAX_BODY_BYTES,
            max_sse_line_bytes: MAX_SSE_LINE_BYTES,
            stall: idle * 3,
            hold: settings.hold,
        },
    );
    let server = Server::start_uncaptured(chaos.responder()).map_err(|e| format!("chaos server: {e}"))?;
    let provider = OpenAiProvider::builder("chaos-model")
        .base_url(server.base_url())
        .api_key(ApiKey::new(API_KEY))
        .connect_timeout(Duration::from_secs(10))
        .idle_timeout(idle)
        .total_timeout(idle * 5 + settings.hold)
        .max_body_bytes(MAX_BODY_BYTES)
        .max_sse_line_bytes(MAX_SSE_LINE_BYTES)
        .build()
        .map_err(|e| format!("provider: {e}"))?;
    let telemetry = Telemetry::in_memory();
    let observer = telemetry
        .observer(ObserverConfig::default())
        .enable_metrics(telemetry.meter_provider());
    let tally = Arc::new(Tally::default());
    let observers: Vec<Arc<dyn Observer>> =
        vec![Arc::new(observer), Arc::new(TallyObserver(Arc::clone(&tally)))];
    let bus = EventBus::new(observers);
    let shared = Arc::new(Shared {
        provider: ObservedProvider::new(Arc::new(provider), bus.clone(), "soak"),
        chaos,
        schema: json!({
            "type": "object",
            "properties": {"call": {"type": "integer"}, "attempt": {"type": "integer"}, "note": {"type": "string"}},
            "required": ["call", "attempt", "note"],
            "additionalProperties": false
        }),
        retry: RetryConfig::new(MAX_ATTEMPTS)
            .with_backoff(Backoff::Fixed(RETRY_WAIT))
            .with_retry_after_cap(RETRY_AFTER_CAP)
            .with_reask(Reask::template(
                "That was not right ({error_message}). Answer again as JSON.",
            )),
        seed: settings.seed,
        // Every attempt ends within its total timeout; the retry waits are milliseconds.
        deadline: (idle * 5 + settings.hold + Duration::from_secs(1)) * MAX_ATTEMPTS
            + Duration::from_secs(10),
        in_flight: AtomicUsize::new(0),
    });
    let mut report = Report {
        calls: settings.calls,
        checkpoint: settings.checkpoint,
        rss_start_kib: rss_kib().unwrap_or(0),
        ..Report::default()
    };
    let peaks = Arc::new(Peaks::default());
    let sampler = tokio::spawn(sample(Arc::clone(&shared), Arc::clone(&peaks)));
    let started = Instant::now();
    let mut tasks = JoinSet::new();
    let (mut next, mut done) = (0_u64, 0_u64);
    while done < settings.calls {
        while next < settings.calls && tasks.len() < settings.concurrency.max(1) {
            // The call's diagnostics go to the telemetry's logs through the log bridge, on the call's future.
            tasks.spawn(telemetry.bridging_logs(one_call(Arc::clone(&shared), next)));
            next += 1;
        }
        let Some(joined) = tasks.join_next().await else {
            break;
        };
        done += 1;
        match joined {
            Ok(Ended::Returned {
                ok,
                attempts,
                early_stops,
                mismatch,
            }) => {
                report.early_stops += u64::from(early_stops);
                if ok {
                    report.ok += 1;
                } else {
                    report.failed += 1;
                }
                report.attempts += u64::from(attempts);
                if let Some(note) = mismatch {
                    report.mismatches += 1;
                    if report.mismatch_notes.len() < KEPT_MISMATCHES {
                        report.mismatch_notes.push(note);
                    }
                }
            }
            Ok(Ended::Lost { call }) => {
                report.lost += 1;
                if report.mismatch_notes.len() < KEPT_MISMATCHES {
                    report
                        .mismatch_notes
                        .push(format!("call {call}: lost (no end within {:?})", shared.deadline));
                }
            }
            Err(_) => report.panicked += 1,
        }
        if done % TAKE_EVERY == 0 {
            take_telemetry(&bus, &telemetry, &mut report).await?;
        }
        if done % settings.checkpoint.max(1) == 0 {
            let rss = rss_kib();
            report.rss_trace_kib.extend(rss);
            if done == settings.checkpoint {
                report.rss_checkpoint_kib = rss;
            }
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    take_telemetry(&bus, &telemetry, &mut report).await?;
    report.rss_end_kib = rss_kib().unwrap_or(0);
    peaks.stop.store(true, Ordering::Relaxed);
    let _ = sampler.await;
    report.rss_peak_kib = peaks.rss_kib.load(Ordering::Relaxed).max(report.rss_end_kib);
    report.peak_in_flight = peaks.in_flight.load(Ordering::Relaxed);
    report.rss_at_peak_in_flight_kib = peaks.rss_at_peak_in_flight_kib.load(Ordering::Relaxed);
    report.events = tally.counts();
    check_totals(&mut report);
    drop(server);
    Ok(report)
}

/// Drains the bus and takes what the in-memory telemetry holds, counting it.
async fn take_telemetry(bus: &EventBus, telemetry: &Telemetry, report: &mut Report) -> Result<(), String> {
    bus.drain(DRAIN_TIMEOUT).await.map_err(|e| e.to_string())?;
    let spans = telemetry.take_spans();
    for span in &spans {
        let text = format!("{span:?}");
        if text.contains(API_KEY) {
            report.mismatches += 1;
            report
                .mismatch_notes
                .push(format!("the API key is in span {}", span.name));
        }
    }
    report.spans += spans.len() as u64;
    report.log_records += telemetry.take_log_records().len() as u64;
    Ok(())
}

/// The end-of-run totals must agree: one attempt event and one span per request the server saw, one terminal
/// event per call. (A lost call's events never come, so the totals are checked only when none was lost.)
fn check_totals(report: &mut Report) {
    if report.lost + report.panicked > 0 {
        return;
    }
    let checks = [
        ("attempt events", report.events.attempts, report.attempts),
        ("spans", report.spans, report.attempts),
        ("completion events", report.events.completions, report.ok),
        ("failure events", report.events.failures, report.failed),
        (
            "early-stopped attempts",
            report.events.early_stops,
            report.early_stops,
        ),
    ];
    for (what, got, expected) in checks {
        if got != expected {
            report.mismatches += 1;
            report
                .mismatch_notes
                .push(format!("{what}: {got}, expected {expected}"));
        }
    }
}

/// Samples memory and the calls in flight until told to stop: the highest memory, the most calls in flight, and
/// the highest memory while that many were.
async fn sample(shared: Arc<Shared>, peaks: Arc<Peaks>) {
    while !peaks.stop.load(Ordering::Relaxed) {
        let in_flight = shared.in_flight.load(Ordering::Relaxed);
        if let Some(rss) = rss_kib() {
            peaks.rss_kib.fetch_max(rss, Ordering::Relaxed);
            let peak = peaks.in_flight.load(Ordering::Relaxed);
            if in_flight > peak {
                peaks.in_flight.store(in_flight, Ordering::Relaxed);
                peaks.rss_at_peak_in_flight_kib.store(rss, Ordering::Relaxed);
            } else if in_flight == peak && in_flight > 0 {
                peaks.rss_at_peak_in_flight_kib.fetch_max(rss, Ordering::Relaxed);
            }
        }
        tokio::time::sleep(SAMPLE_EVERY).await;
    }
}

/// Whether call `call` asks for a stream: half the calls, chosen by the seed.
fn streams(seed: u64, call: u64) -> bool {
    (seed ^ call.wrapping_mul(0x9E37_79B9_7F4A_7C15)).count_ones() % 2 == 1
}

/// Whether call `call` asks for a stream with early stop: half the streamed calls, chosen by the seed.
fn stops_early(seed: u64, call: u64) -> bool {
    streams(seed, call) && (seed ^ call.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).count_ones() % 2 == 1
}

/// One call, judged.
async fn one_call(shared: Arc<Shared>, call: u64) -> Ended {
    shared.in_flight.fetch_add(1, Ordering::Relaxed);
    let request = CompletionRequest::new(vec![Message::user(format!(
        "Answer as JSON with your call number. {}",
        Chaos::marker(call)
    ))])
    .with_response_schema(shared.schema.clone())
    .with_retry(shared.retry.clone())
    .with_stream(streams(shared.seed, call))
    .with_early_stop(stops_early(shared.seed, call));
    let outcome = tokio::time::timeout(shared.deadline, shared.provider.complete(&request)).await;
    let served = shared.chaos.finish(call);
    shared.in_flight.fetch_sub(1, Ordering::Relaxed);
    let Ok(result) = outcome else {
        return Ended::Lost { call };
    };
    let expected = call_end(&shared.chaos, call, MAX_ATTEMPTS, stops_early(shared.seed, call));
    Ended::Returned {
        ok: result.is_ok(),
        attempts: served,
        early_stops: expected.early_stops,
        mismatch: judge(&shared, call, served, &expected, &result),
    }
}

/// What is wrong with a call's result, in words, if anything.
fn judge(
    shared: &Shared,
    call: u64,
    served: u32,
    expected: &CallEnd,
    result: &Result<Response, ProviderError>,
) -> Option<String> {
    let mut problems = differences(expected, result);
    if served != expected.attempts {
        problems.push(format!(
            "the server saw {served} requests, expected {}",
            expected.attempts
        ));
    }
    if let Err(error) = result
        && (format!("{error:?}").contains(API_KEY) || error.to_string().contains(API_KEY))
    {
        problems.push("the API key is in the error".to_owned());
    }
    if problems.is_empty() {
        return None;
    }
    Some(format!(
        "call {call} (stream {}, early stop {}, behaviours {:?}): {}",
        streams(shared.seed, call),
        stops_early(shared.seed, call),
        expected.behaviours,
        problems.join("; ")
    ))
}
