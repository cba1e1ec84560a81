//! Comparative benchmark: oa-schema against jsonschema and boon, same process, same inputs.
//!
//! For every workload (../shared/bench-data read at run time, plus LLM-shaped schemas) it measures compile time,
//! `is_valid` and full error collection for each tool, then prints the Markdown table of median ratios
//! oa-schema ÷ peer (see `report.rs`, also runnable alone as `cargo run -p oa-schema --example bench_report`).
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
mod report;
mod schemastore;
mod select;
mod small;
mod tools;
mod workloads;

use check::Plan;
use criterion::{BatchSize, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tools::{Compiled, Tool};
use workloads::Workload;

fn main() {
    let criterion_dir = report::criterion_dir();
    let workloads = select::selected(every_workload());
    let plans = check::plan_all(workloads, &criterion_dir);

    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .without_plots()
        .configure_from_args();
    for plan in &plans {
        bench_workload(&mut criterion, plan);
    }
    criterion.final_summary();

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

/// Benchmarks one workload: a compile group, then an `is_valid` and an error-collection group per instance set.
fn bench_workload(criterion: &mut Criterion, plan: &Plan) {
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

    for (set_idx, set) in workload.instance_sets.iter().enumerate() {
        let compiled: Vec<(Tool, Vec<Compiled>)> = Tool::ALL
            .into_iter()
            .filter(|tool| plan.compiles(*tool))
            .map(|tool| (tool, compile_all(tool, workload, Vec::new(), format_assertion)))
            .collect();

        let mut group = criterion.benchmark_group(format!("{}/is_valid {}", workload.name, set.label));
        for (tool, validators) in &compiled {
            if !plan.runs(*tool, set_idx, check::Operation::IsValid) {
                continue;
            }
            group.bench_function(tool.name(), |bencher| {
                bencher.iter(|| {
                    let mut n_valid = 0usize;
                    for (schema_idx, instance) in &set.instances {
                        n_valid += usize::from(validators[*schema_idx].is_valid(black_box(instance)));
                    }
                    n_valid
                });
            });
        }
        group.finish();

        let mut group = criterion.benchmark_group(format!("{}/errors {}", workload.name, set.label));
        for (tool, validators) in &compiled {
            if !plan.runs(*tool, set_idx, check::Operation::Errors) {
                continue;
            }
            group.bench_function(tool.name(), |bencher| {
                bencher.iter(|| {
                    let mut n_errors = 0usize;
                    for (schema_idx, instance) in &set.instances {
                        n_errors += validators[*schema_idx].count_errors(black_box(instance));
                    }
                    n_errors
                });
            });
        }
        group.finish();
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
