//! The memory measurement of `examples/bench_memory.rs`, run on one small LLM-shaped workload (`llm-array100`, a
//! 10 KiB instance), so that a change that breaks the method, or one that makes a call allocate where it did not,
//! fails here.
//!
//! The figures are exact heap bytes from a counting global allocator (`peak_alloc`, installed below as in the
//! example), so they are deterministic and the same in debug and release builds: the test asserts them as facts
//! (`is_valid` on a valid instance allocates nothing, as `Validator::is_valid` documents; the report is told apart
//! from the call; no call leaves state behind) and judges issue 5's ten-times bound on the four call rows. The compile
//! row is only checked for consistency: the compiled form of a 532-byte schema is above ten times its text (see
//! docs/benchmarks.md "Memory"), which `cargo run --release -p oa-schema --example bench_memory` reports.
//!
//! It shares the example's code and spawns this very test binary as the child (hence `harness = false`: the child
//! arguments must reach `main`). Linux only, like the resident cross-check (`/proc/self/status`). The LLM workloads
//! are built in code, so this test needs no `../shared`. It runs in about a second.

#![allow(clippy::unwrap_used, clippy::expect_used)]

include!("../examples/bench_memory/modules.rs");

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
    // The same schema compiled the same way holds the same bytes in every row: the figures are exact.
    let held: Vec<u64> = measured.iter().map(|row| row.figure("held_bytes")).collect();
    if held.windows(2).any(|pair| pair[0] != pair[1]) {
        fail(format!("the validator's bytes differ between rows: {held:?}"));
    }
    for row in measured {
        let name = row_name(row);
        if let Err(message) = &row.result {
            fail(format!("{name}: not measured: {message}"));
            continue;
        }
        let figure = |key: &str| row.figure(key);
        // A compiled validator is never free: a zero means the reading is broken, not that memory is.
        if figure("held_bytes") == 0 {
            fail(format!("{name}: no bytes held by the compiled validator"));
        }
        if row.op == Op::Compile {
            // The compile's peak includes the validator it returns; dropping it gives every byte back.
            if figure("peak_bytes") < figure("held_bytes") {
                fail(format!(
                    "{name}: compile peak {} below the {} bytes held",
                    figure("peak_bytes"),
                    figure("held_bytes")
                ));
            }
            if figure("left_bytes") != 0 {
                fail(format!(
                    "{name}: {} bytes stayed live after the validator was dropped",
                    figure("left_bytes")
                ));
            }
            if row.counted_bytes() != figure("peak_bytes") {
                fail(format!(
                    "{name}: compile counts {} bytes, not its peak",
                    row.counted_bytes()
                ));
            }
            continue;
        }
        let invalid_validate = row.op == Op::Validate && row.set_label == "invalid";
        let expected_violations = if invalid_validate { 14 } else { 0 };
        if figure("n_violations") != expected_violations {
            fail(format!(
                "{name}: {} violations, expected {expected_violations}",
                figure("n_violations")
            ));
        }
        // Documented in `Validator::is_valid` (no `unevaluated*` here): a valid instance costs no allocation, nor
        // does a valid `validate` (no report). This workload's patterns are simple anchored ones that need no
        // automaton, so an invalid `is_valid` allocates nothing either.
        if !invalid_validate && figure("peak_bytes") != 0 {
            fail(format!(
                "{name}: the call allocated {} bytes",
                figure("peak_bytes")
            ));
        }
        // No call keeps state alive after it returns (no per-thread cache is built for this workload), except the
        // one message buffer a report leaves to the next run on its thread, which is freed beyond 1 KiB.
        let kept_allowed = if invalid_validate { 1024 } else { 0 };
        if figure("kept_bytes") > kept_allowed {
            fail(format!(
                "{name}: the calls left {} bytes live (at most {kept_allowed} allowed)",
                figure("kept_bytes")
            ));
        }
        if invalid_validate {
            // The report of 14 violations takes memory; it is what the bound leaves out, and the call held it.
            let (peak, report) = (figure("peak_bytes"), figure("report_bytes"));
            if report == 0 {
                fail(format!("{name}: the report of 14 violations measured as empty"));
            }
            if peak < report {
                fail(format!(
                    "{name}: call peak {peak} below its report's {report} bytes"
                ));
            }
            if row.counted_bytes() != figure("held_bytes") + peak - report {
                fail(format!(
                    "{name}: the report was not subtracted from the call's peak"
                ));
            }
        } else if figure("report_bytes") != 0 {
            fail(format!("{name}: a report measured where there is none"));
        }
        // Issue 5's bound, on the calls: the validator held plus the call, report excluded, within ten times the
        // schema and instance bytes.
        if !row.is_within_bound() {
            fail(format!(
                "{name}: {} bytes counted, above ten times the {} input bytes",
                row.counted_bytes(),
                row.input_bytes
            ));
        }
    }
    failures
}

/// `op set`, as in the example's table.
fn row_name(row: &Measured) -> String {
    format!("{} {}", row.op.name(), row.set_label)
}
