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
    into_text(to_vec(value))
}

/// Canonical text already made for a value that stands at `at` (a path of object keys) in a larger value: the
/// writer puts `text` there in place of whatever the larger value holds at that path, so a large member that never
/// changes (a compiled response schema) is serialized once, not on every request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Splice<'a> {
    pub(crate) at: &'a [&'a str],
    /// The member's canonical text, as [`to_string`] writes it.
    pub(crate) text: &'a str,
}

/// The canonical serialization of `value` with `splice`'s text at its path. Equal to [`to_string`] of `value`
/// holding, at that path, the value `splice.text` was written from.
pub(crate) fn to_string_spliced(value: &Value, splice: Option<Splice<'_>>) -> String {
    let mut out = Vec::with_capacity(256 + splice.map_or(0, |splice| splice.text.len()));
    write_spliced(value, &mut out, splice);
    into_text(out)
}

/// Canonical bytes as text (JSON is UTF-8).
pub(crate) fn into_text(bytes: Vec<u8>) -> String {
    // serde_json writes UTF-8, so the lossy branch never runs; taking the bytes saves a copy of the whole text.
    String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Appends the canonical serialization of `value` to `out` (a body written member by member).
pub(crate) fn write(value: &Value, out: &mut Vec<u8>) {
    write_spliced(value, out, None);
}

/// Writes `value`; `splice`, while its path still runs through `value`, replaces the member at its end.
fn write_spliced(value: &Value, out: &mut Vec<u8>, splice: Option<Splice<'_>>) {
    match value {
        Value::Object(map) => {
            out.push(b'{');
            // A `BTreeMap` (serde_json's default) iterates in order already: no sorted copy of the entries then.
            if map.keys().is_sorted() {
                write_members(map.iter(), out, splice);
            } else {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|left, right| left.0.cmp(right.0));
                write_members(entries.into_iter(), out, splice);
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

/// Writes an object's members, in the order given (sorted by key), `splice` applied below them.
fn write_members<'v>(
    members: impl Iterator<Item = (&'v String, &'v Value)>,
    out: &mut Vec<u8>,
    splice: Option<Splice<'_>>,
) {
    for (entry_idx, (key, member)) in members.enumerate() {
        if entry_idx > 0 {
            out.push(b',');
        }
        write_str(key, out);
        out.push(b':');
        match splice.and_then(|splice| splice.below(key)) {
            Some(Below::Here(text)) => out.extend_from_slice(text.as_bytes()),
            Some(Below::Deeper(rest)) => write_spliced(member, out, Some(rest)),
            None => write(member, out),
        }
    }
}

/// Where a splice goes below an object member.
enum Below<'a> {
    /// The member is the spliced one: its text.
    Here(&'a str),
    /// The splice lies further down the member.
    Deeper(Splice<'a>),
}

impl<'a> Splice<'a> {
    fn below(self, key: &str) -> Option<Below<'a>> {
        let (first, rest) = self.at.split_first()?;
        if first != &key {
            return None;
        }
        Some(if rest.is_empty() {
            Below::Here(self.text)
        } else {
            Below::Deeper(Splice {
                at: rest,
                text: self.text,
            })
        })
    }
}

/// Appends `text` as a JSON string, escaped exactly as a `Value::String` holding it is, without copying it into
/// one.
pub(crate) fn write_str(text: &str, out: &mut Vec<u8>) {
    if serde_json::to_writer(&mut *out, text).is_err() {
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
