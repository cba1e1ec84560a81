//! RFC 4122 UUIDs (`uuid`): 8-4-4-4-12 hexadecimal digits, either case, any version and variant.

/// Whether `text` is a UUID in its hyphenated string form.
pub(super) fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(idx, byte)| match idx {
            8 | 13 | 18 | 23 => *byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}
