//! Peak memory of the comparative benchmark's operations, against issue 5's bound: nothing takes more than ten
//! times the schema and instance sizes together, apart from the report itself.
//!
//! `CARGO_TARGET_DIR=... cargo run --release -p oa-schema --example bench_memory [-- options]`
//!
//! Options: `--workload PREFIX` (only workloads whose name starts with it; an `llm-` prefix needs no bench-data),
//! `--no-peers` (skip the jsonschema and boon context table), `--repeats N` (calls per measurement, default 3),
//! `--plain-malloc` (leave glibc's malloc settings alone, see below).
//!
//! The workspace forbids `unsafe`, so there is no counting global allocator; memory is read from the kernel instead
//! (Linux only: `/proc/self/status` and `/proc/self/clear_refs`). The parent builds the benchmark's workloads (the
//! same `benches/compare` code, `../shared/bench-data` or `$OA_BENCH_DATA`, a loud panic when absent) and, for every
//! (workload, operation, tool), spawns itself as a child that receives only that row's inputs as JSON on stdin. The
//! child:
//!
//! 1. parses its inputs and keeps them;
//! 2. warms up on the main thread (one compile and one call, then drops them), so that code pages of the binary
//!    and one-time lazy state are resident before anything is measured;
//! 3. measures on a fresh thread, whose stack pages count when touched: it first fills the allocator's free memory
//!    (`fill_free_memory`), so that the measured allocations must take fresh pages, resets the peak (`VmHWM`, by
//!    writing 5 to `clear_refs`) and reads `VmRSS` as the baseline;
//! 4. for `compile`, compiles every schema of the row `repeats` times (dropping each result) and reports
//!    `VmHWM - baseline`; for `is_valid` and `validate`, compiles once and keeps the validators (`held`), fills
//!    the free memory again, resets the peak and calls the operation `repeats` times on every instance of the row,
//!    dropping each report: the extra peak is `held + (VmHWM - VmRSS before the calls)`; compile rows also report
//!    the validator alone, from 16 copies held at once, and call rows note memory the first call left resident;
//! 5. for oa-schema's `validate`, measures the report on its own: the instance with the most violations is
//!    validated 16 times with every report kept, and the growth of `VmRSS` divided by 16 is the report size, which
//!    is subtracted (the issue excludes the report).
//!
//! Unless `--plain-malloc` is given, children run with `GLIBC_TUNABLES=glibc.malloc.trim_threshold=0:
//! glibc.malloc.top_pad=0`, so that glibc gives freed memory at the top of its heaps back at once and `VmRSS`
//! readings follow live allocations instead of the allocator's retention (the peak itself hardly moves: retained
//! memory is what a later allocation would reuse). The limits of the method are in docs/benchmarks.md ("Memory").

#[path = "../benches/compare/llm.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod llm;
#[path = "bench_memory/measure.rs"]
mod measure;
#[path = "../benches/compare/tools.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod tools;
#[path = "../benches/compare/workloads.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod workloads;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return measure::child::run(&args[1..]);
    }
    match measure::parent::Options::parse(&args) {
        Ok(options) => measure::parent::run(&options),
        Err(message) => {
            eprintln!("bench_memory: {message}");
            ExitCode::from(2)
        }
    }
}
