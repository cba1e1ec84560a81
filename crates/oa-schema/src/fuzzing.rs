//! Entry points for the fuzz targets (`fuzz/` at the workspace root), behind the `fuzzing` feature: the
//! crate-internal routes the public API does not name, exposed so the fuzzers can check them against each other
//! instead of copying them. Not part of the supported API.

use crate::ecma_regex::{self, EcmaRegex};
use crate::eval::Evaluator;
use crate::validator::Validator;
use serde_json::Value;

/// A compiled ECMA-262 pattern, as `pattern` and `patternProperties` use it.
#[derive(Debug, Clone)]
pub struct Regex(EcmaRegex);

impl Regex {
    /// Compiles an ECMA-262 pattern.
    ///
    /// # Errors
    /// The compile error's message.
    pub fn new(pattern: &str) -> Result<Self, String> {
        EcmaRegex::new(pattern).map(Self).map_err(|error| error.message)
    }

    /// The route that matches this pattern: `anchored` and `sequence` run without an engine, `linear` and
    /// `deferred` on the `regex` crate, `backtracking` on fancy-regex.
    pub fn route(&self) -> &'static str {
        self.0.route()
    }

    /// Whether the pattern matches anywhere in `haystack`; `None` when the matching budget ran out.
    pub fn is_match(&self, haystack: &str) -> Option<bool> {
        self.0.is_match(haystack).ok()
    }

    /// Whether a string starting with `first` (`None`: the empty string) can match, by the pattern's first-byte
    /// filter; `true` when the pattern has no filter.
    pub fn first_byte_admits(&self, first: Option<u8>) -> bool {
        match self.0.first_bytes() {
            Some(starts) => first.is_some_and(|byte| starts.contains(byte)),
            None => true,
        }
    }
}

/// The `regex` crate's answer on the pattern's linear translation, the reference for the engine-free routes;
/// `None` when the pattern does not parse, needs the backtracking engine, or does not build.
pub fn reference_is_match(pattern: &str, haystack: &str) -> Option<bool> {
    ecma_regex::reference_engine(pattern).map(|regex| regex.is_match(haystack.as_bytes()))
}

/// fancy-regex's answer on the pattern's backtracking translation (classes written as code points rather than
/// the linear translation's UTF-8 byte sequences); `None` when it does not build or runs out of budget.
pub fn backtracking_is_match(pattern: &str, haystack: &str) -> Option<bool> {
    ecma_regex::backtracking_is_match(pattern, haystack)
}

/// Whether `pattern` is a valid ECMA-262 pattern, as `format: regex` asks.
pub fn is_valid_pattern(pattern: &str) -> bool {
    ecma_regex::is_valid_pattern(pattern)
}

/// The collecting evaluator's own verdict on `instance` and the number of violations it recorded, without the
/// yes/no answer [`Validator::validate`] asks first: the other side of the `is_valid` differential.
pub fn collecting_verdict(validator: &Validator, instance: &Value) -> (bool, usize) {
    let mut evaluator = Evaluator::new(validator.compiled(), true);
    let valid = evaluator.run(instance);
    (valid, evaluator.violations.len())
}
