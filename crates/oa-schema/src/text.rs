//! How names are compared, ordered and quoted: property names, `enum` strings and the names messages quote, on
//! the hot paths of every evaluator (a comparison per member) and in every report.

/// Orders two property names as `str::cmp` does, deciding by the first byte inline when it differs (the usual
/// case in a merge of sorted names), so most steps of the object keywords' merges make no `memcmp` call.
#[inline]
pub(crate) fn cmp_names(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// Whether two names are equal: lengths first, which settles most mismatches, then names of up to 16 bytes (nearly
/// every property name and enum string) by two overlapping word loads each, without a `memcmp` call.
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        // The first, middle and last bytes cover every position of a name this short.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// A key for a name of at most 16 bytes that, with the name's length, tells it from every other name of that
/// length (the same bytes [`same_name`] compares, packed): a short `enum` compares two words and a length per
/// option. `None` for a longer name.
#[inline]
pub(crate) fn short_key(name: &str) -> Option<(u64, u64)> {
    let a = name.as_bytes();
    let n = a.len();
    Some(match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(a[0]) | u64::from(a[n / 2]) << 8 | u64::from(a[n - 1]) << 16,
            0,
        ),
        4..=7 => (u64::from(word4(a, 0)) | u64::from(word4(a, n - 4)) << 32, 0),
        8..=16 => (word8(a, 0), word8(a, n - 8)),
        _ => return None,
    })
}

/// The four bytes of `bytes` from `at` (the caller keeps `at + 4` within the length).
#[inline(always)]
fn word4(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..)
        .and_then(<[u8]>::first_chunk::<4>)
        .map_or(0, |word| u32::from_ne_bytes(*word))
}

/// The eight bytes of `bytes` from `at` (the caller keeps `at + 8` within the length).
#[inline(always)]
fn word8(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..)
        .and_then(<[u8]>::first_chunk::<8>)
        .map_or(0, |word| u64::from_ne_bytes(*word))
}

/// A string as `{:?}` writes it, without the formatting machinery for the usual names (printable ASCII without
/// quotes or backslashes, which `Debug` leaves as they are).
pub(crate) fn quoted(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    push_quoted(&mut quoted, text);
    quoted
}

/// Whether a string is printable ASCII without quotes or backslashes: both `{:?}` and JSON write it as itself in
/// quotes.
pub(crate) fn is_plain(text: &str) -> bool {
    text.bytes()
        .all(|byte| (b' '..=b'~').contains(&byte) && byte != b'"' && byte != b'\\')
}

/// Appends `text` as `{:?}` writes it (see [`quoted`]).
pub(crate) fn push_quoted(out: &mut String, text: &str) {
    if is_plain(text) {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&format!("{text:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::cmp_names;

    #[test]
    fn quoted_is_debug() {
        for text in [
            "",
            "a",
            "a b",
            "say \"hi\"",
            "back\\slash",
            "tab\t",
            "é",
            "\u{301}",
            "~/",
            "\u{7f}",
        ] {
            assert_eq!(super::quoted(text), format!("{text:?}"), "{text:?}");
        }
    }

    #[test]
    fn same_name_is_str_eq() {
        let names = [
            "",
            "a",
            "ab",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "abcdefghj",
            "é",
            "e\u{301}",
        ];
        let long = "x".repeat(40);
        let long2 = format!("{}y", "x".repeat(39));
        for a in names.iter().copied().chain([long.as_str(), long2.as_str()]) {
            for b in names.iter().copied().chain([long.as_str(), long2.as_str()]) {
                assert_eq!(super::same_name(a, b), a == b, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn same_name_sees_a_difference_at_every_position_of_every_length() {
        for len in 0..=40_usize {
            let base: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(super::same_name(&base, &base.clone()), "{base:?}");
            for at in 0..len {
                let mut other = base.clone().into_bytes();
                other[at] = b'Z';
                let other = String::from_utf8(other).unwrap_or_default();
                assert!(!super::same_name(&base, &other), "{base:?} vs {other:?}");
            }
        }
    }

    #[test]
    fn cmp_names_orders_as_str_cmp() {
        let names = [
            "",
            "a",
            "ab",
            "b",
            "B",
            "é",
            "éa",
            "z\u{0}",
            "zz",
            "\u{10FFFF}",
            "ab\u{80}",
        ];
        for a in names {
            for b in names {
                assert_eq!(cmp_names(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}
