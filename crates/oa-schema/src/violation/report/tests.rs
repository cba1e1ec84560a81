//! Tests of the report: its order against a plain sort (in runs and scattered, every size class), repeats kept aside
//! for the text, and the kept paths of the evaluator against paths built from scratch.

use super::*;
use crate::types::TypeSet;
use crate::violation::{SchemaLocation, ViolationText};
use oa_pointer::Location;
use proptest::prelude::*;

proptest! {
    /// The in-place permutation of the decorated sort gives the order a plain sort by `Location` gives, and
    /// duplicates go.
    #[test]
    fn report_order_is_a_plain_sort(
        entries in prop::collection::vec(
            ("(/0|/1|/10|/a|/b|/~0|/01){0,3}", "#/(x|y|z)", "(m|n)", prop::option::of("(p|q)")),
            0..40,
        ),
    ) {
        let items: Vec<Violation> = entries
            .iter()
            .map(|(at, absolute, message, missing)| violation_with(at, absolute, message, missing.as_deref()))
            .collect();
        let expected = plain_sort(&items);
        if !items.is_empty() {
            prop_assert_eq!(Violations::new(items).items, expected);
        }
    }

    /// A report comes out as a plain sort gives it whether it was recorded in order, in a few runs each in
    /// order (as failed unions record them), or scattered. Entries are cut into `pieces` runs, each sorted, some
    /// of them only by location (violations at one location out of report order).
    #[test]
    fn reports_in_runs_come_out_as_a_plain_sort(
        entries in prop::collection::vec(
            ("(/0|/1|/10|/a|/b|/~0|/01){0,3}", "#/(x|y|z)", "(m|n)", prop::option::of("(p|q)")),
            1..60,
        ),
        pieces in 1..24_usize,
        by_location_only in any::<bool>(),
    ) {
        let mut items: Vec<Violation> = entries
            .iter()
            .map(|(at, absolute, message, missing)| violation_with(at, absolute, message, missing.as_deref()))
            .collect();
        let piece_len = items.len().div_ceil(pieces);
        for piece in items.chunks_mut(piece_len) {
            if by_location_only {
                piece.sort_by(|a, b| a.instance_location.cmp(&b.instance_location));
            } else {
                piece.sort_by(|a, b| a.instance_location.cmp(&b.instance_location).then_with(|| report_order(a, b)));
            }
        }
        let expected = plain_sort(&items);
        prop_assert_eq!(Violations::sorted(items).items, expected);
    }

    /// The evaluator's reports come out sorted and deduplicated (a report sorted again does not change).
    #[test]
    fn evaluator_reports_are_in_location_order(instance in nested_instance()) {
        let schema = serde_json::json!({
            "$defs": {"n": {
                "type": ["object", "array", "string"],
                "maxLength": 1,
                "required": ["10", "~"],
                "additionalProperties": {"$ref": "#/$defs/n"},
                "items": {"$ref": "#/$defs/n"}
            }},
            "$ref": "#/$defs/n"
        });
        let validator = crate::Validator::new(&schema).unwrap();
        if let Err(report) = validator.validate(&instance) {
            let rebuilt = Violations::new(report.items.clone());
            prop_assert_eq!(&report, &rebuilt);
            prop_assert!(report.items.windows(2).all(|pair| pair[0].instance_location <= pair[1].instance_location));
        }
    }

    /// On generated recursive unions (members reported in turn, escaped names, indices, missing and rejected
    /// properties) over generated instances: every violation's paths, built from the last one's, are those built
    /// from its own frame chain, in the same order; and the report is the raw list sorted stably by location
    /// and report order, repeats dropped after the first (those reached through another keyword path kept
    /// aside).
    #[test]
    fn evaluator_paths_and_order_match_the_references(
        union in prop_oneof![Just("oneOf"), Just("anyOf"), Just("allOf")],
        members in prop::collection::vec(0..MEMBERS.len(), 1..5),
        wrapped in any::<bool>(),
        instance in nested_instance(),
    ) {
        let members: Vec<serde_json::Value> = members
            .iter()
            .map(|&member| serde_json::from_str(MEMBERS[member]).unwrap())
            .collect();
        let node = serde_json::json!({ union: members });
        let schema = if wrapped {
            serde_json::json!({
                "$defs": {"n": node},
                "items": {"$ref": "#/$defs/n"},
                "additionalProperties": {"$ref": "#/$defs/n"},
            })
        } else {
            serde_json::json!({ "$defs": {"n": node}, "$ref": "#/$defs/n" })
        };
        let validator = crate::Validator::new(&schema).unwrap();
        let collect = |from_scratch: bool| {
            let mut evaluator = crate::eval::Evaluator::new(validator.compiled(), true);
            evaluator.paths_from_scratch = from_scratch;
            let valid = evaluator.run(&instance);
            (valid, std::mem::take(&mut evaluator.violations))
        };
        let (valid, kept) = collect(false);
        let (reference_valid, reference) = collect(true);
        prop_assert_eq!(valid, reference_valid);
        prop_assert_eq!(&kept, &reference, "{} {}", schema, instance);
        if !kept.is_empty() {
            let (items, reached_also) = reference_report(&kept);
            let report = Violations::sorted(kept);
            prop_assert_eq!(&report.items, &items);
            prop_assert_eq!(&report.reached_also, &reached_also);
        }
    }

    /// Each text reads back as written, whatever the lengths.
    #[test]
    fn texts_read_back(
        keyword_path in "[/a-zé~]{0,6}",
        absolute in "[#/a-zé]{0,6}",
        message in "[ a-zé:]{0,6}",
        missing in prop::option::of("[a-zé]{0,4}"),
    ) {
        let violation = violation_parts(&keyword_path, &absolute, &message, missing.as_deref());
        prop_assert_eq!(violation.schema_location().keyword_path(), keyword_path.as_str());
        prop_assert_eq!(violation.schema_location().absolute(), absolute.as_str());
        prop_assert_eq!(violation.message(), message.as_str());
        prop_assert_eq!(violation.missing_property(), missing.as_deref());
    }
}

/// Union members for `evaluator_paths_and_order_match_the_references`: each recurses through `#/$defs/n` or
/// fails in its own way, so that a failed union reports member after member.
const MEMBERS: [&str; 8] = [
    r##"{"type": "object", "required": ["10", "~", "a/b"], "additionalProperties": {"$ref": "#/$defs/n"}}"##,
    r##"{"type": "array", "minItems": 3, "items": {"$ref": "#/$defs/n"}}"##,
    r##"{"prefixItems": [{"type": "string"}], "items": {"$ref": "#/$defs/n"}, "maxItems": 4}"##,
    r##"{"properties": {"~": {"$ref": "#/$defs/n"}, "/": {"maximum": 0}}, "patternProperties": {"^0": {"type": "integer"}}}"##,
    r##"{"type": ["string", "null"], "maxLength": 1}"##,
    r##"{"not": {"type": "null"}, "propertyNames": {"maxLength": 1}, "dependentRequired": {"a": ["2"]}}"##,
    r##"{"additionalProperties": false, "properties": {"2": true}}"##,
    r##"{"anyOf": [{"type": "integer"}, {"items": {"$ref": "#/$defs/n"}, "contains": {"type": "array"}}]}"##,
];

/// The report by the plain route: a stable sort of a copy, then each repeat dropped after the first, those
/// reached through another keyword path kept aside with the index of the one they repeat.
#[allow(clippy::type_complexity)]
fn reference_report(items: &[Violation]) -> (Vec<Violation>, Vec<(usize, Violation)>) {
    let mut sorted = items.to_vec();
    sorted.sort_by(location_then_report_order);
    let mut kept: Vec<Violation> = Vec::new();
    let mut reached_also = Vec::new();
    for violation in sorted {
        match kept.last() {
            Some(last) if repeats(last, &violation) => {
                if last.schema_location.keyword_path() != violation.schema_location.keyword_path() {
                    reached_also.push((kept.len() - 1, violation));
                }
            }
            _ => kept.push(violation),
        }
    }
    (kept, reached_also)
}

fn nested_instance() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        "(|a|ab)".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("(0|2|10|01|~|~0|~1|/|a|\\x00)", inner, 0..4)
                .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    })
}

fn violation_parts(keyword_path: &str, absolute: &str, message: &str, missing: Option<&str>) -> Violation {
    let mut text = ViolationText::of(keyword_path, absolute, message);
    text.push(missing.unwrap_or_default());
    Violation::new(
        Location::root(),
        crate::violation::ViolationKind::Type,
        text,
        TypeSet::default(),
        missing.is_some(),
    )
}

fn violation_with(location: &str, absolute: &str, message: &str, missing: Option<&str>) -> Violation {
    let mut violation = violation_parts("", absolute, message, missing);
    violation.instance_location = Location::parse(location).unwrap();
    violation
}

/// The report order by a plain sort of a copy (the reference the sorting paths are checked against).
fn plain_sort(items: &[Violation]) -> Vec<Violation> {
    let mut sorted = items.to_vec();
    sorted.sort_by(location_then_report_order);
    sorted.dedup_by(|b, a| a == b);
    sorted
}

fn violation(location: &str, absolute: &str) -> Violation {
    violation_with(location, absolute, "m", None)
}

/// The small reports sorted where they lie: every size up to `INSERTION_SORT_MAX`, reversed (each violation stepped
/// back as far as it goes), rotated (one violation out by the whole report, as a missing property reported after the
/// members), and with ties at one location and repeats, as a plain sort gives them.
#[test]
fn small_reports_out_of_order_sort_as_a_plain_sort() {
    let locations = [
        "", "/0", "/1", "/10", "/2", "/a", "/a/0", "/b", "/b/c", "/~0", "/01", "/z",
    ];
    for len in 2..=INSERTION_SORT_MAX {
        let sorted: Vec<Violation> = (0..len)
            .map(|idx| {
                // Every third one shares its location with the one before, under another keyword; every fifth
                // repeats the one before.
                let at = locations[(idx - idx / 3) % locations.len()];
                let absolute = if idx % 5 == 4 {
                    "#/x"
                } else {
                    ["#/x", "#/y"][idx % 2]
                };
                violation_with(at, absolute, "m", None)
            })
            .collect();
        let expected = plain_sort(&sorted);
        let mut reversed = sorted.clone();
        reversed.reverse();
        assert!(Violations::sorted(reversed).items == expected, "{len} reversed");
        for shift in 1..len {
            let mut rotated = expected.clone();
            rotated.rotate_left(shift);
            assert!(
                Violations::sorted(rotated).items == expected,
                "{len} rotated by {shift}"
            );
        }
    }
}

/// Reports past `KEYED_SORT_MAX` are sorted without keys; each size class agrees with a plain sort, whether
/// the report came in a few runs (as failed unions record them) or scattered.
#[test]
fn reports_of_every_size_class_sort_as_a_plain_sort() {
    let tokens = ["/0", "/1", "/10", "/a", "/b", "/~0", "/01", "/features", "/2"];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % bound
    };
    for len in [
        INSERTION_SORT_MAX + 1,
        KEYED_SORT_MAX,
        KEYED_SORT_MAX + 1,
        3 * KEYED_SORT_MAX,
    ] {
        for runs in [1, 3, len] {
            let mut items: Vec<Violation> = (0..len)
                .map(|_| {
                    let depth = 1 + next(4);
                    let location: String = (0..depth).map(|_| tokens[next(tokens.len())]).collect();
                    let absolute = ["#/x", "#/y", "#/z"][next(3)];
                    violation_with(&location, absolute, ["m", "n"][next(2)], None)
                })
                .collect();
            for run in items.chunks_mut(len.div_ceil(runs)) {
                run.sort_by(location_then_report_order);
            }
            let expected = plain_sort(&items);
            assert!(
                Violations::sorted(items).items == expected,
                "{len} violations in {runs} runs"
            );
        }
    }
}

#[test]
fn locations_compare_by_their_parts() {
    let a = SchemaLocation::new("/a", "#/b");
    let b = SchemaLocation::new("/a#", "/b");
    assert_ne!(a, b);
    assert!(a < b);
    assert_eq!(a, SchemaLocation::new("/a", "#/b"));
    assert_eq!(
        format!("{a:?}"),
        r##"SchemaLocation { keyword_path: "/a", absolute: "#/b" }"##
    );
}

#[test]
fn equality_sees_the_message_and_the_missing_property() {
    let base = violation_parts("/k", "#/k", "m", Some("p"));
    assert_eq!(base, violation_parts("/k", "#/k", "m", Some("p")));
    assert_ne!(base, violation_parts("/k", "#/k", "n", Some("p")));
    assert_ne!(base, violation_parts("/k", "#/k", "m", Some("q")));
    assert_ne!(base, violation_parts("/k", "#/k", "m", None));
    assert_ne!(base, violation_parts("/k", "#/k", "mp", None));
}

#[test]
fn order_matches_location_order_and_dedups() {
    let locations = ["/b", "/a/10", "", "/a/2", "/a", "/a/x", "/a/2", "/10", "/9"];
    let report = Violations::new(locations.iter().map(|l| violation(l, "#/type")).collect());
    let got: Vec<String> = report.iter().map(|v| v.instance_location().to_string()).collect();
    let mut want: Vec<Location> = locations.iter().map(|l| Location::parse(l).unwrap()).collect();
    want.sort();
    want.dedup();
    let want: Vec<String> = want.iter().map(ToString::to_string).collect();
    assert_eq!(got, want);
    assert_eq!(got, ["", "/9", "/10", "/a", "/a/2", "/a/10", "/a/x", "/b"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A report past `KEYED_SORT_MAX`, recorded as a few runs in order (as a failed union's members record them:
    /// the same locations in each run, under other keyword paths, some of them repeats), comes out as the plain
    /// route gives it: the stable sort's order, repeats dropped after the first and those reached through another
    /// keyword path kept aside.
    #[test]
    fn huge_reports_in_runs_come_out_as_the_plain_route_gives_them(
        runs in prop::collection::vec((0..3_usize, 0..2_usize, any::<bool>()), 2..7),
        per_run in (KEYED_SORT_MAX / 2)..KEYED_SORT_MAX,
    ) {
        let mut items: Vec<Violation> = Vec::new();
        for &(member, absolute, deep) in &runs {
            let mut run: Vec<Violation> = (0..per_run)
                .map(|idx| {
                    let location = if deep {
                        format!("/coordinates/{}/{}", idx / 7, idx % 7)
                    } else {
                        format!("/coordinates/{}", idx / 3)
                    };
                    let keyword_path = format!("/oneOf/{member}/type");
                    violation_parts_at(&location, &keyword_path, ["#/x", "#/y"][absolute], "m")
                })
                .collect();
            run.sort_by(location_then_report_order);
            items.extend(run);
        }
        prop_assume!(items.len() > KEYED_SORT_MAX);
        let (expected, expected_also) = reference_report(&items);
        let report = Violations::sorted(items);
        prop_assert!(report.items == expected);
        prop_assert!(report.reached_also == expected_also.into_iter().take(MAX_REACHED_ALSO).collect::<Vec<_>>());
    }
}

fn violation_parts_at(location: &str, keyword_path: &str, absolute: &str, message: &str) -> Violation {
    let mut violation = violation_parts(keyword_path, absolute, message, None);
    violation.instance_location = Location::parse(location).unwrap();
    violation
}
