//! Invalid schemas: each gets a typed `SchemaError` naming where in the schema the problem is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_schema::{SchemaError, Validator};
use serde_json::json;

#[test]
fn meta_schema_failure_names_the_location() {
    let err = Validator::new(&json!({ "properties": { "a": { "type": "strng" } } })).unwrap_err();
    let SchemaError::InvalidSchema {
        location, violations, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(location, "#/properties/a/type");
    assert!(!violations.is_empty());
    assert_eq!(err.location(), "#/properties/a/type");
    assert!(
        err.to_string()
            .starts_with("schema at #/properties/a/type fails its meta-schema"),
        "{err}"
    );
    assert!(!err.to_string().contains('\n'), "{err}");
}

#[test]
fn meta_schema_failure_under_an_id_names_the_absolute_location() {
    let err = Validator::new(&json!({ "$id": "https://example.com/s.json", "minLength": -1 })).unwrap_err();
    assert_eq!(err.location(), "https://example.com/s.json#/minLength");
}

#[test]
fn unresolved_reference() {
    let err = Validator::new(&json!({ "properties": { "a": { "$ref": "#/$defs/missing" } } })).unwrap_err();
    let SchemaError::UnresolvedReference { location, reference } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(location, "#/properties/a/$ref");
    assert_eq!(reference, "#/$defs/missing");
    let remote = Validator::new(&json!({ "$ref": "https://example.com/nowhere.json" })).unwrap_err();
    assert!(
        matches!(remote, SchemaError::UnresolvedReference { .. }),
        "{remote:?}"
    );
}

#[test]
fn registered_resource_resolves_and_is_never_fetched_otherwise() {
    let validator = Validator::options()
        .resource("https://example.com/int.json", json!({ "type": "integer" }))
        .build(&json!({ "items": { "$ref": "https://example.com/int.json" } }))
        .unwrap();
    assert!(validator.is_valid(&json!([1, 2])));
    assert!(!validator.is_valid(&json!([1, "x"])));
    let err = Validator::options()
        .resource("not a uri", json!({}))
        .build(&json!({}))
        .unwrap_err();
    assert!(matches!(err, SchemaError::InvalidUri { .. }), "{err:?}");
}

#[test]
fn invalid_regex() {
    let err = Validator::new(&json!({ "properties": { "a": { "pattern": "(" } } })).unwrap_err();
    let SchemaError::InvalidRegex {
        location, pattern, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(location, "#/properties/a/pattern");
    assert_eq!(pattern, "(");
    let err = Validator::new(&json!({ "patternProperties": { "[": {} } })).unwrap_err();
    assert!(matches!(err, SchemaError::InvalidRegex { .. }), "{err:?}");
}

#[test]
fn other_dialects_are_a_clear_error() {
    // Draft 3, a draft misspelt, the next version, and a meta-schema nobody registered.
    for dialect in [
        "http://json-schema.org/draft-03/schema#",
        "http://json-schema.org/draft-08/schema#",
        "https://json-schema.org/v1",
        "https://example.com/my-meta-schema",
    ] {
        let err = Validator::new(&json!({ "$schema": dialect, "type": "string" })).unwrap_err();
        let SchemaError::UnsupportedDialect {
            location,
            dialect: named,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(location, "#/$schema");
        assert_eq!(named, dialect);
        assert!(
            err.to_string()
                .contains("not one of drafts 4, 6, 7, 2019-09 and 2020-12"),
            "{err}"
        );
    }
    // A registered meta-schema whose own `$schema` is draft 3 is refused too, naming that dialect.
    let err = Validator::options()
        .resource(
            "https://example.com/old-meta",
            json!({ "$schema": "http://json-schema.org/draft-03/schema#" }),
        )
        .build(&json!({ "$schema": "https://example.com/old-meta" }))
        .unwrap_err();
    let SchemaError::UnsupportedDialect { dialect, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(dialect, "http://json-schema.org/draft-03/schema#");
}

#[test]
fn every_draft_is_read_by_its_schema_uri() {
    // The same keyword means something else in each draft: `exclusiveMinimum` is a boolean modifier in draft 4, a
    // number after; `items` as an array is positional before 2020-12, which rejects it.
    let cases = [
        (
            "http://json-schema.org/draft-04/schema#",
            json!({ "minimum": 2, "exclusiveMinimum": true }),
            json!(2),
        ),
        (
            "http://json-schema.org/draft-06/schema#",
            json!({ "exclusiveMinimum": 2 }),
            json!(2),
        ),
        (
            "http://json-schema.org/draft-07/schema",
            json!({ "items": [{ "type": "string" }], "additionalItems": false }),
            json!(["a", "b"]),
        ),
        (
            "https://json-schema.org/draft/2019-09/schema",
            json!({ "items": [{ "type": "string" }] }),
            json!([1]),
        ),
    ];
    for (uri, mut schema, invalid) in cases {
        schema["$schema"] = json!(uri);
        let validator = Validator::new(&schema).unwrap_or_else(|err| panic!("{uri}: {err}"));
        assert!(!validator.is_valid(&invalid), "{uri}");
        assert!(validator.validate(&invalid).is_err(), "{uri}");
    }
    let positional = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "items": [{ "type": "string" }]
    });
    assert!(matches!(
        Validator::new(&positional),
        Err(SchemaError::InvalidSchema { .. })
    ));
}

#[test]
fn unknown_required_vocabulary_is_rejected_and_optional_one_ignored() {
    let meta = |required: bool| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.com/meta",
            "$vocabulary": {
                "https://json-schema.org/draft/2020-12/vocab/core": true,
                "https://example.com/vocab/custom": required
            }
        })
    };
    let schema = json!({ "$schema": "https://example.com/meta", "minimum": 3 });
    let err = Validator::options()
        .resource("https://example.com/meta", meta(true))
        .build(&schema)
        .unwrap_err();
    assert!(
        matches!(err, SchemaError::UnsupportedVocabulary { .. }),
        "{err:?}"
    );
    // Optional and unknown: ignored; validation is not in the vocabulary list, so `minimum` only annotates.
    let validator = Validator::options()
        .resource("https://example.com/meta", meta(false))
        .build(&schema)
        .unwrap();
    assert!(validator.is_valid(&json!(1)));
}

#[test]
fn format_annotates_by_default_and_asserts_on_request() {
    let schema = json!({ "format": "no-such-format" });
    // Unknown formats stay annotations, assertion on or off.
    assert!(
        Validator::options()
            .format_assertion(true)
            .build(&schema)
            .unwrap()
            .is_valid(&json!("anything"))
    );
    assert!(
        Validator::new(&json!({ "format": "ipv4" }))
            .unwrap()
            .is_valid(&json!("not an address"))
    );
}

#[test]
fn display_texts_are_pinned() {
    let cases = [
        (
            json!({ "$ref": "#/nope" }),
            "reference \"#/nope\" at #/$ref resolves to no known schema",
        ),
        (
            json!({ "pattern": "(" }),
            "invalid regular expression \"(\" at #/pattern: ",
        ),
        (
            json!({ "$schema": "http://json-schema.org/draft-03/schema#" }),
            "unsupported dialect \"http://json-schema.org/draft-03/schema#\" at #/$schema: not one of drafts 4, 6, 7, \
             2019-09 and 2020-12, nor a registered meta-schema of one",
        ),
    ];
    for (schema, text) in cases {
        let err = Validator::new(&schema).unwrap_err();
        assert!(err.to_string().starts_with(text), "{err}");
    }
}

#[test]
fn uri_queries_never_reach_errors_or_locations() {
    let err = Validator::new(&json!({ "$ref": "https://example.com/s.json?api_key=SECRET#/x" })).unwrap_err();
    assert!(!format!("{err} {err:?}").contains("SECRET"), "{err:?}");
    let err = Validator::new(&json!({ "$id": "https://example.com/s.json?token=SECRET", "minimum": "x" }))
        .unwrap_err();
    assert!(!format!("{err} {err:?}").contains("SECRET"), "{err:?}");
    let validator =
        Validator::new(&json!({ "$id": "https://example.com/s.json?token=SECRET", "type": "string" }))
            .unwrap();
    let violations = validator.validate(&json!(1)).unwrap_err();
    let rendered = format!("{violations} {violations:?}");
    assert!(!rendered.contains("SECRET"), "{rendered}");
    assert!(
        rendered.contains("https://example.com/s.json?redacted#/type"),
        "{rendered}"
    );
}
