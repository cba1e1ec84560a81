//! Canonical JSON bytes: object keys sorted recursively, no whitespace, array order kept (§8 wire-byte
//! stability).
//!
//! Written out here rather than relying on `serde_json::Map` being a `BTreeMap`: another crate in the build may
//! turn on serde_json's `preserve_order`, which would make map order follow insertion.

use serde_json::Value;

/// The canonical serialization of `value`.
pub(crate) fn to_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write(value, &mut out);
    out
}

/// The canonical serialization of `value`, as text (JSON is UTF-8).
pub fn to_string(value: &Value) -> String {
    // serde_json writes UTF-8, so the lossy branch never runs; taking the bytes saves a copy of the whole text.
    String::from_utf8(to_vec(value))
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|left, right| left.0.cmp(right.0));
            out.push(b'{');
            for (entry_idx, (key, member)) in entries.into_iter().enumerate() {
                if entry_idx > 0 {
                    out.push(b',');
                }
                write_key(key, out);
                out.push(b':');
                write(member, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (item_idx, item) in items.iter().enumerate() {
                if item_idx > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn write_key(key: &str, out: &mut Vec<u8>) {
    // A `&str` serializes as a JSON string, escaped exactly as a `Value::String` is, without cloning the key.
    if serde_json::to_writer(&mut *out, key).is_err() {
        out.extend_from_slice(b"\"\"");
    }
}

fn write_scalar(value: &Value, out: &mut Vec<u8>) {
    // Serializing a scalar `Value` into a Vec cannot fail (no I/O, no non-string keys); the fallback keeps
    // library code free of unwrap.
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

/// Decoded-value deep equality (§6 *Managed-field collision*): objects member-wise, arrays in order, numbers
/// numerically (`1` equals `1.0`).
pub fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => {
            if let (Some(left), Some(right)) = (left.as_i64(), right.as_i64()) {
                left == right
            } else if let (Some(left), Some(right)) = (left.as_u64(), right.as_u64()) {
                left == right
            } else {
                match (left.as_f64(), right.as_f64()) {
                    (Some(left), Some(right)) => left == right,
                    _ => left.to_string() == right.to_string(),
                }
            }
        }
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .zip(right)
                    .all(|(left, right)| json_equal(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(key, value)| right.get(key).is_some_and(|other| json_equal(value, other)))
        }
        _ => left == right,
    }
}
