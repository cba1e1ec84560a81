//! Fitting as properties, for generated schemas (objects with optional properties, nullables, unions, arrays,
//! strings and numbers with bounds, enums, consts, references and recursion, `allOf`) and generated answers, on every
//! mapping:
//!
//! - mapping back never turns an answer the caller's schema rejects into an accepted one, except by removing a `null`
//!   the caller's schema does not allow where it stands (or restoring one it requires): it changes nothing else, leaves
//!   an accepted answer alone, and every change it makes is one the caller's schema needs;
//! - the account is complete: an answer the fitted schema accepts that the caller's schema rejects after mapping
//!   back is accepted once the accounted clauses are taken out of the caller's schema;
//! - fitting leaves an answer both accept: the generated schema's own witness, spelled for the fitted schema, is
//!   accepted by it and, mapped back, by the caller's schema.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "fit_support/corpus.rs"]
mod corpus_support;

use oa_pointer::Location;
use oa_provider::Mapping;
use oa_provider::fit::{FitError, Fitted, fit};
use oa_schema::Validator;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A generated subschema and an instance it accepts.
#[derive(Debug, Clone)]
struct Gen {
    schema: Value,
    witness: Value,
}

fn generated(schema: Value, witness: Value) -> Gen {
    Gen { schema, witness }
}

/// Strings with the patterns and formats each satisfies.
const STRINGS: [(&str, &[&str], &[&str]); 5] = [
    ("abc", &["^[a-z]+$", "^a"], &[]),
    ("123", &["^[0-9]{3}$", "^\\d+$"], &[]),
    ("2026-12-07", &["^\\d{4}-"], &["date"]),
    ("ada@example.com", &["@"], &["email"]),
    ("", &[], &[]),
];

fn string_leaf() -> impl Strategy<Value = Gen> {
    (
        0..STRINGS.len(),
        0usize..3,
        0usize..3,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(pick, below, above, with_pattern, with_format)| {
            let (witness, patterns, formats) = STRINGS[pick];
            let len = witness.chars().count();
            let mut schema = json!({"type": "string", "minLength": len.saturating_sub(below)});
            if above < 2 {
                schema["maxLength"] = json!(len + above);
            }
            if with_pattern && let Some(pattern) = patterns.first() {
                schema["pattern"] = json!(pattern);
            }
            if with_format && let Some(format) = formats.first() {
                schema["format"] = json!(format);
            }
            generated(schema, json!(witness))
        })
}

fn number_leaf() -> impl Strategy<Value = Gen> {
    (-4i64..5, 0i64..3, 0i64..3, 0u8..5, any::<bool>()).prop_map(
        |(witness, below, above, bounds, integer)| {
            let mut schema = json!({"type": if integer { "integer" } else { "number" }});
            match bounds {
                0 => {}
                1 => schema["minimum"] = json!(witness - below),
                2 => schema["exclusiveMinimum"] = json!(witness - below - 1),
                3 => {
                    schema["maximum"] = json!(witness + above);
                    schema["minimum"] = json!(witness - below);
                }
                _ => {
                    schema["exclusiveMaximum"] = json!(witness + above + 1);
                    schema["multipleOf"] = json!(if witness % 2 == 0 { 2 } else { 1 });
                }
            }
            let witness = if integer {
                json!(witness)
            } else {
                json!(witness as f64 + 0.5)
            };
            let witness = if !integer && bounds == 4 {
                json!(witness.as_f64().unwrap_or(0.0) - 0.5)
            } else {
                witness
            };
            generated(schema, witness)
        },
    )
}

fn enum_leaf() -> impl Strategy<Value = Gen> {
    let pool = vec![
        json!("red"),
        json!("green"),
        json!(3),
        json!(null),
        json!(true),
        json!({"k": 1}),
    ];
    (proptest::sample::subsequence(pool, 1..4), any::<bool>()).prop_map(|(values, constant)| {
        if constant {
            generated(json!({"const": values[0]}), values[0].clone())
        } else {
            generated(json!({"enum": values.clone()}), values[0].clone())
        }
    })
}

fn leaf() -> impl Strategy<Value = Gen> {
    prop_oneof![
        3 => string_leaf(),
        3 => number_leaf(),
        2 => enum_leaf(),
        1 => Just(generated(json!({"type": "boolean"}), json!(false))),
        1 => Just(generated(json!({"type": "null"}), json!(null))),
    ]
}

/// An object of the children, each required or not; `additionalProperties` absent, false or a schema.
fn object(children: Vec<(Gen, bool, bool)>, additional: u8) -> Gen {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut witness = Map::new();
    for (idx, (child, is_required, in_witness)) in children.into_iter().enumerate() {
        let name = format!("p{idx}");
        properties.insert(name.clone(), child.schema);
        if is_required {
            required.push(json!(name));
        }
        if is_required || in_witness {
            witness.insert(name, child.witness);
        }
    }
    let mut schema = json!({"type": "object", "properties": properties, "required": required});
    match additional {
        0 => {}
        1 => schema["additionalProperties"] = json!(false),
        _ => schema["additionalProperties"] = json!({"type": "string"}),
    }
    generated(schema, Value::Object(witness))
}

fn node(inner: impl Strategy<Value = Gen> + Clone + 'static) -> impl Strategy<Value = Gen> {
    prop_oneof![
        // An object.
        (
            proptest::collection::vec((inner.clone(), any::<bool>(), any::<bool>()), 1..4),
            0u8..3
        )
            .prop_map(|(children, additional)| object(children, additional)),
        // An array.
        (inner.clone(), 0usize..3, 0usize..3, any::<bool>()).prop_map(|(child, min, extra, bounded)| {
            let mut schema = json!({"type": "array", "items": child.schema, "minItems": min});
            if bounded {
                schema["maxItems"] = json!(min + extra);
            }
            generated(schema, Value::Array(vec![child.witness; min]))
        }),
        // A nullable: a type array with null where the child has one type, else anyOf with null.
        (inner.clone(), any::<bool>()).prop_map(|(child, null_witness)| {
            let witness = if null_witness {
                Value::Null
            } else {
                child.witness.clone()
            };
            let typed = child
                .schema
                .get("type")
                .and_then(Value::as_str)
                .filter(|kind| *kind != "null");
            let schema = match typed {
                Some(kind) if child.schema.get("enum").is_none() && child.schema.get("const").is_none() => {
                    let mut schema = child.schema.clone();
                    schema["type"] = json!([kind, "null"]);
                    schema
                }
                _ => json!({"anyOf": [child.schema, {"type": "null"}], "default": null}),
            };
            generated(schema, witness)
        }),
        // A union: anyOf of any two; oneOf of a string and a number (disjoint), or of two objects (maybe not).
        (inner.clone(), inner.clone(), 0u8..3).prop_map(|(left, right, kind)| match kind {
            0 => generated(json!({"anyOf": [left.schema, right.schema]}), left.witness),
            1 => generated(
                json!({"oneOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}),
                json!(7)
            ),
            _ => generated(json!({"oneOf": [left.schema, right.schema]}), left.witness),
        }),
        // A reference, with a description beside it or not.
        (inner.clone(), any::<bool>()).prop_map(|(child, described)| {
            let mut schema = json!({"x-def": child.schema});
            if described {
                schema["description"] = json!("a reference");
            }
            generated(schema, child.witness)
        }),
        // allOf of two objects with their own properties.
        (inner.clone(), inner).prop_map(|(left, right)| {
            let mut witness = Map::new();
            witness.insert("l".to_owned(), left.witness);
            witness.insert("r".to_owned(), right.witness);
            generated(
                json!({"allOf": [
                    {"type": "object", "properties": {"l": left.schema}, "required": ["l"]},
                    {"properties": {"r": right.schema}, "required": ["r"]}
                ]}),
                Value::Object(witness),
            )
        }),
    ]
}

/// A whole schema: an object at the top, sometimes with a recursive definition.
fn schema() -> impl Strategy<Value = Gen> {
    let tree = leaf().prop_recursive(3, 24, 4, |inner| node(inner.boxed()).boxed());
    (proptest::collection::vec((tree, any::<bool>(), any::<bool>()), 1..5), 0u8..3, 0u8..3).prop_map(
        |(children, additional, recursion)| {
            let mut root = object(children, additional);
            if recursion > 0 {
                // A recursive definition: a list of itself (required) or an optional link to itself.
                let node = if recursion == 1 {
                    json!({"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                           "required": ["v", "kids"]})
                } else {
                    json!({"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}, "required": ["v"]})
                };
                root.schema["properties"]["rec"] = json!({"$ref": "#/$defs/node"});
                root.schema["$defs"] = json!({"node": node});
                let witness = if recursion == 1 { json!({"v": 1, "kids": []}) } else { json!({"v": 1}) };
                root.witness["rec"] = witness;
            }
            root.schema = hoist(root.schema);
            root
        },
    )
}

/// Moves every `{"x-def": S}` into `$defs` and points at it.
fn hoist(mut schema: Value) -> Value {
    let mut defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    fn walk(value: &mut Value, defs: &mut Map<String, Value>) {
        match value {
            Value::Object(map) => {
                for member in map.values_mut() {
                    walk(member, defs);
                }
                if let Some(body) = map.remove("x-def") {
                    let name = format!("d{}", defs.len());
                    defs.insert(name.clone(), body);
                    map.insert("$ref".to_owned(), json!(format!("#/$defs/{name}")));
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, defs)),
            _ => {}
        }
    }
    walk(&mut schema, &mut defs);
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs);
    }
    schema
}

/// A small deterministic generator for answers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// An answer drawn from `node` of `root`: mostly shaped like it, with optional properties left out or `null`,
/// values at and past the bounds, and now and then something else entirely.
fn sample(root: &Value, node: &Value, rng: &mut Rng, depth: usize) -> Value {
    let scalars = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(2.5),
        json!(7),
        json!(""),
        json!("abc"),
        json!("a@b.c"),
        json!("2026-12-07"),
        json!("0123456789abcdef"),
    ];
    if depth > 6 || rng.chance(4) {
        return scalars[rng.below(scalars.len())].clone();
    }
    let Value::Object(map) = node else {
        return scalars[rng.below(scalars.len())].clone();
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let target = if reference == "#" {
            Some(root)
        } else {
            root.pointer(reference.trim_start_matches('#'))
        };
        if let Some(target) = target {
            return sample(root, target, rng, depth + 1);
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = map.get(keyword)
            && !members.is_empty()
            && (keyword != "allOf" || rng.chance(30))
        {
            let member = &members[rng.below(members.len())];
            if keyword != "allOf" {
                return sample(root, member, rng, depth + 1);
            }
        }
    }
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && !values.is_empty()
        && rng.chance(90)
    {
        return values[rng.below(values.len())].clone();
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ if map.contains_key("properties") || map.contains_key("allOf") => vec!["object"],
        _ => vec!["string", "integer", "null"],
    };
    match types[rng.below(types.len())] {
        "object" => {
            let mut object = Map::new();
            let mut schemas: Vec<&Map<String, Value>> = vec![map];
            if let Some(Value::Array(members)) = map.get("allOf") {
                schemas.extend(members.iter().filter_map(Value::as_object));
            }
            for schema in schemas {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (name, property) in schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    let keep = if required.contains(&name.as_str()) {
                        rng.chance(92)
                    } else {
                        rng.chance(50)
                    };
                    if keep {
                        let value = if rng.chance(15) {
                            Value::Null
                        } else {
                            sample(root, property, rng, depth + 1)
                        };
                        object.insert(name.clone(), value);
                    }
                }
            }
            if rng.chance(8) {
                object.insert("extra".to_owned(), json!("x"));
            }
            Value::Object(object)
        }
        "array" => {
            let items = map.get("items").cloned().unwrap_or(json!({}));
            let len = rng.below(4);
            Value::Array((0..len).map(|_| sample(root, &items, rng, depth + 1)).collect())
        }
        "string" => {
            let strings = [
                "",
                "a",
                "abc",
                "123",
                "2026-12-07",
                "ada@example.com",
                "abcdefghij",
            ];
            json!(strings[rng.below(strings.len())])
        }
        "integer" => json!(rng.below(13) as i64 - 6),
        "number" => json!([0.5, -3.25, 4.0, 9.75, -0.5][rng.below(5)]),
        "boolean" => json!(rng.chance(50)),
        _ => Value::Null,
    }
}

/// The caller's schema with every accounted clause taken out: what the provider is asked to enforce, widened by
/// what fitting listed. Every `oneOf` is read as `anyOf` (fitting sends each as `anyOf`, and taking a clause out of
/// one branch of a `oneOf`, directly or through a `$ref`, can make it stricter rather than wider); whether a `oneOf`
/// fitting calls exact has disjoint branches is tested case by case (`fit::disjoint`, the corpus), not here.
fn without_accounted(schema: &Value, fitted: &Fitted) -> Value {
    let mut out = schema.clone();
    for clause in fitted.account() {
        if let Some(Value::Object(map)) = out.pointer_mut(clause.pointer.as_str())
            && clause.keyword != "oneOf"
        {
            map.remove(&clause.keyword);
            if clause.keyword == "prefixItems" {
                map.remove("items");
            }
        }
    }
    fn any_of(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(members) = map.remove("oneOf") {
                    map.insert("anyOf".to_owned(), members);
                }
                map.values_mut().for_each(any_of);
            }
            Value::Array(items) => items.iter_mut().for_each(any_of),
            _ => {}
        }
    }
    any_of(&mut out);
    out
}

fn with_member(value: &Value, at: &Location, member: Option<Value>) -> Value {
    let mut out = value.clone();
    let (Some(parent), Some(name)) = (
        at.parent(),
        at.tokens().next_back().map(|token| token.into_owned()),
    ) else {
        return out;
    };
    if let Some(Value::Object(object)) = out.pointer_mut(parent.as_str()) {
        match member {
            Some(member) => object.insert(name, member),
            None => object.remove(&name),
        };
    }
    out
}

fn check(schema: &Gen, seed: u64) -> Result<(), TestCaseError> {
    let caller = Validator::new(&schema.schema)
        .map_err(|error| TestCaseError::fail(format!("{error}: {}", schema.schema)))?;
    if !caller.is_valid(&schema.witness) {
        // A generated oneOf whose branches overlap can make the witness invalid; nothing to check it against.
        return Ok(());
    }
    for mapping in Mapping::ALL {
        let fitted = match fit(&schema.schema, mapping) {
            Ok(fitted) => fitted,
            Err(FitError::LimitExceeded { .. }) => continue,
            Err(error) => {
                return Err(TestCaseError::fail(format!(
                    "{mapping}: {error} for {}",
                    schema.schema
                )));
            }
        };
        let sent = Validator::new(fitted.schema())
            .map_err(|error| TestCaseError::fail(format!("{mapping}: {error}: {}", fitted.schema())))?;
        let relaxed = Validator::new(&without_accounted(&schema.schema, &fitted)).unwrap();
        let context = || {
            format!(
                "{mapping}\ncaller {}\nsent {}\naccount {:?}",
                schema.schema,
                fitted.schema(),
                fitted.account()
            )
        };

        // Some answer both accept: the witness, spelled for the fitted schema, mapped back.
        let spelled = corpus_support::encode(&schema.witness, &sent).ok_or_else(|| {
            TestCaseError::fail(format!(
                "the witness {} has no spelling in the fitted schema\n{}",
                schema.witness,
                context()
            ))
        })?;
        let mut mapped = spelled.clone();
        fitted.map_back().apply(&mut mapped, &caller);
        prop_assert!(
            caller.is_valid(&mapped),
            "witness {} spelled {spelled} mapped {mapped}\n{}",
            schema.witness,
            context()
        );

        let mut rng = Rng(seed | 1);
        let mut answers: Vec<Value> = (0..24)
            .map(|_| sample(fitted.schema(), fitted.schema(), &mut rng, 0))
            .collect();
        answers.extend((0..12).map(|_| sample(&schema.schema, &schema.schema, &mut rng, 0)));
        let encoded: Vec<Value> = answers
            .iter()
            .filter_map(|answer| corpus_support::encode(answer, &sent))
            .collect();
        answers.extend(encoded);
        for answer in &answers {
            let mut mapped = answer.clone();
            let edits = fitted.map_back().apply(&mut mapped, &caller);
            // An answer the caller's schema accepts is left alone.
            if caller.is_valid(answer) {
                prop_assert!(
                    edits.is_empty() && &mapped == answer,
                    "{answer} changed to {mapped}\n{}",
                    context()
                );
            }
            // Mapping back only removes nulls and restores nulls, at the places it reports.
            let mut undone = mapped.clone();
            for edit in &edits {
                let before = answer.pointer(edit.as_str());
                prop_assert!(
                    before.is_none_or(Value::is_null),
                    "{answer}: {edit} was not null\n{}",
                    context()
                );
                undone = with_member(&undone, edit, before.cloned());
            }
            prop_assert_eq!(
                &undone,
                answer,
                "mapping back changed more than its edits\n{}",
                context()
            );
            // Each change was one the caller's schema needs: undone alone, the caller's schema rejects the answer.
            if caller.is_valid(&mapped) {
                for edit in &edits {
                    let single = with_member(&mapped, edit, answer.pointer(edit.as_str()).cloned());
                    prop_assert!(
                        !caller.is_valid(&single),
                        "{answer}: the edit at {edit} was not needed\n{}",
                        context()
                    );
                }
            }
            // The account is complete.
            if sent.is_valid(answer) {
                prop_assert!(
                    relaxed.is_valid(&mapped),
                    "{answer} (mapped {mapped}) is sent-valid but breaks an unaccounted clause: {:?}\n{}",
                    caller
                        .validate(&mapped)
                        .err()
                        .map(|violations| violations.error_message()),
                    context()
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fitting_and_mapping_back_keep_the_callers_judgement(schema in schema(), seed in any::<u64>()) {
        check(&schema, seed)?;
    }
}

/// The answer speller finds a spelling whose first edit breaks another union branch before its last one satisfies
/// its own (a shrunk case the proptest found: giving `p0` its `null` makes the closed `{k}` branch reject it too; the
/// speller, giving up there, had reported that the witness `{"p0": {}}` has no spelling in the fitted schema). The
/// spelling maps back to the witness.
#[test]
fn the_speller_looks_past_an_edit_that_breaks_another_branch() {
    let string3 = json!({"type": "string", "minLength": 3, "maxLength": 3});
    let schema = json!({"type": "object", "required": ["p0"], "properties": {"p0": {"anyOf": [
        {"type": "object", "required": [], "properties": {"p0": string3, "p1": string3}},
        {"oneOf": [{"enum": [{"k": 1}]}, string3]}
    ]}}});
    let fitted = fit(&schema, Mapping::OpenAi).unwrap();
    let sent = Validator::new(fitted.schema()).unwrap();
    let witness = json!({"p0": {}});
    let spelled = corpus_support::encode(&witness, &sent);
    assert_eq!(spelled, Some(json!({"p0": {"p0": null, "p1": null}})));
    let mut mapped = spelled.unwrap();
    let caller = Validator::new(&schema).unwrap();
    assert_eq!(fitted.map_back().apply(&mut mapped, &caller).len(), 2);
    assert_eq!(mapped, witness);
    // An answer no `null` edit can make acceptable still has none.
    assert_eq!(corpus_support::encode(&json!({"p0": {"z": 1}}), &sent), None);
}
