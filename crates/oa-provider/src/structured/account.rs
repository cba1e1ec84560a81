//! The account of one structured attempt (issue 36): every clause of the caller's schema the provider is not asked
//! to enforce, or not shown to enforce, at its pointer in the caller's schema. Fitting says what it dropped or
//! relaxed; this adds what the path and the registry say: a fallback path asks the provider to enforce nothing, and
//! on the native path a clause whose keyword no fresh probe verdict covers is unverified.
//!
//! A clause is one assertion or applicator keyword of a subschema (the keywords the probe matrix accounts for, and
//! `format`), found on the caller's schema as oa-schema's bundler writes it (so any draft's keywords are read as
//! what they mean, and named back as the caller wrote them).

use std::collections::{BTreeMap, BTreeSet};

use oa_pointer::Location;
use oa_schema::Bundle;
use serde_json::Value;

use crate::enforcement::{ACCOUNTED_KEYWORDS, KeywordSet};
use crate::model::StructuredOutputPath;
use crate::structured::ResponseSchema;
use crate::structured::fit::{Fallback, Reason, SchemaAccount, Unenforced};

/// One clause of the caller's schema.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Clause {
    /// The subschema holding it, in the caller's schema.
    pub(crate) pointer: Location,
    /// The keyword as the caller wrote it (`dependencies`, `additionalItems`, ...).
    pub(crate) keyword: String,
    /// The keyword as draft 2020-12 names it (what fitting and a vendor's 400 name).
    pub(crate) written: String,
    /// What a probe verdict must cover for it: the 2020-12 keyword, or `format:NAME`.
    pub(crate) key: String,
}

/// Keywords whose value is data, never a subschema.
const DATA_KEYWORDS: [&str; 6] = ["enum", "const", "default", "examples", "required", "type"];

/// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// What a verdict must cover for keyword `name` with `value`, when it is a clause: the keyword itself (a closed
/// object for `additionalProperties`, the only form a probe tests), or `format:NAME`.
fn clause_key(name: &str, value: &Value) -> Option<String> {
    match name {
        "format" => value.as_str().map(|format| format!("format:{format}")),
        "additionalProperties" if *value != Value::Bool(false) => None,
        _ if ACCOUNTED_KEYWORDS.contains(&name) => Some(name.to_owned()),
        _ => None,
    }
}

/// The subschemas directly under a schema object's keyword `name`.
fn children<'v>(name: &str, value: &'v Value) -> Vec<&'v Value> {
    if DATA_KEYWORDS.contains(&name) {
        return Vec::new();
    }
    match value {
        Value::Object(map) if SCHEMA_MAPS.contains(&name) => map.values().collect(),
        Value::Object(_) | Value::Bool(_) => vec![value],
        Value::Array(items) => items.iter().filter(|item| item.is_object()).collect(),
        _ => Vec::new(),
    }
}

/// The probe keys a schema uses anywhere (its clauses' keys), each once, sorted. Iterative, so any depth is walked.
pub(crate) fn probe_keys(schema: &Value) -> Vec<String> {
    let mut keys = BTreeSet::new();
    let mut pending = vec![schema];
    while let Some(node) = pending.pop() {
        let Value::Object(map) = node else { continue };
        for (name, value) in map {
            keys.extend(clause_key(name, value));
            pending.extend(children(name, value));
        }
    }
    keys.into_iter().collect()
}

/// Whether `coverage` covers every probe key of the schema sent.
pub(crate) fn covers_all(coverage: KeywordSet, sent: &ResponseSchema) -> bool {
    sent.probe_keys().iter().all(|key| coverage.contains(key))
}

/// Where the subschema at `pointer` of the bundle sits in the caller's schema: its pointer in the root document,
/// else its place in the bundle.
pub(crate) fn caller_pointer(bundle: &Bundle, pointer: &str) -> Location {
    let at = match bundle.origin(pointer) {
        Some(origin) if origin.in_root_document() => origin.pointer(),
        _ => pointer,
    };
    at.parse().unwrap_or_default()
}

/// Every clause of the caller's schema, from its bundle, sorted.
pub(crate) fn clauses(bundle: &Bundle) -> Vec<Clause> {
    let mut clauses = BTreeSet::new();
    for (pointer, _) in bundle.subschemas() {
        let Some(Value::Object(map)) = bundle.schema().pointer(pointer) else {
            continue;
        };
        let at = caller_pointer(bundle, pointer);
        for (name, value) in map {
            if let Some(key) = clause_key(name, value) {
                clauses.insert(Clause {
                    pointer: at.clone(),
                    keyword: bundle.source_keyword(pointer, name).unwrap_or(name).to_owned(),
                    written: name.clone(),
                    key,
                });
            }
        }
    }
    clauses.into_iter().collect()
}

/// Fitting's account (pointers into the bundle fitted) at the caller's pointers and keywords.
pub(crate) fn translate(bundle: &Bundle, account: &[Unenforced]) -> Vec<Unenforced> {
    let mut out: Vec<Unenforced> = account
        .iter()
        .map(|entry| Unenforced {
            pointer: caller_pointer(bundle, entry.pointer.as_str()),
            keyword: bundle
                .source_keyword(entry.pointer.as_str(), &entry.keyword)
                .unwrap_or(&entry.keyword)
                .to_owned(),
            reason: entry.reason,
        })
        .collect();
    out.sort();
    out.dedup_by(|later, earlier| later.pointer == earlier.pointer && later.keyword == earlier.keyword);
    out
}

/// The keyword of an account entry that stands for every clause of the subschema at its pointer (at the root: the
/// whole schema), beside the clauses listed on their own.
pub(crate) const EVERY_CLAUSE: &str = "*";

/// The account of an attempt that sent `sent` on `path`: fitting's entries (native paths only), then the other
/// clauses: on the native path with a fresh enforcing verdict, each one whose key the verdict's keywords
/// (`coverage`) do not cover; otherwise one entry for all of them (`*` at the root), with the reason that holds for
/// all (no verdict, not requested by the path, not accepted by the provider).
///
/// `clauses` is asked for only where the entries depend on them one by one (a covering verdict, or fitting's entries
/// beside a whole-schema reason); otherwise whether the schema sent has any clause decides the `*` entry, and the
/// caller's schema need not be bundled to list them.
pub(crate) fn build<'c>(
    clauses: impl FnOnce() -> &'c [Clause],
    sent: &ResponseSchema,
    path: StructuredOutputPath,
    coverage: Option<KeywordSet>,
    fallback: Option<Fallback>,
) -> SchemaAccount {
    let mut entries: BTreeMap<(Location, String), Reason> = BTreeMap::new();
    let native = matches!(
        path,
        StructuredOutputPath::Native | StructuredOutputPath::NativeUnenforced
    );
    if native {
        for entry in &sent.fit_account {
            entries.insert((entry.pointer.clone(), entry.keyword.clone()), entry.reason);
        }
    }
    // A reason that holds for every clause is one entry for the whole schema, not one per clause: a catalog schema
    // has thousands of clauses, and the account goes on every attempt's span.
    let everything = match (path, coverage) {
        (StructuredOutputPath::Native, Some(_)) => None,
        (StructuredOutputPath::Native, None) => Some(Reason::NotVerified),
        (StructuredOutputPath::NativeUnenforced, _) => Some(Reason::NotRequested),
        _ if fallback == Some(Fallback::Rejected) => Some(Reason::NotAccepted),
        _ => Some(Reason::NotRequested),
    };
    let rest = |entries: &BTreeMap<(Location, String), Reason>| -> Vec<&'c Clause> {
        clauses()
            .iter()
            .filter(|clause| !entries.contains_key(&(clause.pointer.clone(), clause.keyword.clone())))
            .collect()
    };
    match everything {
        Some(reason) => {
            let any_left = if entries.is_empty() {
                !sent.probe_keys().is_empty()
            } else {
                !rest(&entries).is_empty()
            };
            if any_left {
                entries.insert((Location::root(), EVERY_CLAUSE.to_owned()), reason);
            }
        }
        None => {
            for clause in rest(&entries) {
                if !coverage.is_some_and(|covered| covered.contains(&clause.key)) {
                    entries.insert(
                        (clause.pointer.clone(), clause.keyword.clone()),
                        Reason::NotVerified,
                    );
                }
            }
        }
    }
    SchemaAccount {
        form: sent.form,
        fallback,
        unenforced: entries
            .into_iter()
            .map(|((pointer, keyword), reason)| Unenforced {
                pointer,
                keyword,
                reason,
            })
            .collect(),
    }
}

/// The deepest nesting [`without_keyword`] walks (fitted schemas are bounded well inside it).
const MAX_DROP_DEPTH: usize = 256;

/// Keywords a refit may drop: assertions whose removal only widens what the schema accepts and leaves its shape
/// (objects, arrays, unions, references) as it was.
pub(crate) const DROPPABLE: [&str; 24] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "not",
    "if",
    "then",
    "else",
];

/// `schema` without `keyword` at any subschema (never inside data), or `None` when it uses it nowhere.
pub(crate) fn without_keyword(schema: &Value, keyword: &str) -> Option<Value> {
    let mut out = schema.clone();
    drop_keyword(&mut out, keyword, 0).then_some(out)
}

fn drop_keyword(node: &mut Value, keyword: &str, depth: usize) -> bool {
    let Value::Object(map) = node else {
        return false;
    };
    if depth > MAX_DROP_DEPTH {
        return false;
    }
    let mut dropped = map.remove(keyword).is_some();
    if keyword == "if" {
        // `then` and `else` mean nothing without their `if`.
        map.remove("then");
        map.remove("else");
    }
    for (name, value) in map.iter_mut() {
        if DATA_KEYWORDS.contains(&name.as_str()) {
            continue;
        }
        match value {
            Value::Object(members) if SCHEMA_MAPS.contains(&name.as_str()) => {
                for member in members.values_mut() {
                    dropped |= drop_keyword(member, keyword, depth + 1);
                }
            }
            Value::Object(_) => dropped |= drop_keyword(value, keyword, depth + 1),
            Value::Array(items) => {
                for item in items {
                    dropped |= drop_keyword(item, keyword, depth + 1);
                }
            }
            _ => {}
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn probe_keys_read_subschemas_not_names_or_data() {
        let schema = json!({
            "type": "object",
            "properties": {"minimum": {"type": "string", "format": "email"},
                           "n": {"enum": [{"maxLength": 1}], "not": {"const": 1}}},
            "additionalProperties": false,
            "$defs": {"deep": {"items": {"items": {"pattern": "^a"}}}}
        });
        assert_eq!(
            probe_keys(&schema),
            [
                "additionalProperties",
                "const",
                "enum",
                "format:email",
                "not",
                "pattern",
                "type"
            ]
        );
    }

    #[test]
    fn clauses_are_named_as_the_caller_wrote_them() {
        let validator = oa_schema::Validator::new(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": false,
                                    "maxItems": 2}},
            "dependencies": {"pair": ["other"]}
        }))
        .unwrap();
        let clauses = clauses(&validator.bundle());
        let named: Vec<(&str, &str, &str)> = clauses
            .iter()
            .map(|clause| {
                (
                    clause.pointer.as_str(),
                    clause.keyword.as_str(),
                    clause.written.as_str(),
                )
            })
            .collect();
        assert!(
            named.contains(&("", "dependencies", "dependentRequired")),
            "{named:?}"
        );
        assert!(
            named.contains(&("/properties/pair", "items", "prefixItems")),
            "{named:?}"
        );
        assert!(
            named.contains(&("/properties/pair", "maxItems", "maxItems")),
            "{named:?}"
        );
        assert!(
            named.contains(&("/properties/pair/items/0", "type", "type")),
            "{named:?}"
        );
    }

    #[test]
    fn a_keyword_is_dropped_from_subschemas_only() {
        let schema = json!({
            "properties": {"pattern": {"type": "string", "pattern": "^a"}},
            "items": [{"pattern": "b"}],
            "enum": [{"pattern": "data"}],
            "if": {"minLength": 1}, "then": {"maxLength": 2}
        });
        let dropped = without_keyword(&schema, "pattern").unwrap();
        assert_eq!(
            dropped,
            json!({"properties": {"pattern": {"type": "string"}}, "items": [{}], "enum": [{"pattern": "data"}],
                   "if": {"minLength": 1}, "then": {"maxLength": 2}})
        );
        assert_eq!(
            without_keyword(&schema, "if").unwrap(),
            json!({"properties": {"pattern": {"type": "string", "pattern": "^a"}}, "items": [{"pattern": "b"}],
                   "enum": [{"pattern": "data"}]})
        );
        assert!(without_keyword(&schema, "uniqueItems").is_none());
    }
}
