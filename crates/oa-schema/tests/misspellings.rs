//! The misspelled-keyword warning (`misspelled_keywords`) against every schema of the official JSON Schema Test
//! Suite (drafts 4 to 2020-12, `../shared/json-schema-test-suite/tests`) and the SchemaStore catalog
//! (`../shared/schemastore/schemas`), where keywords are meant as written: it must not fire, except where a schema
//! really misspells one. Each such firing is listed, with its reason, in `tests/misspellings-expected.txt`; an
//! unlisted firing fails, and so does a listed one that no longer fires. Loud when `../shared` is absent; failing
//! then under `CI=true`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

#[path = "schemastore/catalog.rs"]
#[allow(dead_code)]
mod catalog;

use std::collections::BTreeSet;
use std::path::Path;

use oa_schema::{Draft, misspelled_keywords};
use serde_json::Value;

/// The suite's draft folders and the draft each is read as.
const SUITE_DRAFTS: [(&str, Draft); 5] = [
    ("draft4", Draft::Draft4),
    ("draft6", Draft::Draft6),
    ("draft7", Draft::Draft7),
    ("draft2019-09", Draft::Draft201909),
    ("draft2020-12", Draft::Draft202012),
];

/// Every `*.json` file under `dir`, sorted.
fn json_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "json") {
            out.push(path);
        }
    }
}

/// One firing as the expectation file lists it: `SOURCE LOCATION FOUND -> MEANT`.
fn firings(source: &str, schema: &Value, draft: Draft, out: &mut BTreeSet<String>) {
    for found in misspelled_keywords(schema, draft) {
        out.insert(format!(
            "{source} {} {} -> {}",
            found.location(),
            found.found(),
            found.meant()
        ));
    }
}

/// Fails loudly under CI, warns loudly elsewhere.
fn absent(what: &str) -> bool {
    let message = format!("{what} is absent: the misspelling check did NOT run on it");
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("\n!!!!! SKIPPED: {message}\n");
    true
}

#[test]
fn the_warning_fires_only_on_real_misspellings_of_the_suite_and_schemastore() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let suite = shared.join("json-schema-test-suite/tests");
    let mut fired = BTreeSet::new();
    let (mut n_suite, mut n_store) = (0, 0);
    if suite.is_dir() || !absent("../shared/json-schema-test-suite") {
        for (folder, draft) in SUITE_DRAFTS {
            let mut files = Vec::new();
            json_files(&suite.join(folder), &mut files);
            for file in files {
                let groups: Vec<Value> =
                    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                let name = file.strip_prefix(&suite).unwrap().display().to_string();
                for (idx, group) in groups.iter().enumerate() {
                    n_suite += 1;
                    firings(
                        &format!("suite:{name}[{idx}]"),
                        &group["schema"],
                        draft,
                        &mut fired,
                    );
                }
            }
        }
    }
    let store = catalog::dir();
    if catalog::present(&store) || !absent("../shared/schemastore") {
        let catalog = catalog::load(&store).unwrap();
        for schema in &catalog.schemas {
            n_store += 1;
            let draft = schema.draft.unwrap_or(catalog::DEFAULT_DRAFT);
            firings(
                &format!("schemastore:{}", schema.name),
                &schema.value,
                draft,
                &mut fired,
            );
        }
    }
    let listed_text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/misspellings-expected.txt"),
    )
    .unwrap();
    let listed: BTreeSet<String> = listed_text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| line.split("  #").next().unwrap().trim_end().to_owned())
        .collect();
    let unlisted: Vec<&String> = fired.difference(&listed).collect();
    let stale: Vec<&String> = listed.difference(&fired).collect();
    eprintln!(
        "misspellings: {n_suite} suite schemas, {n_store} SchemaStore schemas, {} firings, all listed: {}",
        fired.len(),
        unlisted.is_empty()
    );
    assert!(
        unlisted.is_empty(),
        "fired but not listed:\n{}",
        unlisted.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed but no longer fired:\n{}",
        stale.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}
