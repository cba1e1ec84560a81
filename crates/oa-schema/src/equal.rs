//! JSON Schema equality (`const`, `enum`, `uniqueItems`): numbers by value, objects regardless of key order.
//!
//! INTERFACE STUB — owned by the numbers/formats/regex work, which keeps these signatures and makes `json_hash`
//! agree with `json_equal` for every pair (equal values hash equal), so `uniqueItems` can run in n log n.

use serde_json::Value;
use std::hash::Hasher;

/// Whether two instances are equal under JSON Schema's rules.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => crate::number::numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Feeds a hash of `value` consistent with [`json_equal`] into `hasher`.
pub(crate) fn json_hash<H: Hasher>(value: &Value, hasher: &mut H) {
    // Stub: hashes only the type, which is consistent with json_equal but gives no spread.
    hasher.write_u8(match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    });
}
