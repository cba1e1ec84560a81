//! One benchmark operation repeated in a loop, for instruction counts (issue 5 asks for them to confirm a change:
//! the machine is shared and wall-clock medians of one row move between runs).
//!
//! ```sh
//! CARGO_TARGET_DIR=... cargo build --release -p oa-schema --example bench_calls
//! valgrind --tool=callgrind --toggle-collect='bench_calls::hot*' \
//!     $CARGO_TARGET_DIR/release/examples/bench_calls TOOL WORKLOAD OP N
//! ```
//!
//! `TOOL` is `oa` (oa-schema) or `js` (jsonschema); `WORKLOAD` a row name of the comparative benchmark
//! (`llm-flat10`, `fhir`, ...); `OP` one of `compile`, `valid`, `invalid` (`is_valid` on that instance set), `errv`,
//! `erri` (full error collection). Callgrind counts only inside `hot*`, so the total divided by `N` is the cost of
//! one iteration, with the inputs' parsing left out; one untimed round (or compile)
//! runs first, so first-use costs (a regex built on first match, the meta-schema compiled once) are left out. The inputs are the benchmark's
//! own (`benches/compare/workloads.rs` and `llm.rs`), read from `../shared/bench-data` or `$OA_BENCH_DATA`.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a developer tool: bad arguments or inputs end the run with a message"
)]

#[path = "../benches/compare/llm.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod llm;
#[path = "../benches/compare/workloads.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod workloads;

use serde_json::Value;
use std::hint::black_box;
use workloads::Workload;

/// A compiled validator of either tool.
enum Compiled {
    Oa(oa_schema::Validator),
    Js(jsonschema::Validator),
}

fn build(tool: &str, schema: &Value, format_assertion: bool) -> Compiled {
    match tool {
        "oa" => Compiled::Oa(
            oa_schema::Validator::options()
                .format_assertion(format_assertion)
                .build(schema)
                .expect("oa-schema compiles the workload"),
        ),
        "js" => Compiled::Js(
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(format_assertion)
                .build(schema)
                .expect("jsonschema compiles the workload"),
        ),
        other => panic!("unknown tool {other:?}: use oa or js"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, tool, name, op, n] = args.as_slice() else {
        panic!("usage: bench_calls oa|js WORKLOAD compile|valid|invalid|errv|erri N");
    };
    let n: usize = n.parse().expect("N is a count");
    let workload = workloads::all()
        .into_iter()
        .find(|workload| &workload.name == name)
        .unwrap_or_else(|| panic!("no workload named {name:?}"));
    let total = if op == "compile" {
        // One untimed compile first: the bundled meta-schemas are compiled once per process.
        drop(build(tool, &workload.schemas[0], workload.format_assertion));
        hot_compile(tool, &workload, n)
    } else {
        let compiled: Vec<Compiled> = workload
            .schemas
            .iter()
            .map(|schema| build(tool, schema, workload.format_assertion))
            .collect();
        // One untimed round first: first-use costs (regex automata built on first match, caches) stay out.
        calls(&compiled, &workload, op, 1);
        hot_calls(&compiled, &workload, op, n)
    };
    println!("{total}");
}

/// `n` compiles of every schema of the workload.
#[inline(never)]
fn hot_compile(tool: &str, workload: &Workload, n: usize) -> usize {
    let mut built = 0;
    for _ in 0..n {
        for schema in &workload.schemas {
            drop(black_box(build(
                tool,
                black_box(schema),
                workload.format_assertion,
            )));
            built += 1;
        }
    }
    built
}

/// `n` rounds of the operation on every instance of the chosen set.
#[inline(never)]
fn hot_calls(compiled: &[Compiled], workload: &Workload, op: &str, n: usize) -> usize {
    calls(compiled, workload, op, n)
}

/// `n` rounds of the operation over every instance of its set.
#[inline(never)]
fn calls(compiled: &[Compiled], workload: &Workload, op: &str, n: usize) -> usize {
    let (label, errors) = match op {
        "valid" => ("valid", false),
        "invalid" => ("invalid", false),
        "errv" => ("valid", true),
        "erri" => ("invalid", true),
        other => panic!("unknown operation {other:?}"),
    };
    let set = workload
        .instance_sets
        .iter()
        .find(|set| set.label == label)
        .unwrap_or_else(|| panic!("{} has no {label} instances", workload.name));
    let mut count = 0;
    for _ in 0..n {
        for (schema_idx, instance) in &set.instances {
            let instance = black_box(instance);
            count += match (&compiled[*schema_idx], errors) {
                (Compiled::Oa(validator), false) => usize::from(validator.is_valid(instance)),
                (Compiled::Js(validator), false) => usize::from(validator.is_valid(instance)),
                (Compiled::Oa(validator), true) => validator.validate(instance).err().map_or(0, |v| v.len()),
                (Compiled::Js(validator), true) => validator.iter_errors(instance).count(),
            };
        }
    }
    count
}
