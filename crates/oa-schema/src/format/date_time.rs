//! RFC 3339 dates, times and durations: `date`, `time`, `date-time` (section 5.6) and `duration` (Appendix A).
//!
//! Strict to the ABNF: four-digit years, two-digit fields, ASCII digits only, `T`/`Z` in either case, a numeric
//! offset with hours and minutes, and a leap second only where it falls on 23:59:60 UTC once the offset is applied.

/// `full-date`: `YYYY-MM-DD`, a real calendar day (Gregorian, proleptic).
pub(super) fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10 && bytes[4] == b'-' && bytes[7] == b'-' && parse_date(bytes).is_some()
}

/// `full-time`: `HH:MM:SS[.frac](Z|±HH:MM)`.
pub(super) fn is_time(text: &str) -> bool {
    parse_time(text.as_bytes())
}

/// `date-time`: `full-date "T" full-time`, `T` in either case.
pub(super) fn is_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() > 11 && matches!(bytes[10], b'T' | b't') && is_date(&text[..10]) && parse_time(&bytes[11..])
}

/// `duration`: `P` then date units (`Y` `M` `D` in order, no gaps), an optional `T` with time units (`H` `M` `S`,
/// no gaps), or weeks alone (`nW`). Integers only; at least one unit.
pub(super) fn is_duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else {
        return false;
    };
    let (date_part, time_part) = match rest.split_once('T') {
        Some((date_part, time_part)) => (date_part, Some(time_part)),
        None => (rest, None),
    };
    let Some(date_units) = units(date_part) else {
        return false;
    };
    if date_units == "W" {
        return time_part.is_none();
    }
    let time_units = match time_part {
        Some(time_part) => match units(time_part) {
            Some(found) if !found.is_empty() => found,
            _ => return false,
        },
        None => String::new(),
    };
    if date_units.is_empty() && time_units.is_empty() {
        return false;
    }
    is_contiguous_run(&date_units, "YMD") && is_contiguous_run(&time_units, "HMS")
}

/// The unit letters of `1*DIGIT unit` pairs, or `None` when the text is not made of such pairs.
fn units(text: &str) -> Option<String> {
    let mut letters = String::new();
    let mut n_digits = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            n_digits += 1;
        } else if c.is_ascii_uppercase() && n_digits > 0 {
            letters.push(c);
            n_digits = 0;
        } else {
            return None;
        }
    }
    (n_digits == 0).then_some(letters)
}

/// Whether `found` is empty or a contiguous run of `order` (`"YM"`, `"MD"`, but not `"YD"` or `"DY"`).
fn is_contiguous_run(found: &str, order: &str) -> bool {
    found.is_empty() || order.contains(found)
}

fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(bytes.iter().fold(0, |acc, d| acc * 10 + u32::from(d - b'0')))
}

/// `(year, month, day)` of a 10-byte `YYYY-MM-DD`, if it is a real day.
fn parse_date(bytes: &[u8]) -> Option<(u32, u32, u32)> {
    let year = digits(&bytes[0..4])?;
    let month = digits(&bytes[5..7])?;
    let day = digits(&bytes[8..10])?;
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month).contains(&day).then_some((year, month, day))
}

fn parse_time(bytes: &[u8]) -> bool {
    if bytes.len() < 9 || bytes[2] != b':' || bytes[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&bytes[0..2]), digits(&bytes[3..5]), digits(&bytes[6..8]))
    else {
        return false;
    };
    let mut pos = 8;
    if bytes[pos] == b'.' {
        let start = pos + 1;
        pos = start;
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        if pos == start {
            return false;
        }
    }
    let offset_minutes: i32 = match &bytes[pos..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(offset_hour), Some(offset_minute)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return false;
            };
            if offset_hour > 23 || offset_minute > 59 {
                return false;
            }
            let total = (offset_hour * 60 + offset_minute) as i32;
            if *sign == b'-' { -total } else { total }
        }
        _ => return false,
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    if second == 60 {
        // A leap second exists only at 23:59:60 UTC.
        let utc_minutes = (hour * 60 + minute) as i32 - offset_minutes;
        if utc_minutes.rem_euclid(24 * 60) != 23 * 60 + 59 {
            return false;
        }
    }
    true
}
