//! `Location`: building, ordering, hashing, serde, and agreement with `JsonPointer`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeSet, HashSet};

use oa_pointer::{JsonPointer, Location, Segment};

fn loc(text: &str) -> Location {
    Location::parse(text).unwrap()
}

#[test]
fn orders_indices_numerically_keys_lexicographically_and_prefixes_first() {
    let sorted = [
        "", "/a", "/a/2", "/a/10", "/a/10/0", "/a/x", "/a~1", "/b", "/~0", "/é",
    ];
    let mut shuffled: Vec<Location> = sorted.iter().rev().map(|text| loc(text)).collect();
    shuffled.swap(0, 4);
    shuffled.sort();
    let texts: Vec<String> = shuffled.iter().map(ToString::to_string).collect();
    assert_eq!(texts, sorted);
    let mut pointers: Vec<JsonPointer> = sorted
        .iter()
        .rev()
        .map(|text| JsonPointer::parse(text).unwrap())
        .collect();
    pointers.sort();
    let texts: Vec<String> = pointers.iter().map(ToString::to_string).collect();
    assert_eq!(texts, sorted, "JsonPointer orders the same way");
}

#[test]
fn indices_sort_before_keys_and_leading_zeros_are_keys() {
    assert!(
        loc("/9") < loc("/01"),
        "01 is not an index, so it sorts with the keys"
    );
    assert!(
        loc("/18446744073709551615") < loc("/18446744073709551616"),
        "beyond usize is a key"
    );
    assert!(loc("/0") < loc("/-"));
    assert!(loc("/a") < loc("/a/0"));
}

#[test]
fn escaped_keys_compare_by_their_decoded_form() {
    // Decoded: "a/" < "a0" because '/' (0x2F) < '0' (0x30); the escaped forms "a~1" > "a0" would say otherwise.
    assert!(loc("/a~1") < loc("/a0"));
    // Decoded: "~" (0x7E) > "}" (0x7D).
    assert!(loc("/~0") > loc("/}"));
    assert!(JsonPointer::parse("/a~1").unwrap() < JsonPointer::parse("/a0").unwrap());
}

#[test]
fn a_key_that_reads_as_an_index_is_that_index() {
    let mut by_key = Location::root();
    by_key.push_key("12");
    let mut by_index = Location::root();
    by_index.push_index(12);
    assert_eq!(by_key, by_index);
    let set: HashSet<Location> = [by_key, by_index].into_iter().collect();
    assert_eq!(set.len(), 1);
}

#[test]
fn push_pop_and_parent() {
    let mut location = Location::root();
    assert!(location.is_root());
    location.push_key("a/b");
    location.push_index(0);
    location.push(Segment::Key("~"));
    assert_eq!(location.as_str(), "/a~1b/0/~0");
    assert_eq!(location.depth(), 3);
    assert_eq!(location.parent(), Some(loc("/a~1b/0")));
    assert!(location.pop());
    location.push_key("");
    assert_eq!(location.as_str(), "/a~1b/0/");
    assert!(location.pop());
    assert!(location.pop());
    assert!(location.pop());
    assert_eq!(location, Location::root());
    assert!(!location.pop());
    assert_eq!(location.parent(), None);
}

#[test]
fn from_tokens_accepts_keys_indices_and_segments() {
    let keys = vec![String::from("x"), String::from("y/z")];
    assert_eq!(Location::from_tokens(&keys).as_str(), "/x/y~1z");
    assert_eq!(Location::from_tokens([3usize, 4]).as_str(), "/3/4");
    assert_eq!(
        Location::from_tokens([Segment::Key("k"), Segment::Index(7)]).as_str(),
        "/k/7"
    );
    assert_eq!(Location::from_tokens(Vec::<&str>::new()), Location::root());
}

#[test]
fn converts_to_and_from_pointers() {
    let pointer = JsonPointer::from_tokens(["a b", "~/", "0"]);
    let location = Location::from(&pointer);
    assert_eq!(location.as_str(), "/a b/~0~1/0");
    assert_eq!(location.to_pointer(), pointer);
    assert_eq!(JsonPointer::from(&location), pointer);
    assert_eq!(location.to_fragment(), pointer.to_fragment());
    assert_eq!(Location::from(pointer.clone()).to_string(), pointer.to_string());
}

#[test]
fn serializes_as_the_plain_string() {
    let location = Location::from_tokens(["a/b", "c"]);
    assert_eq!(serde_json::to_string(&location).unwrap(), r#""/a~1b/c""#);
    assert_eq!(
        serde_json::from_str::<Location>(r#""/a~1b/c""#).unwrap(),
        location
    );
    assert!(serde_json::from_str::<Location>(r#""a""#).is_err());
    assert!(serde_json::from_str::<Location>(r#""/~2""#).is_err());
    assert!(serde_json::from_str::<Location>("3").is_err());

    let pointer = location.to_pointer();
    assert_eq!(serde_json::to_string(&pointer).unwrap(), r#""/a~1b/c""#);
    assert_eq!(
        serde_json::from_str::<JsonPointer>(r#""/a~1b/c""#).unwrap(),
        pointer
    );
    let error = serde_json::from_str::<JsonPointer>(r#""/~2""#).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("'~' not followed by '0' or '1' at byte 1"),
        "{error}"
    );
}

#[test]
fn debug_shows_the_plain_form() {
    assert_eq!(format!("{:?}", loc("/a/0")), r#"Location("/a/0")"#);
    assert_eq!(
        format!("{:?}", JsonPointer::parse("/a/0").unwrap()),
        r#"JsonPointer("/a/0")"#
    );
}

#[test]
fn btree_and_hash_sets_agree() {
    let texts = ["/a", "/a/0", "/a/00", "/a/0", "/b", "/a"];
    let btree: BTreeSet<Location> = texts.iter().map(|text| loc(text)).collect();
    let hash: HashSet<Location> = texts.iter().map(|text| loc(text)).collect();
    assert_eq!(btree.len(), 4);
    assert_eq!(hash.len(), 4);
}

#[test]
fn location_and_pointer_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Location>();
    assert_send_sync::<JsonPointer>();
    assert_send_sync::<oa_pointer::ParseError>();
    assert_send_sync::<oa_pointer::ResolveError>();
}

#[test]
fn push_index_writes_decimal_digits() {
    for index in [0, 7, 9, 10, 99, 100, 12_345, usize::MAX] {
        let mut location = Location::with_capacity(4);
        location.push_index(index);
        assert_eq!(location.as_str(), format!("/{index}"));
    }
}

#[test]
fn only_the_root_is_the_root() {
    assert!(Location::root().is_root());
    assert!(!loc("/a").is_root());
    assert!(
        !loc("/").is_root(),
        "\"/\" names the member with the empty name, not the document"
    );
}

#[test]
fn from_str_parses_as_parse_does() {
    let parsed: Location = "/a~1b/0".parse().unwrap();
    assert_eq!(parsed, loc("/a~1b/0"));
    assert_eq!(parsed.as_str(), "/a~1b/0");
    assert_eq!(
        "a".parse::<Location>(),
        Err(oa_pointer::ParseError::MissingLeadingSlash { offset: 0 })
    );
}

#[test]
fn hashes_as_its_plain_form() {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    for text in ["", "/a", "/a~1b/0", "/é/10"] {
        assert_eq!(hasher.hash_one(loc(text)), hasher.hash_one(text), "{text:?}");
    }
    assert_ne!(hasher.hash_one(loc("/a")), hasher.hash_one(loc("/b")));
}

#[test]
fn sort_keys_escape_nul_bytes_in_keys() {
    // "" < "\0" as keys, so every location under "/" (the empty key) sorts before "/\0"; the sort key must say the
    // same, which it can only if the NUL byte is escaped rather than read as the key's terminator.
    let key = |location: &Location| {
        let mut key = Vec::new();
        location.push_sort_key(&mut key);
        key
    };
    let (empty_then_x, nul) = (loc("//x"), Location::from_tokens(["\0"]));
    assert!(empty_then_x < nul);
    assert!(key(&empty_then_x) < key(&nul));
    let mut by_segment = Vec::new();
    Segment::Key("\0").push_sort_key(&mut by_segment);
    assert_eq!(by_segment, [0x02, 0x00, 0xFF, 0x00, 0x00]);
}

#[test]
fn a_digit_then_a_colon_is_a_key_not_an_index() {
    // ':' follows '9' in ASCII: a token with it is not decimal, so it sorts after every index.
    assert!(loc("/1:") > loc("/30"));
    assert!(loc("/1:") > loc("/18446744073709551615"));
}

/// The order a location must have, computed independently of the crate: its decoded tokens compared one by one,
/// a canonical decimal index (no leading zero, fits a `usize`) numerically and before any name, names by their
/// bytes, and a location that is a prefix of another first.
fn reference_order(left: &str, right: &str) -> std::cmp::Ordering {
    let decode = |text: &str| -> Vec<String> {
        text.split('/')
            .skip(1)
            .map(|token| token.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    let index = |token: &str| -> Option<usize> {
        let canonical = !token.is_empty()
            && token.bytes().all(|byte| byte.is_ascii_digit())
            && (token == "0" || !token.starts_with('0'));
        canonical.then(|| token.parse().ok()).flatten()
    };
    let (left, right) = (decode(left), decode(right));
    for (a, b) in left.iter().zip(&right) {
        let order = match (index(a), index(b)) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.as_bytes().cmp(b.as_bytes()),
        };
        if order.is_ne() {
            return order;
        }
    }
    left.len().cmp(&right.len())
}

/// Found by cargo-mutants (issue 39: `<=` to `>` in `is_short_index` went unnoticed): every pair of locations over
/// tokens chosen to reach each branch of `Location::cmp`, one and two steps deep and under a shared first step,
/// orders as the decoded tokens do. The tokens: names with and without escapes, bytes below `0` (`-`, `!`, space),
/// short indices, digit runs of 19, 20 and 21 digits on both sides of `usize::MAX`, leading zeros, the empty token.
#[test]
fn location_order_is_the_decoded_token_order_on_every_branch() {
    let tokens = [
        "",
        "0",
        "1",
        "9",
        "10",
        "01",
        "00",
        "-1",
        "!",
        " ",
        "a",
        "b",
        "ab",
        "a~0",
        "~0",
        "~1",
        "~01",
        "~0a",
        "1a",
        "9a",
        "1~0",
        "1234567890123456789",
        "9999999999999999999",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
        "100000000000000000000",
        "é",
    ];
    let mut texts: Vec<String> = Vec::new();
    for first in tokens {
        texts.push(format!("/{first}"));
        for second in tokens {
            texts.push(format!("/{first}/{second}"));
        }
    }
    texts.push(String::new());
    let mut checked = 0;
    for left in &texts {
        for right in &texts {
            let want = reference_order(left, right);
            assert_eq!(loc(left).cmp(&loc(right)), want, "{left:?} vs {right:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, texts.len() * texts.len());
    assert!(
        loc("/99999999999999999999") > loc("/100000000000000000000"),
        "two names past usize, by bytes"
    );
}

/// Members of the root whose first bytes differ (the pairs `cmp` settles from those bytes alone) order as their
/// pointers do, including the first bytes it leaves to the general case: a digit (an index, or a name that looks
/// like one), an escape, an empty name, a multi-byte character.
#[test]
fn root_members_differing_at_their_first_byte_order_as_pointers_do() {
    let texts = [
        "", "/", "//a", "/ ", "/a", "/a/0", "/b", "/B", "/z", "/0", "/1", "/10", "/2", "/9a", "/~0", "/~1",
        "/é", "/\u{7f}", "/-", "/a~1b", "/ab",
    ];
    for left in texts {
        for right in texts {
            let (l, r) = (loc(left), loc(right));
            assert_eq!(
                l.cmp(&r),
                l.to_pointer().cmp(&r.to_pointer()),
                "{left:?} vs {right:?}"
            );
        }
    }
}
