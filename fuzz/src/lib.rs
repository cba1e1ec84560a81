//! Checks shared by the fuzz targets: the validator's verdicts compared with each other, the instances a compiled
//! schema is tried on, and (in [`wire`]) what the provider's response decoders must satisfy.
//!
//! Every check panics (which libFuzzer reports as a crash, with the input kept under `artifacts/`) when two
//! routes that must agree do not.

use oa_schema::{OutputFormat, ReportOptions, Validator};
use serde_json::{Value, json};

pub mod synth;
pub mod wire;

/// Compares every way the validator can answer whether `instance` is valid:
///
/// - `is_valid` (the yes/no evaluator), the collecting evaluator run on its own (which `validate` only runs after a
///   "no"), `validate`, `validate_with` discriminators on, and the 2020-12 flag and basic outputs;
/// - a "no" has at least one violation and none of them is the internal-error marker that `validate` writes when
///   the two evaluators disagree; a "yes" has none;
/// - every violation's instance location names the instance's value there, or (a missing property, a rejected
///   item) a member of a value that exists.
pub fn check_verdicts(validator: &Validator, instance: &Value) {
    let quick = validator.is_valid(instance);
    let (collected, recorded) = oa_schema::fuzzing::collecting_verdict(validator, instance);
    assert_eq!(
        quick, collected,
        "is_valid and the collecting evaluator disagree on {instance}"
    );
    assert_eq!(
        collected,
        recorded == 0,
        "the collecting evaluator said {collected} with {recorded} violations on {instance}"
    );
    match validator.validate(instance) {
        Ok(()) => assert!(quick, "validate accepted what is_valid rejected: {instance}"),
        Err(violations) => {
            assert!(!quick, "validate rejected what is_valid accepted: {instance}");
            assert!(!violations.is_empty(), "an empty report for {instance}");
            for violation in violations.iter() {
                assert!(
                    !violation.message().contains("internal error"),
                    "the evaluators disagree on {instance}: {violation}"
                );
                let location = violation.instance_location().to_pointer();
                let exists = location.get(instance).is_some()
                    || location
                        .parent()
                        .is_some_and(|parent| parent.get(instance).is_some());
                assert!(exists, "{violation} is located nowhere in {instance}");
            }
        }
    }
    let discriminated = validator.validate_with(instance, &ReportOptions::new().discriminators(true));
    assert_eq!(
        quick,
        discriminated.is_ok(),
        "discriminators changed the verdict on {instance}"
    );
    if let Err(violations) = discriminated {
        assert!(
            !violations.is_empty(),
            "an empty discriminated report for {instance}"
        );
    }
    let capped = validator.validate_with(instance, &ReportOptions::new().max_violations(1));
    assert!(capped.err().is_none_or(|violations| violations.len() == 1));
    assert_eq!(
        validator.output(instance, OutputFormat::Flag),
        json!({ "valid": quick })
    );
    let basic = validator.output(instance, OutputFormat::Basic);
    assert_eq!(
        basic.get("valid"),
        Some(&Value::Bool(quick)),
        "basic output {basic} on {instance}"
    );
}

/// The most instances taken from one schema's own `const`, `enum`, `default` and `examples`.
const MAX_SCHEMA_INSTANCES: usize = 32;

/// Instances to try a compiled schema on: one of each JSON kind in a few shapes, the schema itself, instances built
/// from the schema's shape at the edges of its bounds (see [`synth`]), and the values the schema names (`const`,
/// `enum`, `default`, `examples`): the last two reach the checks deep inside a schema that a fixed list cannot.
pub fn instances_for(schema: &Value) -> Vec<Value> {
    let mut instances = vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-7),
        json!(1.5),
        json!(12_345_678_901_234_567_890_u128),
        json!(""),
        json!("abc"),
        json!("2024-02-29T12:00:00Z"),
        json!([]),
        json!([1, "a", null, [2], { "b": false }]),
        json!([1, 1]),
        json!({}),
        json!({ "a": 1, "b": "x", "c": [true], "d": { "e": null } }),
        json!([[[[[["deep"]]]]]]),
        json!([[1, 2]]),
        json!([["a"], ["b", "c"], []]),
        json!({ "a": { "b": { "c": [1, { "d": "e" }] } } }),
        schema.clone(),
    ];
    for edge in [synth::Edge::Low, synth::Edge::High, synth::Edge::Past] {
        instances.push(synth::instance(schema, schema, edge));
    }
    let limit = instances.len() + MAX_SCHEMA_INSTANCES;
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        if instances.len() >= limit {
            break;
        }
        match value {
            Value::Object(members) => {
                for (keyword, argument) in members {
                    match (keyword.as_str(), argument) {
                        ("const" | "default", named) => instances.push(named.clone()),
                        ("enum" | "examples", Value::Array(named)) => instances.extend(named.iter().cloned()),
                        _ => stack.push(argument),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    instances.truncate(limit);
    instances
}
