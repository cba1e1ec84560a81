//! JSON Schema equality (`const`, `enum`, `uniqueItems`): numbers by value, objects regardless of key order.
//!
//! [`json_hash`] agrees with [`json_equal`] (equal values hash equal), so `uniqueItems` can bucket items by hash and
//! compare only within a bucket. Numbers hash their exact canonical decimal, objects hash an order-free sum of their
//! entries, so `{"a":1,"b":2.0}` and `{"b":2,"a":1}` collide on purpose and `1` never collides with `"1"` or `true`.
//!
//! Both recurse once per nesting level of the values; callers hand in parsed JSON, whose depth serde_json already
//! bounds (128 levels by default).

use serde_json::Value;
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;

/// Whether two instances are equal under JSON Schema's rules.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => crate::number::numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        (Value::String(x), Value::String(y)) => crate::text::same_name(x, y),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// Feeds a hash of `value` consistent with [`json_equal`] into `hasher`.
pub(crate) fn json_hash<H: Hasher>(value: &Value, hasher: &mut H) {
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(flag) => {
            hasher.write_u8(1);
            hasher.write_u8(u8::from(*flag));
        }
        Value::Number(number) => {
            hasher.write_u8(2);
            crate::number::hash_number(number, hasher);
        }
        Value::String(string) => {
            hasher.write_u8(3);
            hasher.write(string.as_bytes());
            // A terminator keeps ["ab", "c"] apart from ["a", "bc"].
            hasher.write_u8(0xff);
        }
        Value::Array(items) => {
            hasher.write_u8(4);
            hasher.write_usize(items.len());
            for item in items {
                json_hash(item, hasher);
            }
        }
        Value::Object(entries) => {
            hasher.write_u8(5);
            hasher.write_usize(entries.len());
            // Key order must not matter: hash each entry on its own (a fixed-key SipHash, deterministic) and add
            // the results, which is commutative.
            let mut sum: u64 = 0;
            for (key, member) in entries {
                let mut entry_hasher = DefaultHasher::new();
                entry_hasher.write(key.as_bytes());
                entry_hasher.write_u8(0xff);
                json_hash(member, &mut entry_hasher);
                sum = sum.wrapping_add(entry_hasher.finish());
            }
            hasher.write_u64(sum);
        }
    }
}

#[cfg(test)]
#[path = "equal/tests.rs"]
mod tests;
