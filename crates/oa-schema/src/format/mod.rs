//! `format` assertions: one checker per format name, used only when format assertion is on.

/// A format checker: whether a string is valid for the format. Non-strings are always valid.
pub(crate) type FormatCheck = fn(&str) -> bool;

/// The checker for a format name, or `None` for a name we do not assert (it stays an annotation).
pub(crate) fn checker(name: &str) -> Option<FormatCheck> {
    let _ = name;
    None
}

#[cfg(test)]
pub(crate) mod suite;
