//! IP addresses: `ipv4` (RFC 2673 dotted-quad, no leading zeros) and `ipv6` (RFC 4291 section 2.2 text forms).
//!
//! No zone identifiers, prefixes, brackets or surrounding whitespace; ASCII digits only.

/// Four decimal octets 0-255 separated by dots, without leading zeros.
pub(crate) fn is_ipv4(text: &str) -> bool {
    let mut n_octets = 0;
    for octet in text.split('.') {
        n_octets += 1;
        if n_octets > 4 || !is_octet(octet) {
            return false;
        }
    }
    n_octets == 4
}

fn is_octet(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 3 || !bytes.iter().all(u8::is_ascii_digit) {
        return false;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return false;
    }
    bytes.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0')) <= 255
}

/// Eight groups of 1-4 hex digits, with at most one `::` standing for one or more zero groups, and optionally a
/// dotted IPv4 address as the last two groups.
pub(crate) fn is_ipv6(text: &str) -> bool {
    if !text.is_ascii() || text.len() > 45 {
        return false;
    }
    let (head, tail) = match text.find("::") {
        Some(idx) => (&text[..idx], Some(&text[idx + 2..])),
        None => (text, None),
    };
    let Some(n_head) = count_groups(head, tail.is_none()) else {
        return false;
    };
    match tail {
        None => n_head == 8,
        Some(tail) => {
            if tail.contains("::") {
                return false;
            }
            let Some(n_tail) = count_groups(tail, true) else {
                return false;
            };
            // If the head ends in IPv4, there is no tail; count_groups(head, false) refused it already.
            n_head + n_tail <= 7
        }
    }
}

/// Counts the 16-bit groups of a `:`-separated run (an IPv4 suffix counts two when `allow_ipv4`); `None` when it
/// is malformed. An empty run has no groups.
fn count_groups(text: &str, allow_ipv4: bool) -> Option<usize> {
    if text.is_empty() {
        return Some(0);
    }
    let mut parts = text.split(':').peekable();
    let mut n_groups = 0;
    while let Some(part) = parts.next() {
        let is_last = parts.peek().is_none();
        if is_last && allow_ipv4 && part.contains('.') {
            if !is_ipv4(part) {
                return None;
            }
            n_groups += 2;
        } else if (1..=4).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_hexdigit()) {
            n_groups += 1;
        } else {
            return None;
        }
    }
    Some(n_groups)
}
