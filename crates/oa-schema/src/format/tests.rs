//! Tests for the format checkers: every case of the suite's optional/format files, and "never panics" laws.

use super::*;
use proptest::prelude::*;
use serde_json::Value;

/// Every format name the suite's format files assert, each with its file.
const FORMAT_FILES: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uri-template",
    "uuid",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "ecmascript-regex",
    "unknown",
];

fn format_valid(schema: &Value, instance: &Value) -> bool {
    let name = schema
        .get("format")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no format in {schema}"));
    match (checker(name), instance.as_str()) {
        (Some(check), Some(text)) => check(text),
        _ => true,
    }
}

#[test]
fn suite_optional_format_files_all_pass() {
    let entries = std::fs::read_dir(suite::draft_dir().join("optional/format")).unwrap();
    let mut on_disk: Vec<String> = entries
        .map(|entry| {
            entry
                .unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .to_owned()
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FORMAT_FILES.iter().map(|name| (*name).to_owned()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "a format file was added to or removed from the suite"
    );

    let mut n_passed = 0;
    let mut failures = Vec::new();
    for name in FORMAT_FILES {
        for case in suite::load(&format!("optional/format/{name}.json")) {
            if format_valid(&case.schema, &case.data) == case.valid {
                n_passed += 1;
            } else {
                failures.push(format!("{} (data {})", case.name(), case.data));
            }
        }
    }
    eprintln!("optional/format: {n_passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "failing cases:\n{}", failures.join("\n"));
    assert!(n_passed >= 700, "only {n_passed} cases ran");
}

#[test]
fn known_and_unknown_names() {
    for name in FORMAT_FILES
        .iter()
        .filter(|name| !matches!(**name, "ecmascript-regex" | "unknown"))
    {
        assert!(checker(name).is_some(), "{name} has no checker");
    }
    for name in ["unknown", "int32", "binary", "DATE", ""] {
        assert!(checker(name).is_none(), "{name} should stay an annotation");
    }
}

#[test]
fn idna_derived_properties() {
    use idna::{Derived, derived_property};
    let cases = [
        ('a', Derived::Pvalid),
        ('A', Derived::Disallowed),
        ('\u{00DF}', Derived::Pvalid),
        ('\u{00B7}', Derived::ContextO),
        ('\u{200C}', Derived::ContextJ),
        ('\u{302E}', Derived::Disallowed),
        ('\u{0378}', Derived::Disallowed), // unassigned
        ('\u{00A0}', Derived::Disallowed), // unstable: NFKC gives a space
        ('\u{1100}', Derived::Disallowed), // old Hangul jamo
        ('\u{13F8}', Derived::Disallowed), // Cherokee small letter: folds to a capital
        ('\u{13A0}', Derived::Pvalid),     // Cherokee capital: folds to itself
        ('\u{AC00}', Derived::Pvalid),
        ('\u{0301}', Derived::Pvalid),
        ('\u{FEFF}', Derived::Disallowed),  // default ignorable
        ('\u{1D100}', Derived::Disallowed), // musical symbols block
    ];
    for (c, want) in cases {
        assert_eq!(derived_property(c), want, "U+{:04X}", u32::from(c));
    }
}

#[test]
fn punycode_round_trips() {
    for (unicode, ascii) in [("bücher", "bcher-kva"), ("실례", "9n2bp8q"), ("ü", "tda")] {
        let chars: Vec<char> = unicode.chars().collect();
        assert_eq!(punycode::encode(&chars).as_deref(), Some(ascii));
        assert_eq!(punycode::decode(ascii), Some(chars));
    }
    assert_eq!(punycode::decode("X"), None);
    assert_eq!(punycode::decode("99999999999999"), None);
}

#[test]
fn lengths_are_measured_in_ascii_form() {
    let check = |name: &str| checker(name).unwrap();
    let label63 = "a".repeat(63);
    let name253 = [label63.as_str(), &label63, &label63, &"a".repeat(61)].join(".");
    assert_eq!(name253.len(), 253);
    assert!(check("hostname")(&name253));
    assert!(!check("hostname")(&format!("{name253}a")));
    assert!(check("idn-hostname")(&name253));
    assert!(!check("idn-hostname")(&format!("{name253}a")));
    assert!(!check("idn-hostname")(&"ü".repeat(60)));
}

fn any_checker() -> impl Strategy<Value = FormatCheck> {
    prop::sample::select(
        FORMAT_FILES
            .iter()
            .filter_map(|name| checker(name))
            .collect::<Vec<FormatCheck>>(),
    )
}

proptest! {
    #[test]
    fn checkers_never_panic(check in any_checker(), text in any::<String>()) {
        let _ = check(&text);
    }

    #[test]
    fn checkers_never_panic_on_near_misses(
        check in any_checker(),
        text in r"[-0-9a-fA-FxnXN:.@/?#%\[\]{}~*+,;=!'()TZPYMDWHS \u{3002}\u{00E9}\u{05D0}\u{0660}\u{200C}]{0,40}",
    ) {
        let _ = check(&text);
    }
}
