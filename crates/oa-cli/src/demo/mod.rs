//! `oa demo`: the main job on the embedded default, with no API key and no network.
//!
//! Today it shows the validation half of a structured-output call: an embedded schema, a first model answer that
//! breaks it in several places, the every-violation report a reask would carry, and a corrected answer that passes.
//! The provider round trip (mock server, reask, events, spans, diagnostics) joins it with the enforcement issue.

use crate::exit::Exit;
use oa_schema::Validator;
use serde_json::Value;

const SCHEMA: &str = include_str!("schema.json");
const FIRST_ANSWER: &str = include_str!("first_answer.json");
const SECOND_ANSWER: &str = include_str!("second_answer.json");

/// Runs the demo and prints it for a newcomer.
pub(crate) fn run() -> Exit {
    match demo() {
        Ok(()) => Exit::Ok,
        Err(message) => {
            eprintln!("oa demo: {message}");
            Exit::Usage
        }
    }
}

fn demo() -> Result<(), String> {
    let schema: Value = serde_json::from_str(SCHEMA).map_err(|e| format!("embedded schema: {e}"))?;
    let validator = Validator::options()
        .format_assertion(true)
        .build(&schema)
        .map_err(|e| format!("embedded schema: {e}"))?;

    println!("oa demo: structured output you can trust (embedded example, no key, no network)\n");
    println!("The schema asks for an event: title, starts_at (date-time), site {{name, lat, lon}},");
    println!("at most 3 attendees each with a \"first name\" and a role, and a status.\n");

    println!("1. The model's first answer:\n{}", indent(FIRST_ANSWER));
    let first = oa_schema::parse_json(FIRST_ANSWER).map_err(|e| format!("embedded answer: {e}"))?;
    match validator.validate(&first) {
        Ok(()) => return Err("the embedded first answer was expected to fail validation".to_owned()),
        Err(violations) => {
            println!(
                "   -> rejected with {} violations, every one at its JSON Pointer:",
                violations.len()
            );
            println!("{}", indent(&violations.error_message()));
            println!("   One reask carrying all of these lets the model fix them in a single round trip.\n");
        }
    }

    println!(
        "2. The model's answer after the reask:\n{}",
        indent(SECOND_ANSWER)
    );
    let second = oa_schema::parse_json(SECOND_ANSWER).map_err(|e| format!("embedded answer: {e}"))?;
    if !validator.is_valid(&second) {
        return Err("the embedded second answer was expected to pass validation".to_owned());
    }
    println!("   -> valid: the caller gets this value, validated against the schema.");
    Ok(())
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|line| format!("   {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
