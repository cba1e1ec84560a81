//! §8.3.3 error mapping: an HTTP status and the `{"error": {"code", "message", "status"}}` envelope to a §7
//! category; the description, Retry-After and vendor code (the `status` string) are the shared status builder's.

use crate::call::status::{CONTENT_BLOCK_REJECTION, ErrorBody};
use crate::model::Category;

/// Words beyond the shared ones that say Gemini rejected a content part.
const PART_REJECTION: [&str; 4] = ["mime", "fileuri", "file_uri", "inline_data"];

/// The §7 category of a non-success status with this error body.
pub(crate) fn category(status: u16, body: &ErrorBody) -> Category {
    let part_rejected = body.mentions(&CONTENT_BLOCK_REJECTION) || body.mentions(&PART_REJECTION);
    match status {
        300..=399 => Category::InvalidResponse,
        400 | 403 if part_rejected => Category::UnsupportedContentBlock,
        401 | 403 => Category::Authentication,
        404 if body.mentions(&["model"]) => Category::InvalidModel,
        429 => Category::RateLimit,
        408 | 500..=599 => Category::Unavailable,
        _ => Category::InvalidRequest,
    }
}
