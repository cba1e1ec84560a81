//! Retry-After (RFC 9110 §10.2.3) read defensively: delay-seconds or an HTTP-date, clamped, garbage ignored.

use std::time::{Duration, SystemTime};

use crate::http::http_date;

/// The longest Retry-After kept on an error; a larger value is clamped to this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

/// Reads a Retry-After header: delay-seconds (a non-negative number) or an HTTP-date (RFC 9110 §10.2.3), clamped
/// to [`MAX_RETRY_AFTER`]. A date in the past means "now" (zero). Negative, non-numeric, non-finite or otherwise
/// unreadable values give `None`, and the retry falls back to its own backoff.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    parse_retry_after_at(value, SystemTime::now())
}

/// [`parse_retry_after`] against a given clock, so the date form is testable.
pub fn parse_retry_after_at(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if value.is_empty() || value.len() > 40 {
        return None;
    }
    let wait = match value.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            Duration::from_secs_f64(seconds.min(MAX_RETRY_AFTER.as_secs_f64()))
        }
        Ok(_) => return None,
        Err(_) => http_date::parse(value)?
            .duration_since(now)
            .unwrap_or(Duration::ZERO),
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

#[cfg(test)]
mod retry_after_tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    /// Found by cargo-mutants (the length cap moved or dropped went unnoticed): a value of up to 40 bytes is
    /// read, a longer one is refused unread, however well formed.
    #[test]
    fn values_longer_than_forty_bytes_are_refused() {
        let now = UNIX_EPOCH;
        let forty = format!("{:0>40}", 7);
        assert_eq!(parse_retry_after_at(&forty, now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after_at(&format!("0{forty}"), now), None);
        assert_eq!(
            parse_retry_after_at(&format!(" {forty} "), now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(parse_retry_after_at("", now), None);
    }

    #[test]
    fn seconds_and_dates_are_read_and_clamped() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(parse_retry_after_at("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after_at("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after_at("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after_at("Sun Nov  6 08:49:47 1994", now),
            Some(Duration::from_secs(10))
        );
        // A date in the past means now; a date far ahead and a huge number are clamped.
        assert_eq!(
            parse_retry_after_at("Sat, 05 Nov 1994 08:49:37 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            parse_retry_after_at("Fri, 01 Jan 2100 00:00:00 GMT", now),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(parse_retry_after_at("1e300", now), Some(MAX_RETRY_AFTER));
        for garbage in ["", "-1", "NaN", "inf", "soon", "Sun, 06 Nov 1994 08:50:07 PST"] {
            assert_eq!(parse_retry_after_at(garbage, now), None, "{garbage:?}");
        }
    }
}
