//! Fuzz target: Retry-After parsing (`oa_provider::fuzzing::parse_retry_after_at`). The first four bytes are the clock
//! (seconds after 1970), the next two a wait in seconds, the rest an arbitrary header value.
//!
//! Checked: the arbitrary value's wait never passes `MAX_RETRY_AFTER`, does not depend on surrounding whitespace,
//! and for a date does not grow as the clock advances; and the two forms agree at their bounds: the wait written
//! as delay-seconds and as the three HTTP-date forms of (clock + wait) give the same duration, clamped alike.
#![no_main]

use std::time::{Duration, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use oa_provider::retry::MAX_RETRY_AFTER;
use oa_provider::fuzzing::parse_retry_after_at;

const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const LONG_DAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: u64) -> (u64, usize, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month as usize - 1, day)
}

/// The instant `seconds` after 1970 in the three HTTP-date forms (RFC 850's two-digit year only where it reads
/// back to the same century, 1970 to 2069).
fn http_dates(seconds: u64) -> Vec<String> {
    let days = seconds / 86_400;
    let (year, month, day) = civil(days);
    let weekday = (days % 7) as usize;
    let clock = format!(
        "{:02}:{:02}:{:02}",
        seconds % 86_400 / 3600,
        seconds % 3600 / 60,
        seconds % 60
    );
    let mut dates = vec![
        format!("{}, {day:02} {} {year} {clock} GMT", DAYS[weekday], MONTHS[month]),
        format!("{} {} {day:>2} {clock} {year}", DAYS[weekday], MONTHS[month]),
    ];
    if (1970..2070).contains(&year) {
        dates.push(format!(
            "{}, {day:02}-{}-{:02} {clock} GMT",
            LONG_DAYS[weekday],
            MONTHS[month],
            year % 100
        ));
    }
    dates
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let clock = u64::from(u32::from_le_bytes([data[0], data[1], data[2], data[3]]));
    let wait = u64::from(u16::from_le_bytes([data[4], data[5]]));
    let now = UNIX_EPOCH + Duration::from_secs(clock);
    let expected = Some(Duration::from_secs(wait).min(MAX_RETRY_AFTER));
    assert_eq!(
        parse_retry_after_at(&wait.to_string(), now),
        expected,
        "delay-seconds {wait}"
    );
    for date in http_dates(clock + wait) {
        assert_eq!(parse_retry_after_at(&date, now), expected, "{date:?} at {clock}");
    }
    // A date in the past is now.
    if let Some(past) = clock.checked_sub(wait) {
        for date in http_dates(past) {
            assert_eq!(
                parse_retry_after_at(&date, now),
                Some(Duration::ZERO),
                "{date:?} at {clock}"
            );
        }
    }
    let Ok(value) = std::str::from_utf8(&data[6..]) else {
        return;
    };
    let parsed = parse_retry_after_at(value, now);
    if let Some(parsed) = parsed {
        assert!(parsed <= MAX_RETRY_AFTER, "{value:?} waits {parsed:?}");
    }
    assert_eq!(
        parse_retry_after_at(&format!(" {value}\t"), now),
        parsed,
        "whitespace around {value:?}"
    );
    if value.trim().parse::<f64>().is_err() {
        let later = parse_retry_after_at(value, now + Duration::from_secs(1 + wait));
        assert_eq!(
            later.is_some(),
            parsed.is_some(),
            "{value:?}: a date's readability depends on the clock"
        );
        assert!(later <= parsed, "{value:?}: the wait grew as the clock advanced");
    }
});
