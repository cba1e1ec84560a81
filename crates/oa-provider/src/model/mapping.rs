//! Which §8 wire-format mapping a provider speaks: a typed fact every attempt record carries, so what depends on
//! the mapping (the extras key a stop sequence travels under, the builder a command line picks) reads it instead
//! of guessing from a provider name the caller may have changed.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A wire-format mapping of llm-provider §8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Mapping {
    /// §8.1 OpenAI-compatible Chat Completions.
    #[serde(rename = "openai")]
    OpenAi,
    /// §8.2 Anthropic Messages.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// §8.3 Google Gemini `generateContent`.
    #[serde(rename = "gemini")]
    Gemini,
}

impl Mapping {
    /// Every mapping, in the spec's order.
    pub const ALL: [Mapping; 3] = [Self::OpenAi, Self::Anthropic, Self::Gemini];

    /// The mapping's name (`"openai"`, `"anthropic"`, `"gemini"`), also its providers' default identifier.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// The key under which a stop sequence travels in a request's extras on this mapping's wire (0126 on
    /// observability §5.5.7): `stop` for §8.1, `stop_sequences` for §8.2, `stopSequences` for §8.3.
    ///
    /// ```
    /// use oa_provider::Mapping;
    ///
    /// assert_eq!(Mapping::Gemini.stop_extras_key(), "stopSequences");
    /// ```
    pub fn stop_extras_key(self) -> &'static str {
        match self {
            Self::OpenAi => "stop",
            Self::Anthropic => "stop_sequences",
            Self::Gemini => "stopSequences",
        }
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the mappings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown wire mapping {0:?} (expected openai, anthropic or gemini)")]
pub struct UnknownMapping(pub String);

impl FromStr for Mapping {
    type Err = UnknownMapping;

    /// Reads a mapping's name, as [`Mapping::as_str`] writes it.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|mapping| mapping.as_str() == name)
            .ok_or_else(|| UnknownMapping(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_str_and_serde() {
        for mapping in Mapping::ALL {
            assert_eq!(mapping.as_str().parse::<Mapping>(), Ok(mapping));
            assert_eq!(
                serde_json::to_value(mapping).unwrap(),
                serde_json::Value::from(mapping.as_str())
            );
        }
        assert!("open_ai".parse::<Mapping>().is_err());
    }
}
