//! [`RawJson`]: the provider's response as JSON, kept as the bytes that arrived and parsed into a `Value` the first
//! time something reads it. A call whose mapping read the body through a typed view builds no `Value` tree at all
//! unless the caller looks at `raw` (most never do), which on a large structured answer is most of the decoding.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use bytes::Bytes;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// The provider's response JSON, verbatim: derefs to a [`serde_json::Value`], compares and serialises as one.
///
/// An atomic body read by a typed view is kept as its bytes and parsed on first read (once: later reads share the
/// value); a stream's assembled form, or a body the view could not read, holds its value from the start.
///
/// ```
/// use oa_provider::model::RawJson;
/// use serde_json::json;
///
/// let raw = RawJson::from(json!({"id": "chatcmpl-1", "choices": []}));
/// assert_eq!(raw["id"], "chatcmpl-1");
/// assert_eq!(raw, json!({"id": "chatcmpl-1", "choices": []}));
/// assert_eq!(serde_json::to_string(&raw).unwrap(), r#"{"choices":[],"id":"chatcmpl-1"}"#);
/// ```
#[derive(Clone, Default)]
pub struct RawJson {
    /// The body as received; empty once the value is held from the start.
    bytes: Bytes,
    value: OnceLock<Value>,
}

impl RawJson {
    /// The body's bytes, to be parsed on first read.
    ///
    /// The caller vouches that `bytes` parse as a `Value` (a typed view read them with the strictness of a `Value`
    /// parse); should they not, the value reads as `null` rather than failing later, far from the call.
    pub(crate) fn unparsed(bytes: Bytes) -> Self {
        Self {
            bytes,
            value: OnceLock::new(),
        }
    }

    /// The JSON value (parsed now if it has not been yet).
    pub fn value(&self) -> &Value {
        self.value
            .get_or_init(|| serde_json::from_slice(&self.bytes).unwrap_or(Value::Null))
    }

    /// The JSON value, owned.
    pub fn into_value(mut self) -> Value {
        match self.value.take() {
            Some(value) => value,
            None => serde_json::from_slice(&self.bytes).unwrap_or(Value::Null),
        }
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        Self {
            bytes: Bytes::new(),
            value: OnceLock::from(value),
        }
    }
}

impl From<RawJson> for Value {
    fn from(raw: RawJson) -> Self {
        raw.into_value()
    }
}

impl Deref for RawJson {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl AsRef<Value> for RawJson {
    fn as_ref(&self) -> &Value {
        self.value()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.value(), f)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl PartialEq<Value> for RawJson {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl PartialEq<RawJson> for Value {
    fn eq(&self, other: &RawJson) -> bool {
        self == other.value()
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unparsed_bytes_read_as_their_value_once() {
        let body = br#"{"id":"x","n":[1,2.5,"three"]}"#;
        let raw = RawJson::unparsed(Bytes::from_static(body));
        let expected: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(raw, expected);
        // The second read is the same value, not a second parse.
        assert!(std::ptr::eq(raw.value(), raw.value()));
        assert_eq!(raw.clone().into_value(), expected);
        assert_eq!(Value::from(raw), expected);
    }

    #[test]
    fn a_held_value_is_that_value() {
        let raw = RawJson::from(json!({"a": [true, null]}));
        assert_eq!(raw["a"][0], true);
        assert_eq!(format!("{raw:?}"), format!("{:?}", json!({"a": [true, null]})));
        assert_eq!(json!({"a": [true, null]}), raw);
    }

    #[test]
    fn bytes_that_do_not_parse_read_as_null_not_a_panic() {
        let raw = RawJson::unparsed(Bytes::from_static(b"{not json"));
        assert_eq!(raw, Value::Null);
    }
}
