//! The §6 managed-field collision rule, shared by every wire format: the fields a mapping sets (structural ones,
//! realizations of declared config, its structured-output constraint), and how an extras key that names one is
//! resolved. A list-shaped field (the stop sequences) merges, declared values first, de-duplicated, a malformed
//! extras value counting as absent; any other managed field takes an equal extras value as a no-op and rejects a
//! conflicting one before sending. Every unmanaged extras key rides untouched.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::canonical::json_equal;
use crate::model::ProviderError;
use crate::model::{Mapping, Tool, ToolChoice};
use crate::structured::ResponseSchema;

/// The fields one request's mapping manages, with what it sends for each.
#[derive(Debug)]
pub(crate) struct Managed<'a> {
    mapping: Mapping,
    /// `(wire key, value, emitted)`; a field managed but not emitted (`stream: false` on a unary call) still
    /// resolves a colliding extras value.
    fields: Vec<(&'static str, Sent<'a>, bool)>,
    /// The field holding the response schema, if any: its value holds `null` where the schema goes (the body
    /// writer puts the schema's canonical text there), so a colliding extras value is compared with the value
    /// as sent, the schema put back in.
    native: Option<Native>,
}

/// What a managed field sends: a value, or something that writes its own canonical text straight into the body
/// (the messages, or a native constraint cached with its schema), so no `Value` tree is built per request.
pub(crate) enum Sent<'a> {
    Value(Value),
    Written(&'a dyn WriteCanonical),
}

/// A managed field's value that writes its own canonical JSON text, exactly as `crate::canonical::to_string`
/// writes the value it stands for.
pub(crate) trait WriteCanonical {
    /// Appends the canonical text.
    fn write_canonical(&self, out: &mut Vec<u8>);

    /// About how many bytes it writes, so the body is allocated once.
    fn len_hint(&self) -> usize;
}

impl Sent<'_> {
    /// The value sent, for comparing with an extras value (rare: only when extras names the field). Written text
    /// is read back: the canonical writer's text reads back to a value equal to the one it was written from.
    fn value(&self) -> Cow<'_, Value> {
        match self {
            Self::Value(value) => Cow::Borrowed(value),
            Self::Written(writer) => {
                let mut text = Vec::new();
                writer.write_canonical(&mut text);
                // Canonical text always parses; were it not to, `null` would make a conflict, never a silent pass.
                Cow::Owned(serde_json::from_slice(&text).unwrap_or(Value::Null))
            }
        }
    }

    fn into_value(self) -> Value {
        match self {
            Self::Value(value) => value,
            Self::Written(_) => self.value().into_owned(),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Self::Value(value) => crate::canonical::write(value, out),
            Self::Written(writer) => writer.write_canonical(out),
        }
    }
}

impl std::fmt::Debug for Sent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Value(value) => f.debug_tuple("Value").field(value).finish(),
            Self::Written(_) => f.write_str("Written(..)"),
        }
    }
}

/// One member of the body object, after the extras are resolved against the managed fields.
enum Member<'e, 'a> {
    /// An unmanaged extras value, riding untouched.
    Extra(&'e Value),
    Managed(Sent<'a>),
}

/// Where the response schema lies inside a managed field.
#[derive(Debug)]
struct Native {
    key: &'static str,
    /// The path of object keys from the field's value to the schema (empty: the value is the schema).
    inner: &'static [&'static str],
    schema: ResponseSchema,
}

/// The list-shaped managed field: the stop sequences under the mapping's wire key.
#[derive(Debug)]
pub(crate) struct StopField {
    /// The wire key (`stop`, `stop_sequences`, `stopSequences`).
    pub(crate) key: &'static str,
    /// The declared `stop_sequences`; while `None` the field is unmanaged and an extras value rides untouched.
    pub(crate) declared: Option<Vec<String>>,
    /// Whether an extras scalar string is read as a one-element list (OpenAI's `stop` accepts one); elsewhere it is
    /// malformed, so absent.
    pub(crate) coerce_scalar: bool,
}

impl<'a> Managed<'a> {
    /// No managed fields yet, for `mapping` (named in collision errors).
    pub(crate) fn new(mapping: Mapping) -> Self {
        Self {
            mapping,
            fields: Vec::new(),
            native: None,
        }
    }

    /// Manages `key` and sends `value` under it, with the response schema at `inner` inside `value` (where
    /// `value` holds `null`); the body writer puts the schema's canonical text there.
    pub(crate) fn emit_native(
        &mut self,
        key: &'static str,
        value: Value,
        inner: &'static [&'static str],
        schema: &ResponseSchema,
    ) {
        self.emit(key, value);
        self.native = Some(Native {
            key,
            inner,
            schema: schema.clone(),
        });
    }

    /// Manages `key` and sends `value` under it.
    pub(crate) fn emit(&mut self, key: &'static str, value: Value) {
        self.fields.push((key, Sent::Value(value), true));
    }

    /// Manages `key` and sends what `writer` writes under it.
    pub(crate) fn emit_written(&mut self, key: &'static str, writer: &'a dyn WriteCanonical) {
        self.fields.push((key, Sent::Written(writer), true));
    }

    /// Manages `key` without sending it: an extras value equal to `value` is a no-op, any other is rejected.
    pub(crate) fn absorb(&mut self, key: &'static str, value: Value) {
        self.fields.push((key, Sent::Value(value), false));
    }

    /// Manages the call's `tools` and `tool_choice`, each only when the call has it, in the mapping's wire form.
    pub(crate) fn emit_tools(
        &mut self,
        tools: &[Tool],
        tool_choice: Option<&ToolChoice>,
        wire_tool: fn(&Tool) -> Value,
        wire_choice: fn(&ToolChoice) -> Value,
    ) {
        if !tools.is_empty() {
            self.emit("tools", Value::Array(tools.iter().map(wire_tool).collect()));
        }
        if let Some(tool_choice) = tool_choice {
            self.emit("tool_choice", wire_choice(tool_choice));
        }
    }

    /// The value managed under `key`, as sent: the response schema put back in its place (an extras value naming
    /// the native constraint is rare, so only then is the schema copied).
    fn get(&self, key: &str) -> Option<Cow<'_, Value>> {
        let value = self
            .fields
            .iter()
            .find(|(name, _, _)| *name == key)
            .map(|(_, sent, _)| sent.value())?;
        match &self.native {
            Some(native) if native.key == key => {
                let mut whole = value.into_owned();
                let slot = native
                    .inner
                    .iter()
                    .try_fold(&mut whole, |slot, step| slot.get_mut(*step));
                if let Some(slot) = slot {
                    *slot = native.schema.schema.clone();
                }
                Some(Cow::Owned(whole))
            }
            _ => Some(value),
        }
    }

    /// The object the managed fields and `extras` make together, with the stop sequences merged.
    ///
    /// # Errors
    ///
    /// `provider_invalid_request` when an extras key conflicts with a value this mapping manages.
    pub(crate) fn place(
        self,
        extras: &BTreeMap<String, Value>,
        stop: StopField,
    ) -> Result<Map<String, Value>, ProviderError> {
        let members = self.resolve(extras, stop)?;
        Ok(members
            .into_iter()
            .map(|(key, member)| {
                let value = match member {
                    Member::Extra(value) => value.clone(),
                    Member::Managed(sent) => sent.into_value(),
                };
                (key.to_owned(), value)
            })
            .collect())
    }

    /// [`place`](Self::place), written straight to the object's canonical text: written fields go in as they
    /// are and extras values are written where they lie, so nothing is copied into a `Value` first.
    ///
    /// # Errors
    ///
    /// As [`place`](Self::place).
    pub(crate) fn write(
        self,
        extras: &BTreeMap<String, Value>,
        stop: StopField,
    ) -> Result<String, ProviderError> {
        let mut members = self.resolve(extras, stop)?;
        // Keys are unique (an extras key naming a managed field is dropped or refused), so the order is total.
        members.sort_unstable_by(|left, right| left.0.cmp(right.0));
        let written: usize = members
            .iter()
            .map(|(_, member)| match member {
                Member::Managed(Sent::Written(writer)) => writer.len_hint(),
                _ => 0,
            })
            .sum();
        let mut out = Vec::with_capacity(256 + written);
        out.push(b'{');
        for (member_idx, (key, member)) in members.iter().enumerate() {
            if member_idx > 0 {
                out.push(b',');
            }
            crate::canonical::write_str(key, &mut out);
            out.push(b':');
            match member {
                Member::Extra(value) => crate::canonical::write(value, &mut out),
                Member::Managed(sent) => sent.write(&mut out),
            }
        }
        out.push(b'}');
        Ok(crate::canonical::into_text(out))
    }

    /// The body's members, unordered: unmanaged extras, the managed fields emitted, and the merged stop
    /// sequences.
    fn resolve<'e>(
        self,
        extras: &'e BTreeMap<String, Value>,
        stop: StopField,
    ) -> Result<Vec<(&'e str, Member<'e, 'a>)>, ProviderError> {
        let mut members = Vec::with_capacity(extras.len() + self.fields.len() + 1);
        let mut merged_stop = stop.declared;
        for (key, value) in extras {
            if key == stop.key
                && let Some(merged) = merged_stop.as_mut()
            {
                // Additive: merged after the declared values, first occurrence wins; malformed means absent.
                for sequence in well_formed_stop(value, stop.coerce_scalar).unwrap_or_default() {
                    if !merged.contains(&sequence) {
                        merged.push(sequence);
                    }
                }
                continue;
            }
            match self.get(key) {
                Some(managed) if json_equal(&managed, value) => {}
                Some(_) => {
                    return Err(ProviderError::invalid_request(format!(
                        "config extras key {key:?} conflicts with the value the {} mapping manages for it",
                        self.mapping
                    )));
                }
                None => members.push((key.as_str(), Member::Extra(value))),
            }
        }
        for (key, sent, emitted) in self.fields {
            if emitted {
                members.push((key, Member::Managed(sent)));
            }
        }
        if let Some(merged) = merged_stop {
            members.push((stop.key, Member::Managed(Sent::Value(Value::from(merged)))));
        }
        Ok(members)
    }
}

/// An extras stop value usable for the merge: a list of strings only (or, where the wire accepts one, a string as a
/// one-element list).
fn well_formed_stop(value: &Value, coerce_scalar: bool) -> Option<Vec<String>> {
    match value {
        Value::String(sequence) if coerce_scalar => Some(vec![sequence.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn extras(value: Value) -> BTreeMap<String, Value> {
        serde_json::from_value(value).unwrap()
    }

    fn stop(declared: Option<&[&str]>, coerce_scalar: bool) -> StopField {
        StopField {
            key: "stop_sequences",
            declared: declared.map(|items| items.iter().map(|item| (*item).to_owned()).collect()),
            coerce_scalar,
        }
    }

    #[test]
    fn equal_extras_are_no_ops_and_conflicts_are_rejected() {
        let mut managed = Managed::new(Mapping::Anthropic);
        managed.emit("max_tokens", json!(64));
        managed.absorb("stream", json!(false));
        let placed = managed
            .place(
                &extras(json!({"max_tokens": 64.0, "stream": false, "top_k": 5})),
                stop(None, false),
            )
            .unwrap();
        assert_eq!(Value::Object(placed), json!({"max_tokens": 64, "top_k": 5}));
        let mut managed = Managed::new(Mapping::Anthropic);
        managed.absorb("stream", json!(false));
        let error = managed
            .place(&extras(json!({"stream": true})), stop(None, false))
            .unwrap_err();
        assert!(error.is_invalid_request());
        assert!(
            error.message().contains("anthropic mapping"),
            "{}",
            error.message()
        );
    }

    #[test]
    fn stop_sequences_merge_only_while_declared_and_malformed_counts_as_absent() {
        let merged = |declared, extra: Value, coerce| {
            Managed::new(Mapping::Anthropic)
                .place(&extras(json!({"stop_sequences": extra})), stop(declared, coerce))
                .map(|placed| placed["stop_sequences"].clone())
                .unwrap()
        };
        assert_eq!(
            merged(Some(&["STOP"]), json!(["END", "STOP"]), false),
            json!(["STOP", "END"])
        );
        assert_eq!(merged(Some(&["STOP"]), json!("END"), false), json!(["STOP"]));
        assert_eq!(
            merged(Some(&["STOP"]), json!("END"), true),
            json!(["STOP", "END"])
        );
        assert_eq!(merged(Some(&["STOP"]), json!(["END", 1]), true), json!(["STOP"]));
        assert_eq!(
            merged(None, json!("raw"), false),
            json!("raw"),
            "unmanaged: untouched"
        );
    }
}
