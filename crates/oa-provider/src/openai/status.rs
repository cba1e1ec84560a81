//! §8.1.3 error mapping: an HTTP status and error body to a §7 category; the description, Retry-After and vendor
//! code are the shared status builder's.

use crate::call::status::{CONTENT_BLOCK_REJECTION, ErrorBody, status_error};
use crate::error::{Category, ProviderError};

/// Maps a non-success status (and its body, if JSON) to an error. `scrub` removes the API key from any text the
/// provider echoed.
pub(crate) fn error_for_status(
    status: u16,
    body: &[u8],
    retry_after: Option<&str>,
    scrub: &dyn Fn(&str) -> String,
) -> ProviderError {
    let body = ErrorBody::read(body, &["code", "type"]);
    let category = match status {
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
    };
    status_error(status, category, &body, retry_after, scrub)
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
