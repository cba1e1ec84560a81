//! URIs and IRIs: `uri`, `uri-reference` (RFC 3986 section 3 and 4.1) and `iri`, `iri-reference` (RFC 3987,
//! which adds non-ASCII `ucschar` everywhere and `iprivate` in queries).
//!
//! A structural check of the generic syntax: scheme, authority (userinfo, host as IP literal, IPv4 or reg-name,
//! numeric port), path forms, query and fragment, with `%HH` escapes. Scheme-specific rules are not checked, and a
//! reg-name host such as `999.999.999.999` is valid, as RFC 3986 allows.

use super::ip::is_ipv6;

/// An absolute URI (a scheme is required), ASCII only.
pub(super) fn is_uri(text: &str) -> bool {
    parse(text, Kind::Uri)
}

/// A URI or a relative reference, ASCII only.
pub(super) fn is_uri_reference(text: &str) -> bool {
    parse(text, Kind::UriReference)
}

/// An absolute IRI.
pub(super) fn is_iri(text: &str) -> bool {
    parse(text, Kind::Iri)
}

/// An IRI or a relative IRI reference.
pub(super) fn is_iri_reference(text: &str) -> bool {
    parse(text, Kind::IriReference)
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
    let (rest, fragment) = match text.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (text, None),
    };
    if let Some(fragment) = fragment
        && !all_chars(fragment, iri, |c| is_pchar(c) || c == '/' || c == '?')
    {
        return false;
    }
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    if let Some(query) = query
        && !all_chars(query, iri, |c| {
            is_pchar(c) || c == '/' || c == '?' || (iri && is_iprivate(c))
        })
    {
        return false;
    }
    let (scheme, hier) = split_scheme(rest);
    if scheme.is_none() && kind.needs_scheme() {
        return false;
    }
    if let Some(after_slashes) = hier.strip_prefix("//") {
        let (authority, path) = match after_slashes.find('/') {
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

/// Splits `scheme ":"` off when the text before the first `:` is a valid scheme.
fn split_scheme(text: &str) -> (Option<&str>, &str) {
    if let Some((scheme, rest)) = text.split_once(':') {
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
    let (userinfo, host_port) = match authority.split_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    if let Some(userinfo) = userinfo
        && !all_chars(userinfo, iri, |c| is_unreserved(c) || is_sub_delim(c) || c == ':')
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
        match host_port.split_once(':') {
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
    all_chars(host, iri, |c| is_unreserved(c) || is_sub_delim(c))
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
            .all(|c| c.is_ascii() && (is_unreserved(c) || is_sub_delim(c) || c == ':'))
}

fn is_path(path: &str, iri: bool) -> bool {
    all_chars(path, iri, |c| is_pchar(c) || c == '/')
}

/// Whether every character of `text` passes `allowed`, a `%HH` escape, or (for IRIs) is a `ucschar`.
fn all_chars(text: &str, iri: bool, allowed: impl Fn(char) -> bool) -> bool {
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

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn is_sub_delim(c: char) -> bool {
    matches!(
        c,
        '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
    )
}

fn is_pchar(c: char) -> bool {
    is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@'
}

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
