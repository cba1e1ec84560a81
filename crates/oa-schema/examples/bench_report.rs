//! Re-renders the comparative benchmark's report (median ratios oa-schema ÷ jsonschema and ÷ boon, geometric
//! means, skips) from criterion's files on disk, without re-running anything.
//!
//! `CARGO_TARGET_DIR=... cargo run -p oa-schema --example bench_report [criterion-dir]`; the folder defaults to
//! where `cargo bench -p oa-schema` wrote (`$CRITERION_HOME`, `$CARGO_TARGET_DIR/criterion` or `target/criterion`).

#[path = "../benches/compare/report.rs"]
mod report;

fn main() {
    let criterion_dir = std::env::args_os()
        .nth(1)
        .map_or_else(report::criterion_dir, std::path::PathBuf::from);
    match report::render(&criterion_dir) {
        Ok(markdown) => println!("{markdown}"),
        Err(err) => {
            eprintln!("bench_report: {err}");
            std::process::exit(1);
        }
    }
}
