//! HTTP-date parsing (RFC 9110 §5.6.7) for the date form of Retry-After.
//!
//! Recipients must accept all three forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
//! form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). Anything else is `None`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Parses an HTTP-date into the instant it names; `None` for any other text or an impossible date.
pub(crate) fn parse(value: &str) -> Option<SystemTime> {
    let value = value.trim();
    let (day, month, year, clock) = if let Some((_, rest)) = value.split_once(", ") {
        let fields: Vec<&str> = rest.split(' ').collect();
        match fields.as_slice() {
            // IMF-fixdate: "06 Nov 1994 08:49:37 GMT".
            [day, month, year, clock, "GMT"] => (*day, *month, year_of(year)?, *clock),
            // RFC 850: "06-Nov-94 08:49:37 GMT"; two-digit years are read as 19xx/20xx around 1970 (§5.6.7 asks
            // for the most recent past year with those digits; this reading agrees for 1970 to 2069).
            [date, clock, "GMT"] => {
                let mut parts = date.split('-');
                let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
                (day, month, year_of(year)?, *clock)
            }
            _ => return None,
        }
    } else {
        // asctime: "Sun Nov  6 08:49:37 1994" (the day is space-padded).
        let fields: Vec<&str> = value.split_whitespace().collect();
        match fields.as_slice() {
            [_, month, day, clock, year] => (*day, *month, year_of(year)?, *clock),
            _ => return None,
        }
    };
    let month = MONTHS.iter().position(|name| *name == month)? as u32 + 1;
    let day: u32 = digits(day)?;
    let mut clock = clock.split(':');
    let (hour, minute, second): (u64, u64, u64) = (
        digits(clock.next()?)?,
        digits(clock.next()?)?,
        digits(clock.next()?)?,
    );
    if clock.next().is_some() || day == 0 || day > days_in_month(year, month) || hour > 23 || minute > 59 {
        return None;
    }
    // 60 admits a leap second, which lands on the next second's instant.
    if second > 60 || year < 1970 {
        return None;
    }
    let days = days_since_epoch(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    UNIX_EPOCH.checked_add(Duration::from_secs(seconds))
}

fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || text.len() > 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn year_of(text: &str) -> Option<u64> {
    let year: u64 = digits(text)?;
    match text.len() {
        4 => Some(year),
        2 if year >= 70 => Some(1900 + year),
        2 => Some(2000 + year),
        _ => None,
    }
}

fn is_leap(year: u64) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given civil date (which is at or after it).
fn days_since_epoch(year: u64, month: u32, day: u32) -> u64 {
    let whole_years: u64 = (1970..year).map(|y| if is_leap(y) { 366 } else { 365 }).sum();
    let whole_months: u64 = (1..month).map(|m| u64::from(days_in_month(year, m))).sum();
    whole_years + whole_months + u64::from(day) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(value: &str) -> Option<u64> {
        parse(value).map(|t| t.duration_since(UNIX_EPOCH).unwrap().as_secs())
    }

    #[test]
    fn the_three_forms_of_rfc_9110_name_the_same_instant() {
        // 1994-11-06T08:49:37Z, the RFC's own example.
        assert_eq!(seconds("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(seconds("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(seconds("Sun Nov  6 08:49:37 1994"), Some(784_111_777));
    }

    #[test]
    fn leap_days_and_two_digit_years() {
        assert_eq!(seconds("Thu, 29 Feb 2024 00:00:00 GMT"), Some(1_709_164_800));
        assert_eq!(seconds("Thursday, 01-Jan-70 00:00:00 GMT"), Some(0));
        assert_eq!(seconds("Friday, 01-Jan-38 00:00:00 GMT"), Some(2_145_916_800));
    }

    #[test]
    fn anything_else_is_none() {
        for value in [
            "",
            "120",
            "-5",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 31 Nov 1994 08:49:37 GMT",
            "Sun, 29 Feb 2023 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1969 08:49:37 GMT",
            "Sun, 06 Nox 1994 08:49:37 GMT",
            "Sun, 06 Nov 99999 08:49:37 GMT",
            "Sun, +6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37:01 GMT",
        ] {
            assert_eq!(parse(value), None, "{value:?}");
        }
    }
}
