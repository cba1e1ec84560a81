//! The incremental route: JSON text fed in chunks, parsed as it arrives (`push.rs`), each violation reported as
//! soon as it is certain (`certain.rs`), the document validated when the text ends.

mod certain;
mod completed;
mod push;
mod slice;
mod span;
mod token;

use crate::parse::MalformedJson;
use crate::validator::Validator;
use crate::violation::Violations;
pub use completed::CompletedValue;
use completed::CompletedValues;
use push::{PushError, PushParser};
use serde_json::Value;

/// How many containers may be open at once by default: what `parse_json` accepts (it refuses the 128th).
const DEFAULT_MAX_DEPTH: usize = 127;

/// The most a caller may allow: the document is kept as a `serde_json::Value`, whose drop recurses once per level.
const MAX_DEPTH_CEILING: usize = 4096;

/// An incremental validation: JSON text fed in chunks split anywhere (mid-token, mid-UTF-8 sequence), parsed as it
/// arrives by `parse_json`'s rules, and validated against the schema when [`finish`](Self::finish) says the text
/// ended. Made by [`Validator::incremental`].
///
/// The parse is strict as [`parse_json_with`](crate::parse_json_with) with repeated member names refused: a
/// malformed text fails with the same [`MalformedJson`] (kind, reason, line and column), from the first `feed`
/// that holds the byte where it went wrong (one or two bytes later when they decide whether it is a comment or a
/// byte-order mark; a repeated member name at [`finish`](Self::finish), as `parse_json_with` reports it only when
/// the rest is well-formed). Nesting has a limit of its own ([`max_depth`](Self::max_depth)), reported as
/// [`IncrementalError::TooDeep`], never as malformed text.
///
/// A violation is reported in [`violations`](Self::violations) as soon as it is certain (no continuation of the
/// text can make that location valid: see the crate's README for which checks are made when), and it is the very
/// violation [`finish`](Self::finish) reports. At the end, the report is [`Validator::validate`]'s on the whole
/// text's value, exactly. This version keeps the document's value while it is read and validates it at the end, so
/// memory grows with the document.
///
/// ```
/// use oa_schema::{IncrementalError, MalformedKind, Validator};
/// use serde_json::json;
///
/// let validator = Validator::new(&json!({ "items": { "type": "string" } })).unwrap();
/// // Cut inside "é" (two bytes in UTF-8): the value is the whole text's.
/// let text = "[\"caf\u{e9}\"]".as_bytes();
/// let mut run = validator.incremental();
/// run.feed(&text[..5]).unwrap();
/// run.feed(&text[5..]).unwrap();
/// assert_eq!(run.finish_value().unwrap(), json!(["café"]));
///
/// // Malformed text fails as `parse_json` says, at the `feed` that holds the byte.
/// let mut run = validator.incremental();
/// run.feed(b"[\"a\",").unwrap();
/// let Err(IncrementalError::Malformed(err)) = run.feed(b"]") else { panic!("a trailing comma") };
/// assert_eq!((err.kind(), err.column(), err.reason()), (MalformedKind::Syntax, 6, "trailing comma"));
/// ```
#[derive(Debug)]
pub struct Incremental {
    validator: Validator,
    parser: PushParser,
    /// Whether the document's value is kept (see [`without_value`](Self::without_value)).
    keep_value: bool,
}

// Checked on purpose: a run is fed from whatever thread a stream's bytes arrive on.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<Incremental>();
};

/// Why an incremental validation gives no value.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum IncrementalError {
    /// The text is not well-formed JSON (repeated member names refused), as `parse_json_with` reports it.
    #[error(transparent)]
    Malformed(MalformedJson),
    /// More arrays and objects open at once than [`Incremental::max_depth`] allows: a limit of this reader, not
    /// a fault of the text.
    #[error(
        "nesting deeper than the limit of {limit} open arrays and objects at line {line}, column {column}"
    )]
    TooDeep {
        /// The limit.
        limit: usize,
        /// The 1-based line of the container that went beyond it.
        line: usize,
        /// The 1-based column of that container.
        column: usize,
    },
    /// Well-formed, and invalid: [`Validator::validate`]'s report.
    #[error("{}", .0.error_message())]
    Invalid(Violations),
    /// Well-formed and valid, but [`Incremental::finish_value`] was asked after
    /// [`Incremental::without_value`]: no value was kept.
    #[error("the document is valid; its value was not kept (`without_value`)")]
    NoValue,
}

impl From<PushError> for IncrementalError {
    fn from(error: PushError) -> Self {
        match error {
            PushError::Malformed(malformed) => Self::Malformed(malformed),
            PushError::TooDeep { limit, line, column } => Self::TooDeep { limit, line, column },
        }
    }
}

impl Validator {
    /// Starts an incremental validation of one JSON text against this schema (see [`Incremental`]).
    pub fn incremental(&self) -> Incremental {
        Incremental {
            validator: self.clone(),
            parser: PushParser::new(DEFAULT_MAX_DEPTH, Some(self), true),
            keep_value: true,
        }
    }
}

impl Incremental {
    /// How many arrays and objects may be open at once (default 127, what `parse_json` accepts; at most 4,096,
    /// since the document is kept as a `Value`, whose drop recurses per level). Set before the first `feed`.
    #[must_use]
    pub fn max_depth(mut self, limit: usize) -> Self {
        let completed = self.parser.completed.take();
        let first_only = self.parser.first_only;
        self.parser = PushParser::new(
            limit.min(MAX_DEPTH_CEILING),
            Some(&self.validator),
            self.keep_value,
        );
        self.parser.completed = completed;
        if first_only {
            self.parser.stop_at_first();
        }
        self
    }

    /// Copies out each value as the text completes it, with its pointer, for [`take_completed`](Self::take_completed):
    /// for a caller that shows the document while it is written. Only while the value is kept: after
    /// [`without_value`](Self::without_value) (before or after this call) nothing is copied. Set before the first
    /// `feed`.
    ///
    /// **Cost.** A scalar is cloned once; a completed array or object is cloned whole at its close, so a value at
    /// nesting depth *d* is copied *d* + 1 times in all: the copies of a document of *n* bytes nested *d* deep total
    /// O(*n* × *d*) (for the flat objects an LLM writes, two or three times the document). The copies are held until
    /// taken: take them after each `feed`.
    #[must_use]
    pub fn with_completed_values(mut self) -> Self {
        if self.keep_value {
            self.parser.completed = Some(CompletedValues::default());
        }
        self
    }

    /// The values completed since the last call, in the order they completed (a member before its container; in
    /// document order of their last bytes), each with its JSON Pointer; each equals the final document's value at
    /// that pointer. Empty unless [`with_completed_values`](Self::with_completed_values) was asked. A number at
    /// the text's very end completes only at [`finish`](Self::finish) (its end is not yet known), and is not
    /// handed over here.
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "type": "object" })).unwrap();
    /// let mut run = validator.incremental().with_completed_values();
    /// run.feed(br#"{"name": "Ada", "tags": ["x""#).unwrap();
    /// let done: Vec<(String, serde_json::Value)> = run
    ///     .take_completed()
    ///     .into_iter()
    ///     .map(|done| (done.pointer.to_string(), done.value))
    ///     .collect();
    /// assert_eq!(done, [("/name".to_string(), json!("Ada")), ("/tags/0".to_string(), json!("x"))]);
    /// run.feed(b"]}").unwrap();
    /// let pointers: Vec<String> = run.take_completed().iter().map(|done| done.pointer.to_string()).collect();
    /// assert_eq!(pointers, ["/tags", ""]);
    /// ```
    pub fn take_completed(&mut self) -> Vec<CompletedValue> {
        self.parser
            .completed
            .as_mut()
            .map(CompletedValues::take)
            .unwrap_or_default()
    }

    /// Reads the next bytes of the text, split anywhere.
    ///
    /// # Errors
    /// [`IncrementalError::Malformed`] or [`IncrementalError::TooDeep`] once the text is certain to be refused;
    /// every later call returns the same error.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), IncrementalError> {
        Ok(self.parser.feed(chunk)?)
    }

    /// The violations already certain, in the order found: each `feed` only appends (compare the length before and
    /// after a `feed` for what it decided), and each is in [`finish`](Self::finish)'s report.
    ///
    /// ```
    /// use oa_schema::{Validator, ViolationKind};
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "properties": { "n": { "maxLength": 3 } } })).unwrap();
    /// let mut run = validator.incremental();
    /// run.feed(b"{\"n\": \"abcd").unwrap();
    /// // The string has not ended, and is already too long.
    /// assert_eq!(run.violations()[0].kind(), ViolationKind::MaxLength);
    /// ```
    pub fn violations(&self) -> &[crate::Violation] {
        self.parser.certain()
    }

    /// The violations already certain as a report, sorted as [`finish`](Self::finish) sorts its own (`None` while
    /// there is none): what a caller that stops reading at the first certain violation reports. Each is in the
    /// report the whole text would get; that report may hold more.
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "properties": { "s": { "enum": ["low", "high"] } } })).unwrap();
    /// let mut run = validator.incremental();
    /// run.feed(br#"{"s": "urgent", "note": "#).unwrap();
    /// assert_eq!(run.certain_report().unwrap().to_string(), r#"#/s: enum: must be one of "low", "high""#);
    /// ```
    pub fn certain_report(&self) -> Option<Violations> {
        let found = self.violations();
        (!found.is_empty()).then(|| Violations::sorted(found.to_vec()))
    }

    /// Keeps no value: the document is judged as it is read, and memory is bounded by its nesting depth and open
    /// containers (plus what a keyword must see whole: see the crate's README), not by its size. The report at
    /// [`finish`](Self::finish) is the same; [`finish_value`](Self::finish_value) then has no value to give. Set
    /// before the first `feed`.
    ///
    /// ```
    /// use oa_schema::Validator;
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({ "items": { "required": ["id"] } })).unwrap();
    /// let mut run = validator.incremental().without_value();
    /// run.feed(b"[").unwrap();
    /// for _ in 0..1_000 {
    ///     // Each item is checked, then dropped.
    ///     run.feed(br#"{"id": 1},"#).unwrap();
    /// }
    /// run.feed(br#"{"name": "x"}]"#).unwrap();
    /// let report = run.finish().unwrap_err().to_string();
    /// assert_eq!(report, "#/1000/id: required: required property \"id\" is missing");
    /// ```
    #[must_use]
    pub fn without_value(mut self) -> Self {
        self.keep_value = false;
        self.parser.keep_no_values();
        self
    }

    /// Stops at the first certain violation: a run for a verdict, or for a stream cut as soon as it is doomed. Keeps
    /// no value (as [`without_value`](Self::without_value)); where the run would find a certain violation, it keeps
    /// the first one it meets (one of [`Validator::validate`]'s on the whole text, at its pointer), evaluates nothing
    /// more, and reads no more: later `feed`s return `Ok` without looking at their bytes. [`finish`](Self::finish)
    /// then reports that one violation (or the text's first repeated member name, when one was met before it), and
    /// the verdict is [`Validator::is_valid`]'s on the whole text's value. What follows the violation is not read,
    /// so a text malformed after it is not reported as malformed; one malformed before it is, exactly as without
    /// this mode. Set before the first `feed`.
    ///
    /// ```
    /// use oa_schema::{IncrementalError, Validator};
    /// use serde_json::json;
    ///
    /// let validator = Validator::new(&json!({
    ///     "properties": { "s": { "enum": ["low", "high"] }, "n": { "type": "integer" } }
    /// }))
    /// .unwrap();
    /// let mut run = validator.incremental().first_violation_only();
    /// run.feed(br#"{"s": "urgent", "n": "x", "#).unwrap();
    /// assert_eq!(run.violations().len(), 1);
    /// // The run has its verdict: the rest is not read (not even this stray byte).
    /// run.feed(b"]").unwrap();
    /// let Err(IncrementalError::Invalid(report)) = run.finish() else { panic!("invalid") };
    /// assert_eq!(report.to_string(), r#"#/s: enum: must be one of "low", "high""#);
    /// ```
    #[must_use]
    pub fn first_violation_only(self) -> Self {
        let mut run = self.without_value();
        run.parser.stop_at_first();
        run
    }

    /// The text has ended: validates the document.
    ///
    /// # Errors
    /// [`IncrementalError::Malformed`] (the text ended inside a value, or had an error not yet told),
    /// [`IncrementalError::TooDeep`], or [`IncrementalError::Invalid`] with `validate`'s report.
    pub fn finish(mut self) -> Result<(), IncrementalError> {
        if self.keep_value {
            return self.finish_value().map(drop);
        }
        if self.parser.stopped() {
            if let Some(repeat) = self.parser.take_repeat() {
                return Err(IncrementalError::Malformed(repeat));
            }
            return Err(IncrementalError::Invalid(Violations::sorted(
                self.parser.take_certain(),
            )));
        }
        self.parser.finish()?;
        let found = self.parser.take_certain();
        if found.is_empty() {
            return Ok(());
        }
        Err(IncrementalError::Invalid(Violations::sorted(found)))
    }

    /// As [`finish`](Self::finish), and hands over the document's value.
    ///
    /// # Errors
    /// As [`finish`](Self::finish), and [`IncrementalError::NoValue`] after [`without_value`](Self::without_value)
    /// (once the text is judged well-formed and valid).
    pub fn finish_value(mut self) -> Result<Value, IncrementalError> {
        if !self.keep_value {
            self.finish()?;
            return Err(IncrementalError::NoValue);
        }
        let value = self.parser.finish()?;
        self.validator
            .validate(&value)
            .map_err(IncrementalError::Invalid)?;
        Ok(value)
    }
}
