//! The order of reference tokens: array indices numerically and before names, names by code point.
//!
//! `/a/2` sorts before `/a/10`, which plain string order gets wrong. A token is an index when it is the
//! canonical decimal form of a `usize` (RFC 6901 §4: digits, no leading zero); such strings are unique per
//! number, so this order is consistent with string equality and with hashing the string.

use std::cmp::Ordering;

use crate::escape::unescaped_bytes;

/// Compares two decoded tokens.
pub(crate) fn compare_tokens(left: &str, right: &str) -> Ordering {
    match (canonical_index(left), canonical_index(right)) {
        (Some(left), Some(right)) => left.cmp(&right),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => left.cmp(right),
    }
}

/// Compares two escaped tokens as their decoded forms would compare, without decoding into new strings.
pub(crate) fn compare_escaped(left: &str, right: &str) -> Ordering {
    match (canonical_index(left), canonical_index(right)) {
        (Some(left), Some(right)) => left.cmp(&right),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        // Tokens are short: a byte loop beats a searcher call.
        (None, None) if !has_tilde(left) && !has_tilde(right) => left.cmp(right),
        (None, None) => unescaped_bytes(left).cmp(unescaped_bytes(right)),
    }
}

fn has_tilde(token: &str) -> bool {
    token.bytes().any(|byte| byte == b'~')
}

/// The index a token names, if it is the canonical decimal form of a `usize`.
pub(crate) fn canonical_index(token: &str) -> Option<usize> {
    let bytes = token.as_bytes();
    match bytes {
        [] | [b'0', _, ..] => None,
        [first, ..] if !first.is_ascii_digit() => None,
        _ => bytes.iter().try_fold(0usize, |index, byte| {
            let digit = byte.checked_sub(b'0').filter(|digit| *digit < 10)?;
            index.checked_mul(10)?.checked_add(usize::from(digit))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical_index;

    #[test]
    fn canonical_index_reads_only_canonical_decimals() {
        let max = usize::MAX.to_string();
        let beyond = format!("{max}0");
        for token in [
            "", "0", "00", "01", "1", "10", "9", "123", "1a", "a1", "-1", "+1", " 1", "1 ", "1:", "١", &max,
            &beyond,
        ] {
            let canonical = !token.is_empty()
                && token.bytes().all(|byte| byte.is_ascii_digit())
                && (token.len() == 1 || !token.starts_with('0'));
            let want = if canonical {
                token.parse::<usize>().ok()
            } else {
                None
            };
            assert_eq!(canonical_index(token), want, "{token:?}");
        }
    }
}
