//! A complete container in the bytes at hand: where it ends, found by a structural scan (brackets counted outside
//! strings, a string's escapes respected), so that the push parser can judge it in one step (see
//! `PushParser::skip`). The scan does not check the text: the container is read by a strict parser afterwards.

/// An array or object whose closing bracket is in the bytes scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    /// Its length in bytes, up to and including its closing bracket.
    pub(super) len: usize,
    /// Line feeds outside its strings (none can be inside a well-formed one).
    pub(super) newlines: usize,
    /// Bytes after the last of them (or `len` when there is none): the column moves by this much.
    pub(super) tail: usize,
}

/// The container that `bytes` starts with, supposing it is the rest of the text: `bytes` with its trailing
/// whitespace trimmed, when its last byte is the bracket that closes its first (a cheap guess, no scan: the strict
/// read that judges the span must then find one value that ends there, else the caller takes [`container`]). Its
/// line feeds are counted anywhere (a well-formed span has none inside its strings).
pub(super) fn whole(bytes: &[u8]) -> Option<Span> {
    let len = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|byte| matches!(byte, b' ' | b'\n' | b'\t' | b'\r'))
            .count();
    let closes = match bytes.first() {
        Some(b'{') => b'}',
        Some(b'[') => b']',
        _ => return None,
    };
    if len < 2 || bytes[len - 1] != closes {
        return None;
    }
    let span = &bytes[..len];
    let newlines = span.iter().filter(|&&byte| byte == b'\n').count();
    let tail = match newlines {
        0 => len,
        _ => span.iter().rev().position(|&byte| byte == b'\n').unwrap_or(len),
    };
    Some(Span { len, newlines, tail })
}

/// The container that `bytes` starts with (`[` or `{`), when it closes within `bytes` and nests at most `room`
/// deep (itself included); else how many bytes were looked at to learn that it does not.
pub(super) fn container(bytes: &[u8], room: usize) -> Result<Span, usize> {
    let mut depth = 0usize;
    let mut newlines = 0;
    let mut last_newline = None;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match CLASS[byte as usize] {
            OTHER => {}
            QUOTE => {
                // To the closing quote, over escapes.
                at += 1;
                loop {
                    let rest = bytes.get(at..).unwrap_or(&[]);
                    match quote_or_backslash(rest) {
                        Some(found) if rest[found] == b'\\' => at += found + 2,
                        Some(found) => {
                            at += found;
                            break;
                        }
                        None => return Err(bytes.len()),
                    }
                }
            }
            OPEN => {
                depth += 1;
                if depth > room {
                    return Err(at + 1);
                }
            }
            CLOSE => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let len = at + 1;
                    let tail = last_newline.map_or(len, |newline| len - newline - 1);
                    return Ok(Span { len, newlines, tail });
                }
            }
            _ => {
                newlines += 1;
                last_newline = Some(at);
            }
        }
        at += 1;
    }
    Err(bytes.len())
}

/// Where the first `"` or `\\` of `bytes` is: eight bytes at a time (a string's text is most of a document).
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    // A zero byte in `word ^ pattern` is a match; this finds whether there is one (exactly, not where).
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let is_mark = |byte: &u8| *byte == b'"' || *byte == b'\\';
    // Most strings are short: their first bytes one by one.
    let head = bytes.len().min(16);
    if let Some(found) = bytes[..head].iter().position(is_mark) {
        return Some(found);
    }
    let mut at = head;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let word = u64::from_ne_bytes(eight);
        if has_zero(word ^ QUOTES) || has_zero(word ^ BACKSLASHES) {
            break;
        }
        at += 8;
    }
    bytes[at..].iter().position(is_mark).map(|found| at + found)
}

/// What the scan makes of a byte outside strings.
const OTHER: u8 = 0;
const QUOTE: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;
const NEWLINE: u8 = 4;

/// Each byte's class (a table: most bytes are `OTHER`, and one look decides).
static CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    class[b'"' as usize] = QUOTE;
    class[b'[' as usize] = OPEN;
    class[b'{' as usize] = OPEN;
    class[b']' as usize] = CLOSE;
    class[b'}' as usize] = CLOSE;
    class[b'\n' as usize] = NEWLINE;
    class
};

#[cfg(test)]
mod tests {
    use super::{Span, container, whole};

    #[test]
    fn the_whole_rest_is_guessed_from_its_last_bracket() {
        assert_eq!(
            whole(b"{\"a\":\n [1]}\n \t"),
            Some(Span {
                len: 11,
                newlines: 1,
                tail: 5
            })
        );
        assert_eq!(
            whole(b"[1] "),
            Some(Span {
                len: 3,
                newlines: 0,
                tail: 3
            })
        );
        // Not closed by its own kind of bracket, or not a container: no guess.
        assert_eq!(whole(b"[1}"), None);
        assert_eq!(whole(b"{\"a\": 1"), None);
        assert_eq!(whole(b"["), None);
        assert_eq!(whole(b"\"]\""), None);
    }

    #[test]
    fn finds_the_matching_bracket_over_strings_and_escapes() {
        let text = br#"{"a": ["]", "\"}", {"b": "\\"}], "c": 1} tail"#;
        let span = container(text, 127).unwrap();
        assert_eq!(&text[..span.len], br#"{"a": ["]", "\"}", {"b": "\\"}], "c": 1}"#);
        assert_eq!((span.newlines, span.tail), (0, span.len));
    }

    #[test]
    fn counts_lines_and_the_last_line_s_bytes() {
        let text = b"[1,\n 2,\n  [3]\n]\n";
        assert_eq!(
            container(text, 127),
            Ok(Span {
                len: 15,
                newlines: 3,
                tail: 1
            })
        );
    }

    #[test]
    fn finds_quotes_and_backslashes_at_every_place() {
        for len in 0..40 {
            for at in 0..=len {
                for mark in [b'"', b'\\'] {
                    let mut text = vec![b'a'; len];
                    if at < len {
                        text[at] = mark;
                    }
                    // Bytes that differ from the marks by one bit, or are high, do not match.
                    if at > 0 {
                        text[at - 1] = b'#';
                    }
                    if at > 1 {
                        text[at - 2] = 0xA2;
                    }
                    let found = super::quote_or_backslash(&text);
                    assert_eq!(found, (at < len).then_some(at), "{len} {at} {mark}");
                }
            }
        }
    }

    #[test]
    fn refuses_what_does_not_close_or_nests_too_deep() {
        assert_eq!(container(b"[1, [2], \"]", 127), Err(11));
        assert_eq!(container(b"[1, \"\\", 127), Err(6));
        assert_eq!(container(b"[[[]]]", 2), Err(3));
        assert_eq!(container(b"[[[]]]", 3).map(|span| span.len), Ok(6));
    }
}
