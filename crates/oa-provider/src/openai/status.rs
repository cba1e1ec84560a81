//! §8.1.3 error mapping: an HTTP status and error body to a §7 category, and Retry-After read defensively.

use crate::http::parse_retry_after;

use serde_json::Value;

use crate::error::{Category, ProviderError};
use crate::openai::lm_studio;

/// Maps a non-success status (and its body, if JSON) to an error. `scrub` removes the API key from any text the
/// provider echoed.
pub(crate) fn error_for_status(
    status: u16,
    body: &[u8],
    retry_after: Option<&str>,
    scrub: &dyn Fn(&str) -> String,
) -> ProviderError {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let error_field = |name: &str| -> String {
        parsed
            .as_ref()
            .and_then(|body| body.get("error"))
            .and_then(|error| error.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    let (code, kind, message) = (error_field("code"), error_field("type"), error_field("message"));
    let mentions = |needles: &[&str]| {
        needles
            .iter()
            .any(|needle| [&code, &kind, &message].iter().any(|f| f.contains(needle)))
    };
    let category = match status {
        300..=399 => Category::InvalidResponse,
        401 | 403 => Category::Authentication,
        404 if mentions(&["model_not_found", "model not found"])
            || (mentions(&["model"]) && mentions(&["does not exist", "not found", "unknown"])) =>
        {
            Category::InvalidModel
        }
        429 => Category::RateLimit,
        503 if mentions(&["model_not_loaded", "not loaded", "loading", "not_loaded"]) => {
            Category::ModelNotLoaded
        }
        408 | 500..=599 => Category::Unavailable,
        400 if mentions(&[
            "image",
            "media_type",
            "media type",
            "audio",
            "content_not_supported",
            "unsupported_content",
            "content block",
        ]) =>
        {
            Category::UnsupportedContentBlock
        }
        _ => Category::InvalidRequest,
    };
    // A page where an API answer was expected: almost always a base URL that is not the API root.
    let not_an_api =
        parsed.is_none() && (String::from_utf8_lossy(body).trim_start().starts_with('<') || status == 404);
    let description = match status {
        300..=399 => format!("http status {status}: redirect not followed"),
        _ if not_an_api => format!(
            "http status {status}: the answer is not the API's (an HTML page or no JSON error); is the base URL the \
             API root, e.g. ending in /v1?"
        ),
        _ if message.is_empty() => format!("http status {status}"),
        _ => format!(
            "http status {status}: {}",
            truncate(&scrub(&original_message(parsed.as_ref())), 300)
        ),
    };
    let retry_after = if category == Category::RateLimit
        || category == Category::Unavailable
        || category == Category::ModelNotLoaded
    {
        retry_after.and_then(parse_retry_after)
    } else {
        None
    };
    let error = ProviderError::new(category, description)
        .with_status(status)
        .with_retry_after(retry_after)
        .with_vendor_code(vendor_code(parsed.as_ref(), scrub));
    match lm_studio::recognize(status, parsed.as_ref()) {
        Some(class) => error.with_failure_class(class),
        None => error,
    }
}

/// The body's `error.code` (a string), else `error.type`: kept verbatim when it is a short token (1 to 64
/// characters, none of them whitespace or control), scrubbed of the key; anything else is no code.
fn vendor_code(parsed: Option<&Value>, scrub: &dyn Fn(&str) -> String) -> Option<String> {
    let error = parsed?.get("error")?;
    ["code", "type"]
        .iter()
        .filter_map(|field| error.get(*field).and_then(Value::as_str))
        .map(scrub)
        .find(|code| {
            (1..=64).contains(&code.chars().count())
                && !code.chars().any(|c| c.is_whitespace() || c.is_control())
        })
}

fn original_message(parsed: Option<&Value>) -> String {
    parsed
        .and_then(|body| body.get("error"))
        .and_then(|error| error.get("message"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod vendor_code_tests {
    use super::*;

    fn code_of(body: &str) -> Option<String> {
        error_for_status(429, body.as_bytes(), None, &|text| {
            text.replace("sk-secret", "[redacted]")
        })
        .vendor_code()
        .map(str::to_owned)
    }

    #[test]
    fn code_then_type_then_none() {
        assert_eq!(
            code_of(r#"{"error":{"code":"rate_limit_exceeded","type":"requests"}}"#).as_deref(),
            Some("rate_limit_exceeded")
        );
        assert_eq!(
            code_of(r#"{"error":{"type":"RateLimitError","message":"slow down"}}"#).as_deref(),
            Some("RateLimitError")
        );
        assert_eq!(code_of(r#"{"error":{"message":"service unavailable"}}"#), None);
        assert_eq!(code_of("not json"), None);
        // A code that is not a short token (spaces, too long) is not reported; a key in it is scrubbed.
        assert_eq!(code_of(r#"{"error":{"type":"a b"}}"#), None);
        assert_eq!(
            code_of(&format!(r#"{{"error":{{"type":"{}"}}}}"#, "x".repeat(65))),
            None
        );
        assert_eq!(
            code_of(r#"{"error":{"code":"sk-secret"}}"#).as_deref(),
            Some("[redacted]")
        );
    }
}
