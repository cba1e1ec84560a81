//! §8.1.3 error mapping: an HTTP status and error body to a §7 category, and Retry-After read defensively.

use std::time::Duration;

use serde_json::Value;

use crate::error::{Category, ProviderError};

/// The longest Retry-After kept on an error; a larger value is clamped to this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

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
    let description = match status {
        300..=399 => format!("http status {status}: redirect not followed"),
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
    ProviderError::new(category, description)
        .with_status(status)
        .with_retry_after(retry_after)
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

/// Reads a Retry-After header given in seconds: a non-negative number, clamped to [`MAX_RETRY_AFTER`].
/// Negative, non-numeric or non-finite values (and HTTP dates, which need a clock we do not trust) give `None`.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if value.is_empty() || value.len() > 32 {
        return None;
    }
    let seconds: f64 = value.parse().ok()?;
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64(
        seconds.min(MAX_RETRY_AFTER.as_secs_f64()),
    ))
}
