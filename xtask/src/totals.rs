//! Runs `cargo test` with its output passed through, and sums what every test binary reported.
//!
//! CI reads the run's closing line to see how many tests ran; cargo prints one `test result:` line per binary, so
//! the sum over all of them (plus the JSON Schema suite runner's own `N passed, M failed` line) is printed last.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// Test counts summed over a `cargo test` run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    passed: u64,
    failed: u64,
    skipped: u64,
}

impl Totals {
    /// `N passed, M failed, K skipped`, where skipped counts libtest's ignored cases (our conformance deferrals).
    pub(crate) fn closing_line(&self) -> String {
        format!("tests: {}", self.counts())
    }

    /// `N passed, M failed, K skipped`.
    pub(crate) fn counts(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }

    /// Adds another run's counts.
    pub(crate) fn add(&mut self, other: Self) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }

    /// Adds what one output line reports, if it is a summary line.
    fn add_line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("test result: ") {
            // "ok. 12 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s"
            for part in rest.split(';') {
                let mut words = part.split_whitespace().rev();
                let (Some(label), Some(count)) = (words.next(), words.next()) else {
                    continue;
                };
                let Ok(count) = count.parse::<u64>() else { continue };
                match label {
                    "passed" => self.passed += count,
                    "failed" => self.failed += count,
                    "ignored" => self.skipped += count,
                    _ => {}
                }
            }
        } else if let Some((passed, failed)) = suite_line(line) {
            self.passed += passed;
            self.failed += failed;
        }
    }
}

/// A harness-less runner's own closing line, exactly `N passed, M failed`.
fn suite_line(line: &str) -> Option<(u64, u64)> {
    let (passed, failed) = line.trim().split_once(" passed, ")?;
    let failed = failed.strip_suffix(" failed")?;
    Some((passed.parse().ok()?, failed.parse().ok()?))
}

/// Runs cargo with `args`, passing its stdout through line by line, and returns the summed totals; an error when
/// cargo fails.
pub(crate) fn cargo_test(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<Totals, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command.args(args).current_dir(root).envs(env.iter().copied());
    run_counted(command, &format!("cargo {}", args.join(" ")))
}

/// Runs a test command (`shown` is how it is printed), passing its stdout through line by line, and returns the
/// summed totals; an error when the command fails.
pub(crate) fn run_counted(mut command: Command, shown: &str) -> Result<Totals, String> {
    println!("\n==> {shown}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {shown}: {e}"))?;
    let mut totals = Totals::default();
    if let Some(stdout) = child.stdout.take() {
        let mut out = std::io::stdout().lock();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            totals.add_line(&line);
            let _ = writeln!(out, "{line}");
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("could not wait for {shown}: {e}"))?;
    if status.success() {
        Ok(totals)
    } else {
        println!("{}", totals.closing_line());
        Err(format!("`{shown}` failed ({status})"))
    }
}

#[cfg(test)]
mod tests {
    use super::Totals;

    #[test]
    fn sums_libtest_and_suite_lines() {
        let mut totals = Totals::default();
        for line in [
            "test result: ok. 12 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s",
            "test result: FAILED. 4 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.5s",
            "draft2020-12: 1299 passed, 0 failed, 0 skipped",
            "2224 passed, 0 failed",
            "test something ... ok",
        ] {
            totals.add_line(line);
        }
        assert_eq!(totals.closing_line(), "tests: 2240 passed, 2 failed, 3 skipped");
    }
}
