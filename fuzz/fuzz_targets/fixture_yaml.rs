//! Fuzz target: the conformance fixture loader (`oa_conformance::Fixture::parse`, YAML through yaml-rust2 into
//! `Node`) on arbitrary text, as an `llm-provider` and as an `observability` fixture.
//!
//! Checked: nothing panics or hangs (aliases, deep nesting); a refusal is a typed §9 error whose location is empty
//! or a pointer; text that is not a loadable document is refused as `fixture_schema_invalid` with the loader's
//! words; and a loaded fixture has at least one case, each case a mapping holding the top-level directives as its
//! own entries override them.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use oa_conformance::{Fixture, FixtureErrorKind, FixtureId, Node};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let node = Node::from_yaml_str(text);
    for capability in ["llm-provider", "observability"] {
        let id = FixtureId::new(capability, "000-fuzz");
        let outcome = Fixture::parse(text, id, PathBuf::from("000-fuzz.yaml"));
        match (&node, &outcome) {
            (Err(refusal), Err(error)) => {
                assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid, "{error}");
                assert_eq!(error.to_string(), refusal.to_string());
            }
            (Err(refusal), Ok(_)) => panic!("a fixture loaded from text the loader refused: {refusal}"),
            (Ok(_), Err(error)) => {
                let location = error.location();
                assert!(location.is_empty() || location.starts_with('/'), "{error}");
            }
            (Ok(root), Ok(fixture)) => check_cases(root, &fixture.cases),
        }
    }
});

/// Every case holds the top-level directives (but `cases` and `conformance_version`), overridden by its own.
fn check_cases(root: &Node, cases: &[oa_conformance::Case]) {
    assert!(!cases.is_empty(), "a fixture without cases");
    let top = root.as_map().expect("a loaded fixture is a mapping");
    let own_cases = root.get("cases").and_then(Node::as_seq);
    for (idx, case) in cases.iter().enumerate() {
        let body = case.body.as_map().expect("a case is a mapping");
        let own = own_cases.map(|items| items[idx].as_map().expect("a listed case is a mapping"));
        assert_eq!(case.name.is_some(), own.is_some());
        for (key, value) in body {
            let expected = own
                .and_then(|own| own.iter().find(|(k, _)| k == key))
                .or_else(|| top.iter().find(|(k, _)| k == key))
                .map(|(_, v)| v);
            assert_eq!(Some(value), expected, "case {idx}: {key}");
        }
        for (key, _) in top
            .iter()
            .filter(|(k, _)| k != "cases" && k != "conformance_version")
        {
            assert!(
                body.iter().any(|(k, _)| k == key),
                "case {idx} lost the shared {key}"
            );
        }
    }
}
