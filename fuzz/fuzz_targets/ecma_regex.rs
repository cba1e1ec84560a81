//! Fuzz target: ECMA-262 pattern translation and matching. The input is a pattern, then optionally a NUL byte and
//! a string to match. Checked: a pattern that compiles is a valid `format: regex`; the engine-free routes
//! (`anchored`, `sequence`) answer what the `regex` crate answers on the pattern's translation; the `regex` crate
//! routes never run out of budget, and answer what fancy-regex answers on the backtracking translation (which
//! writes classes as code points where the linear one writes UTF-8 byte sequences); a match is never excluded by
//! the pattern's first-byte filter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_schema::fuzzing::{Regex, backtracking_is_match, is_valid_pattern, reference_is_match};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pattern, haystack) = text.split_once('\0').unwrap_or((text, ""));
    let valid = is_valid_pattern(pattern);
    let Ok(regex) = Regex::new(pattern) else {
        return;
    };
    assert!(valid, "{pattern:?} compiles but is not a valid pattern");
    let answer = regex.is_match(haystack);
    match regex.route() {
        "anchored" | "sequence" | "separated" => assert_eq!(
            answer,
            reference_is_match(pattern, haystack),
            "{pattern:?} on {haystack:?} ({} route)",
            regex.route()
        ),
        "linear" | "deferred" => assert!(answer.is_some(), "{pattern:?} ran out of budget on {haystack:?}"),
        _ => {}
    }
    if regex.route() != "backtracking"
        && let Some(other) = backtracking_is_match(pattern, haystack)
    {
        assert_eq!(
            answer,
            Some(other),
            "{pattern:?} on {haystack:?}: the {} route and the backtracking translation disagree",
            regex.route()
        );
    }
    if answer == Some(true) {
        assert!(
            regex.first_byte_admits(haystack.bytes().next()),
            "{pattern:?} matches {haystack:?} but its first-byte filter excludes it"
        );
    }
});
