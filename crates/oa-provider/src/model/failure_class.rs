//! The failure taxonomy of structured output: one class per way an answer misses its schema, kept apart because
//! the grammar classes are impossible under an enforced schema, so one of them on a pair believed to enforce is
//! proof that it does not.

use oa_schema::ViolationKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::FinishReason;

/// Why a structured-output answer failed, as a counter dimension (`class`).
///
/// The set is closed: [`FailureClass::Other`] takes every violation the named classes do not cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// The content is not JSON at all (prose, an empty answer, or JSON cut off by the token budget).
    NotJson,
    /// The content is JSON wrapped in a Markdown code fence.
    FencedJson,
    /// The content is JSON but not an object (the top of every response_schema is an object).
    NonObject,
    /// An object key the schema forbids (`additionalProperties` / `unevaluatedProperties`).
    ExtraKey,
    /// A value outside an `enum` or unequal to a `const`.
    EnumViolation,
    /// A value of the wrong JSON type.
    TypeMismatch,
    /// A required key is absent.
    MissingRequired,
    /// Any other violation (bounds, lengths, patterns, formats, combinators).
    Other,
    /// The server's engine could not parse the model's own output into its conversation format (LM Studio's
    /// "peg-native" failure): no content came back to check. A provider error, not a content check.
    ProviderOutputParseFailed,
    /// The server refused the native structured-output constraint it was sent (LM Studio's "cannot combine ...
    /// with lazy grammar"): the mapping's fallback path runs. A provider error, not a content check.
    StructuredOutputUnsupported,
    /// The model or the provider's filter declined (finish reason `content_filter`: an OpenAI or Anthropic
    /// refusal, a Gemini block) and the content is not a JSON object: the refusal's words, or nothing. Not a
    /// parse failure, and not a grammar class (the model declined before any grammar applied).
    Refusal,
}

impl FailureClass {
    /// Every class, in declaration order (for pre-registering counters).
    pub const ALL: [FailureClass; 11] = [
        Self::NotJson,
        Self::FencedJson,
        Self::NonObject,
        Self::ExtraKey,
        Self::EnumViolation,
        Self::TypeMismatch,
        Self::MissingRequired,
        Self::Other,
        Self::ProviderOutputParseFailed,
        Self::StructuredOutputUnsupported,
        Self::Refusal,
    ];

    /// The dimension value, e.g. `"fenced_json"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotJson => "not_json",
            Self::FencedJson => "fenced_json",
            Self::NonObject => "non_object",
            Self::ExtraKey => "extra_key",
            Self::EnumViolation => "enum_violation",
            Self::TypeMismatch => "type_mismatch",
            Self::MissingRequired => "missing_required",
            Self::Other => "other",
            Self::ProviderOutputParseFailed => "provider_output_parse_failed",
            Self::StructuredOutputUnsupported => "structured_output_unsupported",
            Self::Refusal => "refusal",
        }
    }

    /// Whether the content was a JSON object that failed the schema (not `not_json`, `fenced_json`, `non_object`,
    /// and not the two provider-error classes, which carry no content).
    pub fn is_json_object(self) -> bool {
        matches!(
            self,
            Self::ExtraKey | Self::EnumViolation | Self::TypeMismatch | Self::MissingRequired | Self::Other
        )
    }

    /// Whether a grammar-bound decoder cannot produce this class: a fence, a non-object, an extra key, an
    /// out-of-enum value, a wrong type or a missing key. `not_json` is not one (a grammar-bound answer cut off by
    /// `max_tokens` is not JSON either), nor is `other` (grammar engines skip some keywords, such as `pattern`).
    pub fn is_grammar_class(self) -> bool {
        matches!(
            self,
            Self::FencedJson
                | Self::NonObject
                | Self::ExtraKey
                | Self::EnumViolation
                | Self::TypeMismatch
                | Self::MissingRequired
        )
    }
}

impl FailureClass {
    /// The class of a content check's problem. A `content_filter` finish whose content is not a JSON object is a
    /// `refusal`, whatever the words. Content that is not JSON is `fenced_json` when a Markdown fence
    /// holds a JSON value, else `not_json`. JSON that is not an object is `non_object`. Otherwise the violations'
    /// kinds ([`ViolationKind`]) decide, the first of these present winning (the structural ones first, since a
    /// wrong type also breaks the `enum` beside it): `additionalProperties`/`unevaluatedProperties` → `extra_key`,
    /// `required` → `missing_required`, `type` → `type_mismatch`, `enum`/`const` → `enum_violation`; none of them
    /// → `other`.
    pub(crate) fn of(content: &str, problem: &OutputProblem, finish_reason: FinishReason) -> Self {
        let class = Self::of_content(content, problem);
        if finish_reason == FinishReason::ContentFilter && !class.is_json_object() {
            return Self::Refusal;
        }
        class
    }

    fn of_content(content: &str, problem: &OutputProblem) -> Self {
        let violations = match problem {
            OutputProblem::Malformed(_) if fenced_json(content) => return Self::FencedJson,
            OutputProblem::Malformed(_) => return Self::NotJson,
            OutputProblem::Violations(violations) => violations,
        };
        // The top of every response_schema is an object, so a non-object answer fails `type` at the root.
        let at_root_type = violations.iter().any(|violation| {
            violation.kind() == ViolationKind::Type && violation.instance_location().is_root()
        });
        if at_root_type {
            return Self::NonObject;
        }
        let has =
            |wanted: fn(ViolationKind) -> bool| violations.iter().any(|violation| wanted(violation.kind()));
        if has(|kind| {
            matches!(
                kind,
                ViolationKind::AdditionalProperties | ViolationKind::UnevaluatedProperties
            )
        }) {
            Self::ExtraKey
        } else if has(|kind| kind == ViolationKind::Required) {
            Self::MissingRequired
        } else if has(|kind| kind == ViolationKind::Type) {
            Self::TypeMismatch
        } else if has(|kind| matches!(kind, ViolationKind::Enum | ViolationKind::Const)) {
            Self::EnumViolation
        } else {
            Self::Other
        }
    }
}

/// Whether `content` holds a ```-fenced block (any info string) whose body is a JSON value.
fn fenced_json(content: &str) -> bool {
    let Some(open) = content.find("```") else {
        return false;
    };
    let after_open = &content[open + 3..];
    // The info string (e.g. `json`) runs to the end of the opening line.
    let Some(line_end) = after_open.find('\n') else {
        return false;
    };
    let body_and_rest = &after_open[line_end + 1..];
    let Some(close) = body_and_rest.find("```") else {
        return false;
    };
    serde_json::from_str::<Value>(body_and_rest[..close].trim()).is_ok()
}

/// What was wrong with a structured-output answer.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputProblem {
    /// The content is not well-formed JSON (prose, a fenced block, an answer cut off by the token budget).
    Malformed(oa_schema::MalformedJson),
    /// The content is JSON that the schema rejects: every violation, each at its JSON Pointer.
    Violations(oa_schema::Violations),
}

impl OutputProblem {
    /// The every-violation description (0126 on §7): one violation per line, or the parse failure.
    pub fn error_message(&self) -> String {
        match self {
            Self::Malformed(malformed) => format!("content is not valid JSON: {malformed}"),
            Self::Violations(violations) => violations.error_message(),
        }
    }

    /// The violations, when the content was JSON.
    pub fn violations(&self) -> Option<&oa_schema::Violations> {
        match self {
            Self::Malformed(_) => None,
            Self::Violations(violations) => Some(violations),
        }
    }
}
