// The modules and the counting allocator that `examples/bench_memory.rs` and `tests/memory.rs` share, included (not
// a module) into both crate roots, because the shared files name one another as `crate::llm`, `crate::tools`, ...
// The paths are relative to this file (as `include!` resolves them).

#[path = "../../benches/compare/llm.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod llm;
#[path = "measure.rs"]
#[allow(
    dead_code,
    reason = "shared by the example and the test, which use different parts of it"
)]
mod measure;
#[path = "../../benches/compare/tools.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod tools;
#[path = "../../benches/compare/workloads.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod workloads;

/// Counts every heap allocation of the process (a shim over the system allocator), so that the child can read
/// exact live and peak heap bytes.
#[global_allocator]
static HEAP: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;
