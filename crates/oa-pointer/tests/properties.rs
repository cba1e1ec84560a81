//! Laws of pointers and locations, stated as proptest properties.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use oa_pointer::{JsonPointer, Location, ParseError, Segment};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Tokens full of the characters that need care: `~`, `/`, `%`, `#`, spaces, quotes, backslashes, control
/// characters, digits and non-ASCII; plus arbitrary strings.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[~/%# \"'\\\\a-c0-9\\x00-\\x1f\\x7fé漢😀-]{0,8}",
        1 => "(0|[1-9][0-9]{0,2})",
        1 => any::<String>(),
    ]
}

fn pointer() -> impl Strategy<Value = JsonPointer> {
    prop::collection::vec(token(), 0..6).prop_map(JsonPointer::from_tokens)
}

/// An owned [`Segment`], so strategies can generate them.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

impl Step {
    fn as_segment(&self) -> Segment<'_> {
        match self {
            Step::Key(key) => Segment::Key(key),
            Step::Index(index) => Segment::Index(*index),
        }
    }

    fn to_token(&self) -> String {
        match self {
            Step::Key(key) => key.clone(),
            Step::Index(index) => index.to_string(),
        }
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        token().prop_map(Step::Key),
        (0usize..30).prop_map(Step::Index),
        any::<usize>().prop_map(Step::Index)
    ]
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 0..6)
}

fn location_of(steps: &[Step]) -> Location {
    Location::from_tokens(steps.iter().map(Step::as_segment))
}

/// Small locations over few distinct tokens, so that equal and prefix-related pairs come up often.
fn small_location() -> impl Strategy<Value = Location> {
    let small_step = prop_oneof![
        "[ab~/é]{0,2}".prop_map(Step::Key),
        (0usize..12).prop_map(Step::Index),
        "(0|1|01|10|2)".prop_map(Step::Key),
    ];
    prop::collection::vec(small_step, 0..4).prop_map(|steps| location_of(&steps))
}

fn sort_key(location: &Location) -> Vec<u8> {
    let mut key = Vec::new();
    location.push_sort_key(&mut key);
    key
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        ".{0,6}".prop_map(Value::from),
    ]
}

/// A path into a document: keys, or an index together with the length of the array holding it.
#[derive(Debug, Clone)]
enum PathStep {
    Key {
        key: String,
        siblings: Vec<(String, Value)>,
    },
    Index {
        index: usize,
        len: usize,
    },
}

fn path_step() -> impl Strategy<Value = PathStep> {
    prop_oneof![
        (token(), prop::collection::vec((token(), leaf()), 0..3))
            .prop_map(|(key, siblings)| PathStep::Key { key, siblings }),
        (0usize..5, 1usize..5).prop_map(|(index, extra)| PathStep::Index {
            index,
            len: index + extra
        }),
    ]
}

/// Builds a document holding `leaf` at the end of `path`, with unrelated siblings along the way.
fn build_document(path: &[PathStep], leaf: &Value) -> Value {
    let mut value = leaf.clone();
    for path_step in path.iter().rev() {
        value = match path_step {
            PathStep::Key { key, siblings } => {
                let mut members: Map<String, Value> = siblings.iter().cloned().collect();
                members.insert(key.clone(), value);
                Value::Object(members)
            }
            PathStep::Index { index, len } => {
                let mut items: Vec<Value> = (0..*len).map(|item_idx| json!(item_idx)).collect();
                items[*index] = value;
                Value::Array(items)
            }
        };
    }
    value
}

/// Documents over a small key alphabet, so that random pointers sometimes resolve and sometimes fail deep.
fn small_document() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[ab0-]{0,2}", inner, 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn small_pointer() -> impl Strategy<Value = JsonPointer> {
    prop::collection::vec("(a|b|0|1|2|01|-|)", 0..5).prop_map(JsonPointer::from_tokens)
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Whether a fragment holds only RFC 3986 fragment characters and well-formed uppercase percent escapes.
fn is_well_encoded_fragment(fragment: &str) -> bool {
    let Some(body) = fragment.strip_prefix('#') else {
        return false;
    };
    let bytes = body.as_bytes();
    let mut idx = 0;
    while let Some(&byte) = bytes.get(idx) {
        if byte == b'%' {
            let hex = |at: usize| {
                bytes
                    .get(at)
                    .is_some_and(|digit| matches!(digit, b'0'..=b'9' | b'A'..=b'F'))
            };
            if !(hex(idx + 1) && hex(idx + 2)) {
                return false;
            }
            idx += 3;
        } else if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&byte) {
            idx += 1;
        } else {
            return false;
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn plain_form_round_trips(pointer in pointer()) {
        prop_assert_eq!(JsonPointer::parse(&pointer.to_string()), Ok(pointer.clone()));
        prop_assert_eq!(pointer.to_string().parse::<JsonPointer>(), Ok(pointer));
    }

    #[test]
    fn fragment_form_round_trips(pointer in pointer()) {
        let fragment = pointer.to_fragment();
        prop_assert!(is_well_encoded_fragment(&fragment), "{fragment:?}");
        prop_assert_eq!(JsonPointer::parse_fragment(&fragment), Ok(pointer));
    }

    #[test]
    fn parsing_any_plain_string_never_panics_and_valid_input_formats_back_identically(input in any::<String>()) {
        match JsonPointer::parse(&input) {
            Ok(pointer) => prop_assert_eq!(pointer.to_string(), input.clone()),
            Err(error) => prop_assert!(error.offset() < input.len().max(1)),
        }
        prop_assert_eq!(Location::parse(&input).map(|location| location.to_pointer()), JsonPointer::parse(&input));
    }

    #[test]
    fn plain_errors_point_at_the_culprit(input in "(/|~|0|1|a|é){0,10}") {
        match JsonPointer::parse(&input) {
            Ok(pointer) => prop_assert_eq!(pointer.to_string(), input),
            Err(ParseError::MissingLeadingSlash { offset }) => {
                prop_assert_eq!(offset, 0);
                prop_assert!(!input.starts_with('/'));
            }
            Err(ParseError::InvalidTildeEscape { offset }) => {
                let rest = &input[offset..];
                prop_assert!(rest.starts_with('~') && !rest.starts_with("~0") && !rest.starts_with("~1"));
                prop_assert!(JsonPointer::parse(&input[..offset]).is_ok(), "the error is the first one");
            }
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }

    #[test]
    fn parsing_any_fragment_never_panics(input in any::<String>(), with_hash in any::<bool>()) {
        let input = if with_hash { format!("#{input}") } else { input };
        match JsonPointer::parse_fragment(&input) {
            Ok(pointer) => prop_assert_eq!(JsonPointer::parse_fragment(&pointer.to_fragment()), Ok(pointer)),
            Err(error) => {
                prop_assert!(error.offset() <= input.len());
                prop_assert!(input.is_char_boundary(error.offset()));
            }
        }
    }

    #[test]
    fn fragment_errors_point_at_the_culprit(input in "#(/|~|0|1|a|é|%|%[0-9a-fA-F]{1,2}|%[89a-fA-F][0-9a-fA-F]){0,8}") {
        match JsonPointer::parse_fragment(&input) {
            Ok(pointer) => prop_assert_eq!(JsonPointer::parse_fragment(&pointer.to_fragment()), Ok(pointer)),
            Err(ParseError::InvalidPercentEscape { offset }) => {
                prop_assert!(input[offset..].starts_with('%'));
                let escape = input.get(offset + 1..offset + 3).unwrap_or("");
                prop_assert!(escape.len() < 2 || !escape.bytes().all(|byte| byte.is_ascii_hexdigit()));
            }
            Err(ParseError::InvalidUtf8 { offset }) => prop_assert!(input[offset..].starts_with('%')),
            Err(ParseError::InvalidTildeEscape { offset }) => {
                prop_assert!(input[offset..].starts_with('~') || input[offset..].to_ascii_uppercase().starts_with("%7E"));
            }
            Err(ParseError::MissingLeadingSlash { offset }) => prop_assert_eq!(offset, 1),
            Err(ParseError::MissingHash { .. }) => prop_assert!(false, "the input starts with '#'"),
        }
    }

    #[test]
    fn resolving_a_generated_path_finds_the_generated_value(
        path in prop::collection::vec(path_step(), 0..6),
        leaf in leaf(),
    ) {
        let mut document = build_document(&path, &leaf);
        let tokens: Vec<String> = path
            .iter()
            .map(|path_step| match path_step {
                PathStep::Key { key, .. } => key.clone(),
                PathStep::Index { index, .. } => index.to_string(),
            })
            .collect();
        let pointer = JsonPointer::from_tokens(tokens.clone());
        prop_assert_eq!(pointer.get(&document), Some(&leaf));
        prop_assert_eq!(pointer.resolve(&document), Ok(&leaf));
        let via_fragment = JsonPointer::parse_fragment(&pointer.to_fragment()).unwrap();
        prop_assert_eq!(via_fragment.get(&document), Some(&leaf));
        let via_location = Location::from_tokens(&tokens).to_pointer();
        prop_assert_eq!(via_location.get(&document), Some(&leaf));
        prop_assert_eq!(pointer.get_mut(&mut document).map(|value| value.clone()), Some(leaf.clone()));
        let replaced = json!("replaced");
        *pointer.resolve_mut(&mut document).unwrap() = replaced.clone();
        prop_assert_eq!(pointer.get(&document), Some(&replaced));
    }

    #[test]
    fn a_failed_resolve_reports_the_longest_existing_prefix(document in small_document(), pointer in small_pointer()) {
        match pointer.resolve(&document) {
            Ok(value) => prop_assert_eq!(pointer.get(&document), Some(value)),
            Err(error) => {
                prop_assert_eq!(pointer.get(&document), None);
                prop_assert!(error.prefix().get(&document).is_some());
                prop_assert!(pointer.starts_with(error.prefix()));
                prop_assert!(error.prefix().depth() < pointer.depth());
                prop_assert_eq!(pointer.tokens().nth(error.prefix().depth()), Some(error.token()));
                let mut one_longer = error.prefix().clone();
                one_longer.push(error.token());
                prop_assert_eq!(one_longer.get(&document), None);
            }
        }
    }

    #[test]
    fn location_order_is_consistent_with_eq_and_hash(left in small_location(), right in small_location()) {
        prop_assert_eq!(left.cmp(&right) == Ordering::Equal, left == right);
        prop_assert_eq!(left.cmp(&right), right.cmp(&left).reverse());
        if left == right {
            prop_assert_eq!(hash_of(&left), hash_of(&right));
        }
        prop_assert_eq!(left.cmp(&right), left.to_pointer().cmp(&right.to_pointer()));
        prop_assert_eq!(left == right, left.to_pointer() == right.to_pointer());
    }

    #[test]
    fn location_order_is_transitive(a in small_location(), b in small_location(), c in small_location()) {
        if a <= b && b <= c {
            prop_assert!(a <= c, "{a} <= {b} <= {c}");
        }
        if a < b && b < c {
            prop_assert!(a < c, "{a} < {b} < {c}");
        }
    }

    /// Locations that share a long prefix (as a report's neighbours do) and part anywhere, even inside a token
    /// (`/ab` and `/a~1`, `/1` and `/10`), order as their pointers do token by token.
    #[test]
    fn locations_with_a_shared_prefix_order_as_pointers_do(
        shared in prop::collection::vec(step(), 0..12),
        a in small_location(),
        b in small_location(),
    ) {
        let (mut left, mut right) = (location_of(&shared), location_of(&shared));
        for token in a.to_pointer().tokens() {
            left.push(Segment::Key(token));
        }
        for token in b.to_pointer().tokens() {
            right.push(Segment::Key(token));
        }
        prop_assert_eq!(left.cmp(&right), left.to_pointer().cmp(&right.to_pointer()), "{} vs {}", left, right);
        prop_assert_eq!(sort_key(&left).cmp(&sort_key(&right)), left.cmp(&right), "{} vs {}", left, right);
    }

    #[test]
    fn sort_keys_order_as_locations_do(a in small_location(), b in small_location()) {
        prop_assert_eq!(sort_key(&a).cmp(&sort_key(&b)), a.cmp(&b), "{} vs {}", a, b);
    }

    #[test]
    fn sort_keys_order_as_locations_do_on_any_tokens(a in steps(), b in steps()) {
        let (a, b) = (location_of(&a), location_of(&b));
        prop_assert_eq!(sort_key(&a).cmp(&sort_key(&b)), a.cmp(&b), "{} vs {}", a, b);
    }

    #[test]
    fn segment_sort_keys_build_the_location_sort_key(steps in steps()) {
        let mut from_steps = Vec::new();
        for step in &steps {
            step.as_segment().push_sort_key(&mut from_steps);
        }
        prop_assert_eq!(from_steps, sort_key(&location_of(&steps)));
    }

    #[test]
    fn indices_compare_numerically_and_prefixes_come_first(
        base in steps(),
        left in any::<usize>(),
        right in any::<usize>(),
        extension in step(),
    ) {
        let mut with_left = location_of(&base);
        with_left.push_index(left);
        let mut with_right = location_of(&base);
        with_right.push_index(right);
        prop_assert_eq!(with_left.cmp(&with_right), left.cmp(&right));
        let mut extended = location_of(&base);
        extended.push(extension.as_segment());
        prop_assert!(location_of(&base) < extended);
        prop_assert!(location_of(&base).to_pointer() < extended.to_pointer());
    }

    #[test]
    fn push_then_pop_restores_the_location_and_the_pointer(base in steps(), extra in step()) {
        let original = location_of(&base);
        let mut location = original.clone();
        location.push(extra.as_segment());
        prop_assert_eq!(location.depth(), original.depth() + 1);
        prop_assert_eq!(location.parent(), Some(original.clone()));
        prop_assert!(location.pop());
        prop_assert_eq!(&location, &original);

        let mut pointer = original.to_pointer();
        pointer.push(extra.to_token());
        prop_assert_eq!(pointer.parent(), Some(original.to_pointer()));
        prop_assert_eq!(pointer.pop(), Some(extra.to_token()));
        prop_assert_eq!(pointer, original.to_pointer());
    }

    #[test]
    fn location_agrees_with_pointer(steps in steps()) {
        let location = location_of(&steps);
        let pointer = JsonPointer::from_tokens(steps.iter().map(Step::to_token));
        prop_assert_eq!(location.to_pointer(), pointer.clone());
        prop_assert_eq!(location.to_string(), pointer.to_string());
        prop_assert_eq!(location.to_fragment(), pointer.to_fragment());
        prop_assert_eq!(location.depth(), pointer.depth());
        prop_assert_eq!(Location::from(&pointer), location.clone());
        prop_assert_eq!(Location::parse(&pointer.to_string()), Ok(location.clone()));
        let tokens: Vec<String> = location.tokens().map(|token| token.into_owned()).collect();
        prop_assert_eq!(tokens, pointer.tokens().map(str::to_owned).collect::<Vec<_>>());
    }

    #[test]
    fn serde_round_trips_through_the_plain_string(steps in steps()) {
        let location = location_of(&steps);
        let json = serde_json::to_string(&location).unwrap();
        prop_assert_eq!(&json, &serde_json::to_string(&location.to_string()).unwrap());
        prop_assert_eq!(serde_json::from_str::<Location>(&json).unwrap(), location.clone());
        let pointer = location.to_pointer();
        prop_assert_eq!(serde_json::to_string(&pointer).unwrap(), json.clone());
        prop_assert_eq!(serde_json::from_str::<JsonPointer>(&json).unwrap(), pointer);
    }
}
