//! Parse and resolve errors: every variant, its offset or prefix, and its message text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_pointer::{JsonPointer, Location, ParseError, ResolveError, ScalarKind};
use serde_json::json;

fn check_plain(input: &str, expected: ParseError) {
    assert_eq!(
        JsonPointer::parse(input),
        Err(expected.clone()),
        "JsonPointer::parse({input:?})"
    );
    assert_eq!(
        Location::parse(input),
        Err(expected),
        "Location::parse({input:?})"
    );
}

fn check_fragment(input: &str, expected: ParseError) {
    assert_eq!(
        JsonPointer::parse_fragment(input),
        Err(expected),
        "parse_fragment({input:?})"
    );
}

#[test]
fn plain_form_errors_carry_the_offset() {
    check_plain("a", ParseError::MissingLeadingSlash { offset: 0 });
    check_plain("#/a", ParseError::MissingLeadingSlash { offset: 0 });
    check_plain("~0", ParseError::MissingLeadingSlash { offset: 0 });
    check_plain("/~", ParseError::InvalidTildeEscape { offset: 1 });
    check_plain("/a~2", ParseError::InvalidTildeEscape { offset: 2 });
    check_plain("/a/b~", ParseError::InvalidTildeEscape { offset: 4 });
    check_plain("/é~x", ParseError::InvalidTildeEscape { offset: 3 });
    check_plain("/~0/~1/~~0", ParseError::InvalidTildeEscape { offset: 7 });
}

#[test]
fn fragment_form_errors_carry_the_offset_as_written() {
    check_fragment("", ParseError::MissingHash { offset: 0 });
    check_fragment("/a", ParseError::MissingHash { offset: 0 });
    check_fragment("#a", ParseError::MissingLeadingSlash { offset: 1 });
    check_fragment("#%41", ParseError::MissingLeadingSlash { offset: 1 });
    check_fragment("#/%", ParseError::InvalidPercentEscape { offset: 2 });
    check_fragment("#/%4", ParseError::InvalidPercentEscape { offset: 2 });
    check_fragment("#/a%g1", ParseError::InvalidPercentEscape { offset: 3 });
    check_fragment("#/%20%2", ParseError::InvalidPercentEscape { offset: 5 });
    check_fragment("#/%FF", ParseError::InvalidUtf8 { offset: 2 });
    check_fragment("#/%20%C3", ParseError::InvalidUtf8 { offset: 5 });
    check_fragment("#/é%C3%28", ParseError::InvalidUtf8 { offset: 4 });
    check_fragment("#/%ED%A0%80", ParseError::InvalidUtf8 { offset: 2 });
    check_fragment("#/%20~2", ParseError::InvalidTildeEscape { offset: 5 });
    check_fragment("#/%7E2", ParseError::InvalidTildeEscape { offset: 2 });
    check_fragment("#/%20/a%7E", ParseError::InvalidTildeEscape { offset: 7 });
}

#[test]
fn parse_error_messages() {
    let cases = [
        (
            ParseError::MissingLeadingSlash { offset: 1 },
            "expected '/' at byte 1",
        ),
        (ParseError::MissingHash { offset: 0 }, "expected '#' at byte 0"),
        (
            ParseError::InvalidTildeEscape { offset: 2 },
            "'~' not followed by '0' or '1' at byte 2",
        ),
        (
            ParseError::InvalidPercentEscape { offset: 3 },
            "invalid percent escape at byte 3",
        ),
        (
            ParseError::InvalidUtf8 { offset: 4 },
            "percent-decoded bytes are not UTF-8 at byte 4",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
}

#[test]
fn resolve_errors_name_the_longest_existing_prefix() {
    let document = json!({"a": {"b": [10, 20], "s": "text", "n": null}, "t": true, "x": 1.5});
    let cases = [
        (
            "/z",
            ResolveError::MissingKey {
                prefix: JsonPointer::root(),
                key: "z".into(),
            },
        ),
        (
            "/a/c/d",
            ResolveError::MissingKey {
                prefix: ptr("/a"),
                key: "c".into(),
            },
        ),
        (
            "/a/b/2",
            ResolveError::IndexOutOfBounds {
                prefix: ptr("/a/b"),
                token: "2".into(),
                len: 2,
            },
        ),
        (
            "/a/b/99999999999999999999999",
            ResolveError::IndexOutOfBounds {
                prefix: ptr("/a/b"),
                token: "99999999999999999999999".into(),
                len: 2,
            },
        ),
        (
            "/a/b/01",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: "01".into(),
            },
        ),
        (
            "/a/b/00",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: "00".into(),
            },
        ),
        (
            "/a/b/+1",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: "+1".into(),
            },
        ),
        (
            "/a/b/-1",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: "-1".into(),
            },
        ),
        (
            "/a/b/1e0",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: "1e0".into(),
            },
        ),
        (
            "/a/b/ 1",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: " 1".into(),
            },
        ),
        (
            "/a/b/",
            ResolveError::InvalidIndex {
                prefix: ptr("/a/b"),
                token: String::new(),
            },
        ),
        (
            "/a/b/-",
            ResolveError::PastTheEnd {
                prefix: ptr("/a/b"),
                len: 2,
            },
        ),
        (
            "/a/b/-/0",
            ResolveError::PastTheEnd {
                prefix: ptr("/a/b"),
                len: 2,
            },
        ),
        (
            "/a/b/0/k",
            ResolveError::NotAContainer {
                prefix: ptr("/a/b/0"),
                token: "k".into(),
                kind: ScalarKind::Number,
            },
        ),
        (
            "/a/s/0",
            ResolveError::NotAContainer {
                prefix: ptr("/a/s"),
                token: "0".into(),
                kind: ScalarKind::String,
            },
        ),
        (
            "/a/n/x",
            ResolveError::NotAContainer {
                prefix: ptr("/a/n"),
                token: "x".into(),
                kind: ScalarKind::Null,
            },
        ),
        (
            "/t/x",
            ResolveError::NotAContainer {
                prefix: ptr("/t"),
                token: "x".into(),
                kind: ScalarKind::Boolean,
            },
        ),
        (
            "/x/",
            ResolveError::NotAContainer {
                prefix: ptr("/x"),
                token: String::new(),
                kind: ScalarKind::Number,
            },
        ),
    ];
    for (pointer, expected) in cases {
        let pointer = ptr(pointer);
        let error = pointer.resolve(&document).unwrap_err();
        assert_eq!(error, expected, "resolve {pointer}");
        assert!(
            error.prefix().get(&document).is_some(),
            "the prefix of {pointer} exists"
        );
        assert!(pointer.starts_with(error.prefix()));
        assert_eq!(pointer.tokens().nth(error.prefix().depth()), Some(error.token()));
        assert_eq!(pointer.get(&document), None);
        let mut copy = document.clone();
        assert_eq!(pointer.resolve_mut(&mut copy), Err(expected));
        assert_eq!(pointer.get_mut(&mut copy), None);
    }
}

#[test]
fn an_object_key_that_looks_like_an_index_is_just_a_key() {
    let document = json!({"01": "a", "-": "b", "0": "c"});
    assert_eq!(ptr("/01").get(&document), Some(&json!("a")));
    assert_eq!(ptr("/-").get(&document), Some(&json!("b")));
    assert_eq!(ptr("/0").get(&document), Some(&json!("c")));
}

#[test]
fn resolve_error_messages() {
    let cases = [
        (
            ResolveError::MissingKey {
                prefix: JsonPointer::root(),
                key: "k\"".into(),
            },
            r#"the object at the root has no member "k\"""#,
        ),
        (
            ResolveError::IndexOutOfBounds {
                prefix: ptr("/a"),
                token: "5".into(),
                len: 2,
            },
            r#"index 5 is out of bounds for the array of length 2 at "/a""#,
        ),
        (
            ResolveError::InvalidIndex {
                prefix: ptr("/a~1b"),
                token: "01".into(),
            },
            r#""01" is not an array index, for the array at "/a~1b""#,
        ),
        (
            ResolveError::PastTheEnd {
                prefix: ptr("/a"),
                len: 0,
            },
            r#""-" names the element after the last of the array at "/a", which does not exist"#,
        ),
        (
            ResolveError::NotAContainer {
                prefix: ptr("/s"),
                token: "x".into(),
                kind: ScalarKind::String,
            },
            r#"the value at "/s" is a string, which has no member "x""#,
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
    assert_eq!(ScalarKind::Boolean.to_string(), "boolean");
    assert_eq!(ScalarKind::Null.to_string(), "null");
    assert_eq!(ScalarKind::Number.to_string(), "number");
}

#[test]
fn get_never_returns_the_element_past_the_end() {
    let mut document = json!([1, 2, 3]);
    assert_eq!(ptr("/-").get(&document), None);
    assert_eq!(ptr("/-").get_mut(&mut document), None);
    assert_eq!(ptr("/2").get(&document), Some(&json!(3)));
    assert_eq!(ptr("/3").get(&document), None);
}

#[test]
fn resolve_mut_and_get_mut_modify_in_place() {
    let mut document = json!({"a": [{"b": 1}]});
    *ptr("/a/0/b").resolve_mut(&mut document).unwrap() = json!(2);
    *ptr("/a/0").get_mut(&mut document).unwrap() = json!({"c": 3});
    assert_eq!(document, json!({"a": [{"c": 3}]}));
    *JsonPointer::root().get_mut(&mut document).unwrap() = json!(null);
    assert_eq!(document, json!(null));
}

fn ptr(text: &str) -> JsonPointer {
    JsonPointer::parse(text).unwrap()
}
