//! Reading a validated value back as the caller's type ([`Response::parsed_as`](crate::Response::parsed_as)),
//! naming where it failed.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why a validated value could not be read back as the caller's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedAsError {
    /// The response carries no validated value (no schema was asked for, or the model called tools).
    NoValue,
    /// The value passed the schema but does not deserialise into the type: the schema said less than the type.
    Deserialize {
        /// Where in the value, as a JSON Pointer (empty for the root).
        location: String,
        /// serde's message.
        message: String,
    },
}

impl fmt::Display for ParsedAsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoValue => f.write_str("the response carries no validated value"),
            Self::Deserialize { location, message } => {
                write!(
                    f,
                    "the validated value does not fit the type at #{location}: {message}"
                )
            }
        }
    }
}

impl std::error::Error for ParsedAsError {}

/// Deserialises `value` into `T`, naming where it failed.
pub(crate) fn deserialize_as<T: DeserializeOwned>(value: &Value) -> Result<T, ParsedAsError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let location = error
            .path()
            .iter()
            .map(|segment| match segment {
                serde_path_to_error::Segment::Seq { index } => format!("/{index}"),
                serde_path_to_error::Segment::Map { key } => format!("/{}", escape(key)),
                serde_path_to_error::Segment::Enum { variant } => format!("/{}", escape(variant)),
                serde_path_to_error::Segment::Unknown => "/?".to_owned(),
            })
            .collect();
        ParsedAsError::Deserialize {
            location,
            message: error.into_inner().to_string(),
        }
    })
}

/// `token` escaped as a JSON Pointer reference token (RFC 6901).
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
