//! The URI-fragment form (RFC 6901 §6): percent-encoding and decoding against RFC 3986's fragment characters.

use crate::ParseError;

/// Appends `/` and `token`, `~`-escaped first and then percent-encoded, to a fragment being built.
pub(crate) fn push_encoded_token(out: &mut String, token: &str) {
    out.push('/');
    for byte in token.bytes() {
        match byte {
            b'~' => out.push_str("~0"),
            b'/' => out.push_str("~1"),
            _ if is_fragment_char(byte) => out.push(char::from(byte)),
            _ => {
                out.push('%');
                out.push(char::from(HEX_DIGITS[usize::from(byte >> 4)]));
                out.push(char::from(HEX_DIGITS[usize::from(byte & 0x0F)]));
            }
        }
    }
}

/// Percent-decodes a fragment (which must start with `#`) into the plain form it stands for.
///
/// Offsets in errors index `input`. Characters outside the fragment set are accepted literally (as browsers and
/// IRIs do); only `%` must introduce a valid escape.
pub(crate) fn decode(input: &str) -> Result<String, ParseError> {
    let Some(body) = input.strip_prefix('#') else {
        return Err(ParseError::MissingHash { offset: 0 });
    };
    if !body.contains('%') {
        return Ok(body.to_owned());
    }
    let bytes = input.as_bytes();
    let mut decoded = Vec::with_capacity(body.len());
    let mut idx = 1;
    while let Some(&byte) = bytes.get(idx) {
        if byte != b'%' {
            decoded.push(byte);
            idx += 1;
            continue;
        }
        let high = bytes.get(idx + 1).copied().and_then(hex_value);
        let low = bytes.get(idx + 2).copied().and_then(hex_value);
        match (high, low) {
            (Some(high), Some(low)) => {
                decoded.push(high << 4 | low);
                idx += 3;
            }
            _ => return Err(ParseError::InvalidPercentEscape { offset: idx }),
        }
    }
    String::from_utf8(decoded).map_err(|error| ParseError::InvalidUtf8 {
        offset: source_offset(input, error.utf8_error().valid_up_to()),
    })
}

/// Maps an offset in the decoded plain form back to the offset in the fragment as written (error path only).
///
/// Assumes every `%` in `input` starts a valid three-byte escape, which holds once [`decode`] succeeded or got
/// as far as the UTF-8 check.
pub(crate) fn source_offset(input: &str, decoded_offset: usize) -> usize {
    let bytes = input.as_bytes();
    let mut idx = 1;
    let mut n_decoded = 0;
    while n_decoded < decoded_offset && idx < bytes.len() {
        idx += if bytes.get(idx) == Some(&b'%') { 3 } else { 1 };
        n_decoded += 1;
    }
    idx.min(input.len())
}

/// Uppercase hexadecimal digits, as RFC 3986 §2.1 recommends for producers.
const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// Whether RFC 3986 lets `byte` appear unencoded in a fragment: `pchar / "/" / "?"`, that is unreserved,
/// sub-delims, `:`, `@`, `/` and `?`. `%` is excluded because a literal `%` must be encoded.
fn is_fragment_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'/'
                | b'?'
        )
}

/// The value of one hexadecimal digit, either case.
fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}
