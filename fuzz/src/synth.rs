//! Instances built from a schema's own shape, at the edges of its bounds: an array of exactly `maxItems` items of
//! the `items` schema, a string of `minLength` characters, a number at `maximum`, and one step past each. Random
//! instances rarely reach the checks deep inside a fuzzed schema; these do, so the verdict differential sees them.

use serde_json::{Map, Value, json};

/// Which bound an instance sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// The lower bounds (`minItems`, `minLength`, `minimum`, ...).
    Low,
    /// The upper bounds.
    High,
    /// One step past the upper bounds (one below the lower, where there is no upper).
    Past,
}

/// How deep the built instance may nest, and how many items, members or characters a bound may ask for.
const MAX_DEPTH: u32 = 8;
const MAX_COUNT: u64 = 8;
const MAX_LENGTH: u64 = 64;

/// An instance of `schema` (a subschema of `root`, which local `$ref`s resolve against) at `edge`.
pub fn instance(root: &Value, schema: &Value, edge: Edge) -> Value {
    build(root, schema, edge, 0)
}

fn build(root: &Value, schema: &Value, edge: Edge, depth: u32) -> Value {
    let Value::Object(keywords) = schema else {
        return Value::Null;
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(value) = keywords.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = keywords.get("enum")
        && let Some(value) = if edge == Edge::High {
            values.last()
        } else {
            values.first()
        }
    {
        return value.clone();
    }
    // Follow a local reference, or the first member of a combination, when the schema says nothing of its own type.
    if type_of(keywords).is_none() {
        if let Some(target) = keywords
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(root, r))
        {
            return build(root, target, edge, depth + 1);
        }
        for combination in ["allOf", "anyOf", "oneOf"] {
            if let Some(first) = keywords
                .get(combination)
                .and_then(Value::as_array)
                .and_then(|m| m.first())
            {
                return build(root, first, edge, depth + 1);
            }
        }
    }
    match type_of(keywords).unwrap_or("null") {
        "array" => {
            let count = count(keywords, "minItems", "maxItems", edge, 2);
            let prefix = keywords.get("prefixItems").and_then(Value::as_array);
            let rest = keywords.get("items");
            (0..count)
                .map(|index| {
                    let item = prefix.and_then(|p| p.get(index)).or(rest).unwrap_or(&Value::Null);
                    build(root, item, edge, depth + 1)
                })
                .collect()
        }
        "object" => {
            let mut members = Map::new();
            if let Some(Value::Object(properties)) = keywords.get("properties") {
                for (name, property) in properties.iter().take(MAX_COUNT as usize) {
                    members.insert(name.clone(), build(root, property, edge, depth + 1));
                }
            }
            for name in keywords
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(name) = name.as_str() {
                    members.entry(name).or_insert(Value::Null);
                }
            }
            Value::Object(members)
        }
        "string" => Value::String("a".repeat(count(keywords, "minLength", "maxLength", edge, 3))),
        "integer" | "number" => number(keywords, edge),
        "boolean" => Value::Bool(edge != Edge::Low),
        _ => Value::Null,
    }
}

/// The schema's type: its `type` (the first of a list), or the one its keywords imply.
fn type_of(keywords: &Map<String, Value>) -> Option<&str> {
    match keywords.get("type") {
        Some(Value::String(name)) => return Some(name),
        Some(Value::Array(names)) => return names.first().and_then(Value::as_str),
        _ => {}
    }
    let implied = [
        (["items", "prefixItems", "minItems", "maxItems"], "array"),
        (
            ["properties", "required", "minProperties", "maxProperties"],
            "object",
        ),
        (["minLength", "maxLength", "pattern", "format"], "string"),
        (["minimum", "maximum", "multipleOf", "exclusiveMaximum"], "number"),
    ];
    implied
        .iter()
        .find(|(keys, _)| keys.iter().any(|key| keywords.contains_key(*key)))
        .map(|(_, name)| *name)
}

/// A count between the schema's bounds (`usual` without them), capped at [`MAX_COUNT`] or [`MAX_LENGTH`].
fn count(keywords: &Map<String, Value>, low: &str, high: &str, edge: Edge, usual: u64) -> usize {
    let bound = |name: &str| keywords.get(name).and_then(Value::as_u64);
    let cap = if low == "minLength" { MAX_LENGTH } else { MAX_COUNT };
    let count = match (edge, bound(low), bound(high)) {
        (Edge::Low, Some(min), _) => min,
        (Edge::High, _, Some(max)) => max,
        (Edge::Past, _, Some(max)) => max.saturating_add(1),
        (Edge::Past, Some(min), None) => min.saturating_sub(1),
        _ => usual,
    };
    usize::try_from(count.min(cap)).unwrap_or(0)
}

/// A number at the schema's bounds, or one step past them; a multiple of `multipleOf` where there is one.
fn number(keywords: &Map<String, Value>, edge: Edge) -> Value {
    let bound = |names: [&str; 2]| {
        names
            .iter()
            .find_map(|name| keywords.get(*name).and_then(Value::as_f64))
    };
    let value = match edge {
        Edge::Low => bound(["minimum", "exclusiveMinimum"]),
        Edge::High => bound(["maximum", "exclusiveMaximum"]),
        Edge::Past => bound(["maximum", "exclusiveMaximum"]).map(|max| max + 1.0),
    };
    let value = match (value, keywords.get("multipleOf").and_then(Value::as_f64)) {
        (Some(value), _) => value,
        (None, Some(step)) if edge == Edge::Past => step / 2.0,
        (None, Some(step)) => step * 3.0,
        (None, None) => 7.0,
    };
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

/// The subschema a local reference (`#/$defs/a`) names in `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    oa_pointer::JsonPointer::parse_fragment(reference).ok()?.get(root)
}
