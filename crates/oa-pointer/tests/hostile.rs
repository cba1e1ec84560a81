//! Large and adversarial inputs: long pointers and deep documents are handled iteratively, without panics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_pointer::{JsonPointer, Location, ParseError};
use serde_json::{Value, json};

/// The sizes below, scaled down under Miri (`cargo xtask miri`), which interprets every step about a thousand
/// times slower; the ordinary test run keeps the full sizes.
const SCALE: usize = if cfg!(miri) { 100 } else { 1 };

#[test]
fn two_hundred_thousand_tokens_parse_format_and_compare() {
    let n = 200_000 / SCALE;
    let plain = "/~0~1".repeat(n);
    let pointer = JsonPointer::parse(&plain).unwrap();
    assert_eq!(pointer.depth(), n);
    assert!(pointer.tokens().all(|token| token == "~/"));
    assert_eq!(pointer.to_string(), plain);
    let location = Location::from(&pointer);
    assert_eq!(location.as_str(), plain);
    assert_eq!(
        location.cmp(&Location::parse(&plain).unwrap()),
        std::cmp::Ordering::Equal
    );
    let fragment = pointer.to_fragment();
    assert_eq!(JsonPointer::parse_fragment(&fragment).unwrap(), pointer);
    assert_eq!(pointer.get(&json!({})), None);
}

#[test]
fn an_error_at_the_end_of_a_long_input_reports_its_offset() {
    let n = 100_000 / SCALE;
    let mut plain = "/a".repeat(n);
    plain.push('~');
    assert_eq!(
        JsonPointer::parse(&plain),
        Err(ParseError::InvalidTildeEscape { offset: 2 * n })
    );
    let mut fragment = format!("#{}", "/%20".repeat(n));
    fragment.push_str("%C3");
    assert_eq!(
        JsonPointer::parse_fragment(&fragment),
        Err(ParseError::InvalidUtf8 { offset: 4 * n + 1 })
    );
}

#[test]
fn resolution_walks_deep_documents_iteratively() {
    // Deep enough to matter, shallow enough that serde_json's own recursive drop stays within the test stack.
    let depth = 2_000 / SCALE;
    let mut document = json!("bottom");
    for _ in 0..depth {
        document = Value::Array(vec![document]);
    }
    let pointer = JsonPointer::from_tokens(std::iter::repeat_n("0", depth));
    assert_eq!(pointer.get(&document), Some(&json!("bottom")));
    let mut too_deep = pointer.clone();
    too_deep.push("0");
    let error = too_deep.resolve(&document).unwrap_err();
    assert_eq!(error.prefix(), &pointer);
}
