//! Invariants of §6 managed-field collisions: rejected before sending, or riding the extras bag.

use oa_provider::Mapping;
use serde_json::Value;

use super::*;
use crate::llm::record::{CallRun, CaseRun};
use crate::matcher::short;

pub(super) fn raised_and_unsent(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    ensure(call.result.is_err(), || {
        "the conflict was dropped silently: the call succeeded".to_owned()
    })?;
    ensure(call.requests.is_empty(), || {
        "the conflicting value was sent".to_owned()
    })
}

pub(super) fn bound_model_kept(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let extras_model = &caller_extras(call)["model"];
    for idx in 0..call.requests.len() {
        let wire = wire(call, idx)?;
        ensure(wire["model"] != *extras_model, || {
            format!("request {idx} carries the extras model")
        })?;
    }
    ensure(call.result.is_err(), || "the conflict did not raise".to_owned())
}

pub(super) fn declared_temperature_kept(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let declared = &call.caller_config()["temperature"];
    for idx in 0..call.requests.len() {
        let wire = wire(call, idx)?;
        ensure(crate::llm::json_equal(&wire["temperature"], declared), || {
            format!("request {idx} sends temperature {}", wire["temperature"])
        })?;
    }
    ensure(call.result.is_err(), || "the conflict did not raise".to_owned())
}

pub(super) fn extras_key_on_wire(call: &CallRun, key: &str) -> Result<(), String> {
    response(call)?;
    let wire = wire(call, 0)?;
    let extra = &caller_extras(call)[key];
    ensure(!extra.is_null() && wire[key] == *extra, || {
        format!("wire {key} {} vs extras {}", short(&wire[key]), short(extra))
    })
}

pub(super) fn extras_response_format_on_wire(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    extras_key_on_wire(call, "response_format")
}

pub(super) fn extras_stream_options_on_wire(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    extras_key_on_wire(call, "stream_options")
}

pub(super) fn declared_temperature_on_wire(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let wire = wire(call, 0)?;
    let declared = &call.caller_config()["temperature"];
    ensure(
        !declared.is_null() && crate::llm::json_equal(&wire["temperature"], declared),
        || format!("wire temperature {}", wire["temperature"]),
    )
}

pub(super) fn temperature_once(call: &CallRun, case: &CaseRun) -> Result<(), String> {
    declared_temperature_on_wire(call, case)?;
    let body = String::from_utf8_lossy(&call.requests[0].body).into_owned();
    let n = body.matches("\"temperature\"").count();
    ensure(n == 1, || {
        format!("\"temperature\" appears {n} times in the wire body")
    })
}

/// The extras stop value under the mapping's key.
fn extras_stop_value(call: &CallRun) -> &Value {
    &caller_extras(call)[call.mapping.stop_extras_key()]
}

/// The extras stop value as a list: a list of strings is itself, a string is one element where the mapping
/// coerces one (OpenAI's `stop`), anything else (malformed) is `None`.
pub(super) fn extras_stop(call: &CallRun) -> Option<Vec<Value>> {
    match extras_stop_value(call) {
        scalar @ Value::String(_) if call.mapping == Mapping::OpenAi => Some(vec![scalar.clone()]),
        Value::Array(items) if items.iter().all(Value::is_string) => Some(items.clone()),
        _ => None,
    }
}

pub(super) fn stop_is_merged_union(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let mut want = declared_stop(call);
    for item in extras_stop(call).ok_or("extras stop is malformed")? {
        if !want.contains(&item) {
            want.push(item);
        }
    }
    let got = wire_stop(call)?;
    ensure(got == want, || {
        format!("wire stop {got:?}, merged union {want:?}")
    })
}

/// Anthropic's and Gemini's stop lists are array-only: the wire value is a list (or absent), and an extras scalar
/// string never reaches it.
pub(super) fn no_scalar_stop_coercion(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let wire = wire(call, 0)?;
    let value = wire_stop_value(call, &wire);
    ensure(value.is_null() || value.is_array(), || {
        format!("the wire stop value {} is not a list", short(value))
    })?;
    if let Value::String(scalar) = extras_stop_value(call) {
        ensure(!wire_stop(call)?.contains(&Value::from(scalar.as_str())), || {
            format!("the extras scalar {scalar:?} was coerced onto the wire")
        })?;
    }
    Ok(())
}

/// Gemini's merged stop list sits under `generationConfig`, never at the body's root.
pub(super) fn stop_merged_under_generation_config(call: &CallRun, case: &CaseRun) -> Result<(), String> {
    ensure(call.mapping == Mapping::Gemini, || {
        format!("the case runs under the {} mapping", call.mapping)
    })?;
    stop_is_merged_union(call, case)?;
    let wire = wire(call, 0)?;
    ensure(wire.get("stopSequences").is_none(), || {
        "stopSequences is at the body's root".to_owned()
    })
}

pub(super) fn declared_stop_first(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let declared = declared_stop(call);
    let got = wire_stop(call)?;
    ensure(!declared.is_empty() && got.starts_with(&declared), || {
        format!("wire stop {got:?} does not start with {declared:?}")
    })
}

pub(super) fn stop_collapses(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let got = wire_stop(call)?;
    let mut unique = got.clone();
    unique.dedup();
    ensure(got.len() == 1 && unique == got, || format!("wire stop {got:?}"))
}

pub(super) fn scalar_stop_coerced(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let extra = extras_stop_value(call)
        .as_str()
        .ok_or("extras stop is not a string")?
        .to_owned();
    let wire = wire(call, 0)?;
    let stop = wire_stop_value(call, &wire);
    ensure(
        stop.as_array()
            .is_some_and(|items| items.contains(&Value::from(extra.clone()))),
        || format!("wire stop {} lacks {extra:?} as an element", short(stop)),
    )
}

pub(super) fn call_succeeded(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call).map(|_| ())
}

pub(super) fn call_succeeded_and_sent(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    ensure(call.requests.len() == 1, || {
        format!("{} requests", call.requests.len())
    })
}

pub(super) fn no_stream_key(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let wire = wire(call, 0)?;
    ensure(wire.get("stream").is_none(), || {
        format!("wire carries stream={}", wire["stream"])
    })
}

pub(super) fn stop_is_declared_only(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    response(call)?;
    let got = wire_stop(call)?;
    let declared = declared_stop(call);
    ensure(got == declared, || {
        format!("wire stop {got:?}, declared {declared:?}")
    })
}

pub(super) fn malformed_stop_not_salvaged(call: &CallRun, _: &CaseRun) -> Result<(), String> {
    let declared = declared_stop(call);
    let got = wire_stop(call)?;
    let extras = extras_stop_value(call).as_array().cloned().unwrap_or_default();
    for item in extras.iter().filter(|i| i.is_string() && !declared.contains(i)) {
        ensure(!got.contains(item), || {
            format!("{item} from the malformed extras list reached the wire")
        })?;
    }
    ensure(extras.iter().any(Value::is_string), || {
        "the extras list has no salvageable element to test".to_owned()
    })
}
