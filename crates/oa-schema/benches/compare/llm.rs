//! LLM-shaped workloads: the kinds of schema a structured-output call sends (strict objects, enums, patterns,
//! nullable fields, recursive trees), each with one valid and one invalid instance built here.

use crate::workloads::{InstanceSet, Workload};
use serde_json::{Value, json};

/// Every LLM-shaped workload.
pub(crate) fn all() -> Vec<Workload> {
    vec![
        flat_object(),
        nested_object(),
        array_of_objects(),
        nullable_any_of(),
        recursive_tree(),
    ]
}

/// One schema, one valid and one invalid instance.
fn workload(name: &str, schema: Value, valid: Value, invalid: Value) -> Workload {
    Workload {
        name: name.to_owned(),
        schemas: vec![schema],
        drafts: vec![oa_schema::Draft::Draft202012],
        schema_names: vec![name.to_owned()],
        instance_sets: vec![
            InstanceSet::valid(vec![(0, valid)]),
            InstanceSet::invalid(vec![(0, invalid)]),
        ],
        format_assertion: false,
    }
}

/// A flat object of ten typed properties, strict (all required, nothing else allowed), as OpenAI's strict mode
/// demands.
fn flat_object() -> Workload {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "name": { "type": "string", "minLength": 1 },
            "age": { "type": "integer", "minimum": 0, "maximum": 150 },
            "height_m": { "type": "number", "exclusiveMinimum": 0 },
            "active": { "type": "boolean" },
            "email": { "type": "string", "maxLength": 254 },
            "tags": { "type": "array", "items": { "type": "string" }, "maxItems": 16 },
            "score": { "type": "number", "minimum": 0, "maximum": 1 },
            "country": { "type": "string", "minLength": 2, "maxLength": 2 },
            "visits": { "type": "integer", "minimum": 0 },
            "notes": { "type": "string" }
        },
        "required": ["name", "age", "height_m", "active", "email", "tags", "score", "country", "visits", "notes"],
        "additionalProperties": false
    });
    let valid = json!({
        "name": "Ada Lovelace", "age": 36, "height_m": 1.65, "active": true, "email": "ada@example.org",
        "tags": ["math", "engines"], "score": 0.97, "country": "GB", "visits": 12, "notes": "first programmer"
    });
    // Six violations: two types, a bound, a length, a missing property and an extra one.
    let invalid = json!({
        "name": "Ada Lovelace", "age": "36", "height_m": 0, "active": true, "email": "ada@example.org",
        "tags": ["math", 7], "score": 0.97, "country": "GBR", "visits": 12, "extra": null
    });
    workload("llm-flat10", schema, valid, invalid)
}

/// A nested object with enums and patterns (an order with a customer, an address and a status).
fn nested_object() -> Workload {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "order_id": { "type": "string", "pattern": "^ORD-[0-9]{6}$" },
            "status": { "enum": ["pending", "paid", "shipped", "delivered", "cancelled"] },
            "customer": {
                "type": "object",
                "properties": {
                    "id": { "type": "string", "pattern": "^[a-f0-9]{8}$" },
                    "tier": { "enum": ["free", "pro", "enterprise"] },
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": { "type": "string", "minLength": 1 },
                            "city": { "type": "string", "minLength": 1 },
                            "postcode": { "type": "string", "pattern": "^[A-Z0-9 ]{3,10}$" },
                            "country": { "enum": ["FR", "DE", "GB", "US", "JP"] }
                        },
                        "required": ["street", "city", "postcode", "country"],
                        "additionalProperties": false
                    }
                },
                "required": ["id", "tier", "address"],
                "additionalProperties": false
            },
            "currency": { "type": "string", "pattern": "^[A-Z]{3}$" },
            "priority": { "type": "integer", "enum": [1, 2, 3] }
        },
        "required": ["order_id", "status", "customer", "currency", "priority"],
        "additionalProperties": false
    });
    let valid = json!({
        "order_id": "ORD-004217", "status": "shipped",
        "customer": {
            "id": "9f86d081", "tier": "pro",
            "address": { "street": "1 Rue de Rivoli", "city": "Paris", "postcode": "75001", "country": "FR" }
        },
        "currency": "EUR", "priority": 2
    });
    let invalid = json!({
        "order_id": "ORD-42", "status": "lost",
        "customer": {
            "id": "9F86D081", "tier": "pro",
            "address": { "street": "", "city": "Paris", "postcode": "75001", "country": "IT" }
        },
        "currency": "euro", "priority": 4
    });
    workload("llm-nested", schema, valid, invalid)
}

/// An array of 100 objects (a list of extracted line items).
fn array_of_objects() -> Workload {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": { "type": "string", "pattern": "^[A-Z]{2}-[0-9]{4}$" },
                        "description": { "type": "string", "maxLength": 200 },
                        "quantity": { "type": "integer", "minimum": 1 },
                        "unit_price": { "type": "number", "minimum": 0 },
                        "taxable": { "type": "boolean" }
                    },
                    "required": ["sku", "description", "quantity", "unit_price", "taxable"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["items"],
        "additionalProperties": false
    });
    let item = |item_idx: usize| {
        json!({
            "sku": format!("AB-{:04}", item_idx),
            "description": format!("line item number {item_idx}"),
            "quantity": item_idx % 7 + 1,
            "unit_price": (item_idx as f64) * 1.25,
            "taxable": item_idx.is_multiple_of(2)
        })
    };
    let valid = json!({ "items": (0..100).map(item).collect::<Vec<_>>() });
    // Every tenth item has a string quantity, every 25th misses its sku: 10 + 4 violations.
    let invalid_items: Vec<Value> = (0..100)
        .map(|item_idx| {
            let mut value = item(item_idx);
            if item_idx % 10 == 3 {
                value["quantity"] = json!("three");
            }
            if item_idx.is_multiple_of(25)
                && let Some(object) = value.as_object_mut()
            {
                object.remove("sku");
            }
            value
        })
        .collect();
    workload("llm-array100", schema, valid, json!({ "items": invalid_items }))
}

/// Nullable fields written as `anyOf: [T, null]`, the shape strict structured-output modes require for optional
/// values.
fn nullable_any_of() -> Workload {
    let nullable = |schema: Value| json!({ "anyOf": [schema, { "type": "null" }] });
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "title": { "type": "string" },
            "subtitle": nullable(json!({ "type": "string", "maxLength": 120 })),
            "rating": nullable(json!({ "type": "number", "minimum": 0, "maximum": 5 })),
            "year": nullable(json!({ "type": "integer", "minimum": 1800 })),
            "genre": nullable(json!({ "enum": ["fiction", "non-fiction", "poetry"] })),
            "author": nullable(json!({
                "type": "object",
                "properties": { "name": { "type": "string" }, "born": nullable(json!({ "type": "integer" })) },
                "required": ["name", "born"],
                "additionalProperties": false
            }))
        },
        "required": ["title", "subtitle", "rating", "year", "genre", "author"],
        "additionalProperties": false
    });
    let valid = json!({
        "title": "Dune", "subtitle": null, "rating": 4.5, "year": null, "genre": "fiction",
        "author": { "name": "Frank Herbert", "born": 1920 }
    });
    let invalid = json!({
        "title": "Dune", "subtitle": 12, "rating": 9, "year": "1965", "genre": "space opera",
        "author": { "name": "Frank Herbert", "born": "1920" }
    });
    workload("llm-nullable-anyof", schema, valid, invalid)
}

/// A `$ref`-recursive tree (an outline of sections), depth 5 with three children per node: 121 nodes.
fn recursive_tree() -> Workload {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "title": { "type": "string", "minLength": 1 },
                    "kind": { "enum": ["part", "chapter", "section", "paragraph"] },
                    "children": { "type": "array", "items": { "$ref": "#/$defs/node" } }
                },
                "required": ["title", "kind", "children"],
                "additionalProperties": false
            }
        }
    });
    let valid = tree(5, &mut 0, None);
    // Every 12th node is broken (a numeric title): 10 violations spread through the tree.
    let invalid = tree(5, &mut 0, Some(12));
    workload("llm-recursive-tree", schema, valid, invalid)
}

/// A tree of the given depth, three children per node; with `break_every`, each such node gets a numeric title.
fn tree(depth: usize, node_idx: &mut usize, break_every: Option<usize>) -> Value {
    let this_idx = *node_idx;
    *node_idx += 1;
    let children: Vec<Value> = if depth <= 1 {
        Vec::new()
    } else {
        (0..3).map(|_| tree(depth - 1, node_idx, break_every)).collect()
    };
    let title = match break_every {
        Some(every) if this_idx % every == every - 1 => json!(this_idx),
        _ => json!(format!("node {this_idx}")),
    };
    json!({ "title": title, "kind": "section", "children": children })
}
