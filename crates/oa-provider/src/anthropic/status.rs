//! §8.2.3 error mapping: an HTTP status and the `{"type": "error", "error": {"type", "message"}}` envelope to a
//! §7 category; the description, Retry-After and vendor code (the error type) are the shared status builder's.

use crate::call::status::{CONTENT_BLOCK_REJECTION, ErrorBody};
use crate::model::Category;

/// The §7 category of a non-success status with this error body.
pub(crate) fn category(status: u16, body: &ErrorBody) -> Category {
    match status {
        300..=399 => Category::InvalidResponse,
        // 402 billing_error: an account-level access failure.
        401..=403 => Category::Authentication,
        404 if body.mentions(&["model"]) => Category::InvalidModel,
        429 => Category::RateLimit,
        // 529 overloaded_error is among them.
        408 | 500..=599 => Category::Unavailable,
        400 if body.mentions(&CONTENT_BLOCK_REJECTION) => Category::UnsupportedContentBlock,
        _ => Category::InvalidRequest,
    }
}
