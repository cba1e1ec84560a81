//! The second pass: CPU time per call (the run time of every thread of the process but the server's, from
//! `/proc/self/task/*/schedstat`, in nanoseconds) and peak heap bytes per in-flight call (the counting global
//! allocator's peak above the heap in use before the batch, divided by the concurrency).

use std::collections::BTreeMap;
use std::sync::Arc;

use peak_alloc::PeakAlloc;

use crate::clients::{Caller, Client};
use crate::server::BenchServer;
use crate::workloads::Workload;

/// Per (workload, concurrency, client): CPU nanoseconds per call and peak heap bytes per in-flight call.
pub(crate) type Usage = BTreeMap<(Workload, usize, Client), (f64, f64)>;

/// Calls per CPU measurement at concurrency 1 (a fifth of it for the stream); at 64, batches of 64.
const CALLS: usize = 400;
/// Batches whose peak heap is measured; the median is kept.
const PEAK_BATCHES: usize = 3;

pub(crate) fn measure(
    runtime: &tokio::runtime::Runtime,
    server: &BenchServer,
    callers: &BTreeMap<(Workload, Client), Arc<Caller>>,
    concurrencies: &[usize],
    peak: &PeakAlloc,
) -> Usage {
    let mut usage = Usage::new();
    for (&(workload, client), caller) in callers {
        for &concurrency in concurrencies {
            let calls = if workload == Workload::Stream {
                CALLS / 5
            } else {
                CALLS
            };
            let n_batches = calls.div_ceil(concurrency).max(2);
            let cpu_before = client_cpu_ns(&server.thread_task);
            runtime.block_on(async {
                for _ in 0..n_batches {
                    crate::batch(caller, concurrency).await;
                }
            });
            let cpu = (client_cpu_ns(&server.thread_task) - cpu_before) / (n_batches * concurrency) as f64;
            let mut peaks: Vec<f64> = (0..PEAK_BATCHES)
                .map(|_| {
                    let before = peak.current_usage();
                    peak.reset_peak_usage();
                    runtime.block_on(crate::batch(caller, concurrency));
                    peak.peak_usage().saturating_sub(before) as f64 / concurrency as f64
                })
                .collect();
            peaks.sort_by(f64::total_cmp);
            usage.insert((workload, concurrency, client), (cpu, peaks[PEAK_BATCHES / 2]));
        }
    }
    usage
}

/// Run time of every thread of this process but the server's, in nanoseconds.
fn client_cpu_ns(server_task: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        panic!("/proc/self/task is unreadable: CPU time cannot be measured on this system");
    };
    let total: u64 = tasks
        .flatten()
        .map(|task| run_ns(&task.path().join("schedstat")))
        .sum();
    let server = std::fs::read_link("/proc/self")
        .ok()
        .and_then(|pid| {
            let tid = server_task.rsplit('/').next()?;
            Some(run_ns(
                &std::path::Path::new("/proc")
                    .join(pid)
                    .join("task")
                    .join(tid)
                    .join("schedstat"),
            ))
        })
        .unwrap_or(0);
    total.saturating_sub(server) as f64
}

fn run_ns(path: &std::path::Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
