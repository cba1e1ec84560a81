//! IP addresses: `ipv4` (RFC 2673 dotted-quad, no leading zeros) and `ipv6` (RFC 4291 section 2.2 text forms).
//!
//! No zone identifiers, prefixes, brackets or surrounding whitespace; ASCII digits only.

/// Four decimal octets 0-255 separated by dots, without leading zeros. One pass over the bytes (splitting at the
/// dots cost more than the check).
pub(crate) fn is_ipv4(text: &str) -> bool {
    let mut n_dots = 0;
    // The octet being read: its value and number of digits.
    let (mut value, mut n_digits) = (0_u32, 0_u32);
    for byte in text.bytes() {
        match byte {
            b'0'..=b'9' => {
                // A second digit after a leading zero, or a fourth digit.
                if (n_digits == 1 && value == 0) || n_digits == 3 {
                    return false;
                }
                value = value * 10 + u32::from(byte - b'0');
                n_digits += 1;
            }
            b'.' if n_digits > 0 && value <= 255 && n_dots < 3 => {
                n_dots += 1;
                (value, n_digits) = (0, 0);
            }
            _ => return false,
        }
    }
    n_dots == 3 && n_digits > 0 && value <= 255
}

/// Eight groups of 1-4 hex digits, with at most one `::` standing for one or more zero groups, and optionally a
/// dotted IPv4 address as the last two groups. One pass over the bytes.
pub(crate) fn is_ipv6(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() > 45 {
        return false;
    }
    let mut n_groups = 0;
    let mut compressed = false;
    let mut pos = 0;
    match bytes {
        [] => return false,
        [b':', b':', ..] => {
            compressed = true;
            pos = 2;
        }
        [b':', ..] => return false,
        _ => {}
    }
    while pos < bytes.len() {
        let start = pos;
        while bytes.get(pos).is_some_and(u8::is_ascii_hexdigit) {
            pos += 1;
        }
        if bytes.get(pos) == Some(&b'.') {
            // A dotted IPv4 address, which must run to the end.
            let n_groups = n_groups + 2;
            return text.get(start..).is_some_and(is_ipv4)
                && if compressed { n_groups <= 7 } else { n_groups == 8 };
        }
        if !(1..=4).contains(&(pos - start)) {
            return false;
        }
        n_groups += 1;
        match (bytes.get(pos), bytes.get(pos + 1)) {
            (None, _) => break,
            (Some(b':'), Some(b':')) if !compressed => {
                compressed = true;
                pos += 2;
            }
            (Some(b':'), Some(_)) => pos += 1,
            _ => return false,
        }
    }
    if compressed { n_groups <= 7 } else { n_groups == 8 }
}

#[cfg(test)]
mod tests {
    //! The one-pass checks against the split-based ones they replaced (kept here as the oracle), on strings built
    //! from the characters that matter: digits, hex letters, dots, colons and a few others.
    use proptest::prelude::*;

    fn split_ipv4(text: &str) -> bool {
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

    fn split_ipv6(text: &str) -> bool {
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
                n_head + n_tail <= 7
            }
        }
    }

    fn count_groups(text: &str, allow_ipv4: bool) -> Option<usize> {
        if text.is_empty() {
            return Some(0);
        }
        let mut parts = text.split(':').peekable();
        let mut n_groups = 0;
        while let Some(part) = parts.next() {
            let is_last = parts.peek().is_none();
            if is_last && allow_ipv4 && part.contains('.') {
                if !split_ipv4(part) {
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

    /// Dotted quads, some of them broken.
    fn ipv4_like() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::collection::vec("(0|1|9|00|01|10|25|99|255|256|300|999|1000|a|)", 0..6)
                .prop_map(|octets| octets.join(".")),
            "[0-9.a ]{0,16}",
        ]
    }

    /// Colon-separated groups with at most a few `::`, an IPv4 tail now and then, and noise.
    fn ipv6_like() -> impl Strategy<Value = String> {
        let group = "(0|1|ff|FFFF|abcd|12345|g|é|)";
        prop_oneof![
            (
                prop::collection::vec(group, 0..10),
                prop::collection::vec(":{1,3}", 0..10),
                prop::option::of(ipv4_like())
            )
                .prop_map(|(groups, colons, ipv4)| {
                    let mut text = String::new();
                    for (at, group) in groups.iter().enumerate() {
                        text.push_str(group);
                        if let Some(colon) = colons.get(at) {
                            text.push_str(colon);
                        }
                    }
                    if let Some(ipv4) = ipv4 {
                        text.push_str(&ipv4);
                    }
                    text
                }),
            "[0-9a-f:.]{0,50}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn ipv4_agrees_with_the_split_check(text in ipv4_like()) {
            prop_assert_eq!(super::is_ipv4(&text), split_ipv4(&text), "{:?}", text);
        }

        #[test]
        fn ipv6_agrees_with_the_split_check(text in ipv6_like()) {
            prop_assert_eq!(super::is_ipv6(&text), split_ipv6(&text), "{:?}", text);
        }
    }

    #[test]
    fn both_checks_read_the_usual_forms_alike() {
        for text in [
            "127.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "256.0.0.1",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.5",
            "1..2.3",
            "",
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "1::2:3:4:5:6:7:8",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "1.2.3.4::",
            ":1::2",
            "1:::2",
            "1:2:3:4:5:6:7:8:",
            "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
        ] {
            assert_eq!(super::is_ipv4(text), split_ipv4(text), "{text:?}");
            assert_eq!(super::is_ipv6(text), split_ipv6(text), "{text:?}");
        }
    }
}
