//! Provider speed against what users would pick instead (issue 24): the bare reqwest + serde_json floor,
//! async-openai, rig, and oa with no observer and with the oa-events and OpenTelemetry observers, over one loopback
//! server with prepared replies, on four workloads at concurrency 1 and 64, in one process and one run; then oa's
//! SSE decoder against eventsource-stream on the same byte streams.
//!
//! Criterion times each call (wall time per call; at concurrency 64, a batch of 64 spawned calls divided by 64),
//! one client after another. After each row's criterion group, the paired pass (`paired.rs`, shared with
//! oa-schema's bench) times every client of the row in interleaved rounds: a round is one batch of each client (a
//! few calls at concurrency 1, one batch of 64 spawned calls at 64), in an order that rotates from round to round,
//! and each round gives each client's ratio to the floor. The median of the round ratios is the ratio of record
//! (the acceptance checks read it); criterion's ratios of medians are printed beside it. A third pass measures the client's CPU time per call (every thread's schedstat run time except the server's)
//! and the peak heap per in-flight call (a counting global allocator). The ratio tables to the floor are printed
//! at the end (see `report.rs`) and written to `<criterion dir>/oa-provider-speed.md`.
//!
//! Before anything is timed, every client makes every call once and its answer is compared with the expected one;
//! a wrong answer is a loud panic, never a skipped row.
//!
//! Run: `CARGO_TARGET_DIR=... cargo bench -p oa-provider --bench speed --features bench-rig` (without the feature the
//! rig rows are left out; criterion filters work after `--`). Instruction counts per call under callgrind:
//! `callgrind.sh` (see `calls.rs`).

mod calls;
mod clients;
#[path = "../../../oa-schema/benches/compare/paired.rs"]
mod paired;
mod report;
mod server;
mod sse;
mod usage;
mod workloads;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use peak_alloc::PeakAlloc;
use serde_json::Value;

use clients::{Answer, Caller, Client};
use server::BenchServer;
use workloads::Workload;

#[global_allocator]
static PEAK: PeakAlloc = PeakAlloc;

/// The two concurrencies of the issue.
const CONCURRENCIES: [usize; 2] = [1, 64];

/// Every caller, by workload and client.
type Callers = BTreeMap<(Workload, Client), Arc<Caller>>;

/// The paired pass of a row (every client of `Client::ALL`, in that order): rounds of batches of about 1 ms (one
/// batch of 64 calls at concurrency 64, however long), for 2.5 s a row after 0.3 s of calibration, at least 9
/// rounds: a stream round at concurrency 64 takes about 5 s (rig's batch alone 3 s), so that row is the only one the
/// minimum decides; with 3 rounds its median moved 0.96–1.43 between runs whose instruction counts had not moved,
/// and 9 rounds cost about 30 s more per run.
const PAIRED: paired::Settings = paired::Settings {
    warm_up: Duration::from_millis(300),
    budget: Duration::from_millis(2500),
    batch: Duration::from_millis(1),
    min_rounds: 9,
    max_rounds: 5_000,
};

/// The paired rounds of every row criterion measured, by (workload, concurrency).
pub(crate) type PairedRows = BTreeMap<(Workload, usize), paired::Rounds>;

fn main() {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("client runtime: {error}"),
    };
    let server = match BenchServer::start(workloads::replies()) {
        Ok(server) => server,
        Err(error) => panic!("loopback server: {error}"),
    };
    let callers = runtime.block_on(prepare(&server));
    // For instruction counts: one caller's calls and nothing else (see `calls.rs`).
    if let Ok(spec) = std::env::var("OA_SPEED_CALLS") {
        if let Err(error) = calls::run(&runtime, &callers, &spec) {
            panic!("{error}");
        }
        return;
    }

    // Criterion's windows were 0.3 s + 1.5 s per client before the paired pass; shortened to pay for it.
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800))
        .without_plots()
        .configure_from_args();
    let started = std::time::SystemTime::now();
    let criterion_dir = report::criterion_dir();
    let mut paired_rows = PairedRows::new();
    for workload in Workload::ALL {
        for concurrency in CONCURRENCIES {
            let mut group = criterion.benchmark_group(format!("{}-c{concurrency}", workload.name()));
            for &client in Client::ALL {
                let caller = &callers[&(workload, client)];
                group.bench_function(client.name(), |bencher| {
                    bencher.iter_custom(|iters| timed(&runtime, caller, concurrency, iters));
                });
            }
            group.finish();
            // Only rows criterion measured in this run (not those its filter left out, nor in `--test` mode).
            let group = format!("{}-c{concurrency}", workload.name());
            if report::median(&criterion_dir, &group, Client::Oa.name(), started).is_some() {
                let rounds = paired_row(&runtime, &callers, workload, concurrency);
                paired_rows.insert((workload, concurrency), rounds);
            }
        }
    }
    // For profiling one criterion row: `OA_SPEED_TIMES_ONLY=1` leaves out the usage pass and the SSE part.
    if std::env::var_os("OA_SPEED_TIMES_ONLY").is_some() {
        criterion.final_summary();
        return;
    }
    let usage = usage::measure(&runtime, &server, &callers, &CONCURRENCIES, &PEAK);
    let sse = sse::bench(&mut criterion, &PEAK);
    criterion.final_summary();

    let markdown = report::render(&criterion_dir, started, &paired_rows, &usage, &sse);
    println!("\n{markdown}");
    let path = criterion_dir.join("oa-provider-speed.md");
    if let Err(error) = std::fs::write(&path, &markdown) {
        eprintln!("oa-provider speed: could not write {}: {error}", path.display());
    }
}

/// The paired pass of one row: every client's batches interleaved (see `paired.rs`); one iteration is one
/// `batch` (one call, or `concurrency` calls spawned at once), timed per iteration (divide by the concurrency for
/// the time per call; the ratios are the same).
fn paired_row(
    runtime: &tokio::runtime::Runtime,
    callers: &Callers,
    workload: Workload,
    concurrency: usize,
) -> paired::Rounds {
    let mut batches: Vec<paired::Batch<'_>> = Client::ALL
        .iter()
        .map(|client| {
            let caller = &callers[&(workload, *client)];
            // The whole batch's time (not per call), so that the calibration sees how long a batch really lasts:
            // at concurrency 64 one iteration (64 calls) already exceeds the target, so a batch is one iteration.
            Box::new(move |iterations| {
                timed(runtime, caller, concurrency, iterations) * u32::try_from(concurrency).unwrap_or(1)
            }) as paired::Batch<'_>
        })
        .collect();
    let rounds = paired::measure(&PAIRED.with_env_overrides(), &mut batches);
    let oa = Client::ALL
        .iter()
        .position(|client| *client == Client::Oa)
        .unwrap_or(0);
    let ratio = rounds.ratio(oa, 0);
    eprintln!(
        "paired {}-c{concurrency}: oa ÷ floor {:.3} (IQR {:.3}–{:.3}, {} rounds, batches of {:?} iterations)",
        workload.name(),
        ratio.median,
        ratio.q1,
        ratio.q3,
        ratio.rounds,
        rounds.iterations
    );
    rounds
}

/// The time per call of `iterations` timed units (see [`batch`]) of one caller, back to back.
fn timed(
    runtime: &tokio::runtime::Runtime,
    caller: &Arc<Caller>,
    concurrency: usize,
    iterations: u64,
) -> Duration {
    runtime.block_on(async {
        let start = Instant::now();
        for _ in 0..iterations {
            batch(caller, concurrency).await;
        }
        start.elapsed() / u32::try_from(concurrency).unwrap_or(1)
    })
}

/// One timed unit: a call at concurrency 1, or `concurrency` calls spawned at once and all awaited.
async fn batch(caller: &Arc<Caller>, concurrency: usize) {
    if concurrency == 1 {
        if let Err(error) = caller.call().await {
            panic!("a call failed after the pre-check passed: {error}");
        }
        return;
    }
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let caller = Arc::clone(caller);
        calls.spawn(async move { caller.call().await });
    }
    while let Some(result) = calls.join_next().await {
        match result {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => panic!("a call failed after the pre-check passed: {error}"),
            Err(error) => panic!("a call panicked: {error}"),
        }
    }
}

/// Prepares every client for every workload and checks each one's answer once; the floor sends oa's exact request
/// bytes, captured from oa's pre-check call.
async fn prepare(server: &BenchServer) -> Callers {
    let mut callers = Callers::new();
    for workload in Workload::ALL {
        let base_url = server.base_url(workload.name());
        let oa = clients::oa_provider(&base_url);
        server.capture_next();
        if let Err(error) = oa.complete(&clients::oa_request(workload)).await {
            panic!("oa's first {} call failed: {error}", workload.name());
        }
        let floor_body: Value = match server.captured().map(|body| serde_json::from_slice(&body)) {
            Some(Ok(body)) => body,
            other => panic!("no request body captured from oa: {other:?}"),
        };
        for &client in Client::ALL {
            let caller = Caller::new(client, workload, &base_url, &floor_body);
            let answer = caller.call().await;
            check(workload, client, answer);
            callers.insert((workload, client), Arc::new(caller));
        }
    }
    callers
}

/// Panics loudly unless `answer` is the workload's expected answer, in the client's form.
fn check(workload: Workload, client: Client, answer: Result<Answer, String>) {
    let content = workload.content();
    let expected = match (workload, client) {
        (Workload::Plain | Workload::Stream, _) => Ok(Answer::Text(content)),
        (Workload::StructuredSmall, Client::AsyncOpenAi | Client::Rig | Client::Oa | Client::OaObserved) => {
            serde_json::from_str(&content).map(Answer::Small)
        }
        (Workload::StructuredLarge, Client::AsyncOpenAi | Client::Rig | Client::Oa | Client::OaObserved) => {
            serde_json::from_str(&content).map(|order| Answer::Large(Box::new(order)))
        }
        _ => serde_json::from_str(&content).map(Answer::Json),
    };
    match (answer, expected) {
        (Ok(answer), Ok(expected)) if answer == expected => {}
        (answer, expected) => panic!(
            "pre-check: {} on {} answered {answer:?}, expected {expected:?}",
            client.name(),
            workload.name()
        ),
    }
}
