//! `cargo xtask mutants-diff [BASE]`, and a step of `cargo xtask ci`: cargo-mutants on the lines a change touched
//! (`--in-diff` against the previous main), bounded in time, so that a fast path added without a test is caught when
//! it lands rather than at the next whole-crate run.
//!
//! The base: `BASE`, else `$OA_MUTANTS_BASE`, else on a branch other than `main` the commit it forked from
//! (`git merge-base HEAD main`), else on `main` the commit of the last green `cargo xtask ci` on main (recorded in
//! `target/oa-ci/last-green-main`) when it is an ancestor, else `HEAD^`. A missed mutant that no crate's list of
//! equivalent mutants names fails the step. The run stops after `$OA_MUTANTS_BUDGET_SECS` (default 150 s, so that
//! CI stays well under 30 minutes: the rest of a fresh-clone run took 1,484 s on 2026-12-07); the mutants it did not
//! reach are counted, loudly, and do not fail it.
//!
//! To reuse the build CI has just made, cargo-mutants mutates the tree in place when it is clean (and the tree is
//! restored afterwards, whatever happened), with the baseline skipped (CI's own test run is the baseline); a dirty
//! tree is copied instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::mutants::{Outcomes, SCOPES, listed_in_run, unlisted};
use crate::mutants_list;

/// How long the step may run when `$OA_MUTANTS_BUDGET_SECS` does not say.
const DEFAULT_BUDGET: Duration = Duration::from_secs(150);

/// Per mutant: the longest a build and the test run of the mutated package may take.
const BUILD_TIMEOUT_SECS: &str = "600";
const TEST_TIMEOUT_SECS: &str = "300";

/// Where the last green CI run on main records its commit.
pub(crate) fn last_green_file(root: &Path) -> PathBuf {
    crate::target_dir(root).join("oa-ci").join("last-green-main")
}

/// Runs the step, with `env` set for the tests (the llama.cpp peer's address, under `cargo xtask ci`).
pub(crate) fn run(root: &Path, base: Option<&str>, env: &[(&str, &str)]) -> Result<(), String> {
    let base = match base {
        Some(base) => base.to_owned(),
        None => resolve_base(root)?,
    };
    let out = crate::target_dir(root).join("mutants").join("in-diff");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let diff = git(root, &["diff", &format!("{base}..HEAD"), "--", "*.rs"])?;
    if !diff
        .lines()
        .any(|line| line.starts_with("+++ b/crates/") && line.contains("/src/"))
    {
        println!("\n==> mutants on the change since {base}: no source line of a crate changed");
        return Ok(());
    }
    let patch = out.join("diff.patch");
    std::fs::write(&patch, &diff).map_err(|e| format!("{}: {e}", patch.display()))?;
    crate::mutants::ensure_cargo_mutants()?;
    let budget = std::env::var("OA_MUTANTS_BUDGET_SECS")
        .ok()
        .and_then(|secs| secs.parse().ok())
        .map_or(DEFAULT_BUDGET, Duration::from_secs);
    let in_place = git(root, &["status", "--porcelain", "--untracked-files=no"])?
        .trim()
        .is_empty();
    let mut command = Command::new("cargo");
    command
        .env_remove("RUSTUP_TOOLCHAIN")
        // An interrupted run says so in a line, not in a backtrace per worker.
        .env("RUST_BACKTRACE", "0")
        .envs(env.iter().copied())
        .current_dir(root)
        .args(["mutants", "--workspace", "--in-diff"])
        .arg(&patch)
        .args([
            "--baseline=skip",
            "--timeout",
            TEST_TIMEOUT_SECS,
            "--build-timeout",
            BUILD_TIMEOUT_SECS,
        ])
        .args([
            "--exclude",
            "xtask/**",
            "--exclude",
            "**/tests/**",
            "--exclude",
            "**/benches/**",
        ])
        .arg("--output")
        .arg(&out);
    if in_place {
        command.arg("--in-place");
    } else {
        command.arg("--gitignore=true");
    }
    println!(
        "\n==> cargo mutants --workspace --in-diff {} (base {base}, budget {}s{})",
        patch.display(),
        budget.as_secs(),
        if in_place { ", in place" } else { "" }
    );
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("could not run cargo mutants: {e}"))?;
    let mut stopped = false;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if !stopped && started.elapsed() > budget {
            // An interrupt lets cargo-mutants stop its build or test and put the mutated file back.
            let _ = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status();
            stopped = true;
        }
        std::thread::sleep(Duration::from_secs(1));
    };
    if in_place {
        // Whatever happened, no mutation stays in the tree (it was clean when the step began).
        let restored = Command::new("git")
            .current_dir(root)
            .args(["checkout", "--", "."])
            .status();
        if !restored.is_ok_and(|status| status.success()) {
            return Err(
                "could not restore the tree after an in-place mutation run: check `git status`".to_owned(),
            );
        }
    }
    if !stopped && !matches!(status.code(), Some(0 | 2 | 3)) {
        return Err(format!("cargo mutants failed ({status})"));
    }
    judge(root, &out.join("mutants.out"), stopped)
}

/// Reads the run's outcomes: a missed mutant no list names fails; what the budget left untried is reported.
fn judge(root: &Path, out: &Path, stopped: bool) -> Result<(), String> {
    let Outcomes {
        caught,
        missed,
        timeouts,
        unviable,
    } = Outcomes::read(out);
    let all = listed_in_run(out);
    let mut lists = Vec::new();
    for scope in SCOPES {
        lists.extend(mutants_list::read(&root.join(scope.equivalents))?);
    }
    let unlisted = unlisted(&missed, &lists, &all);
    let tried = caught.len() + missed.len() + timeouts.len() + unviable.len();
    println!(
        "mutants on the change: {} generated, {tried} tried: {} caught, {} timeouts, {} missed ({} listed as \
         equivalent), {} unviable",
        all.len(),
        caught.len(),
        timeouts.len(),
        missed.len(),
        missed.len() - unlisted.len(),
        unviable.len()
    );
    if stopped {
        crate::loud_warning(&format!(
            "the time budget ran out: {} of the change's {} mutants were not tried (raise OA_MUTANTS_BUDGET_SECS, \
             or run `cargo xtask mutants-diff` by hand)",
            all.len().saturating_sub(tried),
            all.len()
        ));
    }
    for mutant in &unlisted {
        println!("MISSED on a changed line, not listed as equivalent: {mutant}");
    }
    if unlisted.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} mutants on lines this change touched are missed: kill each with a test, or list it as equivalent \
             (with its reason) in its crate's mutants-equivalent.txt",
            unlisted.len()
        ))
    }
}

/// The previous main, by the rules of this module.
fn resolve_base(root: &Path) -> Result<String, String> {
    if let Some(base) = std::env::var("OA_MUTANTS_BASE")
        .ok()
        .filter(|base| !base.is_empty())
    {
        return Ok(base);
    }
    let branch = git(root, &["rev-parse", "--abbrev-ref", "HEAD"])?;
    if branch.trim() != "main" {
        return Ok(git(root, &["merge-base", "HEAD", "main"])?.trim().to_owned());
    }
    let head = git(root, &["rev-parse", "HEAD"])?.trim().to_owned();
    if let Ok(recorded) = std::fs::read_to_string(last_green_file(root)) {
        let recorded = recorded.trim();
        let is_ancestor = Command::new("git")
            .current_dir(root)
            .args(["merge-base", "--is-ancestor", recorded, "HEAD"])
            .status()
            .is_ok_and(|status| status.success());
        if is_ancestor && recorded != head {
            return Ok(recorded.to_owned());
        }
    }
    Ok(git(root, &["rev-parse", "HEAD^"])?.trim().to_owned())
}

/// Records HEAD as the last green CI run on main (nothing elsewhere).
pub(crate) fn record_green(root: &Path) -> Result<(), String> {
    let branch = git(root, &["rev-parse", "--abbrev-ref", "HEAD"])?;
    if branch.trim() != "main" {
        return Ok(());
    }
    let file = last_green_file(root);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let head = git(root, &["rev-parse", "HEAD"])?;
    std::fs::write(&file, head).map_err(|e| format!("{}: {e}", file.display()))
}

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .current_dir(root)
        .args(args)
        .output()
        .map_err(|e| format!("could not run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
