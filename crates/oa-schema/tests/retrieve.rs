//! A base URI for the root schema and documents supplied on demand by a retriever
//! (`ValidatorOptions::base_uri`, `ValidatorOptions::retriever`): relative references between files resolve, the
//! retriever is asked once per URI and only for what nothing else holds, and its answers become causes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/metas.rs"]
mod metas;

use oa_schema::{Retrieve, RetrieveError, SchemaError, UnresolvedCause, Validator, ValidatorOptions};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Serves fixed answers by URI and records every question.
#[derive(Debug, Default)]
struct Folder {
    answers: HashMap<String, Result<Arc<Value>, RetrieveError>>,
    asked: Mutex<Vec<String>>,
}

impl Folder {
    fn with(mut self, uri: &str, document: Value) -> Self {
        self.answers.insert(uri.to_owned(), Ok(Arc::new(document)));
        self
    }

    fn failing(mut self, uri: &str, error: RetrieveError) -> Self {
        self.answers.insert(uri.to_owned(), Err(error));
        self
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Retrieve for Folder {
    fn retrieve(&self, uri: &str) -> Result<Option<Arc<Value>>, RetrieveError> {
        self.asked.lock().unwrap().push(uri.to_owned());
        self.answers.get(uri).cloned().transpose()
    }
}

fn options(folder: &Arc<Folder>) -> ValidatorOptions {
    Validator::options()
        .base_uri("file:///schemas/person.json")
        .retriever(Arc::clone(folder) as Arc<dyn Retrieve>)
}

fn person() -> Value {
    json!({
        "properties": { "name": { "type": "string" }, "home": { "$ref": "address.json" } },
        "required": ["name"]
    })
}

#[test]
fn a_sibling_file_resolves_against_the_base_and_is_asked_for_once() {
    let folder = Arc::new(
        Folder::default()
            .with(
                "file:///schemas/address.json",
                json!({ "properties": { "country": { "$ref": "country.json#/$defs/code" } }, "required": ["city"] }),
            )
            .with(
                "file:///schemas/country.json",
                json!({ "$defs": { "code": { "type": "string", "pattern": "^[A-Z]{2}$" } } }),
            ),
    );
    let validator = options(&folder).build(&person()).unwrap();
    assert!(validator.unresolved_references().is_empty());
    assert!(validator.is_valid(&json!({ "name": "a", "home": { "city": "Oslo", "country": "NO" } })));
    let report = validator
        .validate(&json!({ "name": 1, "home": { "country": "no" } }))
        .unwrap_err();
    let located: Vec<(String, String)> = report
        .iter()
        .map(|violation| {
            (
                violation.instance_location().to_fragment(),
                violation.schema_location().absolute().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            (
                "#/home/city".to_owned(),
                "file:///schemas/address.json#/required".to_owned()
            ),
            (
                "#/home/country".to_owned(),
                "file:///schemas/country.json#/$defs/code/pattern".to_owned()
            ),
            (
                "#/name".to_owned(),
                "file:///schemas/person.json#/properties/name/type".to_owned()
            ),
        ]
    );
    // One question per document, fragment-free, over as many passes as the chain is long.
    assert_eq!(
        folder.asked(),
        ["file:///schemas/address.json", "file:///schemas/country.json"]
    );
}

#[test]
fn what_is_held_otherwise_is_never_asked_for() {
    let folder = Arc::new(Folder::default());
    let validator = options(&folder)
        .resource("https://example.com/int.json", json!({ "type": "integer" }))
        .build(&json!({
            "$defs": { "inner": { "$id": "https://example.com/inner.json", "type": "string" } },
            "properties": {
                "a": { "$ref": "https://example.com/int.json" },
                "b": { "$ref": "https://example.com/inner.json" },
                "c": { "$ref": "https://json-schema.org/draft/2020-12/schema" },
                "d": { "$ref": "#/$defs/inner" },
                "e": { "$ref": "person.json" }
            }
        }))
        .unwrap();
    assert!(validator.is_valid(&json!({ "a": 1, "b": "x", "c": {}, "d": "y", "e": {} })));
    assert!(folder.asked().is_empty(), "{:?}", folder.asked());
}

#[test]
fn not_found_and_errors_become_causes_or_errors() {
    let ambiguous = RetrieveError::Ambiguous {
        claimants: vec!["a/address.json".to_owned(), "b/address.json".to_owned()],
    };
    let folder = Arc::new(Folder::default().failing("file:///schemas/address.json", ambiguous.clone()));
    // Without deferring, a reference the retriever cannot answer is an error naming its answer.
    let err = options(&folder).build(&person()).unwrap_err();
    let SchemaError::Retrieval { location, error, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(location, "file:///schemas/person.json#/properties/home/$ref");
    assert_eq!(error, &ambiguous);
    assert!(
        err.to_string()
            .contains("ambiguous: claimed by a/address.json and b/address.json"),
        "{err}"
    );
    // Deferred, it is listed with its cause, and reported where it is reached.
    let validator = options(&folder)
        .defer_unresolved_references(true)
        .build(&person())
        .unwrap();
    let [entry] = validator.unresolved_references() else {
        panic!()
    };
    assert_eq!(entry.cause(), &UnresolvedCause::Retrieval(ambiguous));
    assert_eq!(entry.uri(), "file:///schemas/address.json");
    assert_eq!(entry.reference(), "address.json");
    assert!(validator.is_valid(&json!({ "name": "x" })));
    let report = validator
        .validate(&json!({ "name": "x", "home": {} }))
        .unwrap_err();
    assert!(
        report.error_message().contains("ambiguous: claimed by"),
        "{}",
        report.error_message()
    );
    // Not found: no document, and without deferring the usual error.
    let empty = Arc::new(Folder::default());
    let err = options(&empty).build(&person()).unwrap_err();
    assert!(matches!(err, SchemaError::UnresolvedReference { .. }), "{err:?}");
    let validator = options(&empty)
        .defer_unresolved_references(true)
        .build(&person())
        .unwrap();
    assert_eq!(
        validator.unresolved_references()[0].cause(),
        &UnresolvedCause::NoDocument
    );
    assert_eq!(empty.asked(), ["file:///schemas/address.json"; 2]);
}

/// Answers every URI with a document that refers to the next one: an endless chain.
#[derive(Debug, Default)]
struct Endless {
    asked: Mutex<usize>,
}

impl Retrieve for Endless {
    fn retrieve(&self, uri: &str) -> Result<Option<Arc<Value>>, RetrieveError> {
        *self.asked.lock().unwrap() += 1;
        let next: usize = uri
            .trim_start_matches("https://example.com/")
            .trim_end_matches(".json")
            .parse()
            .unwrap_or(0);
        Ok(Some(Arc::new(json!({ "$ref": format!("{}.json", next + 1) }))))
    }
}

#[test]
fn an_endless_chain_of_retrieved_documents_stops_at_the_limit() {
    let endless = Arc::new(Endless::default());
    let validator = Validator::options()
        .retriever(Arc::clone(&endless) as Arc<dyn Retrieve>)
        .defer_unresolved_references(true)
        .build(&json!({ "$ref": "https://example.com/0.json" }))
        .unwrap();
    let [entry] = validator.unresolved_references() else {
        panic!("{:?}", validator.unresolved_references())
    };
    let UnresolvedCause::Retrieval(RetrieveError::Unusable { reason }) = entry.cause() else {
        panic!("{entry:?}")
    };
    assert!(reason.contains("more than 64"), "{reason}");
    assert_eq!(*endless.asked.lock().unwrap(), 64);
    assert!(!validator.is_valid(&json!(1)));
}

#[test]
fn a_custom_meta_schema_may_be_retrieved() {
    let folder =
        Arc::new(Folder::default().with(metas::FORMAT_ASSERTION_META, metas::format_assertion_meta()));
    let validator = options(&folder)
        .build(&json!({ "$schema": "https://example.com/meta", "format": "ipv4" }))
        .unwrap();
    // The meta-schema's format-assertion vocabulary applies.
    assert!(!validator.is_valid(&json!("not an address")));
    assert!(validator.is_valid(&json!("127.0.0.1")));
}

#[test]
fn a_retrieved_document_is_found_by_its_id_too() {
    let folder = Arc::new(Folder::default().with(
        "file:///schemas/address.json",
        json!({ "$id": "https://example.com/address.json", "$defs": { "city": { "type": "string" } } }),
    ));
    let validator = options(&folder)
        .build(&json!({
            "properties": {
                "a": { "$ref": "address.json" },
                "b": { "$ref": "https://example.com/address.json#/$defs/city" }
            }
        }))
        .unwrap();
    assert!(!validator.is_valid(&json!({ "b": 1 })));
    assert!(validator.is_valid(&json!({ "a": {}, "b": "x" })));
}

#[test]
fn a_base_uri_must_be_absolute() {
    for base in ["person.json", "not a uri", ""] {
        let err = Validator::options().base_uri(base).build(&json!({})).unwrap_err();
        let SchemaError::InvalidUri { location, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(location, "base URI");
    }
    // The base shows in the locations of errors.
    let err = Validator::options()
        .base_uri("file:///schemas/person.json")
        .build(&json!({ "properties": { "a": { "minLength": -1 } } }))
        .unwrap_err();
    assert_eq!(
        err.location(),
        "file:///schemas/person.json#/properties/a/minLength"
    );
}
