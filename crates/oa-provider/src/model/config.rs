//! The §6 `RuntimeConfig`: declared sampling fields, an extras bag passed through untouched, and the per-key
//! merge used by §7.1's `per_attempt_override`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ProviderError;

/// Per-call sampling parameters and budget hints (§6).
///
/// A declared field left `None` is not sent (null-skip). `extras` holds undeclared keys, forwarded to the wire
/// under the mapping's placement rule, untranslated; the mapping rejects an extra that conflicts with a field it
/// manages (§6 *Managed-field collision*). A `BTreeMap` keeps extras sorted, so the wire bytes do not depend on
/// insertion order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeConfig {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Maximum completion tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Nucleus sampling probability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Best-effort determinism seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Penalty on token frequency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    /// Penalty on token presence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// Stop sequences, in order (OpenAI's wire name is `stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Undeclared fields, passed through verbatim.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extras: BTreeMap<String, Value>,
}

/// The declared field names, in the spec's order.
pub const DECLARED_FIELDS: [&str; 7] = [
    "temperature",
    "max_tokens",
    "top_p",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "stop_sequences",
];

impl RuntimeConfig {
    /// Reads the JSON form `{temperature?, ..., stop_sequences?, extras?: {...}}`.
    ///
    /// # Errors
    ///
    /// `provider_invalid_request` when a declared field has the wrong type or an unknown top-level key appears
    /// (undeclared keys belong under `extras`).
    pub fn from_json(value: &Value) -> Result<Self, ProviderError> {
        Self::deserialize(value)
            .map_err(|error| ProviderError::invalid_request(format!("malformed config: {error}")))
    }

    /// This config with `override_` shallow-merged on top, per key (§7.1): a field the override sets replaces
    /// ours, a field it leaves `None` keeps ours; extras merge by the same rule (an extra set to `null` in the
    /// override is "unset" and inherits).
    pub fn merged_with(&self, override_: &RuntimeConfig) -> RuntimeConfig {
        let mut merged = self.clone();
        macro_rules! take {
            ($($field:ident),*) => {$(
                if override_.$field.is_some() {
                    merged.$field = override_.$field.clone();
                }
            )*};
        }
        take!(
            temperature,
            max_tokens,
            top_p,
            seed,
            frequency_penalty,
            presence_penalty,
            stop_sequences
        );
        for (key, value) in &override_.extras {
            if !value.is_null() {
                merged.extras.insert(key.clone(), value.clone());
            }
        }
        merged
    }

    /// The declared fields that are set, as `(declared name, value)` pairs in the spec's order.
    pub fn declared_values(&self) -> Vec<(&'static str, Value)> {
        let mut values = Vec::new();
        let mut push = |name: &'static str, value: Option<Value>| {
            if let Some(value) = value {
                values.push((name, value));
            }
        };
        push("temperature", self.temperature.map(Value::from));
        push("max_tokens", self.max_tokens.map(Value::from));
        push("top_p", self.top_p.map(Value::from));
        push("seed", self.seed.map(Value::from));
        push("frequency_penalty", self.frequency_penalty.map(Value::from));
        push("presence_penalty", self.presence_penalty.map(Value::from));
        push("stop_sequences", self.stop_sequences.clone().map(Value::from));
        values
    }
}
