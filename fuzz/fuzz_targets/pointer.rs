//! Fuzz target: `oa_pointer` parsing in both forms, with round trips. The input is one or two candidate pointers
//! separated by a newline. Each is parsed as the plain form (by `JsonPointer` and by `Location`, which must agree)
//! and as the URI-fragment form; what parses formats back and parses again to the same pointer, errors point
//! inside the input, and resolution against a fixed document agrees across `get`, `get_mut` and `resolve`. Two
//! parsed pointers order the same as `JsonPointer`s, as `Location`s and by their sort keys.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_pointer::{JsonPointer, Location, ParseError};
use serde_json::{Value, json};
use std::sync::OnceLock;

/// A document with the awkward names of RFC 6901's example, nested arrays, and keys that look like indices.
fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        json!({
            "foo": ["bar", "baz", {"0": "zero", "-": "dash"}],
            "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8,
            "é": {"01": [[], [null, true, 1.5, "s"]]},
            "10": {"": {"": "empty names"}}
        })
    })
}

fn assert_offset_inside(input: &str, error: &ParseError) {
    let offset = error.offset();
    assert!(
        offset <= input.len() && input.is_char_boundary(offset),
        "{error} is not at a character of {input:?}"
    );
}

/// Checks one candidate; the pointer it names in the plain form, if it is one.
fn check(input: &str) -> Option<JsonPointer> {
    let plain = JsonPointer::parse(input);
    let location = Location::parse(input);
    assert_eq!(
        plain.as_ref().err(),
        location.as_ref().err(),
        "JsonPointer and Location disagree on {input:?}"
    );
    if let Err(error) = &plain {
        assert_offset_inside(input, error);
    }
    match JsonPointer::parse_fragment(input) {
        Ok(pointer) => {
            assert_eq!(
                JsonPointer::parse_fragment(&pointer.to_fragment()).as_ref(),
                Ok(&pointer)
            );
            assert_eq!(JsonPointer::parse(&pointer.to_string()).as_ref(), Ok(&pointer));
        }
        Err(error) => assert_offset_inside(input, &error),
    }
    let (pointer, location) = (plain.ok()?, location.ok()?);
    assert_eq!(pointer.to_string(), input, "the plain form does not round-trip");
    assert_eq!(location.as_str(), input);
    assert_eq!(location.to_pointer(), pointer);
    assert_eq!(Location::from(&pointer), location);
    assert_eq!(location.to_fragment(), pointer.to_fragment());
    assert_eq!(
        JsonPointer::parse_fragment(&pointer.to_fragment()).as_ref(),
        Ok(&pointer)
    );
    assert_eq!(location.depth(), pointer.depth());
    assert_eq!(location.is_root(), pointer.is_root());
    assert_eq!(location.tokens().last().as_deref(), pointer.last());
    assert_eq!(
        location.parent().map(|parent| parent.to_pointer()),
        pointer.parent()
    );
    let serialized = serde_json::to_string(&pointer).expect("a pointer serializes");
    assert_eq!(
        serde_json::from_str::<JsonPointer>(&serialized).ok().as_ref(),
        Some(&pointer)
    );
    assert_eq!(
        serde_json::from_str::<Location>(&serialized).ok().as_ref(),
        Some(&location)
    );

    let document = document();
    let found = pointer.get(document);
    match pointer.resolve(document) {
        Ok(value) => assert_eq!(Some(value), found),
        Err(error) => {
            assert_eq!(found, None);
            assert!(
                pointer.starts_with(error.prefix()),
                "{error} is not about a prefix of {pointer}"
            );
            assert!(
                error.prefix().get(document).is_some(),
                "{error}: its prefix does not exist"
            );
        }
    }
    let mut copy = document.clone();
    assert_eq!(
        pointer.get_mut(&mut copy).map(|value| value.clone()).as_ref(),
        found
    );
    assert_eq!(
        pointer
            .resolve_mut(&mut copy)
            .ok()
            .map(|value| value.clone())
            .as_ref(),
        found
    );
    Some(pointer)
}

fn sort_key(location: &Location) -> Vec<u8> {
    let mut key = Vec::new();
    location.push_sort_key(&mut key);
    key
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (first, second) = text.split_once('\n').unwrap_or((text, ""));
    let (Some(left), Some(right)) = (check(first), check(second)) else {
        return;
    };
    let order = left.cmp(&right);
    let (left_location, right_location) = (Location::from(&left), Location::from(&right));
    assert_eq!(order.is_eq(), left == right);
    assert_eq!(left_location.cmp(&right_location), order, "{left} vs {right}");
    assert_eq!(
        sort_key(&left_location).cmp(&sort_key(&right_location)),
        order,
        "{left} vs {right}"
    );
});
