//! ECMA-262 regular expressions for `pattern`, `patternProperties` and `format: regex`, with a bounded budget.
//!
//! INTERFACE STUB — owned by the numbers/formats/regex work, which translates ECMA-262 syntax (\d \w \s \b and their
//! negations, Unicode code points, ...) onto fancy-regex/regex and bounds the work per match, keeping these
//! signatures.

use std::fmt;

/// A compiled ECMA-262 pattern. Cheap to clone, `Send + Sync`.
#[derive(Debug, Clone)]
pub(crate) struct EcmaRegex {
    inner: fancy_regex::Regex,
}

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegexError {
    /// A short lowercase description.
    pub(crate) message: String,
}

/// A match gave up because it exceeded the matching budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegexBudgetExceeded;

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl EcmaRegex {
    /// Compiles an ECMA-262 pattern.
    pub(crate) fn new(pattern: &str) -> Result<Self, RegexError> {
        fancy_regex::Regex::new(pattern)
            .map(|inner| Self { inner })
            .map_err(|e| RegexError { message: e.to_string() })
    }

    /// Whether the pattern matches anywhere in `haystack` (patterns are not anchored).
    pub(crate) fn is_match(&self, haystack: &str) -> Result<bool, RegexBudgetExceeded> {
        self.inner.is_match(haystack).map_err(|_| RegexBudgetExceeded)
    }
}
