//! HTTP shared by every wire format: the bounded reqwest transport (redirects off, keys as sensitive headers,
//! idle gap and total deadline, size caps, scrubbed errors), the Server-Sent Events decoder, and Retry-After.

mod http_date;
// Public to the fuzz targets and the crate's tests (feature `fuzzing`) only.
#[cfg_attr(not(feature = "fuzzing"), allow(unreachable_pub))]
pub(crate) mod retry_after;
#[cfg_attr(not(feature = "fuzzing"), allow(unreachable_pub))]
pub mod sse;
mod transport;
mod urls;

pub use retry_after::MAX_RETRY_AFTER;
pub(crate) use retry_after::parse_retry_after;
pub(crate) use transport::{KeyHeader, Limits, Reply, Transport, build_headers};

/// `text` as one URL path segment: every byte outside RFC 3986's unreserved set percent-encoded, so a model name
/// can neither leave its segment (`/`, `..`) nor start a query (`?`).
pub(crate) fn path_segment(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    // A segment of only dots would still name a parent or current directory.
    if !encoded.is_empty() && encoded.bytes().all(|byte| byte == b'.') {
        return encoded.replace('.', "%2E");
    }
    encoded
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_segment_cannot_escape_or_start_a_query() {
        assert_eq!(super::path_segment("gemini-2.5-flash"), "gemini-2.5-flash");
        assert_eq!(super::path_segment("a/b?key=x y"), "a%2Fb%3Fkey%3Dx%20y");
        assert_eq!(super::path_segment(".."), "%2E%2E");
        assert_eq!(super::path_segment("é"), "%C3%A9");
    }
}
