//! Developer tasks for the oa workspace, run as `cargo xtask <task>`.
//!
//! `ci` is the one command CI runs (through `.ci/run`) and the one a newcomer runs on a fresh machine: it checks
//! that the reference material is present, then formatting, lints with warnings denied, documentation with warnings
//! denied, the publishing checks (`rust-version`, `cargo package`), every test in the workspace (and oa-schema's and
//! oa-provider's again without `arbitrary_precision`), and a short fuzz smoke when the nightly toolchain is here. Each step is an
//! ordinary command, printed before it runs, so any step can be repeated by hand.
//!
//! After the tests, cargo-mutants runs on the lines changed since the previous main, bounded in time
//! (`mutants_diff`).
//!
//! `fuzz --seconds N` runs every fuzz target of `fuzz/` for N seconds, and `miri` the tests that finish under
//! Miri; both need the nightly toolchain, and say loudly when it (or their tool) is absent. `soak` and `load` run
//! the chaos soak of the provider stack (crates/oa-soak); `ci` includes a 500-call soak.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod batch_bench;
mod clock;
mod fuzz;
mod memory_bench;
mod miri;
mod mutants;
mod mutants_diff;
mod mutants_list;
mod nightly;
mod peer;
mod publish;
mod soak;
mod tidy;
mod totals;

/// The seconds each fuzz target runs in `cargo xtask ci`: a smoke that the targets build, load their seeds and
/// run, not a search (that is `cargo xtask fuzz --seconds 600`).
const CI_FUZZ_SECONDS: u32 = 10;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = args.first().map(String::as_str);
    let result = match task {
        Some("ci") => ci(),
        Some("peer") => with_peer(&args[1..]),
        Some("tidy") => tidy::check(&workspace_root()).map_err(|problems| problems.join("\n")),
        Some("publish") => publish::check(&workspace_root(), &[]),
        Some("fuzz") => fuzz_task(&args[1..]),
        Some("miri") => miri_task(),
        Some("mutants") => mutants::run(&workspace_root(), &args[1..]),
        Some("mutants-diff") => mutants_diff::run(&workspace_root(), args.get(1).map(String::as_str), &[]),
        Some("batch-bench") => batch_bench::run(&workspace_root(), &args[1..]),
        Some("memory-bench") => memory_bench::run(&workspace_root(), &args[1..]),
        Some("soak") => soak::run(&workspace_root(), &args[1..], &[]),
        Some("load") => soak::run(&workspace_root(), &owned(soak::LOAD_ARGS), &[]),
        _ => {
            eprintln!(
                "usage: cargo xtask <task>\n\ntasks:\n  ci    fmt check, clippy -D warnings, docs, every test, a fuzz smoke\n  tidy  house rules a linter cannot see\n  publish  the rust-version checked with its toolchain, every published crate packaged and built\n  peer  start the llama.cpp peer and run the given command with OA_LLAMA_BASE_URL set\n  fuzz  --seconds N [TARGET...]: run each fuzz target for N seconds (nightly)\n  miri  the tests that finish under Miri (nightly)\n  mutants SCOPE [-- ARGS]: cargo-mutants over a scope (oa-pointer, oa-schema-keywords, oa-provider-wire), checked against its equivalents list\n  mutants-diff [BASE]: cargo-mutants on the lines changed since BASE (default: the previous main), bounded in time\n  soak  --calls N --concurrency C [--seed S]: structured calls through the provider stack against the chaos server\n  load  1,000 calls all in flight at once against the chaos server, with memory per in-flight call\n  batch-bench [--lines N]: oa validate --batch lines per second at 1 job and at one per core\n  memory-bench [--instance-mib N] [--batch-mib N]... [--runs N] [--dir DIR] [--oa PATH]: oa validate's peak RSS on a large instance (every route) and large --batch files"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo clippy` over `selection` (packages, targets, features) with the lock file as it is and every warning an
/// error.
fn clippy(root: &Path, selection: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let args = [&["clippy"], selection, &["--locked", "--", "-D", "warnings"]].concat();
    cargo(root, &args, env)
}

/// The whole CI run, in the order that fails fastest.
fn ci() -> Result<(), String> {
    let root = workspace_root();
    check_shared(&root)?;
    let mut clock = clock::Clock::start();
    // A CI run builds once from a fresh clone: incremental caches would only add gigabytes of disk.
    let fresh: &[(&str, &str)] = if is_ci() {
        &[("CARGO_INCREMENTAL", "0")]
    } else {
        &[]
    };
    tidy::check(&root).map_err(|problems| format!("tidy found problems:\n{}", problems.join("\n")))?;
    cargo(&root, &["fmt", "--all", "--", "--check"], fresh)?;
    clippy(&root, &["--workspace", "--all-targets"], fresh)?;
    // The `fuzzing` features of oa-schema and oa-provider are built only by the fuzz targets (nightly): lint them
    // here too.
    for package in ["oa-schema", "oa-provider"] {
        clippy(&root, &["-p", package, "--lib", "--features", "fuzzing"], fresh)?;
    }
    cargo(
        &root,
        &["doc", "--workspace", "--no-deps", "--locked"],
        &[fresh, &[("RUSTDOCFLAGS", "-D warnings")]].concat(),
    )?;
    clock.lap("tidy, fmt, clippy, doc");
    // Publishing: the rust-version's own toolchain, and every published crate built from its package.
    publish::check(&root, fresh)?;
    clock.lap("cargo package (rust-version toolchain)");
    // The end-to-end tests run against a real llama.cpp server; it stops when `peer` drops, pass or fail.
    let peer = start_peer(&root)?;
    let peer_env = peer.as_ref().map(peer::Peer::env).unwrap_or_default();
    let peer_env: Vec<(&str, &str)> = peer_env
        .iter()
        .map(|(key, value)| (*key, value.as_str()))
        .chain(fresh.iter().copied())
        .collect();
    // The equivalent-mutant lists are checked against today's mutants by xtask's tests: cargo-mutants must be here.
    mutants::ensure_cargo_mutants()?;
    clock.lap("llama.cpp peer, cargo-mutants present");
    let totals = totals::cargo_test(&root, &["test", "--workspace", "--locked"], &peer_env);
    clock.lap("cargo test --workspace");
    // Again as a library user's build has them: without oa-schema's opt-in arbitrary_precision (oa-cli turns it on
    // for the whole workspace run above).
    let without = totals::cargo_test(&root, publish::WITHOUT_ARBITRARY_PRECISION, &peer_env);
    clock.lap("cargo test without arbitrary_precision");
    // Mutants on the lines the change touched, after green tests, while the peer is still up for the end-to-end
    // tests.
    let mutated = match (&totals, &without) {
        (Ok(_), Ok(_)) => mutants_diff::run(&root, None, &peer_env),
        _ => Ok(()),
    };
    clock.lap("mutants on the change");
    drop(peer);
    let mut totals = totals?;
    totals.add(without?);
    mutated?;
    // The README's main command and the typed-output example must run, not only compile.
    cargo(
        &root,
        &["run", "--quiet", "--locked", "-p", "oa-cli", "--", "demo"],
        fresh,
    )?;
    cargo(
        &root,
        &[
            "run",
            "--quiet",
            "--locked",
            "-p",
            "oa-provider",
            "--example",
            "typed",
        ],
        fresh,
    )?;
    // A short chaos soak: every behaviour of the chaos server comes up in 500 calls.
    clock.lap("demo and typed example");
    soak::run(&root, &owned(soak::CI_ARGS), fresh)?;
    clock.lap("soak");
    fuzz_smoke(&root)?;
    clock.lap("fuzz build and smoke");
    mutants_diff::record_green(&root)?;
    println!("{}", clock.table());
    println!("xtask ci: every step passed");
    // The closing line: every test that ran, summed over all test binaries and the JSON Schema suite runner.
    println!("{}", totals.closing_line());
    Ok(())
}

/// The fuzz smoke of `ci`: every target for [`CI_FUZZ_SECONDS`] when the nightly toolchain is here (cargo-fuzz is
/// installed when missing). Without nightly, which the repository cannot install, a loud warning, not a failure.
fn fuzz_smoke(root: &Path) -> Result<(), String> {
    if !nightly::present() {
        loud_warning("the nightly toolchain is absent: the fuzz smoke did not run");
        return Ok(());
    }
    fuzz::ensure_cargo_fuzz()?;
    let seconds = CI_FUZZ_SECONDS.to_string();
    let args = fuzz::parse_args(&["--seconds".to_owned(), seconds])?;
    fuzz::run(root, &args)
}

/// `cargo xtask fuzz --seconds N [TARGET...]`.
fn fuzz_task(args: &[String]) -> Result<(), String> {
    let args = fuzz::parse_args(args)?;
    if !nightly::present() {
        return missing_tool(
            "the nightly toolchain is absent (`rustup toolchain list`): fuzzing did not run",
        );
    }
    if let Err(message) = fuzz::ensure_cargo_fuzz() {
        return missing_tool(&format!("{message}: fuzzing did not run"));
    }
    fuzz::run(&workspace_root(), &args)
}

/// `cargo xtask miri`.
fn miri_task() -> Result<(), String> {
    if let Some(message) = miri::missing() {
        return missing_tool(&format!("{message}: Miri did not run"));
    }
    miri::run(&workspace_root())
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

/// A tool the task needs is absent: a loud warning, and a failure under CI.
fn missing_tool(message: &str) -> Result<(), String> {
    loud_warning(message);
    if is_ci() { Err(message.to_owned()) } else { Ok(()) }
}

/// A warning nobody can scroll past.
fn loud_warning(message: &str) {
    let rule = "!".repeat(100);
    eprintln!("\n{rule}\nWARNING: {message}\n{rule}\n");
}

/// `cargo xtask peer [--] COMMAND...`: runs one command (e.g. `cargo test -p oa-provider --test e2e_llama`) with the
/// peer up and its variables set, then stops the peer.
fn with_peer(args: &[String]) -> Result<(), String> {
    let args = args.strip_prefix(&["--".to_owned()]).unwrap_or(args);
    let (program, rest) = args
        .split_first()
        .ok_or("usage: cargo xtask peer [--] COMMAND...")?;
    let peer = peer::start(&workspace_root())?;
    let status = Command::new(program)
        .args(rest)
        .envs(peer.env())
        .status()
        .map_err(|e| format!("could not run {program}: {e}"))?;
    drop(peer);
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", args.join(" ")))
    }
}

/// Starts the llama.cpp peer; under CI a failure to start it fails the run, elsewhere it is a loud warning (the
/// end-to-end tests then say they had no server).
fn start_peer(root: &Path) -> Result<Option<peer::Peer>, String> {
    match peer::start(root) {
        Ok(peer) => Ok(Some(peer)),
        Err(message) if is_ci() => Err(format!("the llama.cpp peer did not start: {message}")),
        Err(message) => {
            eprintln!(
                "WARNING: the llama.cpp peer did not start ({message}); end-to-end tests will report it"
            );
            Ok(None)
        }
    }
}

/// The tests read `../shared`; say so loudly when it is missing, and fail under CI.
fn check_shared(root: &Path) -> Result<(), String> {
    let shared = root.join("..").join("shared");
    // The JSON Schema suite, and the spec's fixtures at v0.118.2 (what the conformance runner and the fuzz seeds
    // read).
    let parts = ["json-schema-test-suite", "openarmature-spec-0.118"];
    if parts.iter().all(|part| shared.join(part).is_dir()) {
        return Ok(());
    }
    let message = format!(
        "../shared (expected at {}) is missing: the JSON Schema suite, spec fixtures and bench data live there",
        shared.display()
    );
    if is_ci() {
        return Err(message);
    }
    eprintln!("WARNING: {message}; tests that need it will fail");
    Ok(())
}

/// True under CI (`CI=true`), where missing parts fail the run instead of warning.
fn is_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| v == "true")
}

fn cargo(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    println!("\n==> cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command.args(args).current_dir(root);
    for (key, value) in env {
        command.env(key, value);
    }
    let status = command
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// `cargo install CRATE --locked --version VERSION`, for the tools a task installs when they are missing.
pub(crate) fn cargo_install(krate: &str, version: &str) -> Result<(), String> {
    let status = Command::new("cargo")
        .env_remove("RUSTUP_TOOLCHAIN")
        .args(["install", krate, "--locked", "--version", version])
        .status()
        .map_err(|e| format!("could not run cargo install: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo install {krate} --locked --version {version}` failed ({status})"
        ))
    }
}

/// The workspace's target directory (`CARGO_TARGET_DIR`, else `target/`).
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

fn workspace_root() -> PathBuf {
    // xtask lives one level below the workspace root.
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(manifest_dir)
}
