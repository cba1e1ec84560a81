//! `cargo xtask miri`: the test suites that finish under Miri (nightly) in a few minutes, checked for undefined
//! behaviour in our code and in the dependencies' `unsafe` it reaches: all of oa-pointer's unit and integration
//! tests, and oa-schema's unit tests outside the regular-expression and `format` modules (the regex engines are
//! far too slow under the interpreter). Doc tests are left out: each is a separate program to interpret.
//!
//! Miri is a rustup component of the nightly toolchain: when it is absent the task asks rustup to add it (with
//! `rust-src`, which Miri builds its standard library from); where rustup's distribution server cannot be reached
//! its absence is said loudly (and fails the task under CI).

use crate::nightly;
use crate::totals::{self, Totals};
use std::path::Path;

/// One Miri run: what it covers, and the arguments after `cargo +nightly miri`.
struct Run {
    what: &'static str,
    args: &'static [&'static str],
}

/// The runs, in order. oa-schema's filter names its unit-test modules that need no regex engine.
const RUNS: &[Run] = &[
    Run {
        what: "oa-pointer (unit and integration tests)",
        args: &["test", "-p", "oa-pointer", "--lib", "--tests"],
    },
    Run {
        what: "oa-schema (unit tests without regex or format)",
        args: &[
            "test",
            "-p",
            "oa-schema",
            "--lib",
            "--",
            "number::",
            "equal::",
            "depth::",
            "violation::",
            "parse::",
            "node::",
            "registry::",
            "dialect::",
            "keywords::",
        ],
    },
];

/// Property tests run this many cases under Miri (instead of proptest's 256): each case is interpreted.
const PROPTEST_CASES: &str = "16";

/// Whether Miri is here; an explanation when it is not.
pub(crate) fn missing() -> Option<String> {
    if !nightly::present() {
        return Some("the nightly toolchain is absent (`rustup toolchain list`): Miri needs it".to_owned());
    }
    if !nightly::answers(&["miri", "--version"]) && !add_components() {
        return Some(
            "Miri is absent from the nightly toolchain (`rustup component add --toolchain nightly miri rust-src` \
             installs it where the rustup distribution server is reachable)"
                .to_owned(),
        );
    }
    None
}

/// The caller's `MIRIFLAGS` and isolation off: proptest reads the working directory and its file of persisted
/// failures, which Miri's isolation refuses.
fn miri_flags() -> String {
    let own = std::env::var("MIRIFLAGS").unwrap_or_default();
    format!("{own} -Zmiri-disable-isolation").trim_start().to_owned()
}

/// Asks rustup for the `miri` and `rust-src` components of the nightly toolchain; whether Miri answers after.
fn add_components() -> bool {
    println!("\n==> Miri is absent: rustup component add --toolchain nightly miri rust-src");
    let added = std::process::Command::new("rustup")
        .args(["component", "add", "--toolchain", "nightly", "miri", "rust-src"])
        .status()
        .is_ok_and(|status| status.success());
    added && nightly::answers(&["miri", "--version"])
}

/// Runs every Miri run, printing `miri WHAT: N passed, M failed, K skipped` for each and a closing `miri:` line.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let mut all = Totals::default();
    let mut lines = Vec::new();
    for run in RUNS {
        let mut command = nightly::cargo();
        command
            .arg("miri")
            .args(run.args)
            .current_dir(root)
            .env("PROPTEST_CASES", PROPTEST_CASES)
            .env("MIRIFLAGS", miri_flags());
        let shown = format!("cargo +nightly miri {}", run.args.join(" "));
        let totals = totals::run_counted(command, &shown)?;
        lines.push(format!("miri {}: {}", run.what, totals.counts()));
        all.add(totals);
    }
    println!();
    for line in &lines {
        println!("{line}");
    }
    println!("miri: {}", all.counts());
    Ok(())
}
