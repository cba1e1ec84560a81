//! Bytes to verdict and bytes to every violation, one pass: the incremental route without the value
//! (`Validator::incremental().without_value()`) against jsonschema's `serde_json::from_slice` + `is_valid` /
//! `iter_errors`, and against oa's own value route (`parse_json` + `is_valid` / `validate`) on the same bytes.
//!
//! The verdict is read as a caller streaming the bytes would read it: the text is fed in 64 KiB chunks, and an
//! invalid text is known invalid at the first certain violation (the rest is not fed). The report is the whole
//! text's, fed whole. Each tool's verdict and violation count are checked before timing (a tool that disagrees
//! fails the run). Reads ../shared/bench-data at run time.
//!
//! Run: `cargo bench -p oa-schema --bench bytes` (criterion filters after `--`); each group prints the times of
//! `oa-incremental`, `oa-value` and `jsonschema`, whose ratios docs/benchmarks.md records.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use criterion::Criterion;
use oa_schema::{IncrementalError, Validator};
use serde_json::Value;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

/// The workloads: a schema of bench-data with its valid and invalid instances.
const WORKLOADS: &[(&str, &str, &[&str])] = &[
    (
        "fast",
        "fast_schema.2020-12.json",
        &["fast_valid.json", "fast_invalid.json"],
    ),
    (
        "citm",
        "citm_catalog_schema.2020-12.json",
        &["citm_catalog.json", "citm_catalog_invalid.json"],
    ),
    (
        "canada",
        "geojson.2020-12.json",
        &["canada.json", "canada_invalid.json"],
    ),
    (
        "report-demo",
        "report-demo.schema.json",
        &["report-demo.instance.json"],
    ),
];

const CHUNK: usize = 64 << 10;

fn bench_data() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench-data");
    assert!(
        dir.is_dir(),
        "{} is absent: the benchmark has no data",
        dir.display()
    );
    dir
}

/// The verdict from bytes, stopping at the first certain violation.
fn oa_verdict(validator: &Validator, bytes: &[u8]) -> bool {
    let mut run = validator.incremental().without_value();
    for chunk in bytes.chunks(CHUNK) {
        if run.feed(chunk).is_err() || !run.violations().is_empty() {
            return false;
        }
    }
    run.finish().is_ok()
}

/// Every violation from bytes (their number).
fn oa_report(validator: &Validator, bytes: &[u8]) -> usize {
    let mut run = validator.incremental().without_value();
    if run.feed(bytes).is_err() {
        return usize::MAX;
    }
    match run.finish() {
        Ok(()) => 0,
        Err(IncrementalError::Invalid(report)) => report.len(),
        Err(_) => usize::MAX,
    }
}

fn value_verdict(validator: &Validator, bytes: &[u8]) -> bool {
    let text = std::str::from_utf8(bytes).unwrap();
    oa_schema::parse_json(text).is_ok_and(|value| validator.is_valid(&value))
}

fn value_report(validator: &Validator, bytes: &[u8]) -> usize {
    let text = std::str::from_utf8(bytes).unwrap();
    let value = oa_schema::parse_json(text).unwrap();
    validator.validate(&value).err().map_or(0, |report| report.len())
}

fn js_verdict(validator: &jsonschema::Validator, bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|value| validator.is_valid(&value))
}

fn js_report(validator: &jsonschema::Validator, bytes: &[u8]) -> usize {
    let value: Value = serde_json::from_slice(bytes).unwrap();
    validator.iter_errors(&value).count()
}

fn main() {
    let dir = bench_data();
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .without_plots()
        .configure_from_args();
    for (name, schema_file, instances) in WORKLOADS {
        let schema: Value = serde_json::from_slice(&std::fs::read(dir.join(schema_file)).unwrap()).unwrap();
        let oa = Validator::new(&schema).unwrap();
        let js = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .unwrap();
        for file in *instances {
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let valid = value_verdict(&oa, &bytes);
            assert_eq!(oa_verdict(&oa, &bytes), valid, "{file}: the incremental verdict");
            assert_eq!(js_verdict(&js, &bytes), valid, "{file}: jsonschema's verdict");
            let count = value_report(&oa, &bytes);
            assert_eq!(oa_report(&oa, &bytes), count, "{file}: the incremental report");
            let js_count = js_report(&js, &bytes);
            println!(
                "{name}/{file}: {} bytes, valid {valid}, oa {count} violations, jsonschema {js_count}",
                bytes.len()
            );
            let mut group = criterion.benchmark_group(format!("bytes/{name}/{file}/verdict"));
            group.bench_function("oa-incremental", |b| {
                b.iter(|| oa_verdict(&oa, black_box(&bytes)))
            });
            group.bench_function("oa-value", |b| b.iter(|| value_verdict(&oa, black_box(&bytes))));
            group.bench_function("jsonschema", |b| b.iter(|| js_verdict(&js, black_box(&bytes))));
            group.finish();
            if !valid {
                let mut group = criterion.benchmark_group(format!("bytes/{name}/{file}/report"));
                group.bench_function("oa-incremental", |b| b.iter(|| oa_report(&oa, black_box(&bytes))));
                group.bench_function("oa-value", |b| b.iter(|| value_report(&oa, black_box(&bytes))));
                group.bench_function("jsonschema", |b| b.iter(|| js_report(&js, black_box(&bytes))));
                group.finish();
            }
        }
    }
    criterion.final_summary();
}
