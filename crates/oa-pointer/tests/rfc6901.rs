//! Every example of RFC 6901 §5 (plain form) and §6 (URI-fragment form), in both directions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_pointer::{JsonPointer, Location};
use serde_json::{Value, json};

/// The example document of RFC 6901 §5.
fn rfc_document() -> Value {
    json!({
        "foo": ["bar", "baz"],
        "": 0,
        "a/b": 1,
        "c%d": 2,
        "e^f": 3,
        "g|h": 4,
        "i\\j": 5,
        "k\"l": 6,
        " ": 7,
        "m~n": 8
    })
}

/// Each §5 plain-form pointer with its §6 fragment form and the value both name.
fn rfc_examples() -> Vec<(&'static str, &'static str, Value)> {
    let document = rfc_document();
    vec![
        ("", "#", document),
        ("/foo", "#/foo", json!(["bar", "baz"])),
        ("/foo/0", "#/foo/0", json!("bar")),
        ("/", "#/", json!(0)),
        ("/a~1b", "#/a~1b", json!(1)),
        ("/c%d", "#/c%25d", json!(2)),
        ("/e^f", "#/e%5Ef", json!(3)),
        ("/g|h", "#/g%7Ch", json!(4)),
        ("/i\\j", "#/i%5Cj", json!(5)),
        ("/k\"l", "#/k%22l", json!(6)),
        ("/ ", "#/%20", json!(7)),
        ("/m~0n", "#/m~0n", json!(8)),
    ]
}

#[test]
fn section_5_plain_form_resolves_every_example() {
    let document = rfc_document();
    for (plain, _, expected) in rfc_examples() {
        let pointer = JsonPointer::parse(plain).unwrap();
        assert_eq!(pointer.get(&document), Some(&expected), "get {plain:?}");
        assert_eq!(
            pointer.resolve(&document).unwrap(),
            &expected,
            "resolve {plain:?}"
        );
        assert_eq!(pointer.to_string(), plain, "display {plain:?}");
    }
}

#[test]
fn section_6_fragment_form_resolves_every_example() {
    let document = rfc_document();
    for (plain, fragment, expected) in rfc_examples() {
        let pointer = JsonPointer::parse_fragment(fragment).unwrap();
        assert_eq!(
            pointer,
            JsonPointer::parse(plain).unwrap(),
            "{fragment:?} is {plain:?}"
        );
        assert_eq!(pointer.get(&document), Some(&expected), "get {fragment:?}");
        assert_eq!(pointer.to_fragment(), fragment, "to_fragment of {plain:?}");
    }
}

#[test]
fn section_5_and_6_through_location() {
    let document = rfc_document();
    for (plain, fragment, expected) in rfc_examples() {
        let location = Location::parse(plain).unwrap();
        assert_eq!(location.to_string(), plain);
        assert_eq!(location.to_fragment(), fragment);
        assert_eq!(
            location.to_pointer().get(&document),
            Some(&expected),
            "location {plain:?}"
        );
        assert_eq!(
            Location::from(&JsonPointer::parse_fragment(fragment).unwrap()),
            location
        );
    }
}

#[test]
fn section_5_decoded_tokens() {
    let cases: &[(&str, &[&str])] = &[
        ("", &[]),
        ("/", &[""]),
        ("/a~1b", &["a/b"]),
        ("/m~0n", &["m~n"]),
        ("/foo/0", &["foo", "0"]),
        ("/i\\j", &["i\\j"]),
        ("/k\"l", &["k\"l"]),
        // RFC 6901 §4: `~01` decodes to `~1`, not to `/` (~1 is read before ~0 would be).
        ("/~01", &["~1"]),
        ("//", &["", ""]),
    ];
    for (plain, tokens) in cases {
        let pointer = JsonPointer::parse(plain).unwrap();
        assert_eq!(
            pointer.tokens().collect::<Vec<_>>(),
            *tokens,
            "tokens of {plain:?}"
        );
        let location = Location::parse(plain).unwrap();
        assert_eq!(
            location.tokens().collect::<Vec<_>>(),
            *tokens,
            "location tokens of {plain:?}"
        );
        assert_eq!(location.depth(), tokens.len());
        assert_eq!(pointer.depth(), tokens.len());
    }
}

#[test]
fn fragment_form_encodes_outside_rfc_3986_fragment_characters() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "#"),
        (&["first name"], "#/first%20name"),
        (&["é"], "#/%C3%A9"),
        (&["漢"], "#/%E6%BC%A2"),
        (&["a/b", "m~n"], "#/a~1b/m~0n"),
        (&["#"], "#/%23"),
        (&["%"], "#/%25"),
        (&["\u{0}\n\u{7f}"], "#/%00%0A%7F"),
        (&["[]{}<>`"], "#/%5B%5D%7B%7D%3C%3E%60"),
        // Kept raw: unreserved, sub-delims, ':' '@' '/' '?' (the '/' only ever appears as a separator).
        (&["aZ09-._~!$&'()*+,;=:@?"], "#/aZ09-._~0!$&'()*+,;=:@?"),
    ];
    for (tokens, fragment) in cases {
        let pointer = JsonPointer::from_tokens(tokens.iter().copied());
        assert_eq!(pointer.to_fragment(), *fragment);
        assert_eq!(
            Location::from_tokens(tokens.iter().copied()).to_fragment(),
            *fragment
        );
        assert_eq!(JsonPointer::parse_fragment(fragment).unwrap(), pointer);
    }
}

#[test]
fn fragment_form_decodes_lowercase_escapes_and_literal_characters() {
    let cases: &[(&str, &[&str])] = &[
        ("#/%c3%a9", &["é"]),
        ("#/é", &["é"]),
        ("#/a b", &["a b"]),
        // A decoded `/` separates tokens and a decoded `~0` is an escape: §6 decodes first, then parses.
        ("#/a%2Fb", &["a", "b"]),
        ("#/%7E0", &["~"]),
        ("#/~%31", &["/"]),
    ];
    for (fragment, tokens) in cases {
        let pointer = JsonPointer::parse_fragment(fragment).unwrap();
        assert_eq!(
            pointer.tokens().collect::<Vec<_>>(),
            *tokens,
            "tokens of {fragment:?}"
        );
    }
}

#[test]
fn last_is_the_last_decoded_token() {
    assert_eq!(JsonPointer::root().last(), None);
    assert_eq!(JsonPointer::parse("/foo/0").unwrap().last(), Some("0"));
    assert_eq!(JsonPointer::parse("/a~1b").unwrap().last(), Some("a/b"));
    assert_eq!(JsonPointer::parse("/x/").unwrap().last(), Some(""));
}
