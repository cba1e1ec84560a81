//! `cargo xtask batch-bench [--lines N]`: lines per second of `oa validate --batch` on a large JSONL file, at one
//! job and at one job per core, three runs each, with the machine's load average beside each run (a wall-clock rate
//! on a shared machine means little without it).
//!
//! The file is generated here, the same bytes every time: LLM-shaped records (strings, a bounded integer, a
//! pattern, an enum array, a nullable object) against a strict schema, one record in ten invalid in two places.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

pub(crate) const SCHEMA: &str = r#"{"type": "object", "additionalProperties": false,
 "required": ["name", "age", "email", "tags", "address"],
 "properties": {
  "name": {"type": "string", "minLength": 1},
  "age": {"type": "integer", "minimum": 0, "maximum": 150},
  "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
  "tags": {"type": "array", "maxItems": 5, "items": {"enum": ["a", "b", "c", "d"]}},
  "address": {"anyOf": [{"type": "null"}, {"type": "object", "additionalProperties": false,
   "required": ["city", "zip"],
   "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}]}}}"#;

/// Runs the benchmark.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let lines = match args {
        [] => 200_000,
        [flag, n] if flag == "--lines" => n.parse().map_err(|_| format!("--lines: not a count: {n}"))?,
        _ => return Err("usage: cargo xtask batch-bench [--lines N]".to_owned()),
    };
    let oa = release_oa(root)?;
    let dir = target_dir(root).join("batch-bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let schema = dir.join("schema.json");
    let input = dir.join("lines.jsonl");
    std::fs::write(&schema, SCHEMA).map_err(|e| format!("{}: {e}", schema.display()))?;
    std::fs::write(&input, records(lines)).map_err(|e| format!("{}: {e}", input.display()))?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    println!(
        "batch-bench: {lines} lines, {} bytes, {cores} cores",
        std::fs::metadata(&input).map_or(0, |m| m.len())
    );
    for run in 1..=3 {
        for jobs in [1, cores] {
            let started = Instant::now();
            let output = Command::new(&oa)
                .arg("validate")
                .arg(&schema)
                .arg("--batch")
                .arg(&input)
                .args(["--jobs", &jobs.to_string(), "--json"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .map_err(|e| format!("{}: {e}", oa.display()))?;
            let seconds = started.elapsed().as_secs_f64();
            let summary = String::from_utf8_lossy(&output.stderr);
            let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
            println!(
                "run {run} jobs {jobs}: {seconds:.2} s, {:.0} lines/s ({}; load average {})",
                lines as f64 / seconds,
                summary.trim(),
                load.split_whitespace().next().unwrap_or("?"),
            );
        }
    }
    Ok(())
}

/// The target directory (`CARGO_TARGET_DIR`, else the workspace's `target`).
fn target_dir(root: &Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into)
}

/// Builds the release `oa` and returns its path.
pub(crate) fn release_oa(root: &Path) -> Result<std::path::PathBuf, String> {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "-p", "oa-cli"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err("cargo build --release -p oa-cli failed".to_owned());
    }
    Ok(target_dir(root).join("release").join("oa"))
}

/// `n` records, one per line; every tenth has a string age and a fifth tag outside the enum.
fn records(n: usize) -> String {
    let mut out = String::with_capacity(n * 120);
    for i in 0..n {
        record(&mut out, i, i % 10 == 0);
        out.push('\n');
    }
    out
}

/// Record `i` (no line end), valid against [`SCHEMA`] unless `broken`: then with a string age and a fifth tag
/// outside the enum (two violations).
pub(crate) fn record(out: &mut String, i: usize, broken: bool) {
    let tags = ["a", "b", "c", "d"];
    let age = if broken {
        "\"old\"".to_owned()
    } else {
        (i % 97).to_string()
    };
    let extra = if broken { ", \"z\"" } else { "" };
    let address = if i.is_multiple_of(3) {
        "null".to_owned()
    } else {
        format!("{{\"city\": \"C{}\", \"zip\": \"{:05}\"}}", i % 50, i % 100_000)
    };
    let _ = write!(
        out,
        "{{\"name\": \"n{i}\", \"age\": {age}, \"email\": \"u{i}@example.org\", \"tags\": [\"{}\", \"{}\"{extra}], \"address\": {address}}}",
        tags[i % 4],
        tags[(i + 1) % 4],
    );
}
