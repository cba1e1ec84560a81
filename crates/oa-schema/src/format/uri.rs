//! URIs and IRIs: `uri`, `uri-reference` (RFC 3986 section 3 and 4.1) and `iri`, `iri-reference` (RFC 3987,
//! which adds non-ASCII `ucschar` everywhere and `iprivate` in queries).
//!
//! A structural check of the generic syntax: scheme, authority (userinfo, host as IP literal, IPv4 or reg-name,
//! numeric port), path forms, query and fragment, with `%HH` escapes. Scheme-specific rules are not checked, and a
//! reg-name host such as `999.999.999.999` is valid, as RFC 3986 allows.

use super::ip::is_ipv6;

mod http;

/// An absolute URI (a scheme is required), ASCII only.
pub(super) fn is_uri(text: &str) -> bool {
    http::is_plain(text) || parse(text, Kind::Uri)
}

/// A URI or a relative reference, ASCII only.
pub(super) fn is_uri_reference(text: &str) -> bool {
    http::is_plain(text) || parse(text, Kind::UriReference)
}

/// An absolute IRI.
pub(super) fn is_iri(text: &str) -> bool {
    http::is_plain(text) || parse(text, Kind::Iri)
}

/// An IRI or a relative IRI reference.
pub(super) fn is_iri_reference(text: &str) -> bool {
    http::is_plain(text) || parse(text, Kind::IriReference)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Uri,
    UriReference,
    Iri,
    IriReference,
}

impl Kind {
    fn is_iri(self) -> bool {
        matches!(self, Self::Iri | Self::IriReference)
    }

    fn needs_scheme(self) -> bool {
        matches!(self, Self::Uri | Self::Iri)
    }
}

fn parse(text: &str, kind: Kind) -> bool {
    let iri = kind.is_iri();
    let (rest, fragment) = match split_at_byte(text, b'#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (text, None),
    };
    if let Some(fragment) = fragment
        && !all_chars(fragment, iri, FRAGMENT, false)
    {
        return false;
    }
    let (rest, query) = match split_at_byte(rest, b'?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    if let Some(query) = query
        && !all_chars(query, iri, FRAGMENT, true)
    {
        return false;
    }
    let (scheme, hier) = split_scheme(rest);
    if scheme.is_none() && kind.needs_scheme() {
        return false;
    }
    if let Some(after_slashes) = hier.strip_prefix("//") {
        let (authority, path) = match position(after_slashes, b'/') {
            Some(idx) => after_slashes.split_at(idx),
            None => (after_slashes, ""),
        };
        return is_authority(authority, iri) && is_path(path, iri);
    }
    if scheme.is_none() {
        // path-noscheme: the first segment may not hold a colon (it would read as a scheme).
        let first_segment = hier.split('/').next().unwrap_or("");
        if first_segment.contains(':') {
            return false;
        }
    }
    is_path(hier, iri)
}

/// `text` around its first `byte` (an ASCII character). A plain scan: URIs are short, and `split_once`'s searcher
/// cost more to set up than the scan.
fn split_at_byte(text: &str, byte: u8) -> Option<(&str, &str)> {
    let at = position(text, byte)?;
    Some((text.get(..at)?, text.get(at + 1..)?))
}

/// Where `byte` (an ASCII character) first occurs in `text`.
fn position(text: &str, byte: u8) -> Option<usize> {
    text.bytes().position(|candidate| candidate == byte)
}

/// Splits `scheme ":"` off when the text before the first `:` is a valid scheme.
fn split_scheme(text: &str) -> (Option<&str>, &str) {
    if let Some((scheme, rest)) = split_at_byte(text, b':') {
        let mut chars = scheme.chars();
        if chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            return (Some(scheme), rest);
        }
    }
    (None, text)
}

fn is_authority(authority: &str, iri: bool) -> bool {
    let (userinfo, host_port) = match split_at_byte(authority, b'@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    if let Some(userinfo) = userinfo
        && !all_chars(userinfo, iri, USERINFO, false)
    {
        return false;
    }
    let (host, port) = if host_port.starts_with('[') {
        let Some(end) = host_port.find(']') else {
            return false;
        };
        let (host, after) = host_port.split_at(end + 1);
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None => return false,
            },
        }
    } else {
        match split_at_byte(host_port, b':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        }
    };
    if let Some(port) = port
        && !port.bytes().all(|b| b.is_ascii_digit())
    {
        return false;
    }
    if let Some(literal) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return is_ipv6(literal) || is_ip_future(literal);
    }
    all_chars(host, iri, UNRESERVED.with(SUB_DELIMS), false)
}

/// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`, `v` in either case.
fn is_ip_future(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(['v', 'V']) else {
        return false;
    };
    let Some((version, body)) = rest.split_once('.') else {
        return false;
    };
    !version.is_empty()
        && version.bytes().all(|b| b.is_ascii_hexdigit())
        && !body.is_empty()
        && body
            .chars()
            .all(|c| u8::try_from(c).is_ok_and(|byte| USERINFO.contains(byte)))
}

fn is_path(path: &str, iri: bool) -> bool {
    all_chars(path, iri, PATH, false)
}

/// Whether every character of `text` is in `allowed`, a `%HH` escape, or (for IRIs) a `ucschar`, or an `iprivate`
/// where `private` allows one. Byte by byte with one bit test per ASCII character: URIs are checked on every
/// `is_valid` call of a schema with `format: uri`, and a test per character class was most of its cost.
fn all_chars(text: &str, iri: bool, allowed: Ascii, private: bool) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if allowed.contains(byte) {
            at += 1;
        } else if byte == b'%' {
            let escaped = bytes.get(at + 1..at + 3);
            if !escaped.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            at += 3;
        } else {
            // Past the ASCII sets: only an IRI's `ucschar` (or `iprivate`) passes.
            let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                return false;
            };
            if !(iri && (is_ucschar(c) || (private && is_iprivate(c)))) {
                return false;
            }
            at += c.len_utf8();
        }
    }
    true
}

/// A set of ASCII characters, one bit each.
#[derive(Debug, Clone, Copy)]
struct Ascii(u128);

impl Ascii {
    const fn of(chars: &[u8]) -> Self {
        let mut bits = 0;
        let mut at = 0;
        while at < chars.len() {
            bits |= 1 << chars[at];
            at += 1;
        }
        Self(bits)
    }

    const fn with(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    #[inline]
    const fn contains(self, byte: u8) -> bool {
        byte < 128 && self.0 & (1 << byte) != 0
    }
}

const ALNUM: Ascii = Ascii::of(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
const UNRESERVED: Ascii = ALNUM.with(Ascii::of(b"-._~"));
const SUB_DELIMS: Ascii = Ascii::of(b"!$&'()*+,;=");
const USERINFO: Ascii = UNRESERVED.with(SUB_DELIMS).with(Ascii::of(b":"));
const PCHAR: Ascii = USERINFO.with(Ascii::of(b"@"));
const PATH: Ascii = PCHAR.with(Ascii::of(b"/"));
const FRAGMENT: Ascii = PATH.with(Ascii::of(b"?"));

/// RFC 3987 `ucschar`.
fn is_ucschar(c: char) -> bool {
    let code = u32::from(c);
    matches!(code, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || ((0x10000..0xE0000).contains(&code) && (code & 0xFFFF) <= 0xFFFD)
        || (0xE1000..=0xEFFFD).contains(&code)
}

/// RFC 3987 `iprivate` (allowed in queries only).
fn is_iprivate(c: char) -> bool {
    matches!(u32::from(c), 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

#[cfg(test)]
mod tests {
    use super::{
        Ascii, FRAGMENT, PATH, SUB_DELIMS, UNRESERVED, USERINFO, all_chars, is_iprivate, is_ucschar,
    };
    use proptest::prelude::*;

    /// A per-character test of the form the bit sets replaced.
    type CharTest<'a> = dyn Fn(char) -> bool + 'a;

    /// The character-by-character form the bit sets replaced, as the oracle.
    fn by_chars(text: &str, iri: bool, allowed: impl Fn(char) -> bool) -> bool {
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '%' {
                let (Some(high), Some(low)) = (chars.next(), chars.next()) else {
                    return false;
                };
                if !high.is_ascii_hexdigit() || !low.is_ascii_hexdigit() {
                    return false;
                }
            } else if !(allowed(c) || (iri && is_ucschar(c))) {
                return false;
            }
        }
        true
    }

    fn unreserved(c: char) -> bool {
        c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
    }

    fn sub_delim(c: char) -> bool {
        matches!(
            c,
            '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
        )
    }

    fn pchar(c: char) -> bool {
        unreserved(c) || sub_delim(c) || c == ':' || c == '@'
    }

    proptest! {
        /// Each character class of the parser accepts what the per-character tests accepted, escapes, IRI
        /// characters and `iprivate` included.
        #[test]
        fn bit_sets_agree_with_character_tests(
            text in "[a-zA-Z0-9%:/?#@!$&'()*+,;=\\[\\]._~ \"<>\\x00\\x7f\u{a0}\u{e000}\u{fdd0}\u{10000}\u{f0000}-]{0,12}",
            iri in any::<bool>(),
        ) {
            let cases: [(Ascii, bool, &CharTest<'_>); 5] = [
                (FRAGMENT, false, &|c| pchar(c) || c == '/' || c == '?'),
                (FRAGMENT, true, &|c| pchar(c) || c == '/' || c == '?' || (iri && is_iprivate(c))),
                (USERINFO, false, &|c| unreserved(c) || sub_delim(c) || c == ':'),
                (UNRESERVED.with(SUB_DELIMS), false, &|c| unreserved(c) || sub_delim(c)),
                (PATH, false, &|c| pchar(c) || c == '/'),
            ];
            for (set, private, allowed) in cases {
                prop_assert_eq!(all_chars(&text, iri, set, private), by_chars(&text, iri, allowed), "{:?}", text);
            }
        }
    }
}
