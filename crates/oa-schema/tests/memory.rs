//! The memory measurement of `examples/bench_memory.rs`, run on one small LLM-shaped workload (`llm-array100`, a
//! 10 KiB instance), so that a change that breaks the method fails here: a reset of the peak that stops working, a
//! reading that comes out as zero, a report that is not told apart, a row that cannot be measured.
//!
//! It does not assert issue 5's ten-times bound: on inputs this small no validator meets it (the compiled validator,
//! the stack and the allocator's pages alone are several times larger; see docs/benchmarks.md "Memory"), and a
//! debug build takes several times the memory of a release build. `cargo run --release -p oa-schema --example
//! bench_memory` judges the bound, and exits non-zero when a row breaks it.
//!
//! It shares the example's code and spawns this very test binary as the child (hence `harness = false`: the child
//! arguments must reach `main`). Linux only, like the measurement (`/proc/self/status`, `/proc/self/clear_refs`).
//! The LLM workloads are built in code, so this test needs no `../shared`. It runs in about a second.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/compare/llm.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod llm;
#[path = "../examples/bench_memory/measure.rs"]
#[allow(
    dead_code,
    reason = "shared with the example, which prints tables this test does not"
)]
mod measure;
#[path = "../benches/compare/tools.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod tools;
#[path = "../benches/compare/workloads.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod workloads;

use measure::Op;
use measure::parent::{Measured, Options};
use std::process::ExitCode;

/// The workload measured: the LLM workload with the most violations in its invalid instance (14), so that the report
/// is large enough to measure well.
const WORKLOAD: &str = "llm-array100";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return measure::child::run(&args[1..]);
    }
    let options = Options::parse(&[
        "--workload".to_owned(),
        WORKLOAD.to_owned(),
        "--no-peers".to_owned(),
    ])
    .expect("the test's options parse");
    let measured = measure::parent::measure_all(&options).expect("the measurement runs");
    let failures = check(&measured);
    if failures.is_empty() {
        println!(
            "memory: {} rows of {WORKLOAD} measured and checked",
            measured.len()
        );
        ExitCode::SUCCESS
    } else {
        for failure in &failures {
            eprintln!("memory: {failure}");
        }
        eprintln!("memory: {} check(s) failed", failures.len());
        ExitCode::FAILURE
    }
}

/// Every check on the measured rows; the messages of those that fail.
fn check(measured: &[Measured]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fail = |message: String| failures.push(message);
    let names: Vec<String> = measured.iter().map(row_name).collect();
    let expected = [
        "compile ",
        "is_valid valid",
        "validate valid",
        "is_valid invalid",
        "validate invalid",
    ];
    if names != expected {
        fail(format!("rows {names:?}, expected {expected:?}"));
    }
    for row in measured {
        let name = row_name(row);
        if let Err(message) = &row.result {
            fail(format!("{name}: not measured: {message}"));
            continue;
        }
        // A compiled validator is never free: a zero means the reading is broken, not that memory is.
        if row.figure("held_kib") == 0 {
            fail(format!("{name}: no memory held by the compiled validator"));
        }
        // The peak of a row includes what it holds.
        if row.figure("extra_kib") < row.figure("held_kib") {
            fail(format!(
                "{name}: extra peak {} KiB below the {} KiB held",
                row.figure("extra_kib"),
                row.figure("held_kib")
            ));
        }
        if row.op == Op::Compile && row.figure("validator_kib") == 0 {
            fail(format!("{name}: the validator alone measured as empty"));
        }
        let expected_violations = match (row.op, row.set_label) {
            (Op::Validate, "invalid") => 14,
            _ => 0,
        };
        if row.figure("n_violations") != expected_violations {
            fail(format!(
                "{name}: {} violations, expected {expected_violations}",
                row.figure("n_violations")
            ));
        }
        if row.op == Op::Validate && row.set_label == "invalid" {
            // The report of 14 violations takes memory; it is what the bound leaves out, and the call held it.
            if row.figure("report_kib") == 0 {
                fail(format!("{name}: the report of 14 violations measured as empty"));
            }
            if row.figure("call_peak_kib") == 0 {
                fail(format!("{name}: a call that built a report measured as free"));
            }
            if row.counted_kib() >= row.figure("extra_kib") {
                fail(format!("{name}: the report was not subtracted"));
            }
        } else if row.figure("report_kib") != 0 {
            fail(format!("{name}: a report measured where there is none"));
        }
    }
    failures
}

/// `op set`, as in the example's table.
fn row_name(row: &Measured) -> String {
    format!("{} {}", row.op.name(), row.set_label)
}
