//! The two failure envelopes LM Studio's OpenAI-compatible server sends that plain status mapping cannot tell
//! apart (recorded in the phronomy notes, `../shared/seeds/001_…`): the engine's parse failure of the model's own
//! output, and the rejection of a structured-output constraint it cannot combine with its lazy grammar. Each is
//! recognised exactly — status, type, code, message, and the one known prefix — and nothing else matches by
//! substring: an unknown envelope stays an ordinary provider error.

use serde_json::Value;

use crate::model::FailureClass;

/// The engine's message when the model's output broke its conversation format.
const PARSE_FAILURE_MESSAGE: &str =
    "The model produced output that does not match the expected peg-native format";
/// The prefix under which the engine's error object travels as JSON text.
const ENGINE_PREFIX: &str = "Engine protocol predict stream returned an error: ";
/// The rejection of a structured-output constraint.
const LAZY_GRAMMAR_MESSAGE: &str = "Cannot combine structured output constraints with lazy grammar";

/// The failure class of a recognised LM Studio envelope, or `None` for anything else.
pub(crate) fn recognize(status: u16, body: Option<&Value>) -> Option<FailureClass> {
    let error = body?.get("error")?;
    let message = match error {
        Value::String(text) => Some(text.as_str()),
        Value::Object(fields) => fields.get("message").and_then(Value::as_str),
        _ => None,
    };
    if status == 400 && message == Some(LAZY_GRAMMAR_MESSAGE) {
        return Some(FailureClass::StructuredOutputUnsupported);
    }
    if !matches!(status, 400 | 500) {
        return None;
    }
    let engine_error = is_engine_parse_failure(error)
        || message
            .and_then(|text| text.strip_prefix(ENGINE_PREFIX))
            .and_then(|json| serde_json::from_str::<Value>(json).ok())
            .is_some_and(|engine| is_engine_parse_failure(&engine));
    engine_error.then_some(FailureClass::ProviderOutputParseFailed)
}

/// The engine's own error object: code 500 (the engine's, not the HTTP status), type `server_error`, the exact
/// message.
fn is_engine_parse_failure(engine: &Value) -> bool {
    engine.get("code").and_then(Value::as_i64) == Some(500)
        && engine.get("type").and_then(Value::as_str) == Some("server_error")
        && engine.get("message").and_then(Value::as_str) == Some(PARSE_FAILURE_MESSAGE)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn engine() -> Value {
        json!({"code": 500, "type": "server_error", "message": PARSE_FAILURE_MESSAGE})
    }

    #[test]
    fn the_parse_failure_is_recognised_in_each_known_shape_and_status() {
        let prefixed = format!("{ENGINE_PREFIX}{}", engine());
        let bodies = [
            json!({"error": engine()}),
            json!({"error": prefixed}),
            json!({"error": {"message": prefixed, "type": "server_error"}}),
        ];
        for status in [400, 500] {
            for body in &bodies {
                assert_eq!(
                    recognize(status, Some(body)),
                    Some(FailureClass::ProviderOutputParseFailed),
                    "{status} {body}"
                );
            }
        }
    }

    #[test]
    fn near_misses_stay_ordinary_errors() {
        let mut wrong_code = engine();
        wrong_code["code"] = json!(400);
        let mut wrong_type = engine();
        wrong_type["type"] = json!("invalid_request_error");
        let mut longer = engine();
        longer["message"] = json!(format!("{PARSE_FAILURE_MESSAGE}."));
        let cases = [
            (400, json!({"error": wrong_code})),
            (400, json!({"error": wrong_type})),
            (500, json!({"error": longer})),
            // The engine object's text without the exact prefix, or the prefix without JSON.
            (400, json!({"error": engine().to_string()})),
            (400, json!({"error": format!("{ENGINE_PREFIX}not json")})),
            (
                400,
                json!({"error": format!("Engine protocol predict stream returned an error:{}", engine())}),
            ),
            // The right envelope under another status.
            (502, json!({"error": engine()})),
            (404, json!({"error": engine()})),
            // The lazy-grammar text, but not exact, or not on a 400.
            (400, json!({"error": format!("{LAZY_GRAMMAR_MESSAGE}!")})),
            (500, json!({"error": LAZY_GRAMMAR_MESSAGE})),
            (400, json!({"message": LAZY_GRAMMAR_MESSAGE})),
        ];
        for (status, body) in cases {
            assert_eq!(recognize(status, Some(&body)), None, "{status} {body}");
        }
        assert_eq!(recognize(500, None), None);
    }

    #[test]
    fn the_lazy_grammar_rejection_is_recognised_as_a_string_or_a_message() {
        for body in [
            json!({"error": LAZY_GRAMMAR_MESSAGE}),
            json!({"error": {"message": LAZY_GRAMMAR_MESSAGE, "type": "invalid_request_error"}}),
        ] {
            assert_eq!(
                recognize(400, Some(&body)),
                Some(FailureClass::StructuredOutputUnsupported)
            );
        }
    }
}
