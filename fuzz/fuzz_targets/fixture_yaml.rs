//! Fuzz target: the conformance fixture loader (`oa_conformance::Fixture::parse`, YAML through yaml-rust2 into
//! `Node`) on arbitrary text, as an `llm-provider` and as an `observability` fixture.
//!
//! Checked: nothing panics or hangs (aliases, deep nesting); a refusal is a typed §9 error whose location is empty
//! or a pointer; text that is not a loadable document is refused as `fixture_schema_invalid` with the loader's
//! words; and a loaded fixture has at least one case, each case a mapping holding the top-level directives as its
//! own entries override them (an observability case's `graph:` container lifted into it, conformance-adapter §4.2).
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
            (Ok(root), Ok(fixture)) => check_cases(root, &fixture.cases, capability == "observability"),
        }
    }
});

/// Every case holds the top-level directives (but `cases` and `conformance_version`), overridden by its own; a
/// graph-shaped case's `graph:` container is lifted into it (its `subgraphs`/`subgraph` winning, no other key on
/// both sides).
fn check_cases(root: &Node, cases: &[oa_conformance::Case], graph_shaped: bool) {
    assert!(!cases.is_empty(), "a fixture without cases");
    let top = root.as_map().expect("a loaded fixture is a mapping");
    let own_cases = root.get("cases").and_then(Node::as_seq);
    for (idx, case) in cases.iter().enumerate() {
        let body = case.body.as_map().expect("a case is a mapping");
        let own = own_cases.map(|items| items[idx].as_map().expect("a listed case is a mapping"));
        assert_eq!(case.name.is_some(), own.is_some());
        let mut expected: Vec<(String, Node)> = top
            .iter()
            .filter(|(k, _)| k != "cases" && k != "conformance_version")
            .cloned()
            .collect();
        for (key, value) in own.unwrap_or_default() {
            match expected.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = value.clone(),
                None => expected.push((key.clone(), value.clone())),
            }
        }
        if graph_shaped && let Some(at) = expected.iter().position(|(k, _)| k == "graph") {
            let (_, graph) = expected.remove(at);
            for (key, value) in graph.as_map().expect("a loaded graph block is a mapping") {
                match expected.iter_mut().find(|(k, _)| k == key) {
                    Some(slot) => {
                        assert!(key == "subgraphs" || key == "subgraph", "case {idx}: {key} on both sides");
                        slot.1 = value.clone();
                    }
                    None => expected.push((key.clone(), value.clone())),
                }
            }
        }
        assert_eq!(body.len(), expected.len(), "case {idx}");
        for (key, value) in body {
            let want = expected.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            assert_eq!(Some(value), want, "case {idx}: {key}");
        }
    }
}
