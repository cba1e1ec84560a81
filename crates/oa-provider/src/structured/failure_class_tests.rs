//! The failure classes a real content check gives (`model/failure_class.rs`), through the call's schema.

use serde_json::json;

use crate::model::Blocked;
use crate::model::Surface;
use serde_json::Value;

use crate::model::{FailureClass, FinishReason};
use crate::structured::CallSchema;

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
        blocked,
        ..Surface::bare(finish_reason, &raw)
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
        prompt
            .error_message
            .starts_with("the provider blocked the prompt (block reason SAFETY), so there is no answer; "),
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
