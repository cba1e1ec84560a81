//! Runs the official JSON Schema Test Suite (draft 2020-12) through the public API, directory by directory.
//!
//! Reads `../shared/json-schema-test-suite` (from the workspace root). Every file in `remotes/` is registered under
//! `http://localhost:1234/`. Required cases may not be skipped; optional cases listed in `tests/suite-skips.txt`
//! (each with its reason) are skipped and counted, and an entry that matches no case fails the run, so the list
//! cannot go stale. Prints `N passed, M failed` per directory and overall; exits non-zero on any failure, and when
//! the suite is missing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use oa_schema::{Validator, ValidatorOptions};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Optional cases may be skipped up to this share of all optional cases.
const MAX_SKIP_SHARE: f64 = 0.01;

struct Skip {
    file: String,
    group: String,
    test: String,
}

fn main() -> ExitCode {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/json-schema-test-suite");
    if !suite.join("tests/draft2020-12").is_dir() {
        eprintln!("==================================================================");
        eprintln!("JSON Schema Test Suite NOT FOUND at {}", suite.display());
        eprintln!("The suite runner needs ../shared/json-schema-test-suite; failing.");
        eprintln!("==================================================================");
        return ExitCode::FAILURE;
    }
    let options = register_remotes(Validator::options(), &suite.join("remotes"));
    let skips = load_skips();
    let mut used = HashSet::new();
    let tests = suite.join("tests/draft2020-12");
    let dirs: [(&str, PathBuf, bool, bool); 3] = [
        ("draft2020-12", tests.clone(), false, false),
        ("draft2020-12/optional", tests.join("optional"), false, true),
        (
            "draft2020-12/optional/format",
            tests.join("optional/format"),
            true,
            true,
        ),
    ];
    let (mut total_passed, mut total_failed) = (0, 0);
    let (mut optional_cases, mut n_skipped) = (0, 0);
    for (name, dir, format_assertion, optional) in dirs {
        let options = options.clone().format_assertion(format_assertion);
        let (mut passed, mut failed, mut skipped) = (0, 0, 0);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        for file in files {
            let relative = file.strip_prefix(&tests).unwrap().to_string_lossy().into_owned();
            let groups: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            for group in groups.as_array().unwrap() {
                let group_name = group["description"].as_str().unwrap();
                let compiled = options.build(&group["schema"]);
                for test in group["tests"].as_array().unwrap() {
                    let test_name = test["description"].as_str().unwrap();
                    if optional {
                        optional_cases += 1;
                    }
                    let skip_idx = skips.iter().position(|skip| {
                        skip.file == relative && skip.group == group_name && skip.test == test_name
                    });
                    if let Some(skip_idx) = skip_idx {
                        assert!(
                            optional,
                            "required case in the skip list: {relative} / {group_name} / {test_name}"
                        );
                        used.insert(skip_idx);
                        skipped += 1;
                        continue;
                    }
                    let expected = test["valid"].as_bool().unwrap();
                    let outcome = match &compiled {
                        Ok(validator) => {
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
                                Ok(())
                            }
                        }
                        Err(err) => Err(format!("schema did not compile: {err}")),
                    };
                    match outcome {
                        Ok(()) => passed += 1,
                        Err(reason) => {
                            failed += 1;
                            println!("FAIL {relative} / {group_name} / {test_name}: {reason}");
                        }
                    }
                }
            }
        }
        n_skipped += skipped;
        println!("{name}: {passed} passed, {failed} failed, {skipped} skipped");
        total_passed += passed;
        total_failed += failed;
    }
    let mut ok = total_failed == 0;
    for (skip_idx, skip) in skips.iter().enumerate() {
        if !used.contains(&skip_idx) {
            println!(
                "STALE skip-list entry (matches no case): {} / {} / {}",
                skip.file, skip.group, skip.test
            );
            ok = false;
        }
    }
    #[allow(clippy::cast_precision_loss)] // Case counts are small.
    let share = n_skipped as f64 / optional_cases.max(1) as f64;
    println!(
        "skipped {n_skipped} of {optional_cases} optional cases ({:.2}%), listed in tests/suite-skips.txt",
        share * 100.0
    );
    if share > MAX_SKIP_SHARE {
        println!(
            "TOO MANY SKIPS: more than {:.0}% of optional cases",
            MAX_SKIP_SHARE * 100.0
        );
        ok = false;
    }
    println!("{total_passed} passed, {total_failed} failed");
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn register_remotes(mut options: ValidatorOptions, remotes: &Path) -> ValidatorOptions {
    let mut stack = vec![remotes.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                let relative = path
                    .strip_prefix(remotes)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                options = options.resource(&format!("http://localhost:1234/{relative}"), document);
            }
        }
    }
    options
}

/// Reads `file | group | test | reason` lines; `#` starts a comment line.
fn load_skips() -> Vec<Skip> {
    let text = include_str!("suite-skips.txt");
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
