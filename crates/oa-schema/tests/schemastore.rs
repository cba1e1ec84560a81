//! The SchemaStore catalog (`../shared/schemastore`): every schema compiled with the catalog registered as
//! resources, every labelled document judged, and oa-schema's verdict compared with the catalog's label and with
//! jsonschema-rs's, each validator given the same draft, resources and `format` assertion.
//!
//! The labels are ajv's reading (with its own formats asserted, non-strict for some schemas; see the catalog's
//! `schema-validation.jsonc`), so a validator may part from them for reasons of ajv's own. What this test holds:
//! every schema compiles or is refused with a clear error; oa-schema compiles at least as many schemas as
//! jsonschema-rs and matches the labels on at least as many documents; and every document where oa-schema
//! disagrees with both the label and jsonschema-rs is listed, with its reason, in `tests/schemastore-disagreements.txt`
//! (an unlisted one fails, and so does a listed one that no longer disagrees), at most 0.5% of all documents.
//!
//! Each document is also judged from its bytes (compact JSON): `is_valid_bytes` must give `is_valid`'s verdict and
//! `validate_bytes` `validate`'s very report (the typed route's one pass).
//!
//! Each compiled schema's bundle (`Validator::bundle`, one self-contained 2020-12 document) must judge every one of
//! its documents as the schema does, unless the bundle reports something inexpressible (counted).
//!
//! Prints the counts and a closing `N passed, M failed` (a document passes when oa-schema agrees with the label or
//! with jsonschema-rs, or is listed). Loud when the catalog is absent; failing then under `CI=true`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "schemastore/catalog.rs"]
mod catalog;

use catalog::Catalog;
use oa_schema::{Draft, Validator, ValidatorOptions};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// The listed disagreements may be at most this share of all documents.
const MAX_DISAGREEMENT_SHARE: f64 = 0.005;

fn main() -> ExitCode {
    let dir = catalog::dir();
    if !catalog::present(&dir) {
        eprintln!("==================================================================");
        eprintln!("SchemaStore catalog NOT FOUND at {}", dir.display());
        eprintln!(
            "The SchemaStore test needs ../shared/schemastore (or OA_SCHEMASTORE); nothing was checked."
        );
        eprintln!("==================================================================");
        return if std::env::var("CI").is_ok_and(|ci| ci == "true") {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let catalog = match catalog::load(&dir) {
        Ok(catalog) => catalog,
        Err(err) => {
            eprintln!("SchemaStore catalog unreadable: {err}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = judge(&catalog);
    if report(&catalog, &outcome) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What each validator made of the catalog.
#[derive(Default)]
struct Outcome {
    /// Schemas each validator compiled.
    oa_compiled: usize,
    peer_compiled: usize,
    /// Documents whose label each validator matched (a schema that does not compile matches none).
    oa_matches: usize,
    peer_matches: usize,
    /// Schemas oa-schema refused, with its error.
    oa_refused: Vec<(String, String)>,
    /// Documents where oa-schema's verdict is neither the label nor jsonschema-rs's, with both verdicts.
    disagreements: BTreeMap<String, String>,
    /// Documents where the yes/no and the full report disagree, or a report is empty or has an internal error.
    inconsistent: Vec<String>,
    /// Schemas whose bundle (`Validator::bundle`) compiled and judged every document as the schema does; left out
    /// because the bundle reports something inexpressible; and the documents (or schemas, when the bundle does not
    /// compile) where the bundle parts from the schema.
    bundled: usize,
    bundle_inexpressible: usize,
    /// Of the schemas refused for a reference to a document outside the catalog: how many compile with unresolved
    /// references deferred, their documents, how many of those get a verdict, and how many verdicts match labels.
    deferred: [usize; 4],
    bundle_disagreements: Vec<String>,
    /// Documents judged.
    documents: usize,
    /// Per draft (`None`: a `$schema` naming no draft): schemas, schemas compiled by each, documents, labels
    /// matched by each.
    by_draft: BTreeMap<Option<Draft>, [usize; 6]>,
    /// Documents whose label oa-schema does not match, with the verdicts (printed with `OA_SCHEMASTORE_VERBOSE=1`).
    label_mismatches: Vec<(String, String)>,
}

fn judge(catalog: &Catalog) -> Outcome {
    let mut options = Validator::options()
        .format_assertion(true)
        .default_draft(catalog::DEFAULT_DRAFT);
    for (uri, document) in catalog.resources.iter() {
        options = options.shared_resource(uri, std::sync::Arc::clone(document));
    }
    let mut outcome = Outcome::default();
    for schema in &catalog.schemas {
        let oa = compile_oa(&options, schema);
        let peer = compile_peer(catalog, schema);
        outcome.oa_compiled += usize::from(oa.is_ok());
        outcome.peer_compiled += usize::from(peer.is_some());
        let row = outcome.by_draft.entry(schema.draft).or_default();
        row[0] += 1;
        row[1] += usize::from(oa.is_ok());
        row[2] += usize::from(peer.is_some());
        if let Err(err) = &oa {
            outcome.oa_refused.push((schema.name.clone(), err.clone()));
            if let Ok(validator) = options
                .clone()
                .defer_unresolved_references(true)
                .build(&schema.value)
            {
                outcome.deferred[0] += 1;
                for document in &schema.documents {
                    outcome.deferred[1] += 1;
                    match validator.validate(&document.value) {
                        Ok(()) => {
                            outcome.deferred[2] += 1;
                            outcome.deferred[3] += usize::from(document.valid);
                        }
                        Err(report) if report.iter().all(|v| v.unresolved_reference().is_none()) => {
                            outcome.deferred[2] += 1;
                            outcome.deferred[3] += usize::from(!document.valid);
                        }
                        Err(_) => {}
                    }
                }
            }
        }
        if let Ok(validator) = &oa {
            check_bundle(validator, schema, &mut outcome);
        }
        for document in &schema.documents {
            outcome.documents += 1;
            let oa_verdict = oa.as_ref().ok().map(|validator| {
                let flag = validator.is_valid(&document.value);
                match validator.validate(&document.value) {
                    Ok(()) if flag => {}
                    Err(report)
                        if !flag
                            && !report.is_empty()
                            && !report.error_message().contains("internal error") => {}
                    _ => outcome.inconsistent.push(document.path.clone()),
                }
                // From bytes: the typed route's verdict is `is_valid`'s, its one-pass report `validate`'s.
                let text = serde_json::to_vec(&document.value).unwrap();
                if validator.is_valid_bytes(&text) != flag {
                    outcome
                        .inconsistent
                        .push(format!("{} (is_valid_bytes)", document.path));
                }
                let from_bytes = match validator.validate_bytes(&text) {
                    Ok(()) => None,
                    Err(oa_schema::IncrementalError::Invalid(report)) => Some(report),
                    Err(_) => {
                        outcome
                            .inconsistent
                            .push(format!("{} (validate_bytes refused it)", document.path));
                        None
                    }
                };
                if from_bytes != validator.validate(&document.value).err() {
                    outcome
                        .inconsistent
                        .push(format!("{} (validate_bytes' report)", document.path));
                }
                flag
            });
            let peer_verdict = peer.as_ref().map(|validator| validator.is_valid(&document.value));
            outcome.oa_matches += usize::from(oa_verdict == Some(document.valid));
            outcome.peer_matches += usize::from(peer_verdict == Some(document.valid));
            if let Some(row) = outcome.by_draft.get_mut(&schema.draft) {
                row[3] += 1;
                row[4] += usize::from(oa_verdict == Some(document.valid));
                row[5] += usize::from(peer_verdict == Some(document.valid));
            }
            if oa_verdict == Some(document.valid) {
                continue;
            }
            let verdicts = format!(
                "label {}, jsonschema-rs {}, oa-schema {}",
                verdict(Some(document.valid)),
                verdict(peer_verdict),
                verdict(oa_verdict)
            );
            if oa_verdict != peer_verdict {
                outcome
                    .disagreements
                    .insert(document.path.clone(), verdicts.clone());
            }
            outcome.label_mismatches.push((document.path.clone(), verdicts));
        }
    }
    outcome
}

/// The schema's bundle, read as 2020-12 with nothing registered, judges each of its documents as the schema does.
fn check_bundle(validator: &Validator, schema: &catalog::CatalogSchema, outcome: &mut Outcome) {
    let bundle = validator.bundle();
    if !bundle.inexpressible().is_empty() {
        outcome.bundle_inexpressible += 1;
        return;
    }
    let rebuilt = match Validator::options().format_assertion(true).build(bundle.schema()) {
        Ok(rebuilt) => rebuilt,
        Err(err) => {
            outcome
                .bundle_disagreements
                .push(format!("{}: the bundle does not compile: {err}", schema.name));
            return;
        }
    };
    outcome.bundled += 1;
    for document in &schema.documents {
        if rebuilt.is_valid(&document.value) != validator.is_valid(&document.value) {
            outcome.bundle_disagreements.push(document.path.clone());
        }
    }
}

fn verdict(verdict: Option<bool>) -> &'static str {
    match verdict {
        Some(true) => "valid",
        Some(false) => "invalid",
        None => "no verdict (schema refused)",
    }
}

fn compile_oa(options: &ValidatorOptions, schema: &catalog::CatalogSchema) -> Result<Validator, String> {
    options.build(&schema.value).map_err(|err| {
        let text = err.to_string();
        assert!(
            !err.location().is_empty() && text.contains(err.location()),
            "{}: an error that names no location: {text}",
            schema.name
        );
        text
    })
}

/// jsonschema-rs with the same draft (the declared one, or the catalog's default), resources and formats; `None`
/// when it refuses the schema (or panics on it).
fn compile_peer(catalog: &Catalog, schema: &catalog::CatalogSchema) -> Option<jsonschema::Validator> {
    let draft = match schema.draft? {
        Draft::Draft4 => jsonschema::Draft::Draft4,
        Draft::Draft6 => jsonschema::Draft::Draft6,
        Draft::Draft7 => jsonschema::Draft::Draft7,
        Draft::Draft201909 => jsonschema::Draft::Draft201909,
        _ => jsonschema::Draft::Draft202012,
    };
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(true)
            .with_retriever(catalog::CatalogRetriever(std::sync::Arc::clone(
                &catalog.resources,
            )))
            .build(&schema.value)
    }));
    built.ok()?.ok()
}

/// Prints the counts and checks the acceptance rules; whether they all hold.
fn report(catalog: &Catalog, outcome: &Outcome) -> bool {
    let n_schemas = catalog.schemas.len();
    println!(
        "schemas: oa-schema compiles {} of {n_schemas}, jsonschema-rs {}",
        outcome.oa_compiled, outcome.peer_compiled
    );
    for (name, err) in &outcome.oa_refused {
        println!("  refused {name}: {err}");
    }
    let mut ok = true;
    let [deferred, deferred_documents, judged, matched] = outcome.deferred;
    println!(
        "refused schemas compiled with unresolved references deferred: {deferred} of {}; of their \
         {deferred_documents} documents {judged} get a verdict ({matched} match the label), the rest reach a \
         reference outside the catalog",
        outcome.oa_refused.len()
    );
    if deferred < outcome.oa_refused.len() {
        println!("a refused schema does NOT compile with its unresolved references deferred");
        ok = false;
    }
    println!(
        "documents: {}; labels matched by oa-schema {}, by jsonschema-rs {}",
        outcome.documents, outcome.oa_matches, outcome.peer_matches
    );
    println!(
        "per draft: schemas (compiled by oa-schema / jsonschema-rs), documents (labels matched by oa-schema / jsonschema-rs)"
    );
    for (draft, [schemas, oa, peer, documents, oa_matches, peer_matches]) in &outcome.by_draft {
        let name = draft.map_or("other", Draft::name);
        println!("  {name}: {schemas} ({oa} / {peer}), {documents} ({oa_matches} / {peer_matches})");
    }
    if std::env::var_os("OA_SCHEMASTORE_VERBOSE").is_some() {
        for (path, verdicts) in &outcome.label_mismatches {
            println!("  label not matched: {path} ({verdicts})");
        }
    }
    let listed = load_list();
    let mut n_failed = 0;
    for (path, verdicts) in &outcome.disagreements {
        if !listed.contains_key(path) {
            println!("UNLISTED disagreement with both the label and jsonschema-rs: {path} ({verdicts})");
            n_failed += 1;
        }
    }
    for path in listed.keys() {
        if !outcome.disagreements.contains_key(path) {
            println!("STALE list entry (oa-schema no longer disagrees with both): {path}");
            ok = false;
        }
    }
    for path in &outcome.inconsistent {
        println!("INCONSISTENT is_valid and validate on {path}");
        n_failed += 1;
    }
    #[allow(clippy::cast_precision_loss)] // Document counts are small.
    let share = listed.len() as f64 / outcome.documents.max(1) as f64;
    println!(
        "disagreements with both, listed in tests/schemastore-disagreements.txt: {} ({:.2}% of documents, at most {:.1}%)",
        listed.len(),
        share * 100.0,
        MAX_DISAGREEMENT_SHARE * 100.0
    );
    if share > MAX_DISAGREEMENT_SHARE {
        println!("TOO MANY disagreements with both the label and jsonschema-rs");
        ok = false;
    }
    if outcome.oa_compiled < outcome.peer_compiled {
        println!("oa-schema compiles FEWER schemas than jsonschema-rs");
        ok = false;
    }
    if outcome.oa_matches < outcome.peer_matches {
        println!("oa-schema matches FEWER labels than jsonschema-rs");
        ok = false;
    }
    println!(
        "bundles: {} schemas bundled, judging their documents as the schemas do; {} left out as inexpressible",
        outcome.bundled, outcome.bundle_inexpressible
    );
    for disagreement in &outcome.bundle_disagreements {
        println!("BUNDLE parts from its schema: {disagreement}");
        n_failed += 1;
    }
    let n_passed = outcome.documents - n_failed.min(outcome.documents);
    println!("{n_passed} passed, {n_failed} failed");
    ok && n_failed == 0
}

/// Reads `path | reason` lines; `#` starts a comment line. Every entry needs a reason.
fn load_list() -> BTreeMap<String, String> {
    include_str!("schemastore-disagreements.txt")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (path, reason) = line
                .split_once(" | ")
                .unwrap_or_else(|| panic!("malformed entry (needs `path | reason`): {line}"));
            assert!(!reason.trim().is_empty(), "entry without a reason: {line}");
            (path.to_owned(), reason.to_owned())
        })
        .collect()
}
