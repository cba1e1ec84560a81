//! Runs the official JSON Schema Test Suite through the public API: the `draft4`, `draft6`, `draft7`,
//! `draft2019-09` and `draft2020-12` folders, directory by directory, each with its draft as the default (the older
//! folders' schemas declare no `$schema`).
//!
//! Reads `../shared/json-schema-test-suite` (from the workspace root). Every file in `remotes/` is registered under
//! `http://localhost:1234/`; every case runs a second time with the remotes supplied by a retriever instead, and
//! unresolved references deferred, which must give the same verdicts. Required cases may not be skipped; optional cases listed in `tests/suite-skips.txt`
//! (each with its reason) are skipped and counted, at most 1% of each draft's optional cases, and an entry that
//! matches no case fails the run, so the list cannot go stale. Without the `arbitrary_precision` feature, the cases
//! listed in `tests/suite-without-arbitrary-precision.txt` (numbers beyond what an `f64` holds, each with its reason)
//! must give the verdict opposite to the suite's, and are counted apart; with the feature they run as any other.
//! Every case also runs through the incremental route (`Validator::incremental`, the instance's text fed in small
//! chunks), which must end with `validate`'s very report, and through the whole-slice entry points
//! (`Validator::is_valid_bytes`, `validate_bytes`), which must give `validate`'s verdict and report.
//! Prints `N passed, M failed` per directory and overall; exits non-zero on any failure, and when the suite is
//! missing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "support/described.rs"]
mod described;
#[path = "support/remotes.rs"]
mod remotes;

use described::described;
use oa_schema::{Draft, IncrementalError, Retrieve, RetrieveError, Validator, ValidatorOptions};
use remotes::remotes;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Optional cases may be skipped up to this share of each draft's optional cases.
const MAX_SKIP_SHARE: f64 = 0.01;

/// The folders run, each with the draft its schemas are read as when they declare none.
const DRAFTS: [(&str, Draft); 5] = [
    ("draft4", Draft::Draft4),
    ("draft6", Draft::Draft6),
    ("draft7", Draft::Draft7),
    ("draft2019-09", Draft::Draft201909),
    ("draft2020-12", Draft::Draft202012),
];

struct Skip {
    file: String,
    group: String,
    test: String,
}

/// Counts of one directory or draft.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    /// Optional cases met (skipped or run).
    optional: usize,
    /// Listed cases that gave the other verdict, as listed (without `arbitrary_precision` only).
    differed: usize,
}

fn main() -> ExitCode {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/json-schema-test-suite");
    if !DRAFTS
        .iter()
        .all(|(folder, _)| suite.join("tests").join(folder).is_dir())
    {
        eprintln!("==================================================================");
        eprintln!("JSON Schema Test Suite NOT FOUND at {}", suite.display());
        eprintln!("The suite runner needs ../shared/json-schema-test-suite; failing.");
        eprintln!("==================================================================");
        return ExitCode::FAILURE;
    }
    let remote_documents = remotes(&suite.join("remotes"));
    let registered = remote_documents
        .iter()
        .fold(Validator::options(), |options, (uri, document)| {
            options.shared_resource(uri, Arc::clone(document))
        });
    let retrieving = Validator::options()
        .defer_unresolved_references(true)
        .retriever(Arc::new(Remotes(remote_documents)));
    let skips = load_list(include_str!("suite-skips.txt"));
    // Without the feature, the cases whose verdict differs for want of the digits; with it, none.
    let differences = if cfg!(feature = "arbitrary_precision") {
        Vec::new()
    } else {
        load_list(include_str!("suite-without-arbitrary-precision.txt"))
    };
    let mut used = HashSet::new();
    let mut used_differences = HashSet::new();
    let mut total_differed = 0;
    let tests = suite.join("tests");
    let mut ok = true;
    let (mut total_passed, mut total_failed) = (0, 0);
    for (folder, draft) in DRAFTS {
        let variants = [registered.clone(), retrieving.clone()].map(|options| options.default_draft(draft));
        let root = tests.join(folder);
        let dirs: [(String, PathBuf, bool, bool); 3] = [
            (folder.to_owned(), root.clone(), false, false),
            (format!("{folder}/optional"), root.join("optional"), false, true),
            (
                format!("{folder}/optional/format"),
                root.join("optional/format"),
                true,
                true,
            ),
        ];
        let mut draft_tally = Tally::default();
        for (name, dir, format_assertion, optional) in dirs {
            let variants = variants
                .clone()
                .map(|options| options.format_assertion(format_assertion));
            let lists = Lists {
                skips: &skips,
                differences: &differences,
            };
            let used = Used {
                skips: &mut used,
                differences: &mut used_differences,
            };
            let tally = run_dir(&variants, &dir, &tests, optional, &lists, used);
            println!(
                "{name}: {} passed, {} failed, {} skipped",
                tally.passed, tally.failed, tally.skipped
            );
            draft_tally.passed += tally.passed;
            draft_tally.failed += tally.failed;
            draft_tally.skipped += tally.skipped;
            draft_tally.optional += tally.optional;
            total_differed += tally.differed;
        }
        #[allow(clippy::cast_precision_loss)] // Case counts are small.
        let share = draft_tally.skipped as f64 / draft_tally.optional.max(1) as f64;
        println!(
            "{folder}: skipped {} of {} optional cases ({:.2}%), listed in tests/suite-skips.txt",
            draft_tally.skipped,
            draft_tally.optional,
            share * 100.0
        );
        if share > MAX_SKIP_SHARE {
            println!(
                "TOO MANY SKIPS in {folder}: more than {:.0}% of its optional cases",
                MAX_SKIP_SHARE * 100.0
            );
            ok = false;
        }
        total_passed += draft_tally.passed;
        total_failed += draft_tally.failed;
    }
    ok &= total_failed == 0;
    for (skip_idx, skip) in skips.iter().enumerate() {
        if !used.contains(&skip_idx) {
            println!(
                "STALE skip-list entry (matches no case): {} / {} / {}",
                skip.file, skip.group, skip.test
            );
            ok = false;
        }
    }
    for (idx, entry) in differences.iter().enumerate() {
        if !used_differences.contains(&idx) {
            println!(
                "STALE entry of tests/suite-without-arbitrary-precision.txt (matches no case): {} / {} / {}",
                entry.file, entry.group, entry.test
            );
            ok = false;
        }
    }
    if !cfg!(feature = "arbitrary_precision") {
        // Counted apart from the passes: these verdicts are the suite's opposite, as listed.
        println!(
            "without arbitrary_precision: {total_differed} cases gave the other verdict, as listed in \
             tests/suite-without-arbitrary-precision.txt"
        );
    }
    println!("{total_passed} passed, {total_failed} failed");
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// The committed lists of cases: skipped, and (without `arbitrary_precision`) expected to differ.
struct Lists<'a> {
    skips: &'a [Skip],
    differences: &'a [Skip],
}

/// Which entries of each list matched a case.
struct Used<'a> {
    skips: &'a mut HashSet<usize>,
    differences: &'a mut HashSet<usize>,
}

/// Runs every case of the JSON files in `dir` (named relative to `tests` in reports and the skip list), under
/// each of the `variants` (a case passes when it passes under all).
fn run_dir(
    variants: &[ValidatorOptions; 2],
    dir: &Path,
    tests: &Path,
    optional: bool,
    lists: &Lists<'_>,
    used: Used<'_>,
) -> Tally {
    let mut tally = Tally::default();
    for (file, groups) in remotes::json_files(dir) {
        let relative = file.strip_prefix(tests).unwrap().to_string_lossy().into_owned();
        for group in groups.as_array().unwrap() {
            let group_name = group["description"].as_str().unwrap();
            let compiled = variants.each_ref().map(|options| options.build(&group["schema"]));
            for test in group["tests"].as_array().unwrap() {
                let test_name = test["description"].as_str().unwrap();
                if optional {
                    tally.optional += 1;
                }
                let position = |list: &[Skip]| {
                    list.iter().position(|skip| {
                        skip.file == relative && skip.group == group_name && skip.test == test_name
                    })
                };
                if let Some(skip_idx) = position(lists.skips) {
                    assert!(
                        optional,
                        "required case in the skip list: {relative} / {group_name} / {test_name}"
                    );
                    used.skips.insert(skip_idx);
                    tally.skipped += 1;
                    continue;
                }
                if let Some(idx) = position(lists.differences) {
                    used.differences.insert(idx);
                    // The verdict must be the other one, reached soundly (evaluators agreeing, a report when
                    // invalid), under every variant.
                    let mut flipped = test.clone();
                    flipped["valid"] = Value::Bool(!test["valid"].as_bool().unwrap());
                    let failures: Vec<String> = compiled
                        .iter()
                        .filter_map(|compiled| outcome(compiled, &flipped).err())
                        .collect();
                    if failures.is_empty() {
                        tally.differed += 1;
                    } else {
                        tally.failed += 1;
                        println!(
                            "FAIL (listed as differing without arbitrary_precision) {relative} / {group_name} / \
                             {test_name}: {}",
                            failures.join("; ")
                        );
                    }
                    continue;
                }
                let failures: Vec<String> = compiled
                    .iter()
                    .zip(["registered remotes", "retrieved remotes, deferred"])
                    .filter_map(|(compiled, variant)| {
                        outcome(compiled, test)
                            .err()
                            .map(|reason| format!("{reason} ({variant})"))
                    })
                    .collect();
                if failures.is_empty() {
                    tally.passed += 1;
                } else {
                    tally.failed += 1;
                    println!(
                        "FAIL {relative} / {group_name} / {test_name}: {}",
                        failures.join("; ")
                    );
                }
            }
        }
    }
    tally
}

/// Whether one case passes: the expected verdict from both evaluators, and a non-empty report without an internal
/// error when invalid.
fn outcome(compiled: &Result<Validator, oa_schema::SchemaError>, test: &Value) -> Result<(), String> {
    let expected = test["valid"].as_bool().unwrap();
    let validator = match compiled {
        Ok(validator) => validator,
        Err(err) => return Err(format!("schema did not compile: {err}")),
    };
    let flag = validator.is_valid(&test["data"]);
    let report = validator.validate(&test["data"]);
    if flag != report.is_ok() {
        Err(format!("is_valid {flag} but validate {}", report.is_ok()))
    } else if report.as_ref().is_err_and(|violations| violations.is_empty()) {
        Err("empty report".to_owned())
    } else if let Err(violations) = &report
        && violations.error_message().contains("internal error")
    {
        // The yes/no and the collecting evaluators disagreed.
        Err(format!("evaluators disagree: {}", violations.error_message()))
    } else if flag != expected {
        Err(format!("expected valid={expected}, got {flag}"))
    } else {
        incremental_agrees(validator, &test["data"], &report)
    }
}

/// The incremental route (`Validator::incremental`) on the instance's text, pretty-printed and fed in chunks of 1,
/// 2, 3, 5 and 7 bytes in turn (so tokens and UTF-8 sequences are cut), ends with `validate`'s very report; every
/// violation it found certain before the end is in that report (none on a valid instance); with the value kept and
/// without it (`without_value`, the bounded-memory route).
fn incremental_agrees(
    validator: &Validator,
    data: &Value,
    report: &Result<(), oa_schema::Violations>,
) -> Result<(), String> {
    let pretty = serde_json::to_string_pretty(data).unwrap();
    incremental_run_agrees(validator.incremental(), &pretty, SMALL_CHUNKS, report)?;
    incremental_run_agrees(
        validator.incremental().without_value(),
        &pretty,
        SMALL_CHUNKS,
        report,
    )
    .map_err(|err| format!("without the value: {err}"))?;
    // Fed whole, and in halves: containers complete in the bytes at hand are read in one step.
    let compact = serde_json::to_string(data).unwrap();
    for text in [&compact, &pretty] {
        for size in [usize::MAX, text.len().div_ceil(2).max(1)] {
            incremental_run_agrees(validator.incremental().without_value(), text, &[size], report)
                .map_err(|err| format!("without the value, chunks of {size}: {err}"))?;
        }
    }
    incremental_run_agrees(validator.incremental(), &compact, &[usize::MAX], report)
        .map_err(|err| format!("fed whole: {err}"))?;
    // Stopped at the first certain violation: fed whole (compact), and pretty in small chunks.
    first_violation_agrees(validator, &compact, &[usize::MAX], report)?;
    first_violation_agrees(validator, &pretty, SMALL_CHUNKS, report)?;
    bytes_agree(validator, data, report)
}

/// A run that stops at its first certain violation (`first_violation_only`) on `text` fed in chunks of `sizes` in
/// turn: `validate`'s verdict, and when invalid one violation, in `validate`'s report.
fn first_violation_agrees(
    validator: &Validator,
    text: &str,
    sizes: &[usize],
    report: &Result<(), oa_schema::Violations>,
) -> Result<(), String> {
    let mut run = validator.incremental().first_violation_only();
    feed_in_chunks(&mut run, text, sizes).map_err(|err| format!("first violation only: {err}"))?;
    match (run.finish(), report) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(IncrementalError::Invalid(got)), Err(expected))
            if got.len() == 1 && got.iter().all(|violation| in_report(violation, expected)) =>
        {
            Ok(())
        }
        (got, expected) => Err(format!(
            "first violation only (chunks of {sizes:?}) differs: {got:?}, validate {expected:?}"
        )),
    }
}

/// The whole-slice entry points (`Validator::is_valid_bytes`, `validate_bytes`) on the instance's text, compact and
/// pretty-printed: `validate`'s verdict and very report.
fn bytes_agree(
    validator: &Validator,
    data: &Value,
    report: &Result<(), oa_schema::Violations>,
) -> Result<(), String> {
    for text in [
        serde_json::to_string(data).unwrap(),
        serde_json::to_string_pretty(data).unwrap(),
    ] {
        if validator.is_valid_bytes(text.as_bytes()) != report.is_ok() {
            return Err(format!("is_valid_bytes differs on {text}"));
        }
        match (validator.validate_bytes(text.as_bytes()), report) {
            (Ok(()), Ok(())) => {}
            (Err(IncrementalError::Invalid(got)), Err(expected))
                if described(&got) == described(expected)
                    && got.error_message() == expected.error_message() => {}
            (got, expected) => {
                return Err(format!("validate_bytes differs: {got:?}, validate {expected:?}"));
            }
        }
    }
    Ok(())
}

/// Chunk sizes that cut tokens and UTF-8 sequences.
const SMALL_CHUNKS: &[usize] = &[1, 2, 3, 5, 7];

/// Feeds `text` to `run` in chunks of `sizes` in turn.
fn feed_in_chunks(run: &mut oa_schema::Incremental, text: &str, sizes: &[usize]) -> Result<(), String> {
    let mut rest = text.as_bytes();
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, after) = rest.split_at(size.min(rest.len()));
        run.feed(chunk)
            .map_err(|err| format!("incremental route refused the text: {err}"))?;
        rest = after;
    }
    Ok(())
}

/// Whether `violation` is in `report`: the same instance location, kind, absolute schema location and message (the
/// report lists a violation reached by two keyword paths once, under the first path in report order; one found
/// early may have come by the other).
fn in_report(violation: &oa_schema::Violation, report: &oa_schema::Violations) -> bool {
    report.iter().any(|kept| {
        kept.instance_location() == violation.instance_location()
            && kept.kind() == violation.kind()
            && kept.schema_location().absolute() == violation.schema_location().absolute()
            && kept.message() == violation.message()
    })
}

/// One incremental run (keeping the value or not) on `text` fed in chunks of `sizes` in turn agrees with
/// `validate`'s report.
fn incremental_run_agrees(
    mut run: oa_schema::Incremental,
    text: &str,
    sizes: &[usize],
    report: &Result<(), oa_schema::Violations>,
) -> Result<(), String> {
    feed_in_chunks(&mut run, text, sizes)?;
    let early = run.violations().to_vec();
    match report {
        Ok(()) if !early.is_empty() => {
            return Err(format!("a certain violation on a valid instance: {early:?}"));
        }
        Err(expected) => {
            if let Some(missing) = early.iter().find(|violation| !in_report(violation, expected)) {
                return Err(format!(
                    "a certain violation not in validate's report: {missing:?}"
                ));
            }
        }
        Ok(()) => {}
    }
    match (run.finish(), report) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(IncrementalError::Invalid(got)), Err(expected))
            if described(&got) == described(expected) && got.error_message() == expected.error_message() =>
        {
            Ok(())
        }
        (got, expected) => Err(format!(
            "incremental route differs: {got:?}, validate {expected:?}"
        )),
    }
}

/// The remotes as a retriever serves them: asked only for what nothing registered holds.
#[derive(Debug)]
struct Remotes(HashMap<String, Arc<Value>>);

impl Retrieve for Remotes {
    fn retrieve(&self, uri: &str) -> Result<Option<Arc<Value>>, RetrieveError> {
        Ok(self.0.get(uri).cloned())
    }
}

/// Reads `file | group | test | reason` lines; `#` starts a comment line.
fn load_list(text: &str) -> Vec<Skip> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split(" | ").collect();
            assert!(
                fields.len() == 4 && !fields[3].trim().is_empty(),
                "malformed skip entry (needs a reason): {line}"
            );
            Skip {
                file: fields[0].to_owned(),
                group: fields[1].to_owned(),
                test: fields[2].to_owned(),
            }
        })
        .collect()
}
