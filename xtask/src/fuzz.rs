//! `cargo xtask fuzz --seconds N [TARGET...]`: runs each cargo-fuzz target of `fuzz/` for N seconds on the nightly
//! toolchain, from seeds generated out of `../shared` plus whatever earlier runs added to its corpus, and prints
//! one line per target and a closing `fuzz: T targets, E executions, C crashes`.
//!
//! A target is one line of [`TARGETS`] (beside its `[[bin]]` in fuzz/Cargo.toml and its file in fuzz/fuzz_targets).
//! Each run stops at its first crash or timeout (an input that takes more than [`TIMEOUT_SECONDS`]); libFuzzer
//! keeps that input under `fuzz/artifacts/TARGET/`, and the line says where.

use crate::nightly;
use std::path::{Path, PathBuf};
use std::process::Stdio;

mod seeds;

/// One fuzz target: its name (a `[[bin]]` of fuzz/Cargo.toml), the seeds its corpus starts from, and its libFuzzer
/// dictionary (a file of fuzz/dictionaries/), if any.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) name: &'static str,
    seeds: fn(&seeds::Shared) -> Vec<Vec<u8>>,
    dictionary: Option<&'static str>,
}

impl Target {
    const fn new(
        name: &'static str,
        seeds: fn(&seeds::Shared) -> Vec<Vec<u8>>,
        dictionary: Option<&'static str>,
    ) -> Self {
        Self {
            name,
            seeds,
            dictionary,
        }
    }
}

/// Every fuzz target, in the order they run.
pub(crate) const TARGETS: &[Target] = &[
    Target::new("schema_compile", seeds::schemas, Some("json.dict")),
    Target::new("schema_bundle", seeds::draft_schemas, Some("json.dict")),
    Target::new("schema_validate", seeds::validate_inputs, Some("json.dict")),
    Target::new("ecma_regex", seeds::patterns, Some("ecma_regex.dict")),
    Target::new("parse_json", seeds::json_texts, Some("json.dict")),
    Target::new("pointer", seeds::pointers, Some("pointer.dict")),
    Target::new("sse", seeds::event_streams, Some("sse.dict")),
    Target::new("openai_response", seeds::openai_responses, Some("wire.dict")),
    Target::new(
        "anthropic_response",
        seeds::anthropic_responses,
        Some("wire.dict"),
    ),
    Target::new("gemini_response", seeds::gemini_responses, Some("wire.dict")),
    Target::new("retry_after", seeds::retry_after_values, Some("retry_after.dict")),
    Target::new("fixture_yaml", seeds::fixture_texts, Some("yaml.dict")),
    Target::new("fit", seeds::schemas, Some("json.dict")),
    Target::new("schema_incremental", seeds::incremental_inputs, Some("json.dict")),
];

/// An input that runs longer than this many seconds is a timeout (libFuzzer's `-timeout`).
pub(crate) const TIMEOUT_SECONDS: u32 = 1;

/// libFuzzer's memory ceiling per run, in MiB: an input that needs more is reported as a crash (out of memory).
const RSS_LIMIT_MB: u32 = 2048;

/// The sanitizer the targets are built with. oa's crates forbid `unsafe`, so AddressSanitizer would mostly slow
/// the search; panics, overflow checks and debug assertions (on in fuzz builds) are what the targets trip.
const SANITIZER: &str = "none";

/// The cargo-fuzz release installed when it is missing.
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// What one target's run found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) executions: u64,
    pub(crate) crashes: u64,
    pub(crate) timeouts: u64,
    /// Where libFuzzer kept the crashing or slow input, if it said.
    pub(crate) artifact: Option<String>,
}

impl Outcome {
    /// Reads a libFuzzer log: its final statistics, or its last status line when it died before printing them.
    pub(crate) fn from_log(log: &str) -> Self {
        let mut outcome = Self::default();
        for line in log.lines() {
            if let Some(count) = line.strip_prefix("stat::number_of_executed_units:") {
                outcome.executions = count.trim().parse().unwrap_or(outcome.executions);
            } else if let Some(count) = status_line_executions(line) {
                outcome.executions = outcome.executions.max(count);
            } else if line.contains("ERROR: libFuzzer: timeout") {
                outcome.timeouts += 1;
            } else if line.contains("ERROR: libFuzzer: deadly signal")
                || line.contains("ERROR: libFuzzer: out-of-memory")
                || line.contains("ERROR: libFuzzer: fuzz target exited")
                || line.contains("ERROR: libFuzzer: malloc limit")
            {
                outcome.crashes += 1;
            } else if let Some(path) = line.split("Test unit written to ").nth(1) {
                outcome.artifact = Some(path.trim().to_owned());
            }
        }
        outcome
    }

    /// `fuzz TARGET: E executions, C crashes, T timeouts`, with the kept input when there is one.
    pub(crate) fn line(&self, target: &str) -> String {
        let mut line = format!(
            "fuzz {target}: {} executions, {} crashes, {} timeouts",
            self.executions, self.crashes, self.timeouts
        );
        if let Some(artifact) = &self.artifact {
            line.push_str(&format!(" (input kept at {artifact})"));
        }
        line
    }
}

/// The executions a libFuzzer status line reports (`#4096\tpulse  cov: ...`, `#12345\tDONE ...`).
fn status_line_executions(line: &str) -> Option<u64> {
    let rest = line.strip_prefix('#')?;
    let digits: &str = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    if digits.is_empty() || !rest[digits.len()..].starts_with(['\t', ' ']) {
        return None;
    }
    digits.parse().ok()
}

/// The closing line over every target.
pub(crate) fn closing_line(outcomes: &[Outcome]) -> String {
    format!(
        "fuzz: {} targets, {} executions, {} crashes",
        outcomes.len(),
        outcomes.iter().map(|o| o.executions).sum::<u64>(),
        outcomes.iter().map(|o| o.crashes).sum::<u64>()
    )
}

/// Parsed `fuzz` arguments.
#[derive(Debug)]
pub(crate) struct Args {
    pub(crate) seconds: u32,
    pub(crate) targets: Vec<&'static Target>,
}

/// `--seconds N` (required) and optional target names (default: every target).
pub(crate) fn parse_args(args: &[String]) -> Result<Args, String> {
    let usage = || {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        format!(
            "usage: cargo xtask fuzz --seconds N [TARGET...]\ntargets: {}",
            names.join(" ")
        )
    };
    let mut seconds = None;
    let mut targets = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--seconds" {
            let value = args.next().ok_or_else(usage)?;
            seconds = Some(value.parse::<u32>().ok().filter(|&s| s > 0).ok_or_else(usage)?);
        } else if let Some(target) = TARGETS.iter().find(|t| t.name == arg) {
            targets.push(target);
        } else {
            return Err(format!("unknown argument {arg:?}\n{}", usage()));
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().collect();
    }
    Ok(Args {
        seconds: seconds.ok_or_else(usage)?,
        targets,
    })
}

/// Makes sure cargo-fuzz is installed, installing the pinned release from crates.io when it is missing.
pub(crate) fn ensure_cargo_fuzz() -> Result<(), String> {
    if nightly::answers(&["fuzz", "--version"]) {
        return Ok(());
    }
    println!("\n==> cargo-fuzz is absent: cargo install cargo-fuzz --locked --version {CARGO_FUZZ_VERSION}");
    crate::cargo_install("cargo-fuzz", CARGO_FUZZ_VERSION)?;
    if nightly::answers(&["fuzz", "--version"]) {
        Ok(())
    } else {
        Err(format!(
            "cargo-fuzz {CARGO_FUZZ_VERSION} was installed but `cargo +nightly fuzz` does not answer"
        ))
    }
}

/// Runs the chosen targets; an error when a target crashed or timed out, or could not run.
pub(crate) fn run(root: &Path, args: &Args) -> Result<(), String> {
    let fuzz_dir = root.join("fuzz");
    // The nightly builds live apart from the stable ones.
    let target_dir = crate::target_dir(root).join("fuzz");
    let shared = seeds::Shared::new(&root.join("..").join("shared"))?;
    let build = [
        "fuzz",
        "build",
        "--sanitizer",
        SANITIZER,
        "--target-dir",
        &target_dir.to_string_lossy(),
    ];
    println!("\n==> (in fuzz/) cargo +nightly {}", build.join(" "));
    let status = nightly::cargo()
        .args(build)
        .current_dir(&fuzz_dir)
        .status()
        .map_err(|e| format!("could not run cargo +nightly fuzz: {e}"))?;
    if !status.success() {
        return Err(format!("building the fuzz targets failed ({status})"));
    }
    let logs = target_dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    let mut outcomes = Vec::new();
    for target in &args.targets {
        let seed_dir = fuzz_dir.join("seeds").join(target.name);
        let count = seeds::write(&seed_dir, (target.seeds)(&shared))?;
        let corpus = fuzz_dir.join("corpus").join(target.name);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let log_path = logs.join(format!("{}.log", target.name));
        println!(
            "\n==> fuzz {}: {} s from {count} seeds (libFuzzer's output: {})",
            target.name,
            args.seconds,
            log_path.display()
        );
        let run = Run {
            name: target.name,
            corpora: [corpus, seed_dir],
            dictionary: target
                .dictionary
                .map(|file| fuzz_dir.join("dictionaries").join(file)),
            seconds: args.seconds,
            log: log_path,
        };
        let outcome = run.go(&fuzz_dir, &target_dir)?;
        println!("{}", outcome.line(target.name));
        outcomes.push(outcome);
    }
    println!();
    for (target, outcome) in args.targets.iter().zip(&outcomes) {
        println!("{}", outcome.line(target.name));
    }
    let timeouts: u64 = outcomes.iter().map(|o| o.timeouts).sum();
    println!("fuzz timeouts (inputs over {TIMEOUT_SECONDS} s): {timeouts}");
    println!("{}", closing_line(&outcomes));
    let crashes: u64 = outcomes.iter().map(|o| o.crashes).sum();
    if crashes + timeouts > 0 {
        return Err(format!(
            "fuzzing found {crashes} crashes and {timeouts} timeouts: see the kept inputs above"
        ));
    }
    Ok(())
}

/// One target's run: libFuzzer's output goes to `log`.
struct Run {
    name: &'static str,
    /// The corpus libFuzzer adds to, then the generated seeds.
    corpora: [PathBuf; 2],
    dictionary: Option<PathBuf>,
    seconds: u32,
    log: PathBuf,
}

impl Run {
    fn go(&self, fuzz_dir: &Path, target_dir: &Path) -> Result<Outcome, String> {
        let (name, log_path) = (self.name, &self.log);
        let log = std::fs::File::create(log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
        let log_err = log
            .try_clone()
            .map_err(|e| format!("{}: {e}", log_path.display()))?;
        let mut command = nightly::cargo();
        command
            .current_dir(fuzz_dir)
            .args(["fuzz", "run", "--sanitizer", SANITIZER, "--target-dir"])
            .arg(target_dir)
            .arg(name)
            .args(&self.corpora)
            .arg("--")
            .arg(format!("-max_total_time={}", self.seconds))
            .arg(format!("-timeout={TIMEOUT_SECONDS}"))
            .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
            .arg("-print_final_stats=1");
        if let Some(dictionary) = &self.dictionary {
            command.arg(format!("-dict={}", dictionary.display()));
        }
        let status = command
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .status()
            .map_err(|e| format!("could not run cargo +nightly fuzz run {name}: {e}"))?;
        let text = std::fs::read_to_string(log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
        let mut outcome = Outcome::from_log(&text);
        if !status.success() && outcome.crashes + outcome.timeouts == 0 {
            // Neither a crash nor a timeout that libFuzzer named: count it, and show the end of the log.
            outcome.crashes += 1;
            let tail: Vec<&str> = text.lines().rev().take(20).collect();
            eprintln!("fuzz {name} failed ({status}); the end of its log:");
            for line in tail.iter().rev() {
                eprintln!("  {line}");
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_final_statistics_and_findings() {
        let log = "INFO: Seed: 1\n#2\tINITED cov: 10 ft: 10 corp: 1/1b exec/s: 0 rss: 30Mb\n#4096\tpulse  cov: 12\n\
                   ==12== ERROR: libFuzzer: deadly signal\nartifact_prefix='a/'; Test unit written to a/crash-12ab\n\
                   stat::number_of_executed_units: 5000\n";
        let outcome = Outcome::from_log(log);
        assert_eq!(outcome.executions, 5000);
        assert_eq!(outcome.crashes, 1);
        assert_eq!(outcome.timeouts, 0);
        assert_eq!(outcome.artifact.as_deref(), Some("a/crash-12ab"));
        assert_eq!(
            outcome.line("pointer"),
            "fuzz pointer: 5000 executions, 1 crashes, 0 timeouts (input kept at a/crash-12ab)"
        );
    }

    #[test]
    fn falls_back_to_the_last_status_line_and_counts_timeouts() {
        let log = "#100\tNEW cov: 3\n#2048\tpulse cov: 4\n==1== ERROR: libFuzzer: timeout after 1 seconds\n";
        let outcome = Outcome::from_log(log);
        assert_eq!(
            (outcome.executions, outcome.crashes, outcome.timeouts),
            (2048, 0, 1)
        );
        assert_eq!(status_line_executions("#12x"), None);
        assert_eq!(status_line_executions("###### Recommended dictionary"), None);
    }

    #[test]
    fn closing_line_sums_targets() {
        let outcomes = [
            Outcome {
                executions: 10,
                crashes: 1,
                ..Outcome::default()
            },
            Outcome {
                executions: 5,
                ..Outcome::default()
            },
        ];
        assert_eq!(
            closing_line(&outcomes),
            "fuzz: 2 targets, 15 executions, 1 crashes"
        );
    }

    #[test]
    fn arguments_need_seconds_and_know_the_targets() {
        let args = |list: &[&str]| parse_args(&list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        let all = args(&["--seconds", "10"]).unwrap();
        assert_eq!((all.seconds, all.targets.len()), (10, TARGETS.len()));
        let one = args(&["pointer", "--seconds", "3"]).unwrap();
        assert_eq!(
            one.targets.iter().map(|t| t.name).collect::<Vec<_>>(),
            ["pointer"]
        );
        assert!(args(&["pointer"]).is_err());
        assert!(args(&["--seconds", "0"]).is_err());
        assert!(args(&["--seconds", "5", "nope"]).unwrap_err().contains("nope"));
    }

    #[test]
    fn every_target_is_a_bin_of_the_fuzz_crate() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
        for target in TARGETS {
            assert!(
                manifest.contains(&format!("name = \"{}\"", target.name)),
                "{}",
                target.name
            );
            assert!(
                root.join(format!("fuzz/fuzz_targets/{}.rs", target.name))
                    .is_file()
            );
        }
        assert_eq!(manifest.matches("[[bin]]").count(), TARGETS.len());
    }
}
