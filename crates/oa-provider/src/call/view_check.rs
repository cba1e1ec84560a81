//! Test support for the typed views: the differential check against the reference route, and generators of
//! JSON text shaped like a wire format's bodies, with the perturbations the views must decline or read alike
//! (repeated members, escaped keys, values of other types, numbers a counter may or may not read, nesting near
//! the parser's limit).

use std::cell::Cell;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;

use crate::call::exchange::decode_value;
use crate::call::wire::WireFormat;
use crate::model::Tool;
use crate::structured::CheckedTools;

/// The one declared tool calls are checked against.
pub(crate) fn tools() -> Vec<Tool> {
    vec![Tool::new(
        "lookup",
        "",
        json!({"type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]}),
    )]
}

/// `wire`'s view on `body`, checked against the reference route (same parts, `response_id` and error): `true`
/// when the view read it.
pub(crate) fn agrees(wire: &dyn WireFormat, body: &str) -> bool {
    let declared = tools();
    let tools = CheckedTools::new(&declared);
    let Some(viewed) = wire.map_bytes(body.as_bytes(), &tools) else {
        return false;
    };
    let reference =
        decode_value(wire, body.as_bytes(), &tools, &|text| text.to_owned()).map(|(mapped, _)| mapped);
    match (&viewed, &reference) {
        (Ok(viewed), Ok(reference)) => assert_eq!(viewed, reference, "{body}"),
        (Err(viewed), Err(reference)) => {
            assert_eq!(format!("{viewed:?}"), format!("{reference:?}"), "{body}");
        }
        _ => panic!("the view and the reference disagree on {body}:\n{viewed:?}\n{reference:?}"),
    }
    true
}

/// Each body of `cases` refused by `wire` in the words given (the `provider_invalid_response` message of the
/// `Value` route), and not read otherwise by the bytes route.
pub(crate) fn refuses(wire: &dyn WireFormat, cases: &[(&str, &str)]) {
    let declared = tools();
    let tools = CheckedTools::new(&declared);
    for (body, words) in cases {
        let error = decode_value(wire, body.as_bytes(), &tools, &|text| text.to_owned())
            .err()
            .unwrap_or_else(|| panic!("{body} was read"));
        assert_eq!(
            error.category(),
            crate::model::Category::InvalidResponse,
            "{body}"
        );
        assert_eq!(error.message(), *words, "{body}");
        if let Some(viewed) = wire.map_bytes(body.as_bytes(), &tools) {
            assert_eq!(
                viewed.err().map(|error| error.message().to_owned()).as_deref(),
                Some(*words),
                "{body}"
            );
        }
    }
}

/// Runs [`agrees`] on 4,000 generated bodies; both routes must be exercised (`min_read` bodies read by the view,
/// `min_declined` declined), or the comparison proves little.
pub(crate) fn agrees_on_generated(
    wire: &dyn WireFormat,
    bodies: BoxedStrategy<String>,
    min_read: u32,
    min_declined: u32,
) {
    let read = Cell::new(0u32);
    let declined = Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases: 4000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&bodies, |body| {
            if agrees(wire, &body) {
                read.set(read.get() + 1);
            } else {
                declined.set(declined.get() + 1);
            }
            Ok(())
        })
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(read.get() > min_read, "the view read only {} bodies", read.get());
    assert!(
        declined.get() > min_declined,
        "the view declined only {} bodies",
        declined.get()
    );
}

/// JSON text of any shape, with the values the readings treat specially: numbers a counter may or may not
/// read, strings with escapes, nesting near the parser's depth limit.
pub(crate) fn any_json() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("0".to_owned()),
        Just("7".to_owned()),
        Just("-0".to_owned()),
        Just("-3".to_owned()),
        Just("3.0".to_owned()),
        Just("1e2".to_owned()),
        Just("1e400".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just(r#""""#.to_owned()),
        Just(r#""stop""#.to_owned()),
        Just(r#""a\nb\u00e9""#.to_owned()),
        Just(r#""\ud800""#.to_owned()),
        (100usize..140).prop_map(|depth| format!("{}{}", "[".repeat(depth), "]".repeat(depth))),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec((prop::sample::select(vec!["a", "content", "id"]), inner), 0..3)
                .prop_map(|members| object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
    .boxed()
}

pub(crate) fn object(members: Vec<(String, String)>) -> String {
    let members: Vec<String> = members
        .into_iter()
        .map(|(key, value)| format!("{}:{value}", serde_json::to_string(&key).unwrap_or_default()))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// An object of these optional members in a random order, sometimes one of them twice, sometimes a key
/// spelled with an escape, sometimes an unknown member.
pub(crate) fn members(candidates: Vec<(&'static str, BoxedStrategy<String>)>) -> BoxedStrategy<String> {
    let picks: Vec<BoxedStrategy<Option<(String, String)>>> = candidates
        .into_iter()
        .map(|(key, value)| {
            prop::option::weighted(0.8, (prop::bool::weighted(0.05), value))
                .prop_map(move |picked| {
                    picked.map(|(escaped, value)| {
                        let key = if escaped {
                            format!("\\u{:04x}{}", u32::from(key.as_bytes()[0]), &key[1..])
                        } else {
                            key.to_owned()
                        };
                        (key, value)
                    })
                })
                .boxed()
        })
        .collect();
    (
        picks,
        prop::option::weighted(0.2, any_json()),
        any::<u64>(),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(picked, unknown, order, repeat)| {
            let mut members: Vec<(String, String)> = picked.into_iter().flatten().collect();
            if let Some(value) = unknown {
                members.push(("extra".to_owned(), value));
            }
            if repeat && let Some(first) = members.first().cloned() {
                members.push(first);
            }
            let len = members.len().max(1);
            members.rotate_left((order as usize) % len);
            let members: Vec<String> = members
                .into_iter()
                .map(|(key, value)| format!("\"{key}\":{value}"))
                .collect();
            format!("{{{}}}", members.join(","))
        })
        .boxed()
}

pub(crate) fn or_any(likely: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop_oneof![9 => likely, 1 => any_json()].boxed()
}

pub(crate) fn text(choices: &[&'static str]) -> BoxedStrategy<String> {
    or_any(
        prop::sample::select(choices.to_vec())
            .prop_map(|text| serde_json::to_string(text).unwrap_or_default())
            .boxed(),
    )
}

pub(crate) fn counter() -> BoxedStrategy<String> {
    or_any(
        prop_oneof![
            (0u64..1000).prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string())
        ]
        .boxed(),
    )
}
