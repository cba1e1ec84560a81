//! The corpus of LLM-shaped schemas (`tests/fit_corpus/`) fitted to every mapping: the scripted vendor takes every
//! fitted schema, and the account lists exactly the clauses the table says fitting removes (every such clause the
//! fitted schema can reach, nothing the table says the provider enforces, each with the table's reason).

use std::collections::BTreeSet;

use oa_pointer::Location;
use serde_json::Value;

use super::super::doc::{self, Doc, SIMPLE};
use super::super::table;
use super::super::{Reason, Unenforced, fit};
use super::vendor;
use crate::model::Mapping;

#[path = "../../../../tests/fit_support/corpus.rs"]
mod corpus_support;

/// The reason a clause that could not merge into its `allOf` gets (OpenAI refuses `allOf`, Gemini ignores it).
fn conflict_reason(mapping: Mapping) -> Option<Reason> {
    match mapping {
        Mapping::OpenAi => Some(Reason::DroppedRejected),
        Mapping::Gemini => Some(Reason::DroppedIgnored),
        Mapping::Anthropic => None,
    }
}

/// Every table-driven clause (pointer, keyword, value) the fitted schema stands for: the caller's schema walked from
/// the root through references, properties, items and unions (and, for Gemini, which keeps them, `additionalProperties`
/// schemas), not into subschemas of keywords the table drops whole.
fn reachable_clauses(schema: &Value, mapping: Mapping) -> Vec<(Location, String, Value)> {
    let doc = Doc::new(schema);
    let mut seen = BTreeSet::new();
    let mut clauses = Vec::new();
    let mut pending = vec![Location::root()];
    while let Some(at) = pending.pop() {
        if !seen.insert(at.clone()) {
            continue;
        }
        let Some(Value::Object(map)) = doc.get(&at) else {
            continue;
        };
        for (keyword, value) in map {
            if SIMPLE.contains(&keyword.as_str()) {
                clauses.push((at.clone(), keyword.clone(), value.clone()));
            }
            match keyword.as_str() {
                "$ref" => pending.extend(doc.resolve(&at, value).ok()),
                "properties" => {
                    let holder = doc::child(&at, "properties");
                    pending.extend(
                        value
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(name, _)| doc::child(&holder, name)),
                    );
                }
                "items" => pending.push(doc::child(&at, "items")),
                "additionalProperties" if mapping == Mapping::Gemini => {
                    pending.push(doc::child(&at, keyword))
                }
                "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                    let len = value.as_array().map_or(0, Vec::len);
                    pending.extend((0..len).map(|idx| doc::child_index(&at, keyword, idx)));
                }
                _ => {}
            }
        }
    }
    clauses
}

#[test]
fn every_corpus_schema_fits_every_mapping_and_the_account_is_the_tables() {
    let corpus = corpus_support::load();
    assert!(corpus.len() >= 30, "the corpus has {} schemas", corpus.len());
    let mut problems = Vec::new();
    for entry in &corpus {
        oa_schema::Validator::new(&entry.schema).unwrap_or_else(|error| panic!("{}: {error}", entry.name));
        for mapping in Mapping::ALL {
            let fitted = match fit(&entry.schema, mapping) {
                Ok(fitted) => fitted,
                Err(error) => {
                    problems.push(format!("{} on {mapping}: {error}", entry.name));
                    continue;
                }
            };
            if let Err(rejection) = vendor(mapping).check_schema(fitted.schema()) {
                problems.push(format!(
                    "{} on {mapping}: the scripted vendor refuses it: {rejection}",
                    entry.name
                ));
            }
            let doc = Doc::new(&entry.schema);
            let account: BTreeSet<(Location, String)> = fitted
                .account()
                .iter()
                .map(|clause| (clause.pointer.clone(), clause.keyword.clone()))
                .collect();
            // Each entry names a keyword written at its pointer, with the reason the table gives it.
            for Unenforced {
                pointer,
                keyword,
                reason,
            } in fitted.account()
            {
                let Some(value) = doc.get(pointer).and_then(|node| node.get(keyword)) else {
                    problems.push(format!(
                        "{} on {mapping}: #{pointer} has no {keyword}",
                        entry.name
                    ));
                    continue;
                };
                let table_reason = if SIMPLE.contains(&keyword.as_str()) {
                    table::keyword_row(mapping, keyword, value).and_then(table::Row::reason)
                } else {
                    structural_reason(mapping, keyword)
                };
                let in_all_of = pointer.as_str().contains("/allOf/");
                let conflict = in_all_of && Some(*reason) == conflict_reason(mapping);
                if Some(*reason) != table_reason && !conflict {
                    problems.push(format!(
                        "{} on {mapping}: #{pointer} {keyword} is {reason}, the table says {table_reason:?}",
                        entry.name
                    ));
                }
            }
            // Every clause the table says the provider does not enforce is in the account.
            for (pointer, keyword, value) in reachable_clauses(&entry.schema, mapping) {
                let expected = table::keyword_row(mapping, &keyword, &value).and_then(table::Row::reason);
                // The table's Gemini rows for exclusive bounds: exact (no entry) for an integer bound on integers.
                let integers =
                    doc.get(&pointer).and_then(|node| node.get("type")) == Some(&Value::from("integer"));
                let exact = mapping == Mapping::Gemini
                    && keyword.starts_with("exclusive")
                    && integers
                    && value.is_i64();
                if expected.is_some() && !exact && !account.contains(&(pointer.clone(), keyword.clone())) {
                    problems.push(format!(
                        "{} on {mapping}: #{pointer} {keyword} ({expected:?}) is missing from the account",
                        entry.name
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reasons structural keywords get, by the table's rows for them.
fn structural_reason(mapping: Mapping, keyword: &str) -> Option<Reason> {
    let construct = match (mapping, keyword) {
        (_, "oneOf") => "oneOf",
        (_, "prefixItems") => "prefixItems",
        (Mapping::Gemini, "additionalProperties") => "additionalProperties",
        (Mapping::OpenAi | Mapping::Anthropic, "enum" | "const") => "enum (object or array values)",
        (Mapping::Gemini, "enum") => "enum (values other than strings and numbers)",
        // A recursion cut on Anthropic relaxes the items of the last level.
        (Mapping::Anthropic, "items") => return Some(Reason::Relaxed),
        _ => return None,
    };
    table::row(mapping, construct).and_then(table::Row::reason)
}
