//! Reference-token escaping (RFC 6901 §3-4): inside a pointer, `~` is written `~0` and `/` is written `~1`.

use std::borrow::Cow;
use std::fmt;

use crate::ParseError;

/// Appends `token` to `out` with `~` and `/` escaped.
pub(crate) fn push_escaped(out: &mut String, token: &str) {
    // Writing to a String cannot fail.
    let _ = write_escaped(out, token);
}

/// Writes `token` with `~` and `/` escaped, copying runs without either in one piece.
pub(crate) fn write_escaped<W: fmt::Write>(out: &mut W, token: &str) -> fmt::Result {
    let mut rest = token;
    while let Some(idx) = rest.find(['~', '/']) {
        let (run, tail) = rest.split_at(idx);
        out.write_str(run)?;
        out.write_str(if tail.starts_with('~') { "~0" } else { "~1" })?;
        rest = tail.get(1..).unwrap_or_default();
    }
    out.write_str(rest)
}

/// Decodes one escaped token that starts at byte `base` of the parsed input, rejecting a `~` not followed by
/// `0` or `1`.
pub(crate) fn unescape(raw: &str, base: usize) -> Result<String, ParseError> {
    if !raw.contains('~') {
        return Ok(raw.to_owned());
    }
    let mut token = String::with_capacity(raw.len());
    let mut chars = raw.char_indices();
    while let Some((idx, ch)) = chars.next() {
        if ch != '~' {
            token.push(ch);
            continue;
        }
        match chars.next() {
            Some((_, '0')) => token.push('~'),
            Some((_, '1')) => token.push('/'),
            _ => return Err(ParseError::InvalidTildeEscape { offset: base + idx }),
        }
    }
    Ok(token)
}

/// Decodes one token already known to be well escaped (it came from a [`Location`](crate::Location)).
///
/// A stray `~` cannot occur there; if it did, it is kept literally rather than panicking.
pub(crate) fn unescape_valid(raw: &str) -> Cow<'_, str> {
    if !raw.contains('~') {
        return Cow::Borrowed(raw);
    }
    let mut token = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, chars.peek()) {
            ('~', Some('0')) => {
                chars.next();
                token.push('~');
            }
            ('~', Some('1')) => {
                chars.next();
                token.push('/');
            }
            (other, _) => token.push(other),
        }
    }
    Cow::Owned(token)
}

/// The bytes of the decoded form of a well-escaped token, without allocating.
///
/// `~` and `/` are ASCII, so decoding byte by byte keeps every multi-byte UTF-8 sequence intact.
pub(crate) fn unescaped_bytes(raw: &str) -> impl Iterator<Item = u8> + '_ {
    let mut bytes = raw.bytes().peekable();
    std::iter::from_fn(move || {
        let byte = bytes.next()?;
        if byte != b'~' {
            return Some(byte);
        }
        match bytes.peek() {
            Some(b'0') => {
                bytes.next();
                Some(b'~')
            }
            Some(b'1') => {
                bytes.next();
                Some(b'/')
            }
            _ => Some(b'~'),
        }
    })
}
