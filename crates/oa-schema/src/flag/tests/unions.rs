//! Unions laid out by kind against the collecting evaluator and against the same union that is not laid out
//! (each member wrapped in an `allOf`, so that none has a `type` of its own).
use crate::validator::Validator;
use proptest::prelude::*;
use serde_json::{Value, json};

fn any_instance() -> impl Strategy<Value = Value> {
    super::instances("[a-c]{0,3}", "[a-b]", 2, 12, 3)
}

/// The yes/no verdict on `schema` is the collecting evaluator's and the oracle's (the same union in a form
/// nothing lays out or skips); returns the verdict.
fn agrees(schema: &Value, oracle: &Validator, instance: &Value) -> Result<bool, TestCaseError> {
    let flag = super::flag_agrees(schema, instance)?;
    prop_assert_eq!(flag, oracle.is_valid(instance), "{} {}", schema, instance);
    Ok(flag)
}

fn any_member() -> impl Strategy<Value = Value> {
    let types = prop_oneof![
        prop::sample::select(vec![
            "null", "boolean", "integer", "number", "string", "array", "object"
        ])
        .prop_map(|name| json!(name)),
        prop::sample::subsequence(vec!["null", "integer", "number", "string", "array"], 1..3)
            .prop_map(|names| json!(names)),
    ];
    let extra = prop_oneof![
        Just(json!({})),
        Just(json!({ "minimum": 0 })),
        Just(json!({ "maxLength": 1 })),
        Just(json!({ "items": { "type": "integer" } })),
        Just(json!({ "required": ["a"] })),
        Just(json!({ "not": { "const": 1 } })),
    ];
    prop_oneof![
        4 => (prop::option::of(types), extra).prop_map(|(types, mut member)| {
            if let Some(types) = types {
                member["type"] = types;
            }
            member
        }),
        1 => Just(json!({ "$ref": "#/$defs/d" })),
        1 => any::<bool>().prop_map(Value::Bool),
    ]
}

#[test]
fn unions_by_kind_agree_with_the_collecting_evaluator() {
    let schemas = (prop::collection::vec(any_member(), 1..5), any::<bool>()).prop_map(|(members, one)| {
        let keyword = if one { "oneOf" } else { "anyOf" };
        let hidden: Vec<Value> = members
            .iter()
            .map(|member| json!({ "allOf": [member] }))
            .collect();
        let defs = json!({ "d": { "type": ["integer", "string"], "minimum": 1 } });
        (
            json!({ "$defs": defs, keyword: members }),
            json!({ "$defs": defs, keyword: hidden }),
        )
    });
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2048));
    runner
        .run(&(schemas, any_instance()), |((schema, hidden), instance)| {
            let oracle = Validator::new(&hidden).unwrap();
            prop_assert!(!by_kind(oracle.compiled()), "{}", hidden);
            agrees(&schema, &oracle, &instance)?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_union_of_typed_forms_is_laid_out_by_kind() {
    let schema = json!({ "oneOf": [{ "type": "string" }, { "type": "array" }, { "type": "null" }] });
    let validator = Validator::new(&schema).unwrap();
    assert!(by_kind(validator.compiled()));
    for (instance, valid) in [
        (json!("x"), true),
        (json!([]), true),
        (json!(null), true),
        (json!(1), false),
    ] {
        assert_eq!(validator.is_valid(&instance), valid, "{instance}");
    }
    // Without any member's own `type`, the walk stays.
    let untyped = json!({ "anyOf": [{ "minimum": 1 }, { "maxLength": 2 }] });
    assert!(!by_kind(Validator::new(&untyped).unwrap().compiled()));
}

/// Unions whose members all pin one property to the same values (which tells none apart) and another to
/// their own: members are skipped by the second, and verdicts must not change. The oracle wraps every pin in an
/// `anyOf`, which no discriminator looks into.
#[test]
fn unions_skipped_by_the_telling_pin_agree_with_the_collecting_evaluator() {
    let pin = prop_oneof![
        prop::sample::subsequence(vec!["a", "b", "c"], 1..3).prop_map(|values| json!({ "enum": values })),
        prop::sample::select(vec!["a", "b", "c"]).prop_map(|value| json!({ "const": value })),
    ];
    let member = (
        pin,
        prop::option::of(prop::sample::select(vec!["integer", "string"])),
    )
        .prop_map(|(pin, other)| {
            let mut member = json!({
                "properties": { "platform": { "enum": ["x", "y"] }, "tag": pin },
                "required": ["tag"]
            });
            if let Some(other) = other {
                member["properties"]["n"] = json!({ "type": other });
            }
            member
        });
    let schemas = (prop::collection::vec(member, 2..5), any::<bool>())
        .prop_map(|(members, one)| super::union_and_oracle(members, one, &["platform", "tag"]));
    let value = prop_oneof![
        prop::sample::select(vec!["a", "b", "c", "d", "x", "y"]).prop_map(|tag| json!(tag)),
        Just(json!(1)),
    ];
    let instance = (
        prop::option::of(value.clone()),
        prop::option::of(value),
        prop::option::of(any_instance()),
    )
        .prop_map(|(tag, platform, n)| {
            let mut object = serde_json::Map::new();
            for (name, value) in [("tag", tag), ("platform", platform), ("n", n)] {
                if let Some(value) = value {
                    object.insert(name.to_owned(), value);
                }
            }
            Value::Object(object)
        });
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2048));
    runner
        .run(&(schemas, instance), |((schema, hidden), instance)| {
            let oracle = Validator::new(&hidden).unwrap();
            agrees(&schema, &oracle, &instance)?;
            let validator = Validator::new(&schema).unwrap();
            // Reports too: the oracle's violations at the same places with the same messages (its keyword
            // paths differ by the wrappers).
            let report = |validator: &Validator| {
                validator.validate(&instance).err().map(|violations| {
                    let mut found: Vec<(String, String)> = violations
                        .iter()
                        .map(|violation| {
                            (
                                violation.instance_location().to_string(),
                                violation.message().to_owned(),
                            )
                        })
                        .collect();
                    found.sort();
                    found
                })
            };
            prop_assert_eq!(report(&validator), report(&oracle), "{} {}", schema, instance);
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_telling_pin_is_the_one_skipped_by() {
    let member = |rule: &str| {
        json!({ "properties": { "platform": { "enum": ["darwin", "linux"] }, "rule": { "enum": [rule] } },
                "required": ["rule"] })
    };
    let schema = json!({ "oneOf": [member("cli"), member("dir"), member("env")] });
    let validator = Validator::new(&schema).unwrap();
    let discriminator = validator
        .compiled()
        .nodes
        .iter()
        .find_map(|node| match &node.body {
            crate::node::Body::Keywords(keywords) => keywords.iter().find_map(|keyword| match keyword {
                crate::keywords::Keyword::OneOf(_, Some(discriminator)) => Some(discriminator),
                _ => None,
            }),
            crate::node::Body::Bool(_) => None,
        })
        .unwrap();
    // The report view keeps the property it had (the first that most members pin).
    assert_eq!(&*discriminator.property, "platform");
    for (instance, valid) in [
        (json!({ "rule": "dir", "platform": "linux" }), true),
        (json!({ "rule": "dir", "platform": "win32" }), false),
        (json!({ "rule": "cfg" }), false),
        (json!({ "platform": "linux" }), false),
    ] {
        assert_eq!(validator.is_valid(&instance), valid, "{instance}");
        assert_eq!(validator.validate(&instance).is_ok(), valid, "{instance}");
    }
}

/// Whether some plan runs a union laid out by kind.
fn by_kind(compiled: &crate::node::CompiledSchema) -> bool {
    compiled.plans.iter().any(|plan| {
        (0..6).any(|kind| {
            plan.checks_for(kind)
                .iter()
                .any(|check| matches!(check, crate::flag::plan::Check::UnionByKind(_)))
        })
    })
}
