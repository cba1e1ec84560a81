//! Host names: `hostname` (RFC 1123 section 2.1 with RFC 5890 A-labels) and `idn-hostname` (RFC 5890/5891
//! U-labels and A-labels, checked against IDNA2008: RFC 5892 code points and contexts, RFC 5893 Bidi rule).
//!
//! Limits follow DNS: each label 1-63 octets (a U-label measured as its A-label), the whole name at most 253
//! octets in ASCII form, no empty label, no trailing dot.

use super::{idna, punycode};

/// The longest label in octets.
const MAX_LABEL: usize = 63;
/// The longest name in octets, in its ASCII form and without a trailing dot.
const MAX_NAME: usize = 253;

/// An ASCII host name: letters, digits and hyphens, labels not starting or ending with a hyphen, and every
/// `xn--` label a valid A-label.
pub(super) fn is_hostname(text: &str) -> bool {
    if text.is_empty() || text.len() > MAX_NAME || !text.is_ascii() {
        return false;
    }
    // The usual name has no A-label: then every label is letters, digits and hyphens, none of them right-to-left,
    // so there is nothing to decode and no Bidi rule to apply (and no characters to collect for it). A label that
    // is not LDH fails the name either way.
    match ldh_labels(text.as_bytes()) {
        None => return false,
        Some(false) => return true,
        Some(true) => {}
    }
    let mut labels = Vec::new();
    for label in text.split('.') {
        match ascii_label(label) {
            Some(decoded) => labels.push(decoded),
            None => return false,
        }
    }
    bidi_ok(&labels)
}

/// An internationalized host name: labels separated by `.`, `。`, `．` or `｡`, each an LDH label, an A-label or
/// a U-label.
pub(super) fn is_idn_hostname(text: &str) -> bool {
    if text.is_empty() {
        return false;
    }
    let mut labels = Vec::new();
    let mut ascii_length = 0;
    for label in text.split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}']) {
        let decoded = if label.is_ascii() {
            ascii_length += label.len();
            ascii_label(label)
        } else {
            u_label(label).map(|(chars, a_label_length)| {
                ascii_length += a_label_length;
                chars
            })
        };
        match decoded {
            Some(chars) => labels.push(chars),
            None => return false,
        }
        ascii_length += 1;
    }
    ascii_length - 1 <= MAX_NAME && bidi_ok(&labels)
}

/// Over the labels of an ASCII name, in one pass over its bytes: `None` when one is not an LDH label, else
/// whether one has the A-label form (`xn--`).
fn ldh_labels(name: &[u8]) -> Option<bool> {
    let mut a_label = false;
    for label in name.split(|byte| *byte == b'.') {
        if !is_ldh(label) {
            return None;
        }
        a_label |= label
            .get(..4)
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(b"xn--"));
    }
    Some(a_label)
}

/// Whether an ASCII label is 1-63 letters, digits and hyphens, not starting or ending with a hyphen.
fn is_ldh_label(label: &str) -> bool {
    is_ldh(label.as_bytes())
}

/// [`is_ldh_label`] over bytes.
fn is_ldh(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes.len() <= MAX_LABEL
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
}

/// Whether a label starts as an A-label does (`xn--`, in either case).
fn is_a_label_form(label: &str) -> bool {
    label
        .get(..4)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("xn--"))
}

/// Checks an ASCII label and returns its Unicode form (decoded for an A-label).
fn ascii_label(label: &str) -> Option<Vec<char>> {
    if !is_ldh_label(label) {
        return None;
    }
    if !is_a_label_form(label) {
        return Some(label.chars().collect());
    }
    // An A-label: valid Punycode, not all ASCII, canonical (re-encodes to itself), and a valid U-label.
    let encoded = &label[4..];
    let decoded = punycode::decode(encoded)?;
    if decoded.iter().all(char::is_ascii) {
        return None;
    }
    if !punycode::encode(&decoded)?.eq_ignore_ascii_case(encoded) {
        return None;
    }
    idna::is_valid_u_label(&decoded).then_some(decoded)
}

/// Checks a non-ASCII label; returns its characters and the length of its A-label.
fn u_label(label: &str) -> Option<(Vec<char>, usize)> {
    let chars: Vec<char> = label.chars().collect();
    // An A-label is `xn--` plus at least one octet per character, so a longer U-label cannot fit.
    if chars.len() + 4 > MAX_LABEL || !idna::is_valid_u_label(&chars) {
        return None;
    }
    let a_label_length = 4 + punycode::encode(&chars)?.len();
    (a_label_length <= MAX_LABEL).then_some((chars, a_label_length))
}

/// RFC 5893: in a name with any right-to-left label, every label satisfies the Bidi rule.
fn bidi_ok(labels: &[Vec<char>]) -> bool {
    if !labels.iter().any(|label| idna::is_rtl_label(label)) {
        return true;
    }
    labels.iter().all(|label| idna::satisfies_bidi_rule(label))
}

#[cfg(test)]
mod tests {
    /// The shortcut for names without A-labels rests on this: no letter, digit or hyphen is right-to-left.
    #[test]
    fn no_ldh_character_is_right_to_left() {
        let ldh: Vec<char> = ('a'..='z')
            .chain('A'..='Z')
            .chain('0'..='9')
            .chain(['-'])
            .collect();
        for c in ldh {
            assert!(!super::idna::is_rtl_label(&[c]), "{c:?}");
        }
    }
}
