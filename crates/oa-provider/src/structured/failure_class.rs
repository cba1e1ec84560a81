//! The failure taxonomy of structured output: one class per way an answer misses its schema, kept apart because
//! the grammar classes are impossible under an enforced schema, so one of them on a pair believed to enforce is
//! proof that it does not.

use oa_schema::ViolationKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::FinishReason;
use crate::structured::output::OutputProblem;

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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{Blocked, Usage};
    use crate::structured::CallSchema;
    use crate::structured::output::Surface;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string", "enum": ["seventeen"]},
                "count": {"type": "integer", "maximum": 3}
            },
            "required": ["answer"],
            "additionalProperties": false
        })
    }

    /// The class a real content check gives `content` against [`schema`].
    fn classify(content: &str) -> FailureClass {
        failure(content, FinishReason::Stop, None).failure_class()
    }

    /// The failure a real content check gives `content` against [`schema`], finishing as `finish_reason`.
    fn failure(
        content: &str,
        finish_reason: FinishReason,
        blocked: Option<&Blocked>,
    ) -> crate::StructuredOutputFailure {
        let schema = CallSchema::check(&schema()).unwrap();
        let raw = crate::model::RawJson::default();
        let surface = Surface {
            finish_reason,
            usage: Usage::default(),
            model: None,
            response_id: None,
            raw: &raw,
            blocked,
        };
        let error = schema.check_content(content, surface, None).unwrap_err();
        error.structured_output().unwrap().clone()
    }

    /// A refusal is its own class whatever its words (prose, a fence, nothing), never `not_json`; a JSON object
    /// that a filter cut keeps the class of its violations. The error message names a block's reason, or says
    /// there was no text.
    #[test]
    fn a_content_filter_finish_without_a_json_object_is_a_refusal() {
        for content in ["I can't help with that.", "", "```json\n{}\n```", "[1]"] {
            let refused = failure(content, FinishReason::ContentFilter, None);
            assert_eq!(refused.failure_class(), FailureClass::Refusal, "{content:?}");
            assert!(
                refused
                    .error_message
                    .starts_with("the model refused (finish_reason content_filter); "),
                "{}",
                refused.error_message
            );
        }
        assert_eq!(
            failure("{\"answer\": \"four\"}", FinishReason::ContentFilter, None).failure_class(),
            FailureClass::EnumViolation
        );
        let blocked = Blocked::Prompt("SAFETY".to_owned());
        let prompt = failure("", FinishReason::ContentFilter, Some(&blocked));
        assert_eq!(prompt.failure_class(), FailureClass::Refusal);
        assert!(
            prompt.error_message.starts_with(
                "the provider blocked the prompt (block reason SAFETY), so there is no answer; "
            ),
            "{}",
            prompt.error_message
        );
        assert_eq!(prompt.blocked, Some(blocked));
        let stopped = Blocked::Answer("RECITATION".to_owned());
        let answer = failure("", FinishReason::ContentFilter, Some(&stopped));
        assert!(
            answer
                .error_message
                .starts_with("the provider's filter stopped the answer (finish reason RECITATION); "),
            "{}",
            answer.error_message
        );
        assert!(!FailureClass::Refusal.is_grammar_class());
        assert!(!FailureClass::Refusal.is_json_object());
    }

    #[test]
    fn each_class_from_a_typical_answer() {
        let cases = [
            ("Two plus two is four.", FailureClass::NotJson),
            ("{\"answer\": \"seven", FailureClass::NotJson),
            (
                "```json\n{\"answer\": \"seventeen\"}\n```",
                FailureClass::FencedJson,
            ),
            (
                "Sure:\n```\n{\"answer\": \"four\"}\n```\nDone.",
                FailureClass::FencedJson,
            ),
            ("[\"seventeen\"]", FailureClass::NonObject),
            ("4", FailureClass::NonObject),
            (
                "{\"answer\": \"seventeen\", \"why\": \"x\"}",
                FailureClass::ExtraKey,
            ),
            ("{\"answer\": \"four\"}", FailureClass::EnumViolation),
            ("{\"answer\": 4}", FailureClass::TypeMismatch),
            ("{\"count\": 1}", FailureClass::MissingRequired),
            ("{\"answer\": \"seventeen\", \"count\": 9}", FailureClass::Other),
        ];
        for (content, want) in cases {
            let class = classify(content);
            assert_eq!(class, want, "content {content:?}");
            let is_object = content.starts_with('{') && serde_json::from_str::<Value>(content).is_ok();
            assert_eq!(class.is_json_object(), is_object, "content {content:?}");
        }
    }

    #[test]
    fn strings_and_grammar_classes_are_pinned() {
        let names: Vec<&str> = FailureClass::ALL.iter().map(|class| class.as_str()).collect();
        assert_eq!(
            names,
            [
                "not_json",
                "fenced_json",
                "non_object",
                "extra_key",
                "enum_violation",
                "type_mismatch",
                "missing_required",
                "other",
                "provider_output_parse_failed",
                "structured_output_unsupported",
                "refusal"
            ]
        );
        let grammar: Vec<&str> = FailureClass::ALL
            .iter()
            .filter(|class| class.is_grammar_class())
            .map(|class| class.as_str())
            .collect();
        assert_eq!(
            grammar,
            [
                "fenced_json",
                "non_object",
                "extra_key",
                "enum_violation",
                "type_mismatch",
                "missing_required"
            ]
        );
    }

    #[test]
    fn an_unterminated_fence_is_not_json() {
        assert_eq!(classify("```json\n{\"a\": 1}"), FailureClass::NotJson);
        assert_eq!(classify("```"), FailureClass::NotJson);
    }
}
