//! Peak memory of the comparative benchmark's operations, against issue 5's bound: nothing takes more than ten
//! times the schema and instance sizes together, apart from the report itself.
//!
//! `CARGO_TARGET_DIR=... cargo run --release -p oa-schema --example bench_memory [-- options]`
//!
//! Options: `--workload PREFIX` (only workloads whose name starts with it; an `llm-` prefix needs no bench-data),
//! `--no-peers` (skip the jsonschema and boon context table), `--repeats N` (rounds of calls, default 3),
//! `--plain-malloc` (leave glibc's malloc settings alone, see below).
//!
//! Memory is counted exactly, in heap bytes: `peak_alloc::PeakAlloc` is this binary's global allocator (a
//! dev-dependency; the library never sees it), a shim over the system allocator that keeps the live and peak byte
//! counts and can reset the peak to the live count. The workspace forbids `unsafe`, which a global allocator needs,
//! so a small, widely used crate does it. Bytes are those Rust asks for (`Layout::size`), not the allocator's
//! rounding or its per-block headers; a `realloc` counts as a new block plus the old one until the copy is done.
//!
//! The parent builds the benchmark's workloads (the same `benches/compare` code, `../shared/bench-data` or
//! `$OA_BENCH_DATA`, a loud panic when absent) and, for every (workload, operation, tool), spawns itself as a
//! child that receives only that row's inputs as JSON on stdin, so that every row starts from a fresh process. The
//! child:
//!
//! 1. parses its inputs and keeps them (they are live before every measurement, so never counted);
//! 2. warms up on the main thread (one compile and one call per instance, then drops them), so that process-wide
//!    one-time state (the bundled meta-schemas and their validator, in `OnceLock`s) is not counted;
//! 3. measures on a fresh thread, so that per-thread state built on first use (regex caches) is counted:
//!    - `compile`: compiles every schema of the row; *held* is the live bytes the validators keep, *peak* the
//!      highest live bytes during the compile above those before it (the validators included), and it checks
//!      that dropping them gives every byte back;
//!    - `is_valid` and `validate`: compiles once and keeps the validators (*held*), then calls the operation on
//!      every instance `repeats` times; per call, *peak* is the highest live bytes above those just before it, and
//!      for oa-schema's `validate` the *report* is the live bytes with the returned report held less those once it
//!      is dropped; what stays live after the first round is reported as state kept across calls;
//! 4. prints the worst call's figures. The bound applies to *counted*: compile's peak, or held + the largest
//!    (call peak - report) of the row.
//!
//! Beside the exact figures, two resident ones from the kernel are kept as a cross-check (Linux,
//! `/proc/self/status` and `/proc/self/smaps`, whole 4 KiB pages): the row's peak RSS above the measuring thread's
//! start (after taking up the allocator's free memory and resetting `VmHWM` through `/proc/self/clear_refs`), and
//! the measuring thread's resident stack. Neither is judged: the stack is bounded by the depth limit, not by the
//! input, and RSS carries the allocator's pages (see docs/benchmarks.md "Memory"). Unless `--plain-malloc` is given,
//! children run with `GLIBC_TUNABLES=glibc.malloc.trim_threshold=0:glibc.malloc.top_pad=0`, so that the RSS column
//! follows live memory rather than glibc's retention (the heap figures do not depend on it).

include!("bench_memory/modules.rs");

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
