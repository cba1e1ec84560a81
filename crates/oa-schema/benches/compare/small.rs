//! The small-schema workloads of issue 26 beside `small-schemastore` (see [`crate::schemastore`]): the project's
//! LLM-shaped schemas as one row family (`small-llm`), and generated variants of the shapes structured-output calls
//! send (`small-generated`). Each is one multi-schema workload: one compile row compiles every schema, one row
//! validates every valid (or invalid) instance. `format` asserts, as in `small-schemastore`. Every name starts with
//! `small-`, which the report reads as the small-schema set and which runs them alone as a criterion filter.

use crate::workloads::Workload;
use oa_schema::Draft;
use serde_json::{Map, Value, json};

/// `small-llm` and `small-generated`.
pub(crate) fn all() -> Vec<Workload> {
    let mut llm = crate::llm::all();
    llm.extend(llm_with_formats());
    vec![merge("small-llm", llm), merge("small-generated", generated())]
}

/// Several workloads as one: their schemas side by side, their instance sets joined by label, `format` asserting.
fn merge(name: &str, parts: Vec<Workload>) -> Workload {
    let mut schemas = Vec::new();
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for part in parts {
        let offset = schemas.len();
        for set in part.instance_sets {
            let target = if set.expect_valid {
                &mut valid
            } else {
                &mut invalid
            };
            target.extend(
                set.instances
                    .into_iter()
                    .map(|(schema_idx, instance)| (offset + schema_idx, instance)),
            );
        }
        schemas.extend(
            part.schemas
                .into_iter()
                .zip(part.drafts)
                .zip(part.schema_names)
                .map(|((schema, draft), schema_name)| (schema, draft, schema_name)),
        );
    }
    Workload::of_cases(name, schemas, valid, invalid, true)
}

/// One generated case: a 2020-12 schema with its valid and invalid instances.
fn case(name: String, body: Value, valid: Vec<Value>, invalid: Vec<Value>) -> Workload {
    let mut schema = Map::new();
    schema.insert(
        "$schema".to_owned(),
        Value::from("https://json-schema.org/draft/2020-12/schema"),
    );
    if let Value::Object(body) = body {
        schema.extend(body);
    }
    let paired = |instances: Vec<Value>| instances.into_iter().map(|instance| (0, instance)).collect();
    Workload::of_cases(
        &name,
        vec![(Value::Object(schema), Draft::Draft202012, name.clone())],
        paired(valid),
        paired(invalid),
        true,
    )
}

/// A case of a strict object of `properties`, with one valid and one invalid object.
fn strict_case(
    name: String,
    properties: &Map<String, Value>,
    valid: Map<String, Value>,
    invalid: Map<String, Value>,
) -> Workload {
    case(
        name,
        strict_object(properties),
        vec![Value::Object(valid)],
        vec![Value::Object(invalid)],
    )
}

/// A strict object (every property required, nothing else allowed), as strict structured-output modes demand.
fn strict_object(properties: &Map<String, Value>) -> Value {
    let required: Vec<&String> = properties.keys().collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// The generated variants, each at three widths (2, 4 and 8 properties): nullable unions, enums, nested arrays of
/// objects, a `pattern`, a `format`.
fn generated() -> Vec<Workload> {
    let mut cases = Vec::new();
    for width in [2usize, 4, 8] {
        cases.push(nullable_unions(width));
        cases.push(enums(width));
        cases.push(nested_arrays(width));
        cases.push(with_pattern(width));
        cases.push(with_format(width));
    }
    cases
}

/// Nullable fields both ways strict modes write them: `anyOf: [T, {type: null}]` and `type: [T, "null"]`.
fn nullable_unions(width: usize) -> Workload {
    let mut properties = Map::new();
    let mut valid_a = Map::new();
    let mut valid_b = Map::new();
    let mut invalid = Map::new();
    for field in 0..width {
        let (schema, value, wrong) = if field % 2 == 0 {
            (
                json!({ "anyOf": [{ "type": "string", "maxLength": 40 }, { "type": "null" }] }),
                json!(format!("value {field}")),
                json!(field),
            )
        } else {
            (
                json!({ "type": ["integer", "null"], "minimum": 0 }),
                json!(field * 3),
                json!("seven"),
            )
        };
        properties.insert(format!("field_{field}"), schema);
        valid_a.insert(format!("field_{field}"), value);
        valid_b.insert(format!("field_{field}"), Value::Null);
        invalid.insert(format!("field_{field}"), wrong);
    }
    case(
        format!("nullable-{width}"),
        strict_object(&properties),
        vec![Value::Object(valid_a), Value::Object(valid_b)],
        vec![Value::Object(invalid)],
    )
}

/// String and integer enums.
fn enums(width: usize) -> Workload {
    const COLOURS: [&str; 6] = ["red", "orange", "yellow", "green", "blue", "violet"];
    let mut properties = Map::new();
    let mut valid = Map::new();
    let mut invalid = Map::new();
    for field in 0..width {
        if field % 2 == 0 {
            properties.insert(format!("choice_{field}"), json!({ "enum": COLOURS }));
            valid.insert(format!("choice_{field}"), json!(COLOURS[field % COLOURS.len()]));
            invalid.insert(format!("choice_{field}"), json!("magenta"));
        } else {
            properties.insert(
                format!("choice_{field}"),
                json!({ "type": "integer", "enum": [1, 2, 3, 5, 8] }),
            );
            valid.insert(format!("choice_{field}"), json!(5));
            invalid.insert(format!("choice_{field}"), json!(4));
        }
    }
    strict_case(format!("enums-{width}"), &properties, valid, invalid)
}

/// An array of objects holding an array of objects (line items with their discounts), `width` items.
fn nested_arrays(width: usize) -> Workload {
    let schema = json!({
        "type": "object",
        "properties": {
            "lines": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "minLength": 1 },
                        "quantity": { "type": "integer", "minimum": 1 },
                        "discounts": {
                            "type": "array",
                            "maxItems": 4,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "code": { "type": "string" },
                                    "percent": { "type": "number", "minimum": 0, "maximum": 100 }
                                },
                                "required": ["code", "percent"],
                                "additionalProperties": false
                            }
                        }
                    },
                    "required": ["name", "quantity", "discounts"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["lines"],
        "additionalProperties": false
    });
    let line = |line_idx: usize, broken: bool| {
        json!({
            "name": if broken { json!("") } else { json!(format!("line {line_idx}")) },
            "quantity": if broken { json!(0) } else { json!(line_idx + 1) },
            "discounts": [{ "code": "SPRING", "percent": if broken { json!(120) } else { json!(10) } }]
        })
    };
    let valid: Vec<Value> = (0..width).map(|line_idx| line(line_idx, false)).collect();
    let invalid: Vec<Value> = (0..width)
        .map(|line_idx| line(line_idx, line_idx % 2 == 1))
        .collect();
    case(
        format!("nested-arrays-{width}"),
        schema,
        vec![json!({ "lines": valid })],
        vec![json!({ "lines": invalid })],
    )
}

/// Identifier fields with a `pattern` each.
fn with_pattern(width: usize) -> Workload {
    let mut properties = Map::new();
    let mut valid = Map::new();
    let mut invalid = Map::new();
    for field in 0..width {
        properties.insert(
            format!("code_{field}"),
            json!({ "type": "string", "pattern": "^[A-Z]{2}-[0-9]{3,6}$" }),
        );
        valid.insert(format!("code_{field}"), json!(format!("AB-{:04}", field * 17)));
        invalid.insert(format!("code_{field}"), json!(format!("ab-{field}")));
    }
    strict_case(format!("pattern-{width}"), &properties, valid, invalid)
}

/// Fields with a `format` each (date-time, email, uuid, date in turn).
fn with_format(width: usize) -> Workload {
    const FORMATS: [(&str, &str, &str); 4] = [
        ("date-time", "2026-12-02T04:05:06Z", "2026-13-02 04:05"),
        ("email", "ada@example.org", "ada.example.org"),
        ("uuid", "2f1c3a4e-9b7d-4c2e-8f10-3d5e6a7b8c9d", "2f1c3a4e-9b7d"),
        ("date", "2026-12-02", "02/12/2026"),
    ];
    let mut properties = Map::new();
    let mut valid = Map::new();
    let mut invalid = Map::new();
    for field in 0..width {
        let (format, good, bad) = FORMATS[field % FORMATS.len()];
        properties.insert(
            format!("when_{field}"),
            json!({ "type": "string", "format": format }),
        );
        valid.insert(format!("when_{field}"), json!(good));
        invalid.insert(format!("when_{field}"), json!(bad));
    }
    strict_case(format!("format-{width}"), &properties, valid, invalid)
}

/// LLM-style extraction schemas whose fields carry a `format` (issue 38 measures the value route on small LLM
/// schemas with format assertion on; `llm.rs`'s five carry none): an event, a contact card, a support ticket. Each
/// invalid instance breaks every format once and one other keyword.
fn llm_with_formats() -> Vec<Workload> {
    let event = json!({
        "type": "object",
        "properties": {
            "title": { "type": "string", "minLength": 1 },
            "starts_at": { "type": "string", "format": "date-time" },
            "ends_at": { "type": "string", "format": "date-time" },
            "day": { "type": "string", "format": "date" },
            "doors": { "type": "string", "format": "time" },
            "url": { "type": "string", "format": "uri" },
            "organiser_email": { "type": "string", "format": "email" },
            "kind": { "enum": ["concert", "talk", "meetup"] }
        },
        "required": ["title", "starts_at", "ends_at", "day", "doors", "url", "organiser_email", "kind"],
        "additionalProperties": false
    });
    let contact = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string", "format": "uuid" },
            "name": { "type": "string", "minLength": 1 },
            "emails": { "type": "array", "maxItems": 4, "items": { "type": "string", "format": "email" } },
            "website": { "anyOf": [{ "type": "string", "format": "uri" }, { "type": "null" }] },
            "host": { "type": "string", "format": "hostname" },
            "last_ip": { "anyOf": [{ "type": "string", "format": "ipv4" }, { "type": "null" }] },
            "birthday": { "anyOf": [{ "type": "string", "format": "date" }, { "type": "null" }] }
        },
        "required": ["id", "name", "emails", "website", "host", "last_ip", "birthday"],
        "additionalProperties": false
    });
    let ticket = json!({
        "type": "object",
        "properties": {
            "ticket_id": { "type": "string", "format": "uuid" },
            "opened_at": { "type": "string", "format": "date-time" },
            "severity": { "enum": ["low", "medium", "high"] },
            "reporter": {
                "type": "object",
                "properties": {
                    "email": { "type": "string", "format": "email" },
                    "ip": { "type": "string", "format": "ipv6" }
                },
                "required": ["email", "ip"],
                "additionalProperties": false
            },
            "events": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "at": { "type": "string", "format": "date-time" },
                        "note": { "type": "string", "maxLength": 200 }
                    },
                    "required": ["at", "note"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["ticket_id", "opened_at", "severity", "reporter", "events"],
        "additionalProperties": false
    });
    let events = |broken: bool| -> Vec<Value> {
        (0..8)
            .map(|event_idx| {
                let at = if broken && event_idx % 3 == 1 {
                    format!("2026-12-0{} 10:00", event_idx + 1)
                } else {
                    format!("2026-12-0{}T10:{:02}:00Z", event_idx + 1, event_idx * 7)
                };
                json!({ "at": at, "note": format!("step {event_idx}") })
            })
            .collect()
    };
    vec![
        case(
            "llm-event-formats".to_owned(),
            event,
            vec![json!({
                "title": "Rust meetup", "starts_at": "2026-12-07T18:30:00+01:00", "ends_at": "2026-12-07T21:00:00Z",
                "day": "2026-12-07", "doors": "18:00:00Z", "url": "https://example.org/events/42",
                "organiser_email": "ada@example.org", "kind": "meetup"
            })],
            vec![json!({
                "title": "Rust meetup", "starts_at": "7 December, 18:30", "ends_at": "2026-12-07T25:00:00Z",
                "day": "2026-02-30", "doors": "6pm", "url": "example dot org",
                "organiser_email": "ada(at)example.org", "kind": "party"
            })],
        ),
        case(
            "llm-contact-formats".to_owned(),
            contact,
            vec![
                json!({
                    "id": "2f1c3a4e-9b7d-4c2e-8f10-3d5e6a7b8c9d", "name": "Ada Lovelace",
                    "emails": ["ada@example.org", "a.lovelace@example.com"], "website": "https://example.org/ada",
                    "host": "mail.example.org", "last_ip": "192.0.2.17", "birthday": "1815-12-10"
                }),
                json!({
                    "id": "2f1c3a4e-9b7d-4c2e-8f10-3d5e6a7b8c9e", "name": "Charles Babbage", "emails": [],
                    "website": null, "host": "example.com", "last_ip": null, "birthday": null
                }),
            ],
            vec![json!({
                "id": "2f1c3a4e-9b7d", "name": "Ada Lovelace",
                "emails": ["ada@example.org", "not an email", "ada@"], "website": 42,
                "host": "-bad-.example..org", "last_ip": "192.0.2.300", "birthday": "10/12/1815"
            })],
        ),
        case(
            "llm-ticket-formats".to_owned(),
            ticket,
            vec![json!({
                "ticket_id": "8d3e1f20-5a6b-4c7d-9e8f-0a1b2c3d4e5f", "opened_at": "2026-12-01T08:00:00Z",
                "severity": "high", "reporter": { "email": "ops@example.org", "ip": "2001:db8::1" },
                "events": events(false)
            })],
            vec![json!({
                "ticket_id": "8D3E1F20", "opened_at": "yesterday", "severity": "urgent",
                "reporter": { "email": "ops@@example.org", "ip": "2001:db8:::1" }, "events": events(true)
            })],
        ),
    ]
}
