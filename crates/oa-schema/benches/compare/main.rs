//! Comparative benchmark: oa-schema against jsonschema and boon, same process, same inputs.
//!
//! For every workload (../shared/bench-data read at run time, plus LLM-shaped schemas) it measures compile time,
//! `is_valid` and full error collection for each tool with criterion, then the same row again in a paired pass
//! (oa-schema and jsonschema in interleaved rounds, `paired.rs`), and prints the Markdown table of ratios
//! oa-schema ÷ peer (see `report.rs`, also runnable alone as `cargo run -p oa-schema --example bench_report`). The
//! paired ratio is the ratio of record against jsonschema: the acceptance lines read it.
//!
//! Before measuring, each tool's verdicts are checked on every instance. A tool that cannot compile a schema, or
//! that gets a verdict wrong, is skipped for that row with a loud message, and the skip is recorded in
//! `<criterion dir>/oa-bench-run.json` so that the report lists it; a case of the multi-schema keyword workload is
//! instead dropped for every tool, so that the tools still see the same inputs.
//!
//! Run: `CARGO_TARGET_DIR=... cargo bench -p oa-schema --bench compare` (criterion filters work after `--`; only the
//! workloads a filter can match are loaded and checked, so `-- small-` runs the small-schema set of issue 26 alone).

// The SchemaStore test's loader; the benchmark uses the schemas and documents, not the resources or the retriever.
#[allow(dead_code)]
#[path = "../../tests/schemastore/catalog.rs"]
mod catalog;
mod check;
mod llm;
mod paired;
mod report;
mod schemastore;
mod select;
mod small;
mod tools;
mod workloads;

use check::Plan;
use criterion::{BatchSize, Criterion};
use paired::{Batch, Settings};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tools::{Compiled, Tool};
use workloads::Workload;

/// The paired pass of every row (oa-schema against jsonschema; see `paired.rs`): its ratio is the one the acceptance
/// checks read. Rounds of two batches of about 1 ms, for 1.5 s a row after 0.2 s of calibration.
const PAIRED: Settings = paired::OF_RECORD;

fn main() {
    let criterion_dir = report::criterion_dir();
    let workloads = select::selected(every_workload());
    let plans = check::plan_all(workloads, &criterion_dir);

    // Criterion's windows were 0.3 s + 1.2 s per tool before the paired pass; shortened to pay for it (criterion's
    // medians are kept for the absolute times and as the second estimator of the ratio).
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(700))
        .without_plots()
        .configure_from_args();
    let mut paired_rows = Vec::new();
    for plan in &plans {
        bench_workload(&mut criterion, plan, &mut paired_rows);
    }
    criterion.final_summary();
    write_paired(&criterion_dir, paired_rows);

    match report::render(&criterion_dir) {
        Ok(markdown) => {
            println!("\n{markdown}");
            let path = criterion_dir.join("oa-bench-report.md");
            if let Err(err) = std::fs::write(&path, &markdown) {
                eprintln!("oa-schema benchmark: could not write {}: {err}", path.display());
            }
        }
        Err(err) => eprintln!("oa-schema benchmark: no report: {err}"),
    }
}

/// Every workload of the benchmark, in report order: bench-data's and the LLM-shaped ones, SchemaStore's two
/// (`schemastore`, `small-schemastore`), then the other small-schema ones.
fn every_workload() -> Vec<Workload> {
    let mut workloads = workloads::all();
    workloads.extend(schemastore::workloads());
    workloads.extend(small::all());
    workloads
}

/// Benchmarks one workload: a compile group, then an `is_valid` and an error-collection group per instance set;
/// after each group, the paired pass of oa-schema against jsonschema on the same work (pushed to `paired_rows`).
fn bench_workload(criterion: &mut Criterion, plan: &Plan, paired_rows: &mut Vec<Value>) {
    let workload: &Workload = &plan.workload;
    let format_assertion = workload.format_assertion;

    let mut group = criterion.benchmark_group(format!("{}/compile", workload.name));
    for tool in Tool::ALL {
        if !plan.compiles(tool) {
            continue;
        }
        group.bench_function(tool.name(), |bencher| {
            // boon takes the document by value: the clone happens in the untimed setup. Compiled validators are
            // dropped outside the timed region for every tool.
            bencher.iter_batched(
                || {
                    if tool == Tool::Boon {
                        workload.schemas.clone()
                    } else {
                        Vec::new()
                    }
                },
                |owned| compile_all(tool, workload, owned, format_assertion),
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
    if plan.compiles(Tool::OaSchema) && plan.compiles(Tool::Jsonschema) {
        let compile_batch = |tool: Tool| -> Batch<'_> {
            Box::new(move |iterations| {
                // Each compile timed alone and its validators dropped outside the timed region, as criterion's
                // `PerIteration` does: keeping a batch's validators alive until the clock stops would time a
                // growing heap instead (a clock read costs tens of nanoseconds; a compile row, microseconds).
                let mut took = Duration::ZERO;
                for _ in 0..iterations {
                    let start = Instant::now();
                    let compiled = compile_all(tool, workload, Vec::new(), format_assertion);
                    took += start.elapsed();
                    drop(black_box(compiled));
                }
                took
            })
        };
        pair_row(
            paired_rows,
            &workload.name,
            "compile",
            [compile_batch(Tool::OaSchema), compile_batch(Tool::Jsonschema)],
        );
    }

    for (set_idx, set) in workload.instance_sets.iter().enumerate() {
        let compiled: Vec<(Tool, Vec<Compiled>)> = Tool::ALL
            .into_iter()
            .filter(|tool| plan.compiles(*tool))
            .map(|tool| (tool, compile_all(tool, workload, Vec::new(), format_assertion)))
            .collect();

        for operation in [check::Operation::IsValid, check::Operation::Errors] {
            let operation_name = match operation {
                check::Operation::IsValid => "is_valid",
                check::Operation::Errors => "errors",
            };
            let judge = |validators: &[Compiled]| match operation {
                check::Operation::IsValid => set
                    .instances
                    .iter()
                    .map(|(schema_idx, instance)| {
                        usize::from(validators[*schema_idx].is_valid(black_box(instance)))
                    })
                    .sum::<usize>(),
                check::Operation::Errors => set
                    .instances
                    .iter()
                    .map(|(schema_idx, instance)| validators[*schema_idx].count_errors(black_box(instance)))
                    .sum(),
            };
            let label = format!("{operation_name} {}", set.label);
            let mut group = criterion.benchmark_group(format!("{}/{label}", workload.name));
            for (tool, validators) in &compiled {
                if plan.runs(*tool, set_idx, operation) {
                    group.bench_function(tool.name(), |bencher| bencher.iter(|| judge(validators)));
                }
            }
            group.finish();

            let measured = |tool: Tool| {
                compiled
                    .iter()
                    .find(|(each, _)| *each == tool && plan.runs(tool, set_idx, operation))
                    .map(|(_, validators)| validators)
            };
            if let (Some(oa), Some(js)) = (measured(Tool::OaSchema), measured(Tool::Jsonschema)) {
                let batches = [judge_batch(&judge, oa), judge_batch(&judge, js)];
                pair_row(paired_rows, &workload.name, &label, batches);
            }
        }
    }
}

/// A paired batch of `judge` (every instance of the row, judged by one tool's `validators`).
fn judge_batch<'a>(judge: &'a impl Fn(&[Compiled]) -> usize, validators: &'a [Compiled]) -> Batch<'a> {
    Box::new(move |iterations| {
        let start = Instant::now();
        for _ in 0..iterations {
            black_box(judge(validators));
        }
        start.elapsed()
    })
}

/// The paired pass of one row (unless criterion's filter leaves the row out, or criterion only tests or lists):
/// oa-schema (first batch) against jsonschema (second), recorded as one JSON object for the report.
fn pair_row(paired_rows: &mut Vec<Value>, workload: &str, operation: &str, mut batches: [Batch<'_>; 2]) {
    if !select::runs_paired(workload, operation) {
        return;
    }
    let rounds = paired::measure(&PAIRED.with_env_overrides(), &mut batches);
    let ratio = rounds.ratio(0, 1);
    eprintln!(
        "paired {workload}/{operation}: oa ÷ jsonschema {:.3} (IQR {:.3}–{:.3}, {} rounds of {} and {} iterations)",
        ratio.median, ratio.q1, ratio.q3, ratio.rounds, rounds.iterations[0], rounds.iterations[1]
    );
    paired_rows.push(json!({
        "workload": workload,
        "operation": operation,
        "median": ratio.median,
        "q1": ratio.q1,
        "q3": ratio.q3,
        "rounds": ratio.rounds,
        "oa_ns": rounds.median_ns(0),
        "jsonschema_ns": rounds.median_ns(1),
    }));
}

/// Writes the paired rows to `<criterion_dir>/oa-bench-paired.json` (the report reads it when it is newer than the
/// run's start).
fn write_paired(criterion_dir: &std::path::Path, rows: Vec<Value>) {
    let path = criterion_dir.join(report::PAIRED_FILE);
    if let Err(err) = std::fs::write(&path, json!({ "rows": rows }).to_string()) {
        eprintln!("oa-schema benchmark: could not write {}: {err}", path.display());
    }
}

/// Compiles every schema of the workload with `tool`; `owned` holds boon's clones (empty for the other tools).
/// The plan has already checked that every schema compiles, so a failure here is a broken invariant.
fn compile_all(
    tool: Tool,
    workload: &Workload,
    owned: Vec<serde_json::Value>,
    format_assertion: bool,
) -> Vec<Compiled> {
    let compile_result = if owned.is_empty() {
        workload
            .schemas
            .iter()
            .zip(&workload.drafts)
            .map(|(schema, draft)| tools::compile(tool, schema, *draft, format_assertion))
            .collect()
    } else {
        owned
            .into_iter()
            .zip(&workload.drafts)
            .map(|(schema, draft)| tools::compile_owned(tool, schema, *draft, format_assertion))
            .collect()
    };
    match compile_result {
        Ok(compiled) => compiled,
        Err(err) => panic!(
            "{} stopped compiling {} after the pre-check passed: {err}",
            tool.name(),
            workload.name
        ),
    }
}
