//! Classes written as UTF-8 byte sequences, for the `regex` crate's byte engine.
//!
//! The `regex` crate compiles a class that holds non-ASCII code points through a UTF-8 automaton builder whose
//! cache is a fixed table of 10,000 entries (about 320 KB), allocated for every automaton it builds, though it is
//! freed right after. For a small schema that transient is many times the schema and the instance together. Spelled
//! as an alternation of byte sequences instead (`[\x80-\xBF]` after a lead byte, and so on), a class compiles to
//! plain byte states with no such table. The input is always a Rust string (valid UTF-8) and every sequence starts
//! at a lead byte, so a match can only start, and end, on a code point boundary.

use super::ast::{Class, ClassEscape, ClassItem};
use std::fmt::Write;

/// ECMA-262 WhiteSpace and LineTerminator (the `\s` set), as code point ranges.
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// ECMA-262 word characters (`\w`).
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// ECMA-262 digits (`\d`).
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
/// What `.` matches: every code point but a LineTerminator.
const DOT: &[(u32, u32)] = &[(0x00, 0x09), (0x0B, 0x0C), (0x0E, 0x2027), (0x202A, 0x10FFFF)];

/// The highest code point, and the surrogates, which no Rust string holds.
const MAX: u32 = 0x10FFFF;
const SURROGATES: (u32, u32) = (0xD800, 0xDFFF);

/// The code points of a class as sorted, disjoint ranges without surrogates; `None` when it holds a `\p{...}`
/// property (left to the engine's own tables).
pub(super) fn class_ranges(class: &Class) -> Option<Vec<(u32, u32)>> {
    let mut ranges = Vec::new();
    for item in &class.items {
        match item {
            ClassItem::Range(low, high) => ranges.push((*low, *high)),
            ClassItem::Escape(escape) => {
                let (negated, set) = match escape {
                    ClassEscape::Digit { negated } => (*negated, DIGIT),
                    ClassEscape::Word { negated } => (*negated, WORD),
                    ClassEscape::Space { negated } => (*negated, SPACE),
                    ClassEscape::Property { .. } => return None,
                };
                if negated {
                    ranges.extend(complement(set));
                } else {
                    ranges.extend_from_slice(set);
                }
            }
        }
    }
    let ranges = normalize(ranges);
    Some(without_surrogates(if class.negated {
        complement(&ranges)
    } else {
        ranges
    }))
}

/// The code points of `.`.
pub(super) fn dot_ranges() -> Vec<(u32, u32)> {
    without_surrogates(DOT.to_vec())
}

/// Writes `ranges` (sorted, disjoint, no surrogates) as a non-capturing group of byte sequences; `false` (nothing
/// written) when they are empty.
pub(super) fn write_byte_alternation(ranges: &[(u32, u32)], out: &mut String) -> bool {
    let mut sequences = Vec::new();
    for (low, high) in ranges {
        push_sequences(*low, *high, &mut sequences);
    }
    if sequences.is_empty() {
        return false;
    }
    out.push_str("(?-u:(?:");
    // The one-byte sequences (ASCII) go in one class, first.
    let n_ascii = sequences
        .iter()
        .take_while(|sequence| sequence.len() == 1)
        .count();
    if n_ascii > 0 {
        out.push('[');
        for sequence in &sequences[..n_ascii] {
            for (low, high) in sequence {
                let _ = write!(out, r"\x{low:02X}");
                if low != high {
                    let _ = write!(out, r"-\x{high:02X}");
                }
            }
        }
        out.push(']');
    }
    for (idx, sequence) in sequences[n_ascii..].iter().enumerate() {
        if idx > 0 || n_ascii > 0 {
            out.push('|');
        }
        for (low, high) in sequence {
            if low == high {
                let _ = write!(out, r"\x{low:02X}");
            } else {
                let _ = write!(out, r"[\x{low:02X}-\x{high:02X}]");
            }
        }
    }
    out.push_str("))");
    true
}

/// One UTF-8 byte sequence: a byte range per position.
type Sequence = Vec<(u8, u8)>;

/// Splits `low..=high` into ranges whose UTF-8 encodings are each a product of byte ranges, and pushes them.
fn push_sequences(low: u32, high: u32, out: &mut Vec<Sequence>) {
    // First by encoded length.
    for last in [0x7F, 0x7FF, 0xFFFF] {
        if low <= last && last < high {
            push_sequences(low, last, out);
            push_sequences(last + 1, high, out);
            return;
        }
    }
    // Then so that every continuation byte either stays fixed or spans its whole range.
    for n_bits in [6, 12, 18] {
        let tail = (1u32 << n_bits) - 1;
        if low & !tail != high & !tail {
            if low & tail != 0 {
                push_sequences(low, low | tail, out);
                push_sequences((low | tail) + 1, high, out);
                return;
            }
            if high & tail != tail {
                push_sequences(low, (high & !tail) - 1, out);
                push_sequences(high & !tail, high, out);
                return;
            }
        }
    }
    let (Some(low), Some(high)) = (char::from_u32(low), char::from_u32(high)) else {
        return;
    };
    let (mut low_bytes, mut high_bytes) = ([0; 4], [0; 4]);
    let low_bytes = low.encode_utf8(&mut low_bytes).as_bytes();
    let high_bytes = high.encode_utf8(&mut high_bytes).as_bytes();
    out.push(
        low_bytes
            .iter()
            .copied()
            .zip(high_bytes.iter().copied())
            .collect(),
    );
}

/// Sorts and merges overlapping or adjacent ranges.
fn normalize(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (low, high) in ranges {
        match merged.last_mut() {
            Some(last) if low <= last.1.saturating_add(1) => last.1 = last.1.max(high),
            _ => merged.push((low, high)),
        }
    }
    merged
}

/// Every code point not in `ranges` (sorted and disjoint).
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut next = 0;
    for (low, high) in ranges {
        if *low > next {
            out.push((next, low - 1));
        }
        next = high.saturating_add(1);
    }
    if next <= MAX {
        out.push((next, MAX));
    }
    out
}

/// `ranges` (sorted and disjoint) without the surrogate code points.
fn without_surrogates(ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    for (low, high) in ranges {
        if low < SURROGATES.0 {
            out.push((low, high.min(SURROGATES.0 - 1)));
        }
        if high > SURROGATES.1 {
            out.push((low.max(SURROGATES.1 + 1), high));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code point of `ranges` is matched by the written alternation, and a sample of the others is not.
    fn check(ranges: &[(u32, u32)]) {
        let mut text = String::from("^");
        assert!(write_byte_alternation(ranges, &mut text));
        text.push('$');
        let regex = regex::bytes::Regex::new(&text).unwrap();
        let inside = |code: u32| ranges.iter().any(|(low, high)| (*low..=*high).contains(&code));
        for code in (0..=MAX)
            .step_by(7)
            .chain([0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, MAX])
        {
            let Some(c) = char::from_u32(code) else { continue };
            let mut buf = [0; 4];
            assert_eq!(
                regex.is_match(c.encode_utf8(&mut buf).as_bytes()),
                inside(code),
                "U+{code:04X} against {text}"
            );
        }
    }

    #[test]
    fn byte_alternations_match_exactly_their_code_points() {
        check(&dot_ranges());
        check(&without_surrogates(complement(SPACE)));
        check(&[(0x41, 0x5A)]);
        check(&[(0xE9, 0xE9), (0x3B1, 0x3C9), (0x1F600, 0x1F64F)]);
        check(&without_surrogates(vec![(0, MAX)]));
    }

    #[test]
    fn an_empty_set_writes_nothing() {
        let mut text = String::new();
        assert!(!write_byte_alternation(&[], &mut text));
        assert!(text.is_empty());
    }
}
