//! §8.1.3 error mapping: an HTTP status and error body to a §7 category; the description, Retry-After and vendor
//! code (`error.code`, else `error.type`) are the shared status builder's.

use crate::call::status::{CONTENT_BLOCK_REJECTION, ErrorBody};
use crate::model::Category;

/// The §7 category of a non-success status with this error body.
pub(crate) fn category(status: u16, body: &ErrorBody) -> Category {
    match status {
        300..=399 => Category::InvalidResponse,
        401 | 403 => Category::Authentication,
        404 if body.mentions(&["model_not_found", "model not found"])
            || (body.mentions(&["model"]) && body.mentions(&["does not exist", "not found", "unknown"])) =>
        {
            Category::InvalidModel
        }
        429 => Category::RateLimit,
        503 if body.mentions(&["model_not_loaded", "not loaded", "loading", "not_loaded"]) => {
            Category::ModelNotLoaded
        }
        408 | 500..=599 => Category::Unavailable,
        400 if body.mentions(&CONTENT_BLOCK_REJECTION) => Category::UnsupportedContentBlock,
        _ => Category::InvalidRequest,
    }
}

#[cfg(test)]
mod vendor_code_tests {
    use crate::call::wire::WireFormat;
    use crate::openai::ChatCompletions;

    fn code_of(body: &str) -> Option<String> {
        ChatCompletions
            .error_for_status(429, body.as_bytes(), None, &|text| {
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
