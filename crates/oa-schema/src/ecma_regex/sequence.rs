//! Sequences of character classes (`f.*o`, `A[0-9]{2}Z`, `^[a-z]+@[a-z]+\.[a-z]{2,}$`), matched without a regex
//! engine by a bit-parallel automaton (Shift-And over the pattern's positions).
//!
//! The `regex` crate builds its matching caches on a pattern's first match (about 29 KiB, 12-13 KiB of it kept per
//! thread): more than a small schema's whole compiled form. A pattern qualifies here when it is a sequence of the
//! atoms [`anchored`](super::anchored) reads (literals, escapes, bracketed classes of ASCII characters) and `.`,
//! each with any quantifier, greedy or lazy (with no captures, whether a match exists does not depend on which
//! one the engine prefers), between an optional `^` and an optional `$`; and when its quantifiers expand to at
//! most [`MAX_POSITIONS`] positions (`a{2,4}` is four: two mandatory, two optional; `a+` is one that repeats).
//! Groups, alternation, lookaround, backreferences, `\b` and non-ASCII literals return `None` and the engine
//! decides, so this is only another route to the same answer (checked against the engine by a property test).
//!
//! The state is one `u64`: bit `i` says "the characters so far can end just before position `i`", bit `m` (one
//! past the last position) that the whole pattern has matched. A character keeps the ready positions whose class
//! admits it, moves each one on (and leaves a repeating one ready again), then lets the result skip optional
//! positions. A few word operations a character, whatever the pattern: time linear in the string, no allocation.

use super::ByteSet;
use super::anchored::{
    Class, class_at, ends_with_odd_backslashes, is_ecma_line_terminator, is_ecma_space, quantifier_at,
};

/// The most positions a pattern may expand to: one `u64` holds them and the accepting bit after them.
pub(super) const MAX_POSITIONS: usize = 63;

/// A compiled sequence pattern: a few hundred bytes (see the size test below).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sequence {
    /// For each ASCII character, its index in `masks`: characters that the same positions admit share a mask, so
    /// the table is bytes, not words.
    ascii: [u8; 128],
    /// The positions that admit each group of ASCII characters.
    masks: Box<[u64]>,
    /// The positions that admit U+2028 and U+2029, the other non-ASCII `\s` characters, and every other
    /// non-ASCII character (all that a class can tell apart, see [`Class`]).
    line: u64,
    space: u64,
    other: u64,
    /// The ready positions before any character: the first, and those reached by skipping optional ones.
    start: u64,
    /// The bit after the last position: the pattern has matched.
    accept: u64,
    /// Positions that stay ready after taking a character (the last copy of an unbounded repetition).
    loops: u64,
    /// The optional positions, which a ready bit skips over; they lie in runs, each with the position after it
    /// (its "end"): `blocks` holds every run and end, `block_starts` and `block_ends` their first and last bits.
    optional: u64,
    blocks: u64,
    block_starts: u64,
    block_ends: u64,
    /// Whether the pattern starts with `^` (else a match may start at any character).
    from_start: bool,
    /// Whether the pattern ends with `$` (else a match may end at any character).
    to_end: bool,
}

impl Sequence {
    /// The pattern in this form, or `None` when it is outside the subset (then the regex engine matches it).
    pub(crate) fn parse(pattern: &str) -> Option<Self> {
        let (body, from_start) = match pattern.strip_prefix('^') {
            Some(rest) => (rest, true),
            None => (pattern, false),
        };
        let (body, to_end) = match body.strip_suffix('$') {
            // `\$` at the end is a literal dollar, not the anchor.
            Some(rest) if !ends_with_odd_backslashes(rest) => (rest, true),
            _ => (body, false),
        };
        let bytes = body.as_bytes();
        if !bytes.is_ascii() {
            return None;
        }
        let mut classes: Vec<Class> = Vec::new();
        let mut optional: u64 = 0;
        let mut loops: u64 = 0;
        let mut pos = 0;
        while pos < bytes.len() {
            let (class, next) = match bytes.get(pos) {
                Some(b'.') => (Class::dot(), pos + 1),
                _ => class_at(bytes, pos)?,
            };
            // Lazy or greedy, the same strings match: only whether a match exists is asked.
            let (min, max, _lazy, next) = quantifier_at(bytes, next)?;
            let unbounded = max == u32::MAX;
            // `min` mandatory copies, then `max - min` optional ones, or one optional repeating copy for `*`.
            let optional_copies = if unbounded { u32::from(min == 0) } else { max - min };
            let copies = usize::try_from(min).ok()? + usize::try_from(optional_copies).ok()?;
            if classes.len() + copies > MAX_POSITIONS {
                return None;
            }
            for copy in 0..copies {
                if copy >= min as usize {
                    optional |= 1 << classes.len();
                }
                classes.push(class);
            }
            if unbounded {
                loops |= 1 << (classes.len() - 1);
            }
            pos = next;
        }
        Self::build(&classes, optional, loops, from_start, to_end)
    }

    fn build(classes: &[Class], optional: u64, loops: u64, from_start: bool, to_end: bool) -> Option<Self> {
        let bit = |idx: usize| 1_u64 << idx;
        let mut ascii = [0_u8; 128];
        let mut masks: Vec<u64> = Vec::new();
        for (byte, group) in (0..128_u8).zip(ascii.iter_mut()) {
            let mask = positions(classes, |class| class.has_ascii(byte));
            let idx = match masks.iter().position(|known| *known == mask) {
                Some(idx) => idx,
                None => {
                    masks.push(mask);
                    masks.len() - 1
                }
            };
            *group = u8::try_from(idx).ok()?;
        }
        // Each run of optional positions, with the position after it (at most `accept`, bit 63).
        let (mut blocks, mut block_starts, mut block_ends) = (0, 0, 0);
        let mut idx = 0;
        while idx < classes.len() {
            if optional & bit(idx) == 0 {
                idx += 1;
                continue;
            }
            let first = idx;
            while optional & bit(idx) != 0 {
                idx += 1;
            }
            block_starts |= bit(first);
            block_ends |= bit(idx);
            blocks |= (bit(idx) - bit(first)) | bit(idx);
        }
        let mut sequence = Self {
            ascii,
            masks: masks.into_boxed_slice(),
            line: positions(classes, |class| class.line),
            space: positions(classes, |class| class.space),
            other: positions(classes, |class| class.other),
            start: 0,
            accept: bit(classes.len()),
            loops,
            optional,
            blocks,
            block_starts,
            block_ends,
            from_start,
            to_end,
        };
        sequence.start = sequence.close(1);
        Some(sequence)
    }

    /// `ready` plus every position reached from a ready one by skipping optional positions. In each run, the
    /// subtraction's borrow runs from the run's first bit up to its lowest ready bit, so what it leaves unchanged
    /// above that bit (up to the run's end) is what becomes ready (Navarro and Raffinot's optional characters).
    #[inline(always)]
    fn close(&self, ready: u64) -> u64 {
        let marked = (ready & self.optional) | self.block_ends;
        ready | (self.blocks & (!marked.wrapping_sub(self.block_starts) ^ marked))
    }

    /// The positions whose class admits `c`.
    #[inline(always)]
    fn admitting(&self, c: char) -> u64 {
        match u8::try_from(c) {
            Ok(byte) if byte.is_ascii() => self
                .ascii
                .get(usize::from(byte))
                .and_then(|group| self.masks.get(usize::from(*group)))
                .copied()
                .unwrap_or(0),
            _ if is_ecma_line_terminator(c) => self.line,
            _ if is_ecma_space(c) => self.space,
            _ => self.other,
        }
    }

    /// Whether the pattern matches `text` (anywhere, unless anchored).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let mut ready = self.start;
        if !self.to_end && ready & self.accept != 0 {
            return true;
        }
        // Unanchored, a new match may start before every character.
        let restart = if self.from_start { 0 } else { self.start };
        for c in text.chars() {
            let taken = ready & self.admitting(c);
            ready = self.close((taken << 1) | (taken & self.loops)) | restart;
            if ready == 0 {
                return false;
            }
            if !self.to_end && ready & self.accept != 0 {
                return true;
            }
        }
        self.to_end && ready & self.accept != 0
    }

    /// The bytes a match can start with, for a pattern anchored at the start that cannot match the empty string
    /// there: those of the classes of the positions ready first (every byte from 0x80 when one admits non-ASCII
    /// characters, whose UTF-8 starts there), else `None`.
    pub(crate) fn first_bytes(&self) -> Option<ByteSet> {
        if !self.from_start || self.start & self.accept != 0 {
            return None;
        }
        let non_ascii = (self.line | self.space | self.other) & self.start != 0;
        let mut set = ByteSet::default();
        for byte in 0..=u8::MAX {
            let admitted = if byte.is_ascii() {
                self.admitting(char::from(byte)) & self.start != 0
            } else {
                non_ascii
            };
            if admitted {
                set.insert(byte);
            }
        }
        Some(set)
    }

    /// The heap and inline bytes of the compiled form.
    #[cfg(test)]
    fn size(&self) -> usize {
        std::mem::size_of::<Self>() + std::mem::size_of_val(&*self.masks)
    }
}

/// The positions whose class has the property.
fn positions(classes: &[Class], has: impl Fn(&Class) -> bool) -> u64 {
    classes
        .iter()
        .enumerate()
        .filter(|(_, class)| has(class))
        .fold(0, |mask, (idx, _)| mask | (1 << idx))
}

#[cfg(test)]
mod tests {
    use super::{MAX_POSITIONS, Sequence};
    use crate::ecma_regex::{Compiled, EcmaRegex};
    use proptest::prelude::*;

    #[test]
    fn sequences_of_classes_qualify() {
        for pattern in [
            "f.*o",
            "f.*a",
            "A[0-9]{2}Z",
            "^[a-z]+@[a-z]+\\.[a-z]{2,}$",
            "^\\d{3}-?\\d{4}$",
            "^[\\w.]+@[\\w.]+\\.[a-z]{2,}$",
            "a.b",
            "a+?b",
            "^a{2,4}?$",
            "x{0}",
            "",
            "^",
            "$",
            "^$",
            "a\\$",
            ".{63}",
            "a{60}b{2,3}",
        ] {
            assert!(Sequence::parse(pattern).is_some(), "{pattern}");
        }
        // The engine-free routes, in order: anchored first, then this one; the engine for the rest.
        let route = |pattern: &str| match &*EcmaRegex::new(pattern).unwrap().inner {
            Compiled::Anchored(_) => "anchored",
            Compiled::Sequence(_) => "sequence",
            _ => "engine",
        };
        assert_eq!(route("^ORD-[0-9]{6}$"), "anchored");
        assert_eq!(route("f.*o"), "sequence");
        assert_eq!(route("A[0-9]{2}Z"), "sequence");
        // Greedy matching is exact for this one, so the anchored route keeps it; not once the classes overlap.
        assert_eq!(route("^[a-z]+@[a-z]+\\.[a-z]{2,}$"), "anchored");
        assert_eq!(route("^[\\w.]+@[\\w.]+\\.[a-z]{2,}$"), "sequence");
        assert_eq!(route("(a|b)c"), "engine");
    }

    #[test]
    fn the_rest_is_left_to_the_engine() {
        for pattern in [
            "(a)",
            "(?:ab)+",
            "a|b",
            "\\bx",
            "x\\B",
            "(?=a)b",
            "a(?!b)",
            "(a)\\1",
            "a{64}",
            "a{100}",
            ".{60}b{2,4}",
            "é",
            "^caf\u{e9}$",
            "\\u0041",
            "\\p{L}",
            "a**",
            "a{2",
            "a^b",
            "a$b",
            "[[a]]",
        ] {
            assert!(Sequence::parse(pattern).is_none(), "{pattern}");
        }
        assert_eq!(MAX_POSITIONS, 63);
    }

    #[test]
    fn matches_like_ecma() {
        let cases = [
            ("a.b", "axb", true),
            ("a.b", "a\nb", false),
            ("a.b", "a\rb", false),
            ("a.b", "a\u{2028}b", false),
            ("a.b", "a\u{2029}b", false),
            ("a.b", "a\u{85}b", true),
            ("a.b", "a\u{a0}b", true),
            ("a.b", "a\u{1F432}b", true),
            ("a.b", "a\u{1F432}\u{1F432}b", false),
            ("a.b", "", false),
            ("f.*o", "foo", true),
            ("f.*o", "xxfyyyo!", true),
            ("f.*o", "f\no", false),
            ("f.*o", "fx\nfo", true),
            ("f.*o", "of", false),
            ("A[0-9]{2}Z", "xA12Zy", true),
            ("A[0-9]{2}Z", "A1Z", false),
            ("A[0-9]{2}Z", "A123Z", false),
            ("^[a-z]+@[a-z]+\\.[a-z]{2,}$", "ab@cd.efg", true),
            ("^[a-z]+@[a-z]+\\.[a-z]{2,}$", "a@b.c", false),
            ("^[a-z]+@[a-z]+\\.[a-z]{2,}$", "a@b.c.dd", false),
            ("^[a-z]+@[a-z]+\\.[a-z]{2,}$", "a@@b.cc", false),
            ("^[a-z]+@[a-z]+\\.[a-z]{2,}$", " a@b.cc", false),
            ("^[\\w.]+@[\\w.]+\\.[a-z]{2,}$", "j.doe@mail.example.org", true),
            ("^[\\w.]+@[\\w.]+\\.[a-z]{2,}$", "j.doe@example.c", false),
            ("^[\\w.]+@[\\w.]+\\.[a-z]{2,}$", "j.doe@example", false),
            ("^\\d{3}-?\\d{4}$", "555-1234", true),
            ("^\\d{3}-?\\d{4}$", "5551234", true),
            ("^\\d{3}-?\\d{4}$", "555--1234", false),
            ("^\\d{3}-?\\d{4}$", "55-51234", false),
            ("^\\d{3}-?\\d{4}$", "555-12345", false),
            ("^a{0,3}b$", "b", true),
            ("^a{0,3}b$", "aaab", true),
            ("^a{0,3}b$", "aaaab", false),
            ("^a*a$", "aaa", true),
            ("^a*a$", "", false),
            ("a*$", "b", true),
            ("^a*$", "b", false),
            ("^a*$", "", true),
            ("^$", "", true),
            ("^$", "\n", false),
            ("$", "anything", true),
            ("", "", true),
            ("x$", "x$", false),
            ("x\\$", "ax$", true),
            ("a.*?b", "axxb", true),
            ("a.*?b", "a\nb", false),
            ("^.$", "\u{1F432}", true),
            ("^.$", "\u{2028}", false),
            ("^\\s$", "\u{2028}", true),
            ("^\\S.$", "\u{feff}x", false),
            ("^[^a].$", "\u{2029}x", true),
        ];
        for (pattern, text, expected) in cases {
            let sequence = Sequence::parse(pattern).unwrap();
            assert_eq!(sequence.is_match(text), expected, "{pattern} on {text:?}");
        }
    }

    #[test]
    fn a_compiled_pattern_is_a_few_hundred_bytes() {
        for pattern in ["f.*o", "A[0-9]{2}Z", "^[a-z]+@[a-z]+\\.[a-z]{2,}$", "^\\w{1,60}$"] {
            let size = Sequence::parse(pattern).unwrap().size();
            assert!(size <= 300, "{pattern}: {size} bytes");
        }
    }

    fn any_pattern() -> impl Strategy<Value = String> {
        // Overlapping classes (`a`, `[a-c]`, `[ab]`, `\w`, `.`) make greedy matching inexact.
        let atom = prop::sample::select(vec![
            "a", "b", ".", "-", "\\d", "\\w", "\\W", "\\.", "\\$", "[a-c]", "[ab]", "[^a]", "[^\\n]", "\\n",
            "\\s", "\\S", "[\\sa]",
        ]);
        let quantifier = prop::sample::select(vec![
            "", "", "", "?", "*", "+", "{2}", "{1,3}", "{0,}", "{2,}", "{0,2}", "*?", "+?", "??", "{1,3}?",
        ]);
        (
            any::<bool>(),
            prop::collection::vec((atom, quantifier), 0..6),
            any::<bool>(),
        )
            .prop_map(|(from_start, atoms, to_end)| {
                let body: String = atoms.iter().map(|(atom, q)| format!("{atom}{q}")).collect();
                format!(
                    "{}{body}{}",
                    if from_start { "^" } else { "" },
                    if to_end { "$" } else { "" }
                )
            })
    }

    const TEXT: &str = "[ab0_. $\\-é\n\r\t\u{a0}\u{2028}\u{2029}\u{feff}\u{1F432}]{0,10}";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn agrees_with_the_regex_engine(pattern in any_pattern(), text in TEXT) {
            // The answer of the engine the pattern would have had without this route.
            let regex = crate::ecma_regex::reference_engine(&pattern).unwrap();
            let sequence = Sequence::parse(&pattern);
            prop_assert!(sequence.is_some(), "{} should qualify", pattern);
            if let Some(sequence) = sequence {
                prop_assert_eq!(sequence.is_match(&text), regex.is_match(text.as_bytes()), "{} on {:?}", pattern, text);
            }
        }

        #[test]
        fn first_bytes_never_exclude_a_match(pattern in any_pattern(), text in TEXT) {
            if let Some(sequence) = Sequence::parse(&pattern)
                && let Some(starts) = sequence.first_bytes()
                && sequence.is_match(&text)
            {
                let first = text.as_bytes().first().copied();
                prop_assert!(first.is_some_and(|byte| starts.contains(byte)), "{} on {:?}", pattern, text);
            }
        }
    }
}
