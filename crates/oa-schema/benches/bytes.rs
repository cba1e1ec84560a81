//! Bytes to verdict and bytes to every violation (issue 38), on the same bytes, per row:
//!
//! - `oa-bytes`: the whole-slice entry points, `Validator::is_valid_bytes` / `validate_bytes`;
//! - `oa-incremental`: the incremental route without the value: the verdict by a run that stops at its first
//!   certain violation (`incremental().first_violation_only()`, which keeps that one violation), fed in 64 KiB
//!   chunks; the report by `incremental().without_value()`, fed whole;
//! - `oa-value`: oa's value route, `parse_json` + `is_valid` / `validate`;
//! - `jsonschema`: jsonschema-rs's `serde_json::from_slice` + `is_valid` / `iter_errors`.
//!
//! Rows: bench-data's files as they are (fast, citm, canada, report-demo), SchemaStore's labelled documents (the
//! `compare` bench's `schemastore` and `small-schemastore` loaders), and the LLM-shaped schemas (`llm.rs`, and
//! `small-generated` of `small.rs`), their instances written compactly by serde_json; a set's instances are timed
//! together. Each instance's verdict is checked for every contender first: a schema a tool cannot compile, or an
//! instance any contender misjudges against its label, is dropped for all (and counted in the output).
//!
//! Each row is timed by criterion (absolute times; skipped with `OA_BYTES_PAIRED_ONLY=1`), then in the paired pass
//! of the `compare` bench (`compare/paired.rs`: the contenders in interleaved rounds, the median of the per-round
//! ratios), which prints the table and the geomeans of record. `OA_BYTES_ROWS=TEXT` keeps the rows whose name holds
//! TEXT; `OA_BYTES_CALLS=N` times nothing and runs each contender `N` times for callgrind (see [`counts`]). Reads
//! ../shared/bench-data and ../shared/schemastore at run time.
//!
//! Run: `cargo bench -p oa-schema --bench bytes`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss
)]

// The `compare` bench's loaders and paired timing, reused as they are.
#[allow(dead_code)]
#[path = "../tests/schemastore/catalog.rs"]
mod catalog;
#[allow(dead_code)]
#[path = "compare/llm.rs"]
mod llm;
#[allow(dead_code)]
#[path = "compare/paired.rs"]
mod paired;
#[path = "compare/schemastore.rs"]
mod schemastore;
#[allow(dead_code)]
#[path = "compare/small.rs"]
mod small;
#[allow(dead_code)]
#[path = "compare/tools.rs"]
mod tools;
#[allow(dead_code)]
#[path = "compare/workloads.rs"]
mod workloads;

use criterion::Criterion;
use oa_schema::{IncrementalError, Validator};
use paired::{Batch, Settings};
use serde_json::Value;
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tools::{Compiled, Tool};
use workloads::Workload;

/// bench-data's rows: a schema file with its valid and its invalid instance files, read as they are.
const FILES: &[(&str, &str, &[&str], &[&str])] = &[
    (
        "fast",
        "fast_schema.2020-12.json",
        &["fast_valid.json"],
        &["fast_invalid.json"],
    ),
    (
        "citm",
        "citm_catalog_schema.2020-12.json",
        &["citm_catalog.json"],
        &["citm_catalog_invalid.json"],
    ),
    (
        "canada",
        "geojson.2020-12.json",
        &["canada.json"],
        &["canada_invalid.json"],
    ),
    (
        "report-demo",
        "report-demo.schema.json",
        &[],
        &["report-demo.instance.json"],
    ),
];

/// The verdict's chunks on the incremental route.
const CHUNK: usize = 64 << 10;

/// The paired pass (as the `compare` bench's).
const PAIRED: Settings = paired::OF_RECORD;

/// The contenders, in table order.
const CONTENDERS: [&str; 4] = ["oa-bytes", "oa-incremental", "oa-value", "jsonschema"];

/// One row: instances (each with its schema's validators) that share a label.
struct Row {
    name: String,
    valid: bool,
    /// Per instance: its schema's index in `tools`, and its bytes.
    cases: Vec<(usize, Vec<u8>)>,
    tools: Rc<Tools>,
    dropped: usize,
}

/// The compiled schemas of a workload, by each tool.
struct Tools {
    oa: Vec<Validator>,
    js: Vec<jsonschema::Validator>,
}

// The contenders' answers: a verdict, or a violation count (`usize::MAX`: the text was refused).

fn oa_bytes_verdict(validator: &Validator, bytes: &[u8]) -> bool {
    validator.is_valid_bytes(bytes)
}

fn oa_bytes_report(validator: &Validator, bytes: &[u8]) -> usize {
    count(validator.validate_bytes(bytes))
}

fn oa_incremental_verdict(validator: &Validator, bytes: &[u8]) -> bool {
    let mut run = validator.incremental().first_violation_only();
    for chunk in bytes.chunks(CHUNK) {
        if run.feed(chunk).is_err() || !run.violations().is_empty() {
            return false;
        }
    }
    run.finish().is_ok()
}

fn oa_incremental_report(validator: &Validator, bytes: &[u8]) -> usize {
    let mut run = validator.incremental().without_value();
    if run.feed(bytes).is_err() {
        return usize::MAX;
    }
    count(run.finish())
}

fn count(outcome: Result<(), IncrementalError>) -> usize {
    match outcome {
        Ok(()) => 0,
        Err(IncrementalError::Invalid(report)) => report.len(),
        Err(_) => usize::MAX,
    }
}

fn oa_value_verdict(validator: &Validator, bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| oa_schema::parse_json(text).ok())
        .is_some_and(|value| validator.is_valid(&value))
}

fn oa_value_report(validator: &Validator, bytes: &[u8]) -> usize {
    let Some(value) = std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| oa_schema::parse_json(text).ok())
    else {
        return usize::MAX;
    };
    validator.validate(&value).err().map_or(0, |report| report.len())
}

fn js_verdict(validator: &jsonschema::Validator, bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|value| validator.is_valid(&value))
}

fn js_report(validator: &jsonschema::Validator, bytes: &[u8]) -> usize {
    serde_json::from_slice::<Value>(bytes).map_or(usize::MAX, |value| validator.iter_errors(&value).count())
}

impl Row {
    /// Contender `which`'s answers over the row: the verdicts counted valid, or the violations counted.
    fn answers(&self, which: usize, report: bool) -> usize {
        self.cases
            .iter()
            .map(|(schema, bytes)| {
                let (oa, js) = (&self.tools.oa[*schema], &self.tools.js[*schema]);
                match (which, report) {
                    (0, false) => usize::from(oa_bytes_verdict(oa, bytes)),
                    (1, false) => usize::from(oa_incremental_verdict(oa, bytes)),
                    (2, false) => usize::from(oa_value_verdict(oa, bytes)),
                    (_, false) => usize::from(js_verdict(js, bytes)),
                    (0, true) => oa_bytes_report(oa, bytes),
                    (1, true) => oa_incremental_report(oa, bytes),
                    (2, true) => oa_value_report(oa, bytes),
                    (_, true) => js_report(js, bytes),
                }
            })
            .fold(0, usize::saturating_add)
    }
}

/// Compiles a workload's schemas with both tools and keeps, per set, the instances every contender judges as
/// labelled.
fn rows_of(workload: &Workload) -> Vec<Row> {
    let mut tools = Tools {
        oa: Vec::new(),
        js: Vec::new(),
    };
    // Schema index in the workload -> index among those both tools compile.
    let mut kept = Vec::new();
    for (schema, draft) in workload.schemas.iter().zip(&workload.drafts) {
        let compiled = (
            tools::compile(Tool::OaSchema, schema, *draft, workload.format_assertion),
            tools::compile(Tool::Jsonschema, schema, *draft, workload.format_assertion),
        );
        match compiled {
            (Ok(Compiled::OaSchema(a)), Ok(Compiled::Jsonschema(b))) => {
                kept.push(Some(tools.oa.len()));
                tools.oa.push(a);
                tools.js.push(b);
            }
            _ => kept.push(None),
        }
    }
    let dropped_schemas = kept.iter().filter(|kept| kept.is_none()).count();
    if dropped_schemas > 0 {
        println!(
            "{}: {dropped_schemas} of {} schemas dropped (a tool does not compile them)",
            workload.name,
            workload.schemas.len()
        );
    }
    let tools = Rc::new(tools);
    let mut rows = Vec::new();
    for set in &workload.instance_sets {
        let mut row = Row {
            name: format!("{}/{}", workload.name, set.label),
            valid: set.expect_valid,
            cases: Vec::new(),
            tools: Rc::clone(&tools),
            dropped: 0,
        };
        for (schema, instance) in &set.instances {
            match kept[*schema] {
                Some(index) => row.cases.push((index, serde_json::to_vec(instance).unwrap())),
                None => row.dropped += 1,
            }
        }
        keep_agreeing(&mut row);
        rows.push(row);
    }
    rows
}

/// Drops the instances some contender judges against the row's label (counted in `dropped`).
fn keep_agreeing(row: &mut Row) {
    let before = row.cases.len();
    let (tools, valid) = (&row.tools, row.valid);
    row.cases.retain(|(schema, bytes)| {
        let (oa, js) = (&tools.oa[*schema], &tools.js[*schema]);
        [
            oa_bytes_verdict(oa, bytes),
            oa_incremental_verdict(oa, bytes),
            oa_value_verdict(oa, bytes),
            js_verdict(js, bytes),
        ]
        .iter()
        .all(|verdict| *verdict == valid)
    });
    row.dropped += before - row.cases.len();
}

/// bench-data's rows, from the files as they are.
fn file_rows(filter: &str) -> Vec<Row> {
    let dir = workloads::bench_data_dir();
    let read = |file: &str| {
        std::fs::read(dir.join(file)).unwrap_or_else(|err| {
            panic!(
                "{} is absent ({err}): the benchmark has no data (../shared/bench-data, or OA_BENCH_DATA)",
                dir.join(file).display()
            )
        })
    };
    let mut rows = Vec::new();
    for (name, schema_file, valid, invalid) in FILES {
        if !filter.is_empty()
            && !valid
                .iter()
                .chain(*invalid)
                .any(|file| format!("{name}/{file}").contains(filter))
        {
            continue;
        }
        let schema: Value = serde_json::from_slice(&read(schema_file)).unwrap();
        let tools = Rc::new(Tools {
            oa: vec![Validator::new(&schema).unwrap()],
            js: vec![
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                    .unwrap(),
            ],
        });
        for (files, label) in [(valid, true), (invalid, false)] {
            for file in *files {
                let mut row = Row {
                    name: format!("{name}/{file}"),
                    valid: label,
                    cases: vec![(0, read(file))],
                    tools: Rc::clone(&tools),
                    dropped: 0,
                };
                keep_agreeing(&mut row);
                assert_eq!(row.dropped, 0, "{file}: a contender misjudges it");
                rows.push(row);
            }
        }
    }
    rows
}

/// Every row, filtered by `OA_BYTES_ROWS`.
fn every_row() -> Vec<Row> {
    let filter = std::env::var("OA_BYTES_ROWS").unwrap_or_default();
    let mut rows = file_rows(&filter);
    let mut workloads: Vec<Workload> = Vec::new();
    if filter.is_empty() || filter.contains("schemastore") {
        workloads.extend(schemastore::workloads());
    }
    workloads.extend(llm::all());
    workloads.extend(
        small::all()
            .into_iter()
            .filter(|workload| workload.name == "small-generated"),
    );
    for workload in &workloads {
        if filter.is_empty() || workload.name.contains(&filter) || filter.starts_with(&workload.name) {
            rows.extend(rows_of(workload));
        }
    }
    rows.retain(|row| filter.is_empty() || row.name.contains(&filter));
    rows
}

/// One contender's timed batch over the row.
fn batch<'a>(row: &'a Row, which: usize, report: bool) -> Batch<'a> {
    Box::new(move |iterations| {
        let started = Instant::now();
        for _ in 0..iterations {
            if report {
                black_box(row.answers(which, true));
            } else {
                black_box(row.answers(which, false));
            }
        }
        started.elapsed()
    })
}

fn geomean(values: &[f64]) -> f64 {
    (values.iter().map(|value| value.ln()).sum::<f64>() / values.len() as f64).exp()
}

/// `n` rounds of one contender's answer to one question over the row, for instruction counts (see [`counts`]): one
/// function per contender and question, so that callgrind's inclusive cost of each is that one's.
macro_rules! hot {
    ($($name:ident => $which:expr, $report:expr);*) => {
        $(#[inline(never)]
        fn $name(row: &Row, n: usize) -> usize {
            (0..n)
                .map(|_| black_box(row.answers($which, $report)))
                .fold(0, usize::wrapping_add)
        })*
    };
}

hot!(hot_verdict_oa_bytes => 0, false; hot_verdict_oa_incremental => 1, false; hot_verdict_oa_value => 2, false;
    hot_verdict_jsonschema => 3, false; hot_report_oa_bytes => 0, true; hot_report_oa_incremental => 1, true;
    hot_report_oa_value => 2, true; hot_report_jsonschema => 3, true);

/// With `OA_BYTES_CALLS=N`: no timing; each row's questions asked `N` times of each contender inside its
/// `hot_QUESTION_CONTENDER` function (after one untimed round), for `valgrind --tool=callgrind` and
/// `callgrind_annotate --inclusive=yes`, whose cost of such a function divided by `N` is one round's instructions.
fn counts(rows: &[Row], n: usize) {
    type Hot = fn(&Row, usize) -> usize;
    let verdicts: [Hot; 4] = [
        hot_verdict_oa_bytes,
        hot_verdict_oa_incremental,
        hot_verdict_oa_value,
        hot_verdict_jsonschema,
    ];
    let reports: [Hot; 4] = [
        hot_report_oa_bytes,
        hot_report_oa_incremental,
        hot_report_oa_value,
        hot_report_jsonschema,
    ];
    for row in rows {
        for (which, hot) in verdicts.into_iter().enumerate() {
            black_box(row.answers(which, false));
            black_box(hot(row, n));
        }
        if !row.valid {
            for (which, hot) in reports.into_iter().enumerate() {
                black_box(row.answers(which, true));
                black_box(hot(row, n));
            }
        }
    }
}

fn main() {
    let rows = every_row();
    if let Some(n) = std::env::var("OA_BYTES_CALLS").ok().and_then(|n| n.parse().ok()) {
        counts(&rows, n);
        return;
    }
    let paired_only = std::env::var("OA_BYTES_PAIRED_ONLY").is_ok_and(|value| value == "1");
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .without_plots()
        .configure_from_args();
    // (question, row, bytes, counts, [oa-bytes ÷ js, oa-incremental ÷ js, oa-bytes ÷ oa-value,
    // oa-incremental ÷ oa-value], js ns)
    let mut table = Vec::new();
    for row in &rows {
        let bytes: usize = row.cases.iter().map(|(_, bytes)| bytes.len()).sum();
        println!(
            "{}: {} instances, {bytes} bytes, {} dropped",
            row.name,
            row.cases.len(),
            row.dropped
        );
        if row.cases.is_empty() {
            continue;
        }
        let questions: &[bool] = if row.valid { &[false] } else { &[false, true] };
        for &report in questions {
            let question = if report { "report" } else { "verdict" };
            let counts: Vec<usize> = (0..CONTENDERS.len())
                .map(|which| {
                    if report {
                        row.answers(which, true)
                    } else {
                        row.answers(which, false)
                    }
                })
                .collect();
            if report {
                // oa's three routes give the same report; jsonschema's count is its own.
                assert!(
                    counts[..3].iter().all(|count| *count == counts[0]),
                    "{}: oa's routes count {counts:?}",
                    row.name
                );
            }
            if !paired_only {
                let mut group = criterion.benchmark_group(format!("bytes/{}/{question}", row.name));
                for (which, contender) in CONTENDERS.iter().enumerate() {
                    group.bench_function(*contender, |b| {
                        b.iter(|| {
                            if report {
                                row.answers(which, true)
                            } else {
                                row.answers(which, false)
                            }
                        })
                    });
                }
                group.finish();
            }
            let mut batches: Vec<Batch<'_>> = (0..CONTENDERS.len())
                .map(|which| batch(row, which, report))
                .collect();
            let rounds = paired::measure(&PAIRED.with_env_overrides(), &mut batches);
            let ratios = [
                rounds.ratio(0, 3).median,
                rounds.ratio(1, 3).median,
                rounds.ratio(0, 2).median,
                rounds.ratio(1, 2).median,
            ];
            let spread = rounds.ratio(0, 3);
            println!(
                "  {question}: oa-bytes/js {:.3} [{:.3}-{:.3}, {} rounds], oa-incremental/js {:.3}, oa-bytes/oa-value \
                 {:.3}, oa-incremental/oa-value {:.3}; ns: {:.0} {:.0} {:.0} {:.0}; counts {counts:?}",
                ratios[0],
                spread.q1,
                spread.q3,
                spread.rounds,
                ratios[1],
                ratios[2],
                ratios[3],
                rounds.median_ns(0),
                rounds.median_ns(1),
                rounds.median_ns(2),
                rounds.median_ns(3),
            );
            table.push((
                question,
                row.name.clone(),
                bytes,
                counts,
                ratios,
                rounds.median_ns(3),
            ));
        }
    }
    if !paired_only {
        criterion.final_summary();
    }

    println!(
        "\n| question | row | bytes | oa-bytes ÷ js | oa-incremental ÷ js | oa-bytes ÷ oa-value | oa-incremental ÷ \
         oa-value | js time | counts (oa, js) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (question, name, bytes, counts, ratios, js_ns) in &table {
        let shown = if *question == "report" {
            format!("{}, {}", counts[0], counts[3])
        } else {
            format!("{} valid", counts[0])
        };
        println!(
            "| {question} | {name} | {bytes} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} µs | {shown} |",
            ratios[0],
            ratios[1],
            ratios[2],
            ratios[3],
            js_ns / 1e3
        );
    }
    for question in ["verdict", "report"] {
        let of = |at: usize| {
            let ratios: Vec<f64> = table
                .iter()
                .filter(|row| row.0 == question)
                .map(|row| row.4[at])
                .collect();
            (geomean(&ratios), ratios.len())
        };
        let ((bytes, n), (incremental, _), (over_value, _), (incremental_over_value, _)) =
            (of(0), of(1), of(2), of(3));
        println!(
            "geomean {question} over {n} rows: oa-bytes ÷ jsonschema {bytes:.3}, oa-incremental ÷ jsonschema \
             {incremental:.3}, oa-bytes ÷ oa-value {over_value:.3}, oa-incremental ÷ oa-value \
             {incremental_over_value:.3}"
        );
    }
}
