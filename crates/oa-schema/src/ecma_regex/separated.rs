//! Runs of one class separated by single characters of another, `^A+(BA+)*$` (FHIR's `code`:
//! `^[^\s]+(\s[^\s]+)*$`), matched without a regex engine.
//!
//! The group keeps it from [`super::sequence`], and the engine's per-match set-up was most of the cost of checking
//! a short code (about 360 instructions). A string matches exactly when it is not empty, starts and ends with an
//! `A`, and each character not in `A` is in `B` and follows an `A` (that is, no two such characters are adjacent):
//! every parse has those properties, and a string that has them parses with its `A` characters as runs and the
//! others as separators, whether or not the classes overlap. Checked against the engine by a property test.

use super::anchored::{Class, class_at, ends_with_odd_backslashes};

/// A compiled `^A+(BA+)*$`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Separated {
    part: Class,
    separator: Class,
}

impl Separated {
    /// The pattern in this form (the group capturing or not), or `None`.
    pub(crate) fn parse(pattern: &str) -> Option<Self> {
        let body = pattern.strip_prefix('^')?.strip_suffix('$')?;
        if ends_with_odd_backslashes(body) {
            return None;
        }
        let (part, after) = class_at(body.as_bytes(), 0)?;
        let part_text = body.get(..after)?;
        let rest = body.get(after..)?.strip_prefix('+')?.strip_suffix(")*")?;
        let group = rest.strip_prefix("(?:").or_else(|| rest.strip_prefix('('))?;
        let (separator, next) = class_at(group.as_bytes(), 0)?;
        (group.get(next..)?.strip_suffix('+')? == part_text).then_some(Self { part, separator })
    }

    /// Whether `text` matches (see the module's documentation).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let mut after_part = false;
        for c in text.chars() {
            if self.part.contains(c) {
                after_part = true;
            } else if after_part && self.separator.contains(c) {
                after_part = false;
            } else {
                return false;
            }
        }
        after_part
    }
}

#[cfg(test)]
mod tests {
    use super::Separated;
    use proptest::prelude::*;

    #[test]
    fn qualifies_only_the_separated_form() {
        for pattern in [r"^[^\s]+(\s[^\s]+)*$", r"^a+(?:-a+)*$", r"^[a-c]+([ab][a-c]+)*$"] {
            assert!(Separated::parse(pattern).is_some(), "{pattern}");
        }
        for pattern in [
            r"^a+(-b+)*$",
            r"^a+(-a+)+$",
            r"^a+(-a+)*",
            r"^a+(-a)*$",
            r"^a+(-a+)*\$",
            r"^.+(-.+)*$",
        ] {
            assert!(Separated::parse(pattern).is_none(), "{pattern}");
        }
    }

    fn any_pattern() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![r"\s", r"\S", "[^\\s]", "a", "[ab]", "[^a]", r"\d", "-", " "]);
        (atom.clone(), atom, any::<bool>()).prop_map(|(part, separator, capturing)| {
            let open = if capturing { "(" } else { "(?:" };
            format!("^{part}+{open}{separator}{part}+)*$")
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn agrees_with_the_regex_engine(pattern in any_pattern(), text in "[ab1 \\-\t\u{a0}\u{2028}é]{0,8}") {
            let regex = crate::ecma_regex::reference_engine(&pattern).unwrap();
            let separated = Separated::parse(&pattern);
            prop_assert!(separated.is_some(), "{} should qualify", pattern);
            if let Some(separated) = separated {
                prop_assert_eq!(separated.is_match(&text), regex.is_match(text.as_bytes()), "{} on {:?}", pattern, text);
            }
        }
    }
}
