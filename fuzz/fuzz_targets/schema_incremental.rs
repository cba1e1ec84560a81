//! Fuzz target: the incremental validator (`Validator::incremental`) against the whole-text route on the same
//! bytes, under random chunking. The first byte picks the schema, the second the cut points (`oa_fuzz::wire::cut`);
//! the rest is the instance's text. Keeping the value and without it (`without_value`), the outcome is the whole
//! route's: the same value, the same `MalformedJson` as `parse_json_with` with repeated names refused (a
//! nesting-limit refusal where it says too deep), the same report, violation by violation; and every violation
//! reported as certain before the end is in that report (none on a valid document). The whole-slice entry point
//! `validate_bytes` (the typed route's one-pass report, or its fallbacks) answers the same on the whole text. A run
//! that stops at its first certain violation (`first_violation_only`) gives `is_valid`'s verdict and one violation
//! of that report.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_schema::{
    Incremental, IncrementalError, MalformedKind, ParseOptions, Validator, Violation, Violations,
};
use serde_json::Value;
use std::sync::OnceLock;

/// Schemas of the shapes the early checks and the bounded route treat apart: closed objects with enums and bounded
/// strings, arrays of references with counts, tuples with `items: false`, unions, `allOf` with pattern properties,
/// `unevaluated*`, `uniqueItems` and `contains`, a recursive tree, draft-07 `dependencies`, and `$dynamicRef`.
const SCHEMAS: &[&str] = &[
    r##"{"type": "object", "properties": {"severity": {"enum": ["low", "high"]}, "title": {"type": "string", "maxLength": 8},
        "count": {"type": "integer", "minimum": 0, "maximum": 10}, "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}},
        "required": ["severity", "title"], "additionalProperties": false}"##,
    r##"{"$defs": {"row": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string", "minLength": 1}},
        "required": ["id"], "maxProperties": 3}}, "type": "array", "items": {"$ref": "#/$defs/row"}, "maxItems": 5}"##,
    r##"{"type": "array", "prefixItems": [{"type": "integer"}, {"const": "x"}], "items": false, "minItems": 1}"##,
    r##"{"anyOf": [{"type": "string", "maxLength": 3}, {"type": "object", "required": ["a"]}], "oneOf": [{"type": "object"}, {"minLength": 2}]}"##,
    r##"{"allOf": [{"properties": {"a": {"type": "number"}}}, {"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "boolean"}}],
        "propertyNames": {"maxLength": 4}, "dependentRequired": {"a": ["b"]}}"##,
    r##"{"properties": {"a": {"type": "object", "properties": {"b": true}, "unevaluatedProperties": false}}, "unevaluatedProperties": {"type": "integer"}}"##,
    r##"{"type": "array", "uniqueItems": true, "contains": {"type": "integer", "minimum": 3}, "maxContains": 2, "items": {"not": {"type": "null"}}}"##,
    r##"{"$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["value"], "additionalProperties": false}}, "$ref": "#/$defs/node"}"##,
    r##"{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"type": "string"}}, "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
        "items": [{"type": "integer"}], "additionalItems": false, "if": {"required": ["z"]}, "then": {"maxProperties": 2}}"##,
    r##"{"$id": "https://example.com/tree", "$dynamicAnchor": "node", "type": "object",
        "properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}, "required": ["data"]}"##,
];

fn validators() -> &'static [Validator] {
    static VALIDATORS: OnceLock<Vec<Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        SCHEMAS
            .iter()
            .map(|text| {
                let schema = oa_schema::parse_json(text).unwrap_or_else(|e| panic!("{text}: {e}"));
                Validator::new(&schema).unwrap_or_else(|e| panic!("{text} does not compile: {e}"))
            })
            .collect()
    })
}

/// `run` fed `pieces`, stopping at the first error; the certain violations known at the end, and the outcome.
fn feed(mut run: Incremental, pieces: &[&[u8]]) -> (Vec<Violation>, Result<Value, IncrementalError>) {
    for piece in pieces {
        if let Err(error) = run.feed(piece) {
            return (run.violations().to_vec(), Err(error));
        }
    }
    let early = run.violations().to_vec();
    (early, run.finish_value())
}

/// The same report: every violation, in order, and the same text.
fn same_report(expected: &Violations, got: &Violations) -> bool {
    expected.iter().eq(got.iter()) && expected.error_message() == got.error_message()
}

fuzz_target!(|data: &[u8]| {
    let [selector, cuts, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let validators = validators();
    let validator = &validators[usize::from(*selector) % validators.len()];
    let whole = oa_schema::parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true))
        .map_err(IncrementalError::Malformed)
        .and_then(|value| {
            validator
                .validate(&value)
                .map(|()| value)
                .map_err(IncrementalError::Invalid)
        });
    let pieces = oa_fuzz::wire::cut(rest, *cuts);
    for keep in [true, false] {
        let run = if keep {
            validator.incremental()
        } else {
            validator.incremental().without_value()
        };
        let (early, got) = feed(run, &pieces);
        match (&whole, &got) {
            (Ok(expected), Ok(got)) => {
                assert_eq!(expected, got, "{text:?}: another value");
                assert!(early.is_empty(), "{text:?}: certain violations on a valid document: {early:?}");
            }
            (Ok(_), Err(IncrementalError::NoValue)) if !keep => {
                assert!(early.is_empty(), "{text:?}: certain violations on a valid document: {early:?}");
            }
            (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::Malformed(got))) => {
                assert_eq!(expected, got, "{text:?}: another error");
            }
            (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::TooDeep { .. })) => {
                assert_eq!(expected.kind(), MalformedKind::TooDeep, "{text:?}: too deep, whole {expected}");
            }
            (Err(IncrementalError::Invalid(expected)), Err(IncrementalError::Invalid(got))) => {
                assert!(same_report(expected, got), "{text:?} (keep {keep}): whole {expected:?}, incremental {got:?}");
                for violation in &early {
                    assert!(
                        expected.iter().any(|kept| kept.instance_location() == violation.instance_location()
                            && kept.kind() == violation.kind()
                            && kept.schema_location().absolute() == violation.schema_location().absolute()
                            && kept.message() == violation.message()),
                        "{text:?}: certain {violation:?} not in the report {expected:?}"
                    );
                }
            }
            (expected, got) => panic!("{text:?} (keep {keep}): whole {expected:?}, incremental {got:?}"),
        }
    }
    // Stopped at the first certain violation: `is_valid`'s verdict, one violation of the report; a malformed text's
    // error, unless the run stopped at a violation before it (what follows is not read).
    let mut run = validator.incremental().first_violation_only();
    let fed = pieces.iter().try_for_each(|piece| run.feed(piece));
    let stopped = fed.is_ok() && !run.violations().is_empty();
    assert!(run.violations().len() <= 1, "{text:?}: first violation only kept {:?}", run.violations());
    let first = fed.and_then(|()| run.finish());
    match (&whole, &first) {
        (Ok(value), Ok(())) => assert!(validator.is_valid(value), "{text:?}: first violation only said valid"),
        (Err(IncrementalError::Invalid(expected)), Err(IncrementalError::Invalid(got))) => {
            assert_eq!(got.len(), 1, "{text:?}: first violation only {got:?}");
            assert!(
                got.iter().all(|violation| expected.iter().any(|kept| kept.instance_location()
                    == violation.instance_location()
                    && kept.kind() == violation.kind()
                    && kept.schema_location().absolute() == violation.schema_location().absolute()
                    && kept.message() == violation.message())),
                "{text:?}: first violation only {got:?} not in the report {expected:?}"
            );
        }
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::Malformed(got))) if !stopped => {
            assert_eq!(expected, got, "{text:?}: another error (first violation only)");
        }
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::TooDeep { .. })) if !stopped => {
            assert_eq!(expected.kind(), MalformedKind::TooDeep, "{text:?}: too deep, whole {expected}");
        }
        (Err(IncrementalError::Malformed(_)), Err(IncrementalError::Invalid(_))) if stopped => {}
        (Err(IncrementalError::Malformed(_)), Err(IncrementalError::Malformed(got)))
            if stopped && got.kind() == MalformedKind::DuplicateKey => {}
        (expected, got) => panic!("{text:?}: whole {expected:?}, first violation only {got:?}"),
    }
    match (&whole, validator.validate_bytes(rest)) {
        (Ok(_), Ok(())) => {}
        (Err(IncrementalError::Invalid(expected)), Err(IncrementalError::Invalid(got))) => {
            assert!(same_report(expected, &got), "{text:?}: whole {expected:?}, validate_bytes {got:?}");
        }
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::Malformed(got))) => {
            assert_eq!(expected, &got, "{text:?}: another error from validate_bytes");
        }
        (Err(IncrementalError::Malformed(expected)), Err(IncrementalError::TooDeep { .. })) => {
            assert_eq!(expected.kind(), MalformedKind::TooDeep, "{text:?}: too deep, whole {expected}");
        }
        (expected, got) => panic!("{text:?}: whole {expected:?}, validate_bytes {got:?}"),
    }
});
