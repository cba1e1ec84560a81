//! The whole text at hand: the incremental route's verdict and report on one slice of bytes, read first by the
//! validating deserializer (`crate::typed`, driven with `IgnoredAny`), which checks every value at its node while
//! serde_json reads the slice, building no tree. Where it cannot decide (a container under a keyword it does not
//! plan, a repeated member name, digits it does not read), the answer comes from the incremental route itself, or
//! below [`VALUE_ROUTE_BELOW`] from the value route, which judges the same text the same way and is faster.

use super::IncrementalError;
use crate::parse::{ParseOptions, parse_json_with};
use crate::strict::StrictValue;
use crate::typed::{Fallback, FallbackReason};
use crate::validator::Validator;
use crate::violation::Violations;
use serde::de::{DeserializeSeed, IgnoredAny};
use std::cell::Cell;

/// Below this size a text the typed read does not decide is parsed into a `Value` (faster than the incremental
/// route, memory a few times the text); from it on, it is read by the incremental route (memory bounded by the
/// nesting depth): the size from which `oa validate` takes the incremental route.
const VALUE_ROUTE_BELOW: usize = 1 << 20;

/// The chunks the incremental route reads a large text in, for the verdict to stop at the first certain violation.
const CHUNK: usize = 64 << 10;

impl Validator {
    /// Whether the JSON text `bytes` is well-formed and valid: the verdict of [`incremental`](Self::incremental)
    /// fed the whole text and finished (RFC 8259 as [`parse_json`](crate::parse_json) reads it, repeated member
    /// names refused, at most 127 arrays and objects open), read in one pass without building a value wherever
    /// [`deserialize_str`](Self::deserialize_str) decides, and stopping at the first violation.
    ///
    /// Where that read cannot decide, the answer comes from a parsed value (a text under 1 MiB) or from the
    /// incremental route (memory bounded by the nesting depth).
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "items": { "type": "integer", "maximum": 9 } })).unwrap();
    /// assert!(validator.is_valid_bytes(b"[1, 2, 3]"));
    /// assert!(!validator.is_valid_bytes(b"[1, 20, 3]"));
    /// // Not JSON, or not as `parse_json` reads it with repeated names refused: not valid.
    /// assert!(!validator.is_valid_bytes(b"[1, 2,]"));
    /// assert!(!validator.is_valid_bytes(br#"{"a": 1, "a": 2}"#));
    /// ```
    pub fn is_valid_bytes(&self, bytes: &[u8]) -> bool {
        match self.typed_verdict(bytes) {
            Ok(()) => true,
            Err(FallbackReason::Invalid) => false,
            Err(_) if bytes.len() < VALUE_ROUTE_BELOW => {
                self.value_route(bytes).is_some_and(|value| self.is_valid(&value))
            }
            Err(_) => {
                let mut run = self.incremental().without_value();
                for chunk in bytes.chunks(CHUNK) {
                    if run.feed(chunk).is_err() || !run.violations().is_empty() {
                        return false;
                    }
                }
                run.finish().is_ok()
            }
        }
    }

    /// Validates the JSON text `bytes`: exactly what [`incremental`](Self::incremental) fed the whole text and
    /// finished answers ([`IncrementalError::Malformed`] or [`IncrementalError::TooDeep`] for a text it refuses,
    /// [`IncrementalError::Invalid`] with [`validate`](Self::validate)'s report of its value). A valid text is
    /// read in one pass without building a value wherever [`deserialize_str`](Self::deserialize_str) decides; the
    /// report of an invalid one comes from a parsed value (a text under 1 MiB) or from the incremental route
    /// (memory bounded by the nesting depth).
    ///
    /// # Errors
    /// As [`Incremental::finish`](crate::Incremental::finish).
    ///
    /// ```
    /// use oa_schema::{IncrementalError, Validator};
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "items": { "type": "integer", "maximum": 9 } })).unwrap();
    /// assert!(validator.validate_bytes(b"[1, 2, 3]").is_ok());
    /// let Err(IncrementalError::Invalid(report)) = validator.validate_bytes(b"[1, 20, \"x\"]") else {
    ///     panic!("two violations")
    /// };
    /// assert_eq!(report.len(), 2);
    /// ```
    pub fn validate_bytes(&self, bytes: &[u8]) -> Result<(), IncrementalError> {
        // Where the typed read would build the document's value anyway, the value route alone reads it once.
        let root_whole = crate::typed::reads_root_whole(self.compiled());
        if !root_whole && let Ok(text) = std::str::from_utf8(bytes) {
            // One pass that reports every violation; where it has no answer, straight to the value route.
            match crate::typed::collect_str(self.compiled(), text) {
                Some(found) if found.is_empty() => return Ok(()),
                Some(found) => return Err(IncrementalError::Invalid(Violations::sorted(found))),
                None => return self.value_or_incremental(bytes, None),
            }
        }
        let verdict = if root_whole {
            None
        } else {
            match self.typed_verdict(bytes) {
                Ok(()) => return Ok(()),
                Err(reason) => Some(reason),
            }
        };
        self.value_or_incremental(bytes, verdict)
    }

    /// `validate_bytes`'s answer from a parsed value (a text under 1 MiB) or the incremental route, given the typed
    /// read's reason when it ran.
    fn value_or_incremental(
        &self,
        bytes: &[u8],
        verdict: Option<FallbackReason>,
    ) -> Result<(), IncrementalError> {
        if bytes.len() < VALUE_ROUTE_BELOW
            && let Some(value) = self.value_route(bytes)
        {
            // Well-formed, and judged invalid by the typed read: straight to the report, no yes/no pre-run.
            let report = if verdict == Some(FallbackReason::Invalid) {
                self.validate_known_invalid(&value)
            } else {
                self.validate(&value)
            };
            return report.map_err(IncrementalError::Invalid);
        }
        // Malformed or too deep (named as the incremental route names it), or large.
        let mut run = self.incremental().without_value();
        run.feed(bytes)?;
        run.finish()
    }

    /// The validating deserializer's verdict on `bytes`, or why it has none.
    fn typed_verdict(&self, bytes: &[u8]) -> Result<(), FallbackReason> {
        // Not UTF-8: not JSON.
        let text = std::str::from_utf8(bytes).map_err(|_| FallbackReason::Invalid)?;
        self.deserialize_str::<IgnoredAny>(text)
            .map(drop)
            .map_err(|fallback: Fallback| fallback.reason())
    }

    /// The value of `bytes` as the incremental route reads it (repeated names refused), when well-formed: read in
    /// one pass, or (a member named as a serde_json token, a repeat) by `parse_json_with`.
    fn value_route(&self, bytes: &[u8]) -> Option<serde_json::Value> {
        let text = std::str::from_utf8(bytes).ok()?;
        let declined = Cell::new(false);
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = StrictValue { declined: &declined }
            .deserialize(&mut deserializer)
            .and_then(|value| deserializer.end().map(|()| value));
        match read {
            Ok(value) => Some(value),
            Err(_) if declined.get() => {
                parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true)).ok()
            }
            Err(_) => None,
        }
    }
}
