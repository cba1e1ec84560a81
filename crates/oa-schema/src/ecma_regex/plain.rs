//! `format: regex` without building a tree: a pattern made only of the plain syntax most schemas use (literals,
//! `.`, `^`, `$`, `|`, `\d`-style and punctuation escapes, classes of such atoms with ordered ranges, `(` and
//! `(?:` groups and the usual quantifiers) is valid by the parser's grammar, and checking that is one pass over
//! its bytes with no allocation. The parser builds a tree of boxes for every pattern, which made each
//! `format: regex` string cost thousands of instructions. Anything outside that syntax (lookaround, named groups,
//! backreferences, `\p{..}`, `\u`, `\x`, `\c`, a `{` that is not a quantifier, an escaped non-ASCII character,
//! non-ASCII in a class, deep nesting) answers "not known" and goes to the parser, which also has the last word
//! on every invalid pattern.

/// Groups nested deeper than this go to the parser (which has its own, larger limit).
const MAX_GROUPS: usize = 64;

/// Whether `pattern` is made only of the plain syntax and is valid by it. `false` means "not known here": the
/// caller asks the parser.
pub(super) fn plainly_valid(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    let mut at = 0;
    let mut groups = 0_usize;
    // Whether a quantifier may follow: after an atom, not after an assertion, a quantifier, `(` or `|`.
    let mut quantifiable = false;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        quantifiable = match byte {
            b'^' | b'$' | b'|' => false,
            b'(' => {
                if bytes.get(at) == Some(&b'?') {
                    if bytes.get(at + 1) != Some(&b':') {
                        return false;
                    }
                    at += 2;
                }
                groups += 1;
                if groups > MAX_GROUPS {
                    return false;
                }
                false
            }
            b')' => {
                let Some(open) = groups.checked_sub(1) else {
                    return false;
                };
                groups = open;
                true
            }
            b'*' | b'+' | b'?' | b'{' => {
                if !quantifiable {
                    return false;
                }
                if byte == b'{' {
                    match braced(bytes, at) {
                        Some(after) => at = after,
                        None => return false,
                    }
                }
                if bytes.get(at) == Some(&b'?') {
                    at += 1;
                }
                false
            }
            b'}' | b']' => return false,
            b'[' => match class(bytes, at) {
                Some(after) => {
                    at = after;
                    true
                }
                None => return false,
            },
            b'\\' => {
                let Some(atom) = escape(bytes.get(at).copied()) else {
                    return false;
                };
                at += 1;
                // `\b` and `\B` are assertions: nothing may repeat them.
                !matches!(atom, Atom::Boundary)
            }
            // A literal, or any byte of a non-ASCII character (none of which is syntax).
            _ => true,
        };
    }
    groups == 0
}

/// A quantifier `{n}`, `{n,}` or `{n,m}` with `n <= m`, whose `{` is just before `at`: the position after its
/// `}`. Counts of more than nine digits go to the parser.
fn braced(bytes: &[u8], at: usize) -> Option<usize> {
    let (min, at) = decimal(bytes, at)?;
    match bytes.get(at)? {
        b'}' => Some(at + 1),
        b',' if bytes.get(at + 1) == Some(&b'}') => Some(at + 2),
        b',' => {
            let (max, at) = decimal(bytes, at + 1)?;
            (bytes.get(at) == Some(&b'}') && min <= max).then_some(at + 1)
        }
        _ => None,
    }
}

/// One to nine decimal digits from `at`: their value and the position after them.
fn decimal(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let digits = bytes
        .get(at..)?
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let value = bytes
        .get(at..at + digits)?
        .iter()
        .fold(0_u32, |value, digit| value * 10 + u32::from(digit - b'0'));
    Some((value, at + digits))
}

/// What a plain escape stands for.
#[derive(Clone, Copy)]
enum Atom {
    /// One character.
    Code(u8),
    /// `\d`, `\w`, `\s` and their negations.
    Class,
    /// `\b` or `\B` (outside a class).
    Boundary,
}

/// The plain escape whose letter (the byte after `\`) is `letter`, or `None`.
fn escape(letter: Option<u8>) -> Option<Atom> {
    match letter? {
        b'd' | b'D' | b'w' | b'W' | b's' | b'S' => Some(Atom::Class),
        b'b' | b'B' => Some(Atom::Boundary),
        b'n' => Some(Atom::Code(b'\n')),
        b't' => Some(Atom::Code(b'\t')),
        b'r' => Some(Atom::Code(b'\r')),
        b'f' => Some(Atom::Code(0x0C)),
        b'v' => Some(Atom::Code(0x0B)),
        // ECMA-262's syntax characters and Annex B's other ASCII punctuation stand for themselves.
        other if other.is_ascii_punctuation() => Some(Atom::Code(other)),
        _ => None,
    }
}

/// A class whose `[` is just before `at`, of ASCII atoms and plain escapes: the position after its `]`.
fn class(bytes: &[u8], mut at: usize) -> Option<usize> {
    if bytes.get(at) == Some(&b'^') {
        at += 1;
    }
    loop {
        let byte = *bytes.get(at)?;
        if byte == b']' {
            return Some(at + 1);
        }
        let (first, after) = class_atom(bytes, at)?;
        at = after;
        // `-` starts a range unless `]` follows it (then it is a literal, read as the next atom).
        if bytes.get(at) == Some(&b'-') && bytes.get(at + 1).is_some_and(|next| *next != b']') {
            let (second, after) = class_atom(bytes, at + 1)?;
            at = after;
            // A range of two characters must be in order; with a class escape at either end (`[\w-.]`) the `-`
            // is a literal, as Annex B reads it.
            if let (Atom::Code(low), Atom::Code(high)) = (first, second)
                && low > high
            {
                return None;
            }
        }
    }
}

/// One atom of a class at `at`: what it stands for and the position after it.
fn class_atom(bytes: &[u8], at: usize) -> Option<(Atom, usize)> {
    let byte = *bytes.get(at)?;
    if !byte.is_ascii() {
        return None;
    }
    if byte != b'\\' {
        return Some((Atom::Code(byte), at + 1));
    }
    match escape(bytes.get(at + 1).copied())? {
        // In a class `\b` is a backspace, and `\B` is an error: both go to the parser.
        Atom::Boundary => None,
        atom => Some((atom, at + 2)),
    }
}

#[cfg(test)]
mod tests {
    use super::plainly_valid;
    use proptest::prelude::*;

    #[test]
    fn the_common_patterns_are_answered_here() {
        for pattern in [
            r"^[a-z][a-z0-9_-]*$",
            r"^\d{3}-\d{4}$",
            r"^(?:https?|ftp)://[^\s/$.?#].[^\s]*$",
            r"^[A-Z]{2,3}(\.[0-9]+)?$",
            r"foo|bar|",
            r"()",
            r"[]",
            r"[\w-.]",
            r"\bword\b",
            r"^é+$",
            r"a{2,}?b{1}c{0,9}",
        ] {
            assert!(plainly_valid(pattern), "{pattern:?}");
            assert!(super::super::parses_with_properties(pattern), "{pattern:?}");
        }
    }

    #[test]
    fn other_syntax_goes_to_the_parser() {
        for pattern in [
            r"(?=a)",
            r"(?<n>a)",
            r"\1",
            r"\p{L}",
            r"\u0041",
            r"\x41",
            r"\cA",
            r"a{",
            r"x{a}",
            r"a}",
            r"]",
            r"[\b]",
            r"[é]",
            r"\é",
            r"[z-a]",
            r"a{3,2}",
            r"a**",
            r"*a",
            r"^*",
            r"\b+",
            r"(a",
            r"a)",
            r"[a",
            "\\",
            r"a{1234567890}",
            r"\0",
        ] {
            assert!(!plainly_valid(pattern), "{pattern:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// Whatever this module answers yes to, the parser accepts (and `format: regex` with it).
        #[test]
        fn a_plain_yes_is_the_parsers_yes(
            pattern in r"[-\\()\[\]{}?*+|^$.:=!<>a-c0-9dDwWsSbBkpPuxcntrfv,é ]{0,24}"
        ) {
            if plainly_valid(&pattern) {
                prop_assert!(super::super::parses_with_properties(&pattern), "{:?}", pattern);
            }
        }
    }
}
