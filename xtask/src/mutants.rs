//! `cargo xtask mutants SCOPE [-- CARGO-MUTANTS-ARGS]`: mutation testing with cargo-mutants over one scope, then the
//! score, and the missed mutants checked against the scope's committed list of equivalent ones (keyed by file,
//! mutation and function: [`crate::mutants_list`]).
//!
//! A scope whose list is complete (oa-pointer) fails on any missed mutant not on it; a time-boxed scope
//! (oa-schema's keywords, usually run one `--shard` at a time) only reports them. `cargo xtask mutants-diff` (and
//! `cargo xtask ci`) runs cargo-mutants on the lines a change touched: [`crate::mutants_diff`].

use std::path::Path;
use std::process::Command;

use crate::mutants_list::{self, Mutant};

/// One scope: the cargo-mutants arguments that select it and run its fastest covering tests, its list of
/// equivalent mutants, and whether a missed mutant off that list fails the task.
pub(crate) struct Scope {
    name: &'static str,
    args: &'static [&'static str],
    pub(crate) equivalents: &'static str,
    strict: bool,
}

pub(crate) const SCOPES: &[Scope] = &[
    Scope {
        name: "oa-pointer",
        args: &["-p", "oa-pointer"],
        equivalents: "crates/oa-pointer/mutants-equivalent.txt",
        strict: true,
    },
    Scope {
        name: "oa-schema-keywords",
        // The unit tests, the JSON Schema Test Suite runner (every keyword, in seconds), the report-view tests
        // (the discriminator view reads keywords through `Keyword::parts`, which the suite never reaches) and the
        // hostile inputs (the `$ref` memo that keeps fan-out unions polynomial, which no verdict shows). The keyword
        // homes, the yes/no evaluator's engine and the typed route's plan (all three were under `keywords/` before).
        args: &[
            "-p",
            "oa-schema",
            "--file",
            "crates/oa-schema/src/keywords/**",
            "--file",
            "crates/oa-schema/src/flag/**",
            "--file",
            "crates/oa-schema/src/typed/plan.rs",
            "--cargo-test-arg=--lib",
            "--cargo-test-arg=--test=suite",
            "--cargo-test-arg=--test=report_options",
            "--cargo-test-arg=--test=hostile",
        ],
        equivalents: "crates/oa-schema/mutants-equivalent.txt",
        strict: false,
    },
    Scope {
        name: "oa-provider-wire",
        // The three mappings' response decoding (atomic and OpenAI's stream), Retry-After and the retry loop, with
        // the unit tests and the integration tests over a real socket that exercise them.
        args: &[
            "-p",
            "oa-provider",
            "--file",
            "crates/oa-provider/src/openai/response.rs",
            "--file",
            "crates/oa-provider/src/openai/stream.rs",
            "--file",
            "crates/oa-provider/src/anthropic/response.rs",
            "--file",
            "crates/oa-provider/src/gemini/response.rs",
            "--file",
            "crates/oa-provider/src/http/retry_after.rs",
            "--file",
            "crates/oa-provider/src/call/retry.rs",
            "--cargo-test-arg=--lib",
            "--cargo-test-arg=--test=responses",
            "--cargo-test-arg=--test=streaming",
            "--cargo-test-arg=--test=retry",
            "--cargo-test-arg=--test=anthropic",
            "--cargo-test-arg=--test=gemini",
        ],
        equivalents: "crates/oa-provider/mutants-equivalent.txt",
        strict: false,
    },
];

/// The cargo-mutants release installed when it is missing.
const CARGO_MUTANTS_VERSION: &str = "27.1.0";

/// Runs one scope; `extra` goes to cargo-mutants as is (`--shard 0/8`, `--jobs 2`, `--in-place`).
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let names: Vec<&str> = SCOPES.iter().map(|scope| scope.name).collect();
    let usage = format!(
        "usage: cargo xtask mutants SCOPE [-- CARGO-MUTANTS-ARGS]\nscopes: {}",
        names.join(" ")
    );
    let (name, extra) = args.split_first().ok_or_else(|| usage.clone())?;
    let extra = extra.strip_prefix(&["--".to_owned()]).unwrap_or(extra);
    let scope = SCOPES.iter().find(|scope| scope.name == name).ok_or(usage)?;
    ensure_cargo_mutants()?;
    // A stale list fails in seconds, before an hour of mutation testing.
    let problems = mutants_list::stale(
        &mutants_list::read(&root.join(scope.equivalents))?,
        &mutants_list::list(root, scope.args)?,
    );
    if !problems.is_empty() {
        return Err(format!("{}:\n{}", scope.equivalents, problems.join("\n")));
    }
    let output = crate::target_dir(root).join("mutants").join(scope.name);
    std::fs::create_dir_all(&output).map_err(|e| format!("{}: {e}", output.display()))?;
    let copies = copies_dir(root, &output)?;
    let mut command = Command::new("cargo");
    // cargo-mutants builds in its own copy of the tree; a shared CARGO_TARGET_DIR would mix mutated builds into it.
    command
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO_TARGET_DIR")
        .env("TMPDIR", &copies)
        .current_dir(root)
        .arg("mutants");
    // `--in-place` mutates this tree and builds in its own target directory (fast: no baseline build from
    // scratch; run it in a worktree of its own). Otherwise cargo-mutants copies the tree, but not the fuzz corpus
    // and other ignored files, which a running fuzzer may be rewriting.
    if !extra.iter().any(|arg| arg == "--in-place") {
        command.arg("--gitignore=true");
    }
    command.args(scope.args).arg("--output").arg(&output).args(extra);
    println!(
        "\n==> cargo mutants {} --output {} {}",
        scope.args.join(" "),
        output.display(),
        extra.join(" ")
    );
    let status = command
        .status()
        .map_err(|e| format!("could not run cargo mutants: {e}"))?;
    // cargo-mutants exits 2 for missed mutants and 3 for timeouts: those are findings, read below.
    if !matches!(status.code(), Some(0 | 2 | 3)) {
        return Err(format!("cargo mutants failed ({status})"));
    }
    let out = output.join("mutants.out");
    let Outcomes {
        caught,
        missed,
        timeouts,
        unviable,
    } = Outcomes::read(&out);
    let listed = mutants_list::read(&root.join(scope.equivalents))?;
    let unlisted = unlisted(&missed, &listed, &listed_in_run(&out));
    for mutant in &unlisted {
        println!("MISSED, not listed as equivalent: {mutant}");
    }
    let viable = caught.len() + missed.len() + timeouts.len();
    println!(
        "mutants {}: {viable} viable, {} caught, {} timeouts, {} missed ({} listed as equivalent in {}), {} unviable",
        scope.name,
        caught.len(),
        timeouts.len(),
        missed.len(),
        missed.len() - unlisted.len(),
        scope.equivalents,
        unviable.len()
    );
    if scope.strict && !unlisted.is_empty() {
        return Err(format!(
            "{} missed mutants are neither killed nor listed as equivalent",
            unlisted.len()
        ));
    }
    Ok(())
}

/// Where cargo-mutants puts its copies of the tree (through `TMPDIR`): a folder beside which `shared` leads to
/// `../shared`, since the tests that read it find it relative to the tree.
fn copies_dir(root: &Path, output: &Path) -> Result<std::path::PathBuf, String> {
    let copies = output.join("copies");
    std::fs::create_dir_all(&copies).map_err(|e| format!("{}: {e}", copies.display()))?;
    let link = copies.join("shared");
    if !link.exists() {
        let shared = root.join("..").join("shared");
        let shared = shared
            .canonicalize()
            .map_err(|e| format!("{}: {e}", shared.display()))?;
        std::os::unix::fs::symlink(&shared, &link).map_err(|e| format!("{}: {e}", link.display()))?;
    }
    Ok(copies)
}

/// What a run found, as cargo-mutants wrote it (as it goes: an interrupted run's files hold what it reached).
pub(crate) struct Outcomes {
    pub(crate) caught: Vec<String>,
    pub(crate) missed: Vec<String>,
    pub(crate) timeouts: Vec<String>,
    pub(crate) unviable: Vec<String>,
}

impl Outcomes {
    /// The outcomes in `out` (cargo-mutants' `mutants.out`).
    pub(crate) fn read(out: &Path) -> Self {
        let read = |file: &str| -> Vec<String> {
            std::fs::read_to_string(out.join(file))
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect()
        };
        Self {
            caught: read("caught.txt"),
            missed: read("missed.txt"),
            timeouts: read("timeout.txt"),
            unviable: read("unviable.txt"),
        }
    }
}

/// The missed mutants no entry of `listed` names (`all`: every mutant of the run, for occurrences).
pub(crate) fn unlisted<'a>(
    missed: &'a [String],
    listed: &[mutants_list::Entry],
    all: &[Mutant],
) -> Vec<&'a String> {
    missed
        .iter()
        .filter(|name| Mutant::parse(name).is_none_or(|mutant| !mutants_list::covers(listed, &mutant, all)))
        .collect()
}

/// Every mutant a run generated, from its `mutants.json` (for the occurrence of a repeated key).
pub(crate) fn listed_in_run(out: &Path) -> Vec<Mutant> {
    let listed: Vec<serde_json::Value> = std::fs::read_to_string(out.join("mutants.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    listed
        .iter()
        .filter_map(|mutant| mutant["name"].as_str().and_then(Mutant::parse))
        .collect()
}

/// Whether cargo-mutants answers.
pub(crate) fn cargo_mutants_present() -> bool {
    Command::new("cargo")
        .env_remove("RUSTUP_TOOLCHAIN")
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|output| output.status.success())
}

/// Installs cargo-mutants when it is absent.
pub(crate) fn ensure_cargo_mutants() -> Result<(), String> {
    if cargo_mutants_present() {
        return Ok(());
    }
    println!(
        "\n==> cargo-mutants is absent: cargo install cargo-mutants --locked --version {CARGO_MUTANTS_VERSION}"
    );
    crate::cargo_install("cargo-mutants", CARGO_MUTANTS_VERSION)?;
    if cargo_mutants_present() {
        Ok(())
    } else {
        Err("cargo-mutants is absent and could not be installed".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_equivalent_names_a_file_of_its_crate() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        for scope in SCOPES {
            let text = std::fs::read_to_string(root.join(scope.equivalents)).unwrap();
            for line in text
                .lines()
                .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            {
                let file = line.split(": ").next().unwrap();
                assert!(root.join(file).is_file(), "{}: {line}", scope.equivalents);
                assert!(
                    line.contains("  # "),
                    "{}: no reason on {line}",
                    scope.equivalents
                );
            }
            mutants_list::read(&root.join(scope.equivalents)).unwrap();
        }
    }

    /// Every entry of every list names exactly one mutant that cargo-mutants generates today: an entry whose code
    /// changed or went fails here, not at the next (hour-long) mutation run. Needs cargo-mutants (`cargo xtask ci`
    /// installs it); without it, loud, and a failure under `CI=true`.
    #[test]
    fn every_listed_equivalent_matches_exactly_one_mutant_today() {
        if !cargo_mutants_present() {
            let message = "cargo-mutants is absent: the equivalent-mutant lists were NOT checked against today's \
                           mutants (cargo install cargo-mutants --locked --version 27.1.0)";
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("\n!!!!! SKIPPED: {message}\n");
            return;
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        for scope in SCOPES {
            let entries = mutants_list::read(&root.join(scope.equivalents)).unwrap();
            let all = mutants_list::list(root, scope.args).unwrap();
            assert!(!all.is_empty(), "{}: cargo mutants listed nothing", scope.name);
            let problems = mutants_list::stale(&entries, &all);
            assert!(
                problems.is_empty(),
                "{}:\n{}",
                scope.equivalents,
                problems.join("\n")
            );
        }
    }
}
