//! Parsing the plain form (RFC 6901 §3) and the URI-fragment form (§6) into reference tokens.

use crate::ParseError;
use crate::escape::unescape;
use crate::fragment;

/// Parses the plain form: the empty string, or `/`-prefixed tokens with `~0` and `~1` escapes.
pub(crate) fn parse_plain(input: &str) -> Result<Vec<String>, ParseError> {
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let Some(body) = input.strip_prefix('/') else {
        return Err(ParseError::MissingLeadingSlash { offset: 0 });
    };
    let mut tokens = Vec::with_capacity(body.bytes().filter(|&byte| byte == b'/').count() + 1);
    let mut offset = 1;
    for raw in body.split('/') {
        tokens.push(unescape(raw, offset)?);
        offset += raw.len() + 1;
    }
    Ok(tokens)
}

/// Checks the plain form without building tokens (for [`Location`](crate::Location), which keeps the text).
pub(crate) fn validate_plain(input: &str) -> Result<(), ParseError> {
    if input.is_empty() {
        return Ok(());
    }
    if !input.starts_with('/') {
        return Err(ParseError::MissingLeadingSlash { offset: 0 });
    }
    let bytes = input.as_bytes();
    for (idx, &byte) in bytes.iter().enumerate() {
        if byte == b'~' && !matches!(bytes.get(idx + 1), Some(b'0' | b'1')) {
            return Err(ParseError::InvalidTildeEscape { offset: idx });
        }
    }
    Ok(())
}

/// Parses the URI-fragment form: `#` followed by a percent-encoded plain form.
pub(crate) fn parse_fragment(input: &str) -> Result<Vec<String>, ParseError> {
    let plain = fragment::decode(input)?;
    parse_plain(&plain).map_err(|error| {
        let offset = fragment::source_offset(input, error.offset());
        error.with_offset(offset)
    })
}
