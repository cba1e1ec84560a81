//! Anchored patterns of ASCII character classes (`^ORD-[0-9]{6}$`, `^[A-Z]{2}-[0-9]{4}$`), matched without a
//! regex engine.
//!
//! These are most of the `pattern`s that structured-output schemas carry, and a regex engine's per-call set-up costs
//! more than the match itself on such short strings. A pattern qualifies when it starts with `^`, is a sequence of
//! literals, escapes (`\d`, `\w`, `\s` and their negations, control escapes such as `\t`, escaped punctuation) and
//! bracketed classes of them and ASCII characters, each with an optional greedy quantifier, and optionally ends with
//! `$`; and when greedy matching is exact for it: a repeated atom shares no character with the atoms that could
//! take characters it gives back. FHIR's `^[ \r\n\t\S]+$` and `^\S*$` qualify. Anything else (groups,
//! alternation, `.`, lazy quantifiers, non-ASCII literals) returns `None` and the next route decides (the
//! bit-parallel [`sequence`](super::sequence) matcher, else the regex engine), so this is only ever a faster route
//! to the same answer (checked against the engine by a property test).

/// A compiled anchored pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchored {
    atoms: Box<[Atom]>,
    /// Whether the pattern ends with `$` (else any suffix is allowed).
    to_end: bool,
    /// Whether no class admits a non-ASCII character (then bytes stand for characters).
    ascii_only: bool,
    /// For a pattern of one length (every atom repeated a fixed number of times, ending with `$`, ASCII classes
    /// only: `^[A-Z]{2}-[0-9]{4}$`, `^[a-f0-9]{8}$`), the class at each position as two 64-bit halves: a match is
    /// the length and one bit test a byte, about a third of the atom walk's cost on such short codes.
    fixed: Option<Box<[[u64; 2]]>>,
}

/// The longest pattern given a [`Anchored::fixed`] table (one entry, 16 bytes, per position).
const MAX_FIXED_LEN: u32 = 64;

/// A character class with a repetition count.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Atom {
    class: Class,
    min: u32,
    /// `u32::MAX` for no upper bound.
    max: u32,
    /// For a repeated atom, the class's ASCII characters by byte: one load a byte in the run loops. Single
    /// characters test the class's bits instead (most atoms are literals; a table each would weigh on memory).
    table: Option<Box<[bool; 128]>>,
    /// For a repeated atom whose class holds every printable ASCII character from this byte (`b' '` or `b'!'`) to
    /// `~` (FHIR's `[ \r\n\t\S]`, `\S`), that byte: runs of such text are taken eight bytes at a time. 0 otherwise.
    printable_from: u8,
}

impl Atom {
    fn new(class: Class, min: u32, max: u32) -> Self {
        let table = (max > 1).then(|| {
            let mut table = Box::new([false; 128]);
            for (byte, entry) in (0..128_u8).zip(table.iter_mut()) {
                *entry = class.has_ascii(byte);
            }
            table
        });
        let holds_from = |from: u8| (from..=b'~').all(|byte| class.has_ascii(byte));
        let printable_from = match () {
            () if max <= 1 => 0,
            () if holds_from(b' ') => b' ',
            () if holds_from(b'!') => b'!',
            () => 0,
        };
        Self {
            class,
            min,
            max,
            table,
            printable_from,
        }
    }

    /// Whether `byte` is an ASCII character of the class.
    #[inline(always)]
    fn has_ascii(&self, byte: u8) -> bool {
        match &self.table {
            Some(table) => table.get(usize::from(byte)).copied().unwrap_or(false),
            None => self.class.has_ascii(byte),
        }
    }

    /// How many of the leading bytes of `bytes`, at most `limit`, are ASCII characters of the class. Plain loops
    /// over the bytes cut to the limit: the iterator chain it replaced cost a short pattern (`^[A-Z]{2}-[0-9]{4}$`
    /// on `AB-0000`) about 180 instructions a match.
    #[inline(always)]
    fn ascii_run(&self, bytes: &[u8], limit: usize) -> usize {
        let bytes = bytes.get(..limit).unwrap_or(bytes);
        let mut taken = 0;
        match &self.table {
            Some(table) => {
                if self.printable_from != 0 {
                    taken = super::printable::run(bytes, bytes.len(), self.printable_from);
                }
                while let Some(byte) = bytes.get(taken) {
                    if !table.get(usize::from(*byte)).copied().unwrap_or(false) {
                        break;
                    }
                    taken += 1;
                }
            }
            None => {
                while let Some(byte) = bytes.get(taken) {
                    if !self.class.has_ascii(*byte) {
                        break;
                    }
                    taken += 1;
                }
            }
        }
        taken
    }
}

/// A set of characters: the ASCII ones as bits, and the non-ASCII ones in three parts (line terminators, the rest
/// of `\s`, everything else), which is all that `\s`, `\S`, `.` and negated classes can tell apart. Shared with
/// [`super::sequence`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Class {
    ascii: u128,
    /// Whether U+2028 and U+2029 (ECMA-262's non-ASCII line terminators, which `.` excludes) are in.
    pub(super) line: bool,
    /// Whether the other non-ASCII characters of ECMA-262's `\s` (no-break and other Unicode spaces, the byte
    /// order mark) are in.
    pub(super) space: bool,
    /// Whether every other non-ASCII character is in.
    pub(super) other: bool,
}

impl Class {
    fn byte(byte: u8) -> Self {
        Self {
            ascii: 1 << byte,
            ..Self::default()
        }
    }

    fn range(from: u8, to: u8) -> Self {
        let mut class = Self::default();
        for byte in from..=to {
            class.ascii |= 1 << byte;
        }
        class
    }

    fn union(self, other: Self) -> Self {
        Self {
            ascii: self.ascii | other.ascii,
            line: self.line || other.line,
            space: self.space || other.space,
            other: self.other || other.other,
        }
    }

    fn negated(self) -> Self {
        Self {
            ascii: !self.ascii,
            line: !self.line,
            space: !self.space,
            other: !self.other,
        }
    }

    fn overlaps(self, other: Self) -> bool {
        self.ascii & other.ascii != 0
            || (self.line && other.line)
            || (self.space && other.space)
            || (self.other && other.other)
    }

    /// `.`: any code point but a line terminator (`\n`, `\r`, U+2028, U+2029), as in the engine's translation.
    pub(super) fn dot() -> Self {
        Self {
            ascii: !((1 << b'\n') | (1 << b'\r')),
            line: false,
            space: true,
            other: true,
        }
    }

    /// Whether the class admits any non-ASCII character.
    pub(super) fn has_non_ascii(self) -> bool {
        self.line || self.space || self.other
    }

    #[inline]
    pub(super) fn contains(self, c: char) -> bool {
        match u8::try_from(c) {
            Ok(byte) if byte.is_ascii() => self.has_ascii(byte),
            _ if is_ecma_line_terminator(c) => self.line,
            _ if is_ecma_space(c) => self.space,
            _ => self.other,
        }
    }

    /// Whether `byte` is an ASCII character in the class (never for bytes above 127). The set is read as two
    /// 64-bit halves: a variable shift of a `u128` costs several instructions a byte.
    #[inline(always)]
    pub(super) fn has_ascii(self, byte: u8) -> bool {
        let half = if byte < 64 {
            self.ascii as u64
        } else {
            (self.ascii >> 64) as u64
        };
        byte < 128 && (half >> (byte & 63)) & 1 != 0
    }
}

/// `\d`.
fn digit() -> Class {
    Class::range(b'0', b'9')
}

/// `\s`: ECMA-262 WhiteSpace and LineTerminator.
fn space() -> Class {
    let mut class = Class::default();
    for byte in [b'\t', b'\n', 0x0b, 0x0c, b'\r', b' '] {
        class = class.union(Class::byte(byte));
    }
    class.line = true;
    class.space = true;
    class
}

/// Whether a non-ASCII character is one of ECMA-262's line terminators (U+2028, U+2029).
pub(super) fn is_ecma_line_terminator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

/// Whether a non-ASCII character is in ECMA-262's `\s` (the same set as the engine's translation; line
/// terminators included).
pub(super) fn is_ecma_space(c: char) -> bool {
    matches!(
        c,
        '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// The character a control escape (`\t`, `\n`, `\v`, `\f`, `\r`) stands for.
fn control_escape(byte: u8) -> Option<u8> {
    match byte {
        b't' => Some(b'\t'),
        b'n' => Some(b'\n'),
        b'v' => Some(0x0b),
        b'f' => Some(0x0c),
        b'r' => Some(b'\r'),
        _ => None,
    }
}

/// `\w`.
fn word() -> Class {
    Class::range(b'a', b'z')
        .union(Class::range(b'A', b'Z'))
        .union(digit())
        .union(Class::byte(b'_'))
}

impl Anchored {
    /// The pattern in this form, or `None` when it is outside the subset (then the regex engine matches it).
    pub(crate) fn parse(pattern: &str) -> Option<Self> {
        let body = pattern.strip_prefix('^')?;
        let (body, to_end) = match body.strip_suffix('$') {
            // `\$` at the end is a literal dollar, not the anchor.
            Some(rest) if !ends_with_odd_backslashes(rest) => (rest, true),
            _ => (body, false),
        };
        let bytes = body.as_bytes();
        if !bytes.is_ascii() {
            return None;
        }
        let mut atoms = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            let (class, next) = class_at(bytes, pos)?;
            let (min, max, lazy, next) = quantifier_at(bytes, next)?;
            // Lazy quantifiers are left to the sequence route, whose property test covers them.
            if lazy {
                return None;
            }
            atoms.push(Atom::new(class, min, max));
            pos = next;
        }
        let ascii_only = atoms.iter().all(|atom| !atom.class.has_non_ascii());
        let fixed_len = atoms.iter().try_fold(0_u32, |len, atom| {
            (atom.min == atom.max).then(|| len.saturating_add(atom.max))
        });
        let fixed = match fixed_len {
            Some(len) if to_end && ascii_only && len <= MAX_FIXED_LEN => Some(
                atoms
                    .iter()
                    .flat_map(|atom| {
                        let halves = [atom.class.ascii as u64, (atom.class.ascii >> 64) as u64];
                        std::iter::repeat_n(halves, atom.max as usize)
                    })
                    .collect(),
            ),
            _ => None,
        };
        let anchored = Self {
            atoms: atoms.into_boxed_slice(),
            to_end,
            ascii_only,
            fixed,
        };
        anchored.greedy_is_exact().then_some(anchored)
    }

    /// Whether taking as many characters as possible at each repeated atom never loses a match: the characters a
    /// repeated atom could give back cannot be taken by the atoms after it (up to and including the first one that
    /// must match at least once).
    fn greedy_is_exact(&self) -> bool {
        self.atoms.iter().enumerate().all(|(atom_idx, atom)| {
            if atom.min == atom.max {
                return true;
            }
            for later in &self.atoms[atom_idx + 1..] {
                if later.class.overlaps(atom.class) {
                    return false;
                }
                if later.min > 0 {
                    break;
                }
            }
            true
        })
    }

    /// The bytes a match can start with: those of the first atom's class when it must match at least once
    /// (every byte from 0x80 when it admits non-ASCII characters, whose UTF-8 starts there), else `None`.
    pub(crate) fn first_bytes(&self) -> Option<super::ByteSet> {
        let first = self.atoms.first().filter(|atom| atom.min >= 1)?;
        let mut set = super::ByteSet::default();
        for byte in 0..=u8::MAX {
            if first.class.has_ascii(byte) || (byte >= 0x80 && first.class.has_non_ascii()) {
                set.insert(byte);
            }
        }
        Some(set)
    }

    /// Whether `text` matches. The two walks are out of line and this test is in the caller's: each walk then
    /// saves only the registers it uses (the character walk's frame cost every ASCII match a dozen instructions).
    #[inline]
    pub(crate) fn is_match(&self, text: &str) -> bool {
        if self.ascii_only {
            self.is_match_ascii(text.as_bytes())
        } else {
            self.is_match_chars(text)
        }
    }

    /// [`Self::is_match`] when some class admits a non-ASCII character.
    #[inline(never)]
    fn is_match_chars(&self, text: &str) -> bool {
        // ASCII bytes are tested as bytes; a character is decoded only where a byte says it is not ASCII.
        let bytes = text.as_bytes();
        let mut pos = 0;
        for atom in self.atoms.iter() {
            let max = atom.max as usize;
            let mut count: usize = 0;
            loop {
                let run = atom.ascii_run(bytes.get(pos..).unwrap_or_default(), max - count);
                pos += run;
                count += run;
                if count >= max {
                    break;
                }
                match bytes.get(pos) {
                    Some(byte) if !byte.is_ascii() => {
                        match text.get(pos..).and_then(|rest| rest.chars().next()) {
                            Some(c) if atom.class.contains(c) => {
                                pos += c.len_utf8();
                                count += 1;
                            }
                            _ => break,
                        }
                    }
                    _ => break,
                }
            }
            if count < atom.min as usize {
                return false;
            }
        }
        !self.to_end || pos == bytes.len()
    }
}

impl Anchored {
    /// [`is_match`](Self::is_match) when no class admits a non-ASCII character: bytes stand for characters, since
    /// every byte of a non-ASCII character is outside the classes and stops the atom there, as the character would.
    #[inline(never)]
    fn is_match_ascii(&self, text: &[u8]) -> bool {
        if let Some(fixed) = &self.fixed {
            return text.len() == fixed.len()
                && text.iter().zip(fixed.iter()).all(|(byte, halves)| {
                    *byte < 128 && (halves[usize::from(*byte >> 6) & 1] >> (byte & 63)) & 1 != 0
                });
        }
        let mut pos = 0;
        for atom in self.atoms.iter() {
            // Single characters, optional or not (literals such as `ORD-`): one byte test.
            if atom.max == 1 {
                match text.get(pos) {
                    Some(byte) if atom.has_ascii(*byte) => pos += 1,
                    _ if atom.min == 0 => {}
                    _ => return false,
                }
                continue;
            }
            let taken = atom.ascii_run(text.get(pos..).unwrap_or_default(), atom.max as usize);
            if taken < atom.min as usize {
                return false;
            }
            pos += taken;
        }
        !self.to_end || pos == text.len()
    }
}

/// Whether `text` ends in an escaping backslash (so a `$` after it is a literal).
pub(super) fn ends_with_odd_backslashes(text: &str) -> bool {
    text.bytes().rev().take_while(|byte| *byte == b'\\').count() % 2 == 1
}

/// ASCII punctuation that an escape turns into a literal.
fn is_escapable(byte: u8) -> bool {
    byte.is_ascii_punctuation()
}

/// Characters that are syntax outside a class; anything else printable is a literal.
fn is_syntax(byte: u8) -> bool {
    matches!(
        byte,
        b'\\' | b'^' | b'$' | b'.' | b'|' | b'?' | b'*' | b'+' | b'(' | b')' | b'[' | b']' | b'{' | b'}'
    )
}

/// The atom starting at `pos`: a literal, an escape or a bracketed class (not `.`, which [`Anchored`] leaves to
/// the engine).
pub(super) fn class_at(bytes: &[u8], pos: usize) -> Option<(Class, usize)> {
    let byte = *bytes.get(pos)?;
    match byte {
        b'\\' => escape_at(bytes, pos + 1),
        b'[' => bracket_at(bytes, pos + 1),
        _ if is_syntax(byte) || !(byte.is_ascii_graphic() || byte == b' ') => None,
        _ => Some((Class::byte(byte), pos + 1)),
    }
}

/// An escape after its backslash: `\d`, `\w` or escaped punctuation.
fn escape_at(bytes: &[u8], pos: usize) -> Option<(Class, usize)> {
    let byte = *bytes.get(pos)?;
    let class = match byte {
        b'd' => digit(),
        b'D' => digit().negated(),
        b'w' => word(),
        b'W' => word().negated(),
        b's' => space(),
        b'S' => space().negated(),
        _ if is_escapable(byte) => Class::byte(byte),
        _ if control_escape(byte).is_some() => Class::byte(control_escape(byte)?),
        _ => return None,
    };
    Some((class, pos + 1))
}

/// A bracketed class after its `[`.
fn bracket_at(bytes: &[u8], mut pos: usize) -> Option<(Class, usize)> {
    let negated = bytes.get(pos) == Some(&b'^');
    if negated {
        pos += 1;
    }
    let mut class = Class::default();
    let mut first = true;
    loop {
        let byte = *bytes.get(pos)?;
        if byte == b']' && !first {
            pos += 1;
            break;
        }
        first = false;
        let (from, next) = match byte {
            b'\\' => {
                let escaped = *bytes.get(pos + 1)?;
                match escaped {
                    b'd' | b'w' | b'D' | b'W' | b's' | b'S' => {
                        let (escape, next) = escape_at(bytes, pos + 1)?;
                        class = class.union(escape);
                        pos = next;
                        continue;
                    }
                    _ if is_escapable(escaped) => (escaped, pos + 2),
                    _ if control_escape(escaped).is_some() => (control_escape(escaped)?, pos + 2),
                    _ => return None,
                }
            }
            // `[` inside a class and `]` first are legal in ECMA-262 but rare: leave them to the engine.
            b'[' | b']' => return None,
            _ if byte.is_ascii_graphic() || byte == b' ' => (byte, pos + 1),
            _ => return None,
        };
        // A range `a-z` (a `-` first, last or next to an escape class is a literal).
        if bytes.get(next) == Some(&b'-') && bytes.get(next + 1).is_some_and(|end| *end != b']') {
            let end = *bytes.get(next + 1)?;
            let (to, after) = match end {
                b'\\' => {
                    let escaped = *bytes.get(next + 2)?;
                    if !is_escapable(escaped) {
                        return None;
                    }
                    (escaped, next + 3)
                }
                b'[' => return None,
                _ if end.is_ascii_graphic() || end == b' ' => (end, next + 2),
                _ => return None,
            };
            if to < from {
                return None;
            }
            class = class.union(Class::range(from, to));
            pos = after;
        } else {
            class = class.union(Class::byte(from));
            pos = next;
        }
    }
    Some((if negated { class.negated() } else { class }, pos))
}

/// An optional quantifier at `pos`: `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`, each possibly lazy (a trailing `?`).
/// Returns `(min, max, lazy, next)`, `max` being `u32::MAX` for no upper bound.
pub(super) fn quantifier_at(bytes: &[u8], pos: usize) -> Option<(u32, u32, bool, usize)> {
    let (min, max, next) = match bytes.get(pos) {
        Some(b'?') => (0, 1, pos + 1),
        Some(b'*') => (0, u32::MAX, pos + 1),
        Some(b'+') => (1, u32::MAX, pos + 1),
        Some(b'{') => {
            let close = pos + bytes.get(pos..)?.iter().position(|byte| *byte == b'}')?;
            let inner = std::str::from_utf8(bytes.get(pos + 1..close)?).ok()?;
            let number = |text: &str| -> Option<u32> {
                (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
                    .then(|| text.parse().ok())
                    .flatten()
            };
            let (min, max) = match inner.split_once(',') {
                None => {
                    let count = number(inner)?;
                    (count, count)
                }
                Some((min, "")) => (number(min)?, u32::MAX),
                Some((min, max)) => (number(min)?, number(max)?),
            };
            // Counts near the maximum are left to the engine (which also rejects `{3,1}`).
            if min > max || max == u32::MAX - 1 || min > 1_000 || (max != u32::MAX && max > 1_000) {
                return None;
            }
            (min, max, close + 1)
        }
        _ => return Some((1, 1, false, pos)),
    };
    let lazy = bytes.get(next) == Some(&b'?');
    let next = if lazy { next + 1 } else { next };
    // A quantifier after a quantifier is a syntax error, or Annex B text the engine reads better.
    if matches!(bytes.get(next), Some(b'?' | b'*' | b'+' | b'{')) {
        return None;
    }
    Some((min, max, lazy, next))
}

#[cfg(test)]
mod tests {
    use super::Anchored;
    use proptest::prelude::*;

    #[test]
    fn llm_shaped_patterns_qualify() {
        for pattern in [
            "^ORD-[0-9]{6}$",
            "^[a-f0-9]{8}$",
            "^[A-Z0-9 ]{3,10}$",
            "^[A-Z]{3}$",
            "^[A-Z]{2}-[0-9]{4}$",
            "^\\d+$",
            "^[a-z_][a-z0-9_]*$",
            "^https?://",
            "^[ \\r\\n\\t\\S]+$",
            "^\\S*$",
        ] {
            assert!(Anchored::parse(pattern).is_some(), "{pattern}");
        }
    }

    #[test]
    fn patterns_of_one_length_take_the_position_table() {
        for (pattern, len) in [
            ("^ORD-[0-9]{6}$", 10),
            ("^[a-f0-9]{8}$", 8),
            ("^[A-Z]{2}-[0-9]{4}$", 7),
            ("^$", 0),
        ] {
            let fixed = Anchored::parse(pattern).and_then(|anchored| anchored.fixed);
            assert_eq!(fixed.map(|fixed| fixed.len()), Some(len), "{pattern}");
        }
        // Not one length, not anchored at the end, a non-ASCII class, or too long for a table.
        for pattern in [
            "^[A-Z0-9 ]{3,10}$",
            "^\\d+$",
            "^ORD-[0-9]{6}",
            "^[^a]{2}$",
            "^a{65}$",
        ] {
            let anchored = Anchored::parse(pattern).unwrap();
            assert!(anchored.fixed.is_none(), "{pattern}");
        }
    }

    #[test]
    fn the_rest_is_left_to_the_engine() {
        for pattern in [
            "ORD-[0-9]{6}$",
            "^(a|b)$",
            "^a.b$",
            "^a+?$",
            "^[a-z]*[a-c]$",
            "^a*a$",
            "^a?b?a$",
            "^é$",
            "^a{2,1}$",
        ] {
            assert!(Anchored::parse(pattern).is_none(), "{pattern}");
        }
    }

    #[test]
    fn matches_like_ecma() {
        let cases = [
            ("^ORD-[0-9]{6}$", "ORD-004217", true),
            ("^ORD-[0-9]{6}$", "ORD-42", false),
            ("^ORD-[0-9]{6}$", "ORD-0042170", false),
            ("^[A-Z0-9 ]{3,10}$", "75001", true),
            ("^[A-Z0-9 ]{3,10}$", "7500100000000", false),
            ("^[^a]+$", "é", true),
            ("^\\$[0-9]+$", "$12", true),
            ("^a\\$", "a$x", true),
            ("^https?://", "http://x", true),
            ("^https?://", "ftp://x", false),
            ("^$", "", true),
            ("^$", "\n", false),
            ("^[ \\r\\n\\t\\S]+$", "a b\tc\u{e9}", true),
            ("^[ \\r\\n\\t\\S]+$", "a\u{a0}b", false),
            ("^[ \\r\\n\\t\\S]+$", "a\u{b}b", false),
            ("^\\S*$", "http://x/\u{e9}", true),
            ("^\\S*$", "a\u{2028}", false),
            ("^\\s\\S$", "\u{feff}x", true),
            // One length: the position table.
            ("^[A-Z]{2}-[0-9]{4}$", "AB-0000", true),
            ("^[A-Z]{2}-[0-9]{4}$", "AB-000", false),
            ("^[A-Z]{2}-[0-9]{4}$", "AB-00000", false),
            ("^[A-Z]{2}-[0-9]{4}$", "Ab-0000", false),
            ("^[A-Z]{2}-[0-9]{4}$", "AB-00\u{e9}", false),
            ("^[A-Z]{2}-[0-9]{4}$", "AB-0000\n", false),
            ("^\\d{3}$", "\u{660}12", false),
        ];
        for (pattern, text, expected) in cases {
            let anchored = Anchored::parse(pattern).unwrap();
            assert_eq!(anchored.is_match(text), expected, "{pattern} on {text:?}");
        }
    }

    fn any_pattern() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "a",
            "b",
            "-",
            " ",
            "\\d",
            "\\w",
            "\\W",
            "\\.",
            "[a-c]",
            "[^a]",
            "[0-9_]",
            "[b\\-]",
            "[-a]",
            "\\s",
            "\\S",
            "\\t",
            "[ \\r\\n\\t\\S]",
            "[^\\s]",
            "[\\sa]",
        ]);
        let quantifier = prop::sample::select(vec!["", "", "?", "*", "+", "{2}", "{1,3}", "{0,}", "{2,}"]);
        (prop::collection::vec((atom, quantifier), 0..5), any::<bool>()).prop_map(|(atoms, to_end)| {
            let body: String = atoms.iter().map(|(atom, q)| format!("{atom}{q}")).collect();
            format!("^{body}{}", if to_end { "$" } else { "" })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn agrees_with_the_regex_engine(pattern in any_pattern(), text in "[ab0_. \\-é\n\t\u{a0}\u{2028}\u{feff}\u{3000}]{0,8}") {
            // Against the engine the pattern would have had (`EcmaRegex` itself now takes this route).
            let regex = crate::ecma_regex::reference_engine(&pattern).unwrap();
            if let Some(anchored) = Anchored::parse(&pattern) {
                prop_assert_eq!(anchored.is_match(&text), regex.is_match(text.as_bytes()), "{} on {:?}", pattern, text);
            }
        }

        /// Patterns of one length (the position table), on texts of about their length over their characters.
        #[test]
        fn fixed_length_patterns_agree_with_the_regex_engine(
            atoms in prop::collection::vec((
                prop::sample::select(vec!["a", "b", "-", "\\d", "\\w", "\\W", "[a-c]", "[0-9_]", "[^a]", "\\S", "\\s"]),
                prop::sample::select(vec!["", "{2}", "{3}", "{1}", "{0}"]),
            ), 0..5),
            text in "[ab0_9\\- \u{e9}\n\u{a0}]{0,9}",
        ) {
            let body: String = atoms.iter().map(|(atom, q)| format!("{atom}{q}")).collect();
            let pattern = format!("^{body}$");
            let regex = crate::ecma_regex::reference_engine(&pattern).unwrap();
            if let Some(anchored) = Anchored::parse(&pattern) {
                prop_assert_eq!(anchored.is_match(&text), regex.is_match(text.as_bytes()), "{} on {:?}", pattern, text);
            }
        }

        /// Texts long enough for runs taken eight bytes at a time, with the printable characters at the edges of
        /// those runs (` `, `!`, `~`) and the ones just outside (DEL, `\u{b}`, `\u{c}`, `\u{1f}`).
        #[test]
        fn agrees_with_the_regex_engine_on_long_texts(
            pattern in any_pattern(),
            text in "[ab0_. !~\\-é\n\t\u{b}\u{c}\u{1f}\u{7f}\u{a0}\u{2028}]{0,40}",
        ) {
            let regex = crate::ecma_regex::reference_engine(&pattern).unwrap();
            if let Some(anchored) = Anchored::parse(&pattern) {
                prop_assert_eq!(anchored.is_match(&text), regex.is_match(text.as_bytes()), "{} on {:?}", pattern, text);
            }
        }

        #[test]
        fn first_bytes_never_exclude_a_match(pattern in any_pattern(), text in "[ab0_. \\-é\n\t\u{a0}\u{2028}\u{feff}\u{3000}]{0,8}") {
            let regex = crate::ecma_regex::EcmaRegex::new(&pattern).unwrap();
            if let Some(starts) = regex.first_bytes()
                && regex.is_match(&text) == Ok(true)
            {
                let first = text.as_bytes().first().copied();
                prop_assert!(first.is_some_and(|byte| starts.contains(byte)), "{} on {:?}", pattern, text);
            }
        }
    }
}
