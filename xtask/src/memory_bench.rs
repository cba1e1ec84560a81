//! `cargo xtask memory-bench`: peak memory of `oa validate` (release build, under `/usr/bin/time -v`) on one
//! large instance through every route the command can take, and on large `--batch` files at one and two jobs, each
//! run with the machine's load average beside it (issue 38: "validate any size in bounded memory").
//!
//! ```text
//! cargo xtask memory-bench [--instance-mib N] [--batch-mib N]... [--runs N] [--dir DIR] [--oa PATH]
//! ```
//!
//! Defaults: a 50 MiB instance, 100 MiB and 1,024 MiB batch files, three runs, files under `target/memory-bench`.
//! `--instance-mib 0` or `--batch-mib 0` leaves that part out; `--oa` measures that binary instead of building
//! the release one. The files are generated here (the same bytes every
//! time: `batch_bench`'s records) and deleted when their runs end, whatever the outcome. The batch runs also check
//! the output: the summary's counts, and the lines of `--json` output that say `"valid":false`, must equal the
//! invalid lines written; a mismatch fails the task after every run.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::batch_bench::{SCHEMA, record, release_oa};

/// The record written as the instance's one invalid row (the rest are valid).
const BROKEN_ROW: usize = 1_000;

/// Runs the measurement.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let options = Options::parse(root, args)?;
    let oa = match &options.oa {
        Some(oa) => oa.clone(),
        None => release_oa(root)?,
    };
    std::fs::create_dir_all(&options.dir).map_err(|e| format!("{}: {e}", options.dir.display()))?;
    let mut failures = Vec::new();
    if options.instance_mib > 0 {
        instance_runs(&oa, &options, &mut failures)?;
    }
    for &mib in &options.batch_mib {
        let input = options.dir.join(format!("lines-{mib}mib.jsonl"));
        let result = batch_runs(&oa, &options, mib, &input, &mut failures);
        remove(&input);
        result?;
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

struct Options {
    instance_mib: u64,
    batch_mib: Vec<u64>,
    runs: usize,
    dir: PathBuf,
    /// A built `oa` to measure instead of building the release one (`--oa PATH`).
    oa: Option<PathBuf>,
}

impl Options {
    fn parse(root: &Path, args: &[String]) -> Result<Self, String> {
        const USAGE: &str = "usage: cargo xtask memory-bench [--instance-mib N] [--batch-mib N]... [--runs N] [--dir DIR] [--oa PATH]";
        let mut options = Options {
            instance_mib: 50,
            batch_mib: Vec::new(),
            runs: 3,
            dir: root.join("target").join("memory-bench"),
            oa: None,
        };
        let mut batch_given = false;
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            let value = rest.next().ok_or(USAGE)?;
            let count = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("{flag}: not a count: {value}"))
            };
            match flag.as_str() {
                "--instance-mib" => options.instance_mib = count()?,
                "--batch-mib" => {
                    batch_given = true;
                    let mib = count()?;
                    if mib > 0 {
                        options.batch_mib.push(mib);
                    }
                }
                "--runs" => options.runs = usize::try_from(count()?).map_err(|e| e.to_string())?.max(1),
                "--dir" => options.dir = PathBuf::from(value),
                "--oa" => options.oa = Some(PathBuf::from(value)),
                _ => return Err(USAGE.to_owned()),
            }
        }
        if !batch_given {
            options.batch_mib = vec![100, 1_024];
        }
        Ok(options)
    }
}

/// The instance's schema: an object whose `rows` are `batch_bench`'s records.
fn instance_schema() -> String {
    format!(
        r#"{{"type": "object", "required": ["rows"], "additionalProperties": false,
 "properties": {{"rows": {{"type": "array", "items": {SCHEMA}}}}}}}"#
    )
}

/// How an instance differs from the plain one: a repeated member name in its first row, or one row nested deeper
/// than `oa validate` reads (the two inputs its incremental route hands back to the value route).
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Plain,
    RepeatedName,
    Deep,
}

/// Writes `{"rows": [...]}` of at least `bytes` bytes, row [`BROKEN_ROW`] invalid; returns its size.
fn write_instance(path: &Path, bytes: u64, shape: Shape) -> Result<u64, String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let mut piece = String::from("{\"rows\": [\n");
    let mut written = 0_u64;
    let mut i = 0;
    while written + (piece.len() as u64) < bytes {
        if i > 0 {
            piece.push_str(",\n");
        }
        match (shape, i) {
            (Shape::RepeatedName, 0) => piece.push_str(
                r#"{"name": 1, "name": "n0", "age": 3, "email": "u@x", "tags": [], "address": null}"#,
            ),
            (Shape::Deep, 0) => {
                piece.push_str(&"[".repeat(200));
                piece.push_str(&"]".repeat(200));
            }
            _ => record(&mut piece, i, i == BROKEN_ROW),
        }
        i += 1;
        if piece.len() > 1 << 16 {
            written += piece.len() as u64;
            out.write_all(piece.as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            piece.clear();
        }
    }
    piece.push_str("\n]}\n");
    written += piece.len() as u64;
    out.write_all(piece.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(written)
}

/// What one run under `/usr/bin/time -v` gave.
struct Measured {
    peak_kb: u64,
    seconds: f64,
    code: Option<i32>,
    /// Standard error without time's own lines.
    stderr: String,
}

/// Runs `command` under `/usr/bin/time -v`; standard output goes to `sink`, read as it comes.
fn measure(
    oa: &Path,
    args: &[&std::ffi::OsStr],
    stdin: Option<&Path>,
    sink: &mut dyn FnMut(&str),
) -> Result<Measured, String> {
    let mut command = Command::new("/usr/bin/time");
    command
        .arg("-v")
        .arg(oa)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(path) = stdin {
        command.stdin(std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| format!("/usr/bin/time: {e}"))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    // Read stderr on its own thread, so that neither pipe fills while the other is read.
    let stderr = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    for line in stdout.lines() {
        sink(&line.map_err(|e| format!("oa's output: {e}"))?);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let stderr = stderr.join().unwrap_or_default();
    let peak_kb = stderr
        .lines()
        .find_map(|line| line.trim().strip_prefix("Maximum resident set size (kbytes): "))
        .and_then(|kb| kb.trim().parse().ok())
        .ok_or_else(|| format!("no peak RSS from /usr/bin/time:\n{stderr}"))?;
    // time -v's own lines (the exit status, then the table) follow the command's.
    let own: String = stderr
        .lines()
        .take_while(|line| {
            !line.starts_with("\tCommand being timed")
                && !line.starts_with("Command exited with non-zero status")
        })
        .map(|line| format!("{line}\n"))
        .collect();
    Ok(Measured {
        peak_kb,
        seconds,
        code: status.code(),
        stderr: own,
    })
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .next()
        .unwrap_or("?")
        .to_owned()
}

/// The 50 MiB instance through each route `oa validate` can take.
fn instance_runs(oa: &Path, options: &Options, failures: &mut Vec<String>) -> Result<(), String> {
    let schema = options.dir.join("instance-schema.json");
    std::fs::write(&schema, instance_schema()).map_err(|e| format!("{}: {e}", schema.display()))?;
    let bytes = options.instance_mib << 20;
    let routes: [(&str, Shape, &[&str], bool); 9] = [
        ("text", Shape::Plain, &[], false),
        ("--output json", Shape::Plain, &["--output", "json"], false),
        ("standard input", Shape::Plain, &[], true),
        ("--output flag", Shape::Plain, &["--output", "flag"], false),
        ("--output basic", Shape::Plain, &["--output", "basic"], false),
        (
            "--max-violations 10",
            Shape::Plain,
            &["--max-violations", "10"],
            false,
        ),
        ("--discriminate", Shape::Plain, &["--discriminate"], false),
        ("repeated name", Shape::RepeatedName, &[], false),
        ("nesting 200 deep", Shape::Deep, &[], false),
    ];
    let mut current = None;
    let result = (|| {
        for (route, shape, flags, stdin) in routes {
            let instance = options.dir.join(format!("instance-{}.json", shape as u8));
            if current != Some(shape) {
                if let Some(previous) = current {
                    remove(&options.dir.join(format!("instance-{}.json", previous as u8)));
                }
                let size = write_instance(&instance, bytes, shape)?;
                println!("instance ({}): {size} bytes", shape_name(shape));
                current = Some(shape);
            }
            let size = std::fs::metadata(&instance).map_or(1, |m| m.len()).max(1);
            for run in 1..=options.runs {
                let mut args: Vec<&std::ffi::OsStr> = vec!["validate".as_ref(), schema.as_os_str()];
                args.push(if stdin { "-".as_ref() } else { instance.as_os_str() });
                args.extend(flags.iter().map(|flag| std::ffi::OsStr::new(*flag)));
                let mut first = String::new();
                let mut n_lines = 0_usize;
                let measured = measure(oa, &args, stdin.then_some(instance.as_path()), &mut |line| {
                    if n_lines == 0 {
                        first = line.chars().take(110).collect();
                    }
                    n_lines += 1;
                })?;
                println!(
                    "  {route:<22} run {run}: peak RSS {:>7.1} MB ({:.2}x the input), {:.2} s, exit {:?}, load {}; out: {first}{}",
                    measured.peak_kb as f64 * 1024.0 / 1e6,
                    measured.peak_kb as f64 * 1024.0 / size as f64,
                    measured.seconds,
                    measured.code,
                    load_average(),
                    if n_lines > 1 {
                        format!(" (+{} lines)", n_lines - 1)
                    } else {
                        String::new()
                    },
                );
                if !measured.stderr.trim().is_empty() {
                    println!("    stderr: {}", measured.stderr.trim());
                }
                if shape == Shape::Plain && measured.code != Some(1) {
                    failures.push(format!(
                        "instance, {route}: exit {:?}, expected 1 (one invalid row)",
                        measured.code
                    ));
                }
            }
        }
        Ok(())
    })();
    if let Some(shape) = current {
        remove(&options.dir.join(format!("instance-{}.json", shape as u8)));
    }
    remove(&schema);
    result
}

fn shape_name(shape: Shape) -> &'static str {
    match shape {
        Shape::Plain => "one invalid row",
        Shape::RepeatedName => "a repeated member name in row 0",
        Shape::Deep => "row 0 nested 200 deep",
    }
}

/// A JSONL file of at least `mib` MiB of records (every tenth invalid), at one and two jobs.
fn batch_runs(
    oa: &Path,
    options: &Options,
    mib: u64,
    input: &Path,
    failures: &mut Vec<String>,
) -> Result<(), String> {
    let schema = options.dir.join("schema.json");
    std::fs::write(&schema, SCHEMA).map_err(|e| format!("{}: {e}", schema.display()))?;
    let (n_lines, n_invalid, size) = write_lines(input, mib << 20)?;
    println!("batch: {n_lines} lines, {size} bytes, {n_invalid} invalid");
    for run in 1..=options.runs {
        for jobs in [1, 2] {
            let jobs_text = jobs.to_string();
            let args: Vec<&std::ffi::OsStr> = vec![
                "validate".as_ref(),
                schema.as_os_str(),
                "--batch".as_ref(),
                input.as_os_str(),
                "--jobs".as_ref(),
                jobs_text.as_ref(),
                "--json".as_ref(),
            ];
            let (mut printed, mut printed_invalid) = (0_usize, 0_usize);
            let measured = measure(oa, &args, None, &mut |line| {
                printed += 1;
                if line.contains("\"valid\":false") {
                    printed_invalid += 1;
                }
            })?;
            let summary = measured.stderr.trim().to_owned();
            println!(
                "  {mib} MiB jobs {jobs} run {run}: peak RSS {:.1} MB, {:.1} s ({:.0} lines/s), exit {:?}, load {}; {summary}; {printed_invalid} of {printed} printed lines invalid",
                measured.peak_kb as f64 * 1024.0 / 1e6,
                measured.seconds,
                n_lines as f64 / measured.seconds,
                measured.code,
                load_average(),
            );
            let expected = format!("{} valid, {n_invalid} invalid, 0 unreadable", n_lines - n_invalid);
            if summary != expected
                || printed != n_lines
                || printed_invalid != n_invalid
                || measured.code != Some(1)
            {
                failures.push(format!(
                    "{mib} MiB jobs {jobs} run {run}: expected \"{expected}\", {n_lines} lines printed, {n_invalid} invalid, exit 1"
                ));
            }
        }
    }
    remove(&schema);
    Ok(())
}

/// Writes records one per line until `bytes` are written; returns (lines, invalid lines, bytes).
fn write_lines(path: &Path, bytes: u64) -> Result<(usize, usize, u64), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let (mut written, mut n_lines, mut n_invalid) = (0_u64, 0_usize, 0_usize);
    let mut piece = String::new();
    while written < bytes {
        piece.clear();
        for _ in 0..1_000 {
            let broken = n_lines.is_multiple_of(10);
            record(&mut piece, n_lines, broken);
            piece.push('\n');
            n_lines += 1;
            n_invalid += usize::from(broken);
        }
        written += piece.len() as u64;
        out.write_all(piece.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    out.flush().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((n_lines, n_invalid, written))
}

/// Deletes a generated file (a multi-gigabyte file must not outlive its runs).
fn remove(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        eprintln!("memory-bench: cannot delete {}: {e}", path.display());
    }
}
