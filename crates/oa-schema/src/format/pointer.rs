//! JSON Pointers (`json-pointer`, RFC 6901 string form) and Relative JSON Pointers (`relative-json-pointer`,
//! draft-bhutton-relative-json-pointer-00).

/// Empty, or `/`-prefixed tokens in which every `~` is followed by `0` or `1`.
pub(super) fn is_json_pointer(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    if !text.starts_with('/') {
        return false;
    }
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .all(|(idx, byte)| *byte != b'~' || matches!(bytes.get(idx + 1), Some(b'0' | b'1')))
}

/// A non-negative integer without leading zeros, then `#` or a JSON Pointer.
pub(super) fn is_relative_json_pointer(text: &str) -> bool {
    let n_digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if n_digits == 0 || (n_digits > 1 && text.starts_with('0')) {
        return false;
    }
    let rest = &text[n_digits..];
    rest == "#" || is_json_pointer(rest)
}
