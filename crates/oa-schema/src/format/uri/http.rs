//! The common shape of a URI in instances, `http://` or `https://`, a host of plain characters, then a path, a query
//! and a fragment of plain characters, checked in one pass over its bytes. The full parser scans such a URI once per
//! delimiter (`#`, `?`, `:`, `/`, `@`) and then once per part; `format: uri` runs on every `is_valid` call of many
//! small schemas. Anything else (userinfo, a port, an IP literal, an escape, a byte outside the plain sets) goes to
//! the full parser, which also has the last word on every invalid URI: this only ever says yes.

use super::{Ascii, FRAGMENT, PATH, SUB_DELIMS, UNRESERVED};

/// A reg-name host.
const HOST: Ascii = UNRESERVED.with(SUB_DELIMS);

/// Per byte, the parts it may stand in: bit 0 the host, bit 1 the path, bit 2 the query and the fragment. One load
/// per byte: a test against a 128-bit set shifted a `u128`, which was most of this loop.
static ALLOWED: [u8; 256] = allowed();

const fn allowed() -> [u8; 256] {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 128 {
        let mut bits = 0;
        if HOST.contains(byte) {
            bits |= 1;
        }
        if PATH.contains(byte) {
            bits |= 2;
        }
        if FRAGMENT.contains(byte) {
            bits |= 4;
        }
        table[byte as usize] = bits;
        byte += 1;
    }
    table
}

/// Whether `text` is an `http` or `https` URI of the plain shape (then it is a valid URI, URI reference, IRI and IRI
/// reference); `false` says nothing.
#[inline]
pub(super) fn is_plain(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
    else {
        return false;
    };
    // The part being read: 0 host, 1 path, 2 query, 3 fragment; each byte outside its set may only start a later
    // part (`/`, `?`, `#`).
    let mut part = 0;
    let mut allowed = 1;
    for &byte in rest.as_bytes() {
        if ALLOWED[usize::from(byte)] & allowed != 0 {
            continue;
        }
        let next = match byte {
            b'/' => 1,
            b'?' => 2,
            b'#' => 3,
            _ => return false,
        };
        if next <= part {
            return false;
        }
        part = next;
        allowed = if next == 1 { 2 } else { 4 };
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::{Kind, parse};
    use super::is_plain;
    use proptest::prelude::*;

    #[test]
    fn the_common_shapes_are_plain() {
        for text in [
            "https://json.schemastore.org/foo.json",
            "http://example.com",
            "https://example.com/a/b?x=1&y=2#top",
            "http://",
            "https://a.b/c:d@e?f/g?#h?/",
        ] {
            assert!(is_plain(text), "{text}");
            assert!(parse(text, Kind::Uri), "{text}");
        }
        for text in [
            "https://user@example.com/",
            "https://example.com:8080/",
            "https://[::1]/",
            "https://example.com/a%20b",
            "https://example.com/a#b#c",
            "ftp://example.com/",
            "https://example.com/ a",
            "https://é.example/",
        ] {
            assert!(!is_plain(text), "{text}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// Every plain yes is the full parser's yes, for each of the four kinds; texts near the shape, with every
        /// delimiter and some bytes outside the sets.
        #[test]
        fn every_plain_yes_is_the_parsers_yes(
            scheme in prop::sample::select(vec!["http://", "https://", "http:/", "HTTP://", "https:", ""]),
            tail in "[a-z0-9:/?#@!$&'()*+,;=\\[\\]._~%\\- \"<>\u{e9}]{0,16}",
        ) {
            let text = format!("{scheme}{tail}");
            if is_plain(&text) {
                for kind in [Kind::Uri, Kind::UriReference, Kind::Iri, Kind::IriReference] {
                    prop_assert!(parse(&text, kind), "{:?} {:?}", text, kind);
                }
            }
        }
    }
}
