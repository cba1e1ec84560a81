//! The corpus of LLM-shaped schemas under `tests/fit_corpus/` (pydantic-, zod-to-json-schema- and OpenAPI-style,
//! `$ref`-heavy, recursive; written for this project), each with answers its schema accepts, read as draft 2020-12;
//! and how an answer is spelled for a fitted schema. Shared by the fitting tests inside the crate and the wire tests.
//!
//! Every entry goes through oa-schema's bundler first, as the call path does: compiled by the draft its `$schema`
//! names (the zod-style entries declare draft 7), then written as one self-contained draft 2020-12 document
//! (`Validator::bundle`), which is what fitting takes.

#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::path::PathBuf;

use serde_json::Value;

/// One corpus schema.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) origin: String,
    /// The schema as oa-schema's bundler writes it (draft 2020-12, self-contained).
    pub(crate) schema: Value,
    /// Answers the schema accepts (the first one minimal).
    pub(crate) answers: Vec<Value>,
}

/// Every corpus schema, by file name.
pub(crate) fn load() -> Vec<Entry> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fit_corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let doc: Value =
                serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let written = &doc["schema"];
            let declared = written
                .get("$schema")
                .and_then(Value::as_str)
                .unwrap_or("2020-12");
            assert_eq!(
                doc["draft"].as_str().unwrap_or("2020-12") == "draft-07",
                declared.contains("draft-07"),
                "{}: the file's draft and its $schema disagree",
                path.display()
            );
            let validator = oa_schema::Validator::new(written)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let bundle = validator.bundle();
            assert!(
                bundle.inexpressible().is_empty(),
                "{}: {:?}",
                path.display(),
                bundle.inexpressible()
            );
            let schema = bundle.schema().clone();
            Entry {
                name: path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                origin: doc["origin"].as_str().unwrap_or_default().to_owned(),
                schema,
                answers: doc["answers"].as_array().cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// How a provider bound by the fitted schema spells a caller's answer: a property the fit made required gets its
/// `null`, a `null` the fit made omittable goes. `None` when the answer has no spelling the fitted schema accepts
/// (fitting narrowed it away: a map closed, a recursion cut, a typeless value narrowed to scalars).
///
/// One edit at a time (the violations of a union's branches ask for edits that contradict each other, so they are not
/// all made at once), searched best first: the spelling with the fewest violations is edited next, but one that
/// leaves as many or more is kept to try later, since a union branch's first edit can break another branch (a closed
/// one, where the property the edit gives is not declared) before its last edit satisfies the branch. At most
/// `MAX_SPELLINGS` spellings are tried.
pub(crate) fn encode(answer: &Value, fitted: &oa_schema::Validator) -> Option<Value> {
    const MAX_SPELLINGS: usize = 256;
    let count = |value: &Value| {
        fitted
            .validate(value)
            .err()
            .map_or(0, |violations| violations.len())
    };
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut queue: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
    let mut spellings: Vec<Value> = Vec::new();
    seen.insert(answer.to_string());
    queue.push(Reverse((count(answer), 0)));
    spellings.push(answer.clone());
    while let Some(Reverse((_, idx))) = queue.pop() {
        let value = spellings[idx].clone();
        let Err(violations) = fitted.validate(&value) else {
            return Some(value);
        };
        for violation in &violations {
            let Some(edited) = edit(&value, violation) else {
                continue;
            };
            if spellings.len() >= MAX_SPELLINGS || !seen.insert(edited.to_string()) {
                continue;
            }
            queue.push(Reverse((count(&edited), spellings.len())));
            spellings.push(edited);
        }
    }
    None
}

/// `value` with the one edit `violation` asks for: a missing required property given its `null`, a `null` the
/// schema does not take there removed.
fn edit(value: &Value, violation: &oa_schema::Violation) -> Option<Value> {
    let at = violation.instance_location();
    let parent = at.parent()?;
    let name = at.tokens().next_back().map(|token| token.into_owned())?;
    let is_null = value.pointer(at.as_str()).is_some_and(Value::is_null);
    let mut edited = value.clone();
    let Some(Value::Object(object)) = edited.pointer_mut(parent.as_str()) else {
        return None;
    };
    match violation.keyword() {
        Some("required") if !object.contains_key(&name) => {
            object.insert(name, Value::Null);
        }
        Some("type") if is_null => {
            object.remove(&name);
        }
        _ => return None,
    }
    Some(edited)
}
