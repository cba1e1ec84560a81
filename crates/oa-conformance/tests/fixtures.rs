//! Every fixture case of ../shared at spec v0.118.2 (llm-provider, observability, conformance-adapter) and of this
//! crate's own fixtures,
//! each run as its own test; deferred cases show as ignored with their reason in the name. Also the
//! coverage guard: every fixture file in a scanned directory is run or deferred, and every deferral
//! entry still matches a fixture.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use oa_conformance::{
    DEFERRALS, Fixture, Outcome, PlannedCase, VOCABULARY_DEFERRALS, default_dirs, discover, plan,
};

fn main() {
    let args = Arguments::from_args();
    let workspace_root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dirs = default_dirs(&workspace_root);
    if let Some(missing) = dirs.iter().find(|dir| !dir.is_dir()) {
        // The fixtures live only in ../shared: running without it would test nothing.
        eprintln!(
            "oa-conformance: {} is missing; the spec fixtures cannot run. Place the shared reference material \
             beside the repository.",
            missing.display()
        );
        std::process::exit(1);
    }
    let planned = plan(&dirs).unwrap_or_else(|error| panic!("cannot plan the fixture directories: {error}"));
    let mut trials: Vec<Trial> = planned.iter().cloned().map(case_trial).collect();
    trials.push(coverage_trial(dirs.clone(), planned.clone()));
    trials.push(own_fixture_counts_trial(planned.clone()));
    trials.push(issue_22_fixtures_trial(planned));
    libtest_mimic::run(&args, trials).exit();
}

fn case_trial(case: PlannedCase) -> Trial {
    match case.deferral_reason() {
        Some(reason) => {
            let name = format!("{} (deferred: {reason})", case.display_name());
            Trial::test(name, || Err("a deferred case is never run".into())).with_ignored_flag(true)
        }
        None => Trial::test(case.display_name(), move || {
            let report = case.run();
            match report.outcome {
                Outcome::Passed => Ok(()),
                Outcome::Failed => Err(Failed::from(report.reason.unwrap_or_default())),
                Outcome::Skipped => Err(Failed::from("skipped without a deferral entry")),
            }
        }),
    }
}

/// Every `*.yaml` in a scanned directory became at least one planned case, and every deferral entry
/// whose capability was scanned matches at least one case (no stale entries).
fn coverage_trial(dirs: Vec<PathBuf>, planned: Vec<PlannedCase>) -> Trial {
    Trial::test("coverage::every_fixture_is_run_or_deferred", move || {
        let planned_ids: BTreeSet<String> = planned.iter().map(|case| case.fixture().to_string()).collect();
        let mut capabilities = BTreeSet::new();
        let mut n_files = 0;
        let mut fixtures = Vec::new();
        for dir in &dirs {
            for file in discover(dir).map_err(|e| e.to_string())? {
                n_files += 1;
                capabilities.insert(file.capability.clone());
                if let Ok(fixture) = Fixture::load(&file.path, &file.capability) {
                    fixtures.push(fixture);
                }
                let id = format!("{}/{}", file.capability, stem(&file.path));
                if !planned_ids.contains(&id) {
                    return Err(format!("{id} is neither run nor deferred").into());
                }
            }
        }
        if planned_ids.len() != n_files {
            return Err(format!("{} fixtures planned for {n_files} files", planned_ids.len()).into());
        }
        for deferral in DEFERRALS {
            let capability = deferral.fixture.split('/').next().unwrap_or_default();
            if !capabilities.contains(capability) {
                continue;
            }
            let used = planned
                .iter()
                .any(|case| deferral.covers(&case.fixture().to_string(), case.case()));
            if !used {
                return Err(format!("stale deferral entry: {} matches no fixture", deferral.fixture).into());
            }
        }
        for deferral in VOCABULARY_DEFERRALS {
            if !capabilities.contains(deferral.capability) {
                continue;
            }
            let used = fixtures.iter().any(|fixture| {
                fixture
                    .cases
                    .iter()
                    .any(|case| deferral.covers(fixture.id.capability(), &case.body))
            });
            if !used {
                return Err(format!(
                    "stale vocabulary deferral: {:?} at {:?} matches no case",
                    deferral.directive, deferral.position
                )
                .into());
            }
        }
        let n_deferred = planned
            .iter()
            .filter(|case| case.deferral_reason().is_some())
            .count();
        eprintln!(
            "coverage: {n_files} fixture files, {} cases, {n_deferred} deferred by {} name and {} vocabulary entries",
            planned.len(),
            DEFERRALS.len(),
            VOCABULARY_DEFERRALS.len()
        );
        Ok(())
    })
}

/// The project's own fixtures carry the fifteen rows of 0126's 082 table, its seven 083 cases and the
/// nineteen cases of its observability 161 table.
fn own_fixture_counts_trial(planned: Vec<PlannedCase>) -> Trial {
    Trial::test("coverage::own_fixtures_082_083_case_counts", move || {
        for (id, want) in [
            (
                "llm-provider/082-structured-output-error-message-completeness",
                15,
            ),
            ("llm-provider/083-openai-refusal-finish-reason", 7),
            ("observability/161-structured-output-schema-not-honored", 19),
        ] {
            let n = planned
                .iter()
                .filter(|case| case.fixture().to_string() == id && case.case().is_some())
                .count();
            if n != want {
                return Err(format!("{id}: {n} cases, expected {want}").into());
            }
        }
        Ok(())
    })
}

/// Issue 22's fixtures: the ten Langfuse ones, the twelve of the small graph features and the rewritten 161 are
/// planned to run, every case of each (none deferred), so a regression shows as a failure, not a skip.
fn issue_22_fixtures_trial(planned: Vec<PlannedCase>) -> Trial {
    Trial::test("coverage::issue_22_fixtures_run_undeferred", move || {
        let numbers = [
            "022", "023", "027", "035", "036", "059", "123", "148", "117", "157", // Langfuse
            "003", "004", "005", "009", "011", "043", "046", "135", "028", "034", "047",
            "049", // graph features
            "161",
        ];
        for number in numbers {
            let cases: Vec<&PlannedCase> = planned
                .iter()
                .filter(|case| {
                    case.fixture().capability() == "observability" && case.fixture().number() == Some(number)
                })
                .collect();
            if cases.is_empty() {
                return Err(format!("observability fixture {number} is missing").into());
            }
            if let Some(case) = cases.iter().find(|case| case.deferral_reason().is_some()) {
                return Err(format!("{} is deferred", case.display_name()).into());
            }
        }
        Ok(())
    })
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
