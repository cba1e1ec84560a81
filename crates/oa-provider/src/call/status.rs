//! A non-success HTTP status as a §7 error, the parts every wire format shares: what an error body said (its
//! message and short codes, read by the wire format from its own envelope), the description (scrubbed of secrets,
//! cut to length), Retry-After kept only where a retry may help, and the vendor code. Which category a status and
//! body mean is the wire format's table.

use crate::http::parse_retry_after;
use crate::model::{Category, ProviderError};

/// What a wire format read from an error body.
#[derive(Debug, Default)]
pub(crate) struct ErrorBody {
    /// The provider's message, verbatim (scrubbed before it reaches an error).
    pub(crate) message: String,
    /// The body's short codes (`error.code`, `error.type`, `error.status`, ...), in the order the vendor code is
    /// chosen from.
    pub(crate) codes: Vec<String>,
    /// The body is an HTML page.
    pub(crate) html: bool,
    /// The body is JSON.
    pub(crate) json: bool,
}

/// Words in a 400's body that say the model rejected a content block (an image, its media type or source).
pub(crate) const CONTENT_BLOCK_REJECTION: [&str; 7] = [
    "image",
    "media_type",
    "media type",
    "audio",
    "content_not_supported",
    "unsupported_content",
    "content block",
];

impl ErrorBody {
    /// Reads the `{"error": {"message": …, <code field>: …}}` envelope every mapping's errors share; the code fields
    /// are read in order, strings only. A body that is not such JSON reads as empty.
    pub(crate) fn read(body: &[u8], code_fields: &[&str]) -> Self {
        let parsed: Option<serde_json::Value> = serde_json::from_slice(body).ok();
        let error = parsed.as_ref().and_then(|body| body.get("error"));
        let field = |name: &str| {
            error
                .and_then(|error| error.get(name))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        Self {
            message: field("message").unwrap_or_default(),
            codes: code_fields.iter().filter_map(|name| field(name)).collect(),
            html: String::from_utf8_lossy(body).trim_start().starts_with('<'),
            json: parsed.is_some(),
        }
    }

    /// Whether any needle occurs, case-insensitively, in the message or a code.
    pub(crate) fn mentions(&self, needles: &[&str]) -> bool {
        let message = self.message.to_ascii_lowercase();
        let codes: Vec<String> = self.codes.iter().map(|code| code.to_ascii_lowercase()).collect();
        needles
            .iter()
            .any(|needle| message.contains(needle) || codes.iter().any(|code| code.contains(needle)))
    }
}

/// The error for `status` in `category`: the description, Retry-After for the transient categories, and the
/// vendor code. `scrub` removes secrets from text the provider echoed.
pub(crate) fn status_error(
    status: u16,
    category: Category,
    body: &ErrorBody,
    retry_after: Option<&str>,
    scrub: &dyn Fn(&str) -> String,
) -> ProviderError {
    let description = match status {
        300..=399 => format!("http status {status}: redirect not followed"),
        // A page where an API answer was expected: almost always a base URL that is not the API root.
        _ if status < 500 && (body.html || (status == 404 && !body.json)) => format!(
            "http status {status}: the answer is not the API's (an HTML page or no JSON error); is the base URL the \
             API root, e.g. ending in /v1?"
        ),
        _ if body.message.is_empty() => format!("http status {status}"),
        _ => format!("http status {status}: {}", truncate(&scrub(&body.message), 300)),
    };
    let retry_after = if category.is_transient() {
        retry_after.and_then(parse_retry_after)
    } else {
        None
    };
    ProviderError::new(category, description)
        .with_status(status)
        .with_retry_after(retry_after)
        .with_vendor_code(vendor_code(&body.codes, scrub))
}

/// The first code that is a short token (1 to 64 characters, none of them whitespace or control) once scrubbed of
/// secrets; anything else is no code.
fn vendor_code(codes: &[String], scrub: &dyn Fn(&str) -> String) -> Option<String> {
    codes.iter().map(|code| scrub(code)).find(|code| {
        (1..=64).contains(&code.chars().count()) && !code.chars().any(|c| c.is_whitespace() || c.is_control())
    })
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(codes: &[&str]) -> Option<String> {
        let body = ErrorBody {
            message: String::new(),
            codes: codes.iter().map(|code| (*code).to_owned()).collect(),
            ..ErrorBody::default()
        };
        status_error(429, Category::RateLimit, &body, None, &|text| {
            text.replace("sk-secret", "[redacted]")
        })
        .vendor_code()
        .map(str::to_owned)
    }

    #[test]
    fn the_vendor_code_is_the_first_short_token() {
        assert_eq!(
            code_of(&["rate_limit", "requests"]).as_deref(),
            Some("rate_limit")
        );
        assert_eq!(
            code_of(&["a b", "RateLimitError"]).as_deref(),
            Some("RateLimitError")
        );
        assert_eq!(code_of(&[&"x".repeat(65)]), None);
        assert_eq!(code_of(&[]), None);
        assert_eq!(code_of(&["sk-secret"]).as_deref(), Some("[redacted]"));
    }

    #[test]
    fn retry_after_is_kept_for_transient_categories_only() {
        let body = ErrorBody::default();
        let kept = status_error(429, Category::RateLimit, &body, Some("3"), &str::to_owned);
        assert_eq!(kept.retry_after(), Some(std::time::Duration::from_secs(3)));
        let dropped = status_error(400, Category::InvalidRequest, &body, Some("3"), &str::to_owned);
        assert_eq!(dropped.retry_after(), None);
        assert_eq!(dropped.message(), "http status 400");
    }
}
