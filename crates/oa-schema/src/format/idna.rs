//! IDNA2008 U-label validity: the derived property of RFC 5892 (PVALID, CONTEXTJ, CONTEXTO, DISALLOWED,
//! UNASSIGNED) computed from Unicode data, the contextual rules of its Appendix A, the label rules of RFC 5891
//! section 4.2.3, and the Bidi rule of RFC 5893.
//!
//! Unicode data comes from the `regex` crate's tables (general category, scripts, binary properties),
//! unicode-normalization (NFKC, combining classes), unicode-bidi (Bidi_Class) and unicode-joining-type. The
//! derived property is computed with the Unicode version of those crates, not frozen at IANA's table version.
//! NFC is not required of labels (the JSON Schema suite accepts a label that is not in NFC).

use std::sync::LazyLock;
use unicode_bidi::BidiClass;
use unicode_joining_type::{JoiningType, get_joining_type};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::canonical_combining_class;

/// RFC 5892's derived property values, `UNASSIGNED` folded into `Disallowed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Derived {
    Pvalid,
    ContextJ,
    ContextO,
    Disallowed,
}

/// Whether `label` (already split from its name, not empty) is a valid U-label: code points PVALID or allowed
/// by their context, no leading combining mark, no hyphen at either end, no `--` in the third and fourth positions.
/// The Bidi rule is separate ([`satisfies_bidi_rule`]) because it depends on the whole name.
pub(super) fn is_valid_u_label(label: &[char]) -> bool {
    let Some(&first) = label.first() else { return false };
    if first == '-' || label.last() == Some(&'-') {
        return false;
    }
    if label.get(2) == Some(&'-') && label.get(3) == Some(&'-') {
        return false;
    }
    if is_mark(first) {
        return false;
    }
    label
        .iter()
        .enumerate()
        .all(|(idx, &c)| match derived_property(c) {
            Derived::Pvalid => true,
            Derived::ContextJ => context_j(label, idx),
            Derived::ContextO => context_o(label, idx),
            Derived::Disallowed => false,
        })
}

/// Whether a label holds a right-to-left character (Bidi R, AL or AN), which makes its name a Bidi domain name.
pub(super) fn is_rtl_label(label: &[char]) -> bool {
    label.iter().any(|&c| {
        matches!(
            unicode_bidi::bidi_class(c),
            BidiClass::R | BidiClass::AL | BidiClass::AN
        )
    })
}

/// RFC 5893 section 2: the six conditions of the Bidi rule, for one label of a Bidi domain name.
pub(super) fn satisfies_bidi_rule(label: &[char]) -> bool {
    use BidiClass::{AL, AN, BN, CS, EN, ES, ET, L, NSM, ON, R};
    let classes: Vec<BidiClass> = label.iter().map(|&c| unicode_bidi::bidi_class(c)).collect();
    let Some(first) = classes.first() else {
        return false;
    };
    // The last class that is not NSM decides how the label ends.
    let last = classes.iter().rev().find(|class| **class != NSM);
    match first {
        R | AL => {
            let allowed = classes
                .iter()
                .all(|class| matches!(class, R | AL | AN | EN | ES | CS | ET | ON | BN | NSM));
            let ends_well = matches!(last, Some(R | AL | EN | AN));
            let mixes_digits = classes.contains(&EN) && classes.contains(&AN);
            allowed && ends_well && !mixes_digits
        }
        L => {
            let allowed = classes
                .iter()
                .all(|class| matches!(class, L | EN | ES | CS | ET | ON | BN | NSM));
            allowed && matches!(last, Some(L | EN))
        }
        _ => false,
    }
}

/// RFC 5892 section 3: the derived property of one code point, rules applied in the RFC's order.
pub(super) fn derived_property(c: char) -> Derived {
    if let Some(exception) = exception(c) {
        return exception;
    }
    if is_in(&UNASSIGNED, c) {
        return Derived::Disallowed;
    }
    if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
        return Derived::Pvalid;
    }
    if c == '\u{200C}' || c == '\u{200D}' {
        return Derived::ContextJ;
    }
    if is_unstable(c) || is_in(&IGNORABLE_PROPERTIES, c) || is_ignorable_block(c) || is_old_hangul_jamo(c) {
        return Derived::Disallowed;
    }
    if is_in(&LETTER_DIGITS, c) {
        Derived::Pvalid
    } else {
        Derived::Disallowed
    }
}

/// RFC 5892 section 2.6, the Exceptions table (F).
fn exception(c: char) -> Option<Derived> {
    Some(match u32::from(c) {
        0x00DF | 0x03C2 | 0x06FD | 0x06FE | 0x0F0B | 0x3007 => Derived::Pvalid,
        0x00B7 | 0x0375 | 0x05F3 | 0x05F4 | 0x30FB | 0x0660..=0x0669 | 0x06F0..=0x06F9 => Derived::ContextO,
        0x0640 | 0x07FA | 0x302E | 0x302F | 0x3031..=0x3035 | 0x303B => Derived::Disallowed,
        _ => return None,
    })
}

/// Unstable (B): `c` is not `NFKC(casefold(NFKC(c)))`.
fn is_unstable(c: char) -> bool {
    let nfkc: String = std::iter::once(c).nfkc().collect();
    let folded = case_fold(&nfkc);
    let round_trip: String = folded.nfkc().collect();
    let mut chars = round_trip.chars();
    chars.next() != Some(c) || chars.next().is_some() || folds_unlike_lowercase(c)
}

/// Case folding as `char::to_lowercase`, except Cherokee capitals, which fold to themselves (Cherokee folds to
/// upper case; its small letters are caught by [`folds_unlike_lowercase`]).
fn case_fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        if ('\u{13A0}'..='\u{13F5}').contains(&c) {
            folded.push(c);
        } else {
            folded.extend(c.to_lowercase());
        }
    }
    folded
}

/// Code points whose full case folding (CaseFolding.txt, status C+F) differs from `char::to_lowercase` while the
/// lowercase round trip would call them stable: U+0345, Cherokee small letters (folded to capitals), Cyrillic
/// small-letter variants, and Greek letters with a ypogegrammeni (folded to a letter plus iota). U+00DF and
/// U+03C2 are in the same set but settled first by the Exceptions table.
fn folds_unlike_lowercase(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0345
            | 0x13F8..=0x13FD
            | 0x1C80..=0x1C88
            | 0x1F80..=0x1FAF
            | 0x1FB2..=0x1FB4
            | 0x1FB7
            | 0x1FC2..=0x1FC4
            | 0x1FC7
            | 0x1FF2..=0x1FF4
            | 0x1FF7
            | 0xAB70..=0xABBF
    )
}

/// IgnorableBlocks (D): Combining Diacritical Marks for Symbols, Musical Symbols, Ancient Greek Musical Notation.
fn is_ignorable_block(c: char) -> bool {
    matches!(u32::from(c), 0x20D0..=0x20FF | 0x1D100..=0x1D1FF | 0x1D200..=0x1D24F)
}

/// OldHangulJamo (I): Hangul_Syllable_Type L, V or T.
fn is_old_hangul_jamo(c: char) -> bool {
    matches!(u32::from(c), 0x1100..=0x11FF | 0xA960..=0xA97C | 0xD7B0..=0xD7C6 | 0xD7CB..=0xD7FB)
}

fn is_mark(c: char) -> bool {
    is_in(&MARKS, c)
}

/// Appendix A.1 and A.2: ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER.
fn context_j(label: &[char], idx: usize) -> bool {
    const VIRAMA: u8 = 9;
    if idx > 0 && canonical_combining_class(label[idx - 1]) == VIRAMA {
        return true;
    }
    if label[idx] != '\u{200C}' {
        return false;
    }
    // (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
    let before = label[..idx]
        .iter()
        .rev()
        .find(|&&c| get_joining_type(c) != JoiningType::Transparent);
    let after = label[idx + 1..]
        .iter()
        .find(|&&c| get_joining_type(c) != JoiningType::Transparent);
    let joins_left = before.is_some_and(|&c| {
        matches!(
            get_joining_type(c),
            JoiningType::LeftJoining | JoiningType::DualJoining
        )
    });
    let joins_right = after.is_some_and(|&c| {
        matches!(
            get_joining_type(c),
            JoiningType::RightJoining | JoiningType::DualJoining
        )
    });
    joins_left && joins_right
}

/// Appendix A.3 to A.9.
fn context_o(label: &[char], idx: usize) -> bool {
    let before = idx.checked_sub(1).and_then(|i| label.get(i)).copied();
    let after = label.get(idx + 1).copied();
    match u32::from(label[idx]) {
        0x00B7 => before == Some('l') && after == Some('l'),
        0x0375 => after.is_some_and(|c| is_in(&GREEK, c)),
        0x05F3 | 0x05F4 => before.is_some_and(|c| is_in(&HEBREW, c)),
        0x30FB => label.iter().any(|&c| is_in(&HIRAGANA_KATAKANA_HAN, c)),
        0x0660..=0x0669 => !label.iter().any(|&c| ('\u{06F0}'..='\u{06F9}').contains(&c)),
        0x06F0..=0x06F9 => !label.iter().any(|&c| ('\u{0660}'..='\u{0669}').contains(&c)),
        _ => false,
    }
}

/// A one-character class from the `regex` crate's Unicode tables, compiled on first use. The patterns are
/// constants (a unit test checks that each compiles); were one ever refused, its class would match nothing.
fn class(pattern: &str) -> Option<regex::Regex> {
    regex::Regex::new(pattern).ok()
}

fn is_in(class: &Option<regex::Regex>, c: char) -> bool {
    let mut buffer = [0u8; 4];
    class
        .as_ref()
        .is_some_and(|class| class.is_match(c.encode_utf8(&mut buffer)))
}

static UNASSIGNED: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| class(r"^[\p{Unassigned}--\p{Noncharacter_Code_Point}]$"));
static LETTER_DIGITS: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| class(r"^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$"));
static IGNORABLE_PROPERTIES: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    class(r"^[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Noncharacter_Code_Point}]$")
});
static MARKS: LazyLock<Option<regex::Regex>> = LazyLock::new(|| class(r"^\p{M}$"));
static GREEK: LazyLock<Option<regex::Regex>> = LazyLock::new(|| class(r"^\p{Greek}$"));
static HEBREW: LazyLock<Option<regex::Regex>> = LazyLock::new(|| class(r"^\p{Hebrew}$"));
static HIRAGANA_KATAKANA_HAN: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| class(r"^[\p{Hiragana}\p{Katakana}\p{Han}]$"));
