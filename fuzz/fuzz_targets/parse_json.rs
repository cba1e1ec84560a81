//! Fuzz target: `oa_schema::parse_json` on arbitrary text. What it accepts prints and parses back to the same
//! value, and the duplicate-key option only ever adds a `DuplicateKey` refusal; what it refuses is a
//! `MalformedJson` whose line lies inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_schema::{MalformedKind, ParseOptions, parse_json, parse_json_with};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let strict = parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true));
    match parse_json(text) {
        Ok(value) => {
            let printed = serde_json::to_string(&value).expect("a parsed value prints");
            assert_eq!(
                parse_json(&printed).as_ref(),
                Ok(&value),
                "{text:?} does not round-trip"
            );
            match strict {
                Ok(strict) => assert_eq!(strict, value),
                Err(error) => assert_eq!(error.kind(), MalformedKind::DuplicateKey, "{error}"),
            }
        }
        Err(error) => {
            let lines = text.split('\n').count();
            assert!(
                (1..=lines).contains(&error.line()),
                "{error} for a text of {lines} lines"
            );
            assert!(!error.reason().is_empty());
            assert!(strict.is_err(), "the duplicate-key option accepted {text:?}");
        }
    }
});
