//! How a structured result was produced (`schema_mode`) and which schema produced it (`schema_version`), stamped
//! on every structured [`Response`](crate::Response) so a dashboard can group by them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::canonical;
use crate::response::StructuredOutputPath;

/// How the schema constrained a structured result: the path it was sent on, and whether a reask was needed.
///
/// `enforced` means the request asked for grammar enforcement (`strict: true`), not that the endpoint honoured
/// it; whether it does is what the canary probe and the capability registry establish. The set is closed: three
/// paths, each with or without a repair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaMode {
    /// Sent natively with `strict: true` (the `native` path); the first answer validated.
    Enforced,
    /// The `native` path, valid only after one or more reasks.
    EnforcedRepaired,
    /// Sent natively with `strict: false` (the `native_unenforced` path); the first answer validated.
    Unenforced,
    /// The `native_unenforced` path, valid only after a reask.
    UnenforcedRepaired,
    /// The schema went into the prompt as text (`prompt_augmentation`); the first answer validated.
    Prompted,
    /// The prompt path, valid only after a reask.
    PromptedRepaired,
}

impl SchemaMode {
    /// The mode of a result produced on `path`, `repaired` when an earlier attempt of the call failed validation
    /// and was reasked.
    pub fn of(path: StructuredOutputPath, repaired: bool) -> Self {
        match (path, repaired) {
            (StructuredOutputPath::Native, false) => Self::Enforced,
            (StructuredOutputPath::Native, true) => Self::EnforcedRepaired,
            (StructuredOutputPath::NativeUnenforced, false) => Self::Unenforced,
            (StructuredOutputPath::NativeUnenforced, true) => Self::UnenforcedRepaired,
            (StructuredOutputPath::PromptAugmentation, false) => Self::Prompted,
            (StructuredOutputPath::PromptAugmentation, true) => Self::PromptedRepaired,
        }
    }

    /// The marker string, e.g. `"prompted_repaired"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enforced => "enforced",
            Self::EnforcedRepaired => "enforced_repaired",
            Self::Unenforced => "unenforced",
            Self::UnenforcedRepaired => "unenforced_repaired",
            Self::Prompted => "prompted",
            Self::PromptedRepaired => "prompted_repaired",
        }
    }

    /// Whether the result needed a reask.
    pub fn is_repaired(self) -> bool {
        matches!(
            self,
            Self::EnforcedRepaired | Self::UnenforcedRepaired | Self::PromptedRepaired
        )
    }
}

/// The `schema_version` of `schema`: the lowercase hex SHA-256 of its canonical JSON (object keys sorted
/// recursively, no insignificant whitespace, array order kept), so key order and formatting never change it
/// and any change of content does.
pub fn schema_version(schema: &Value) -> String {
    let digest = Sha256::digest(canonical::to_string(schema).as_bytes());
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_mode_has_its_marker_string() {
        let cases = [
            (StructuredOutputPath::Native, false, "enforced"),
            (StructuredOutputPath::Native, true, "enforced_repaired"),
            (StructuredOutputPath::NativeUnenforced, false, "unenforced"),
            (
                StructuredOutputPath::NativeUnenforced,
                true,
                "unenforced_repaired",
            ),
            (StructuredOutputPath::PromptAugmentation, false, "prompted"),
            (
                StructuredOutputPath::PromptAugmentation,
                true,
                "prompted_repaired",
            ),
        ];
        for (path, repaired, want) in cases {
            let mode = SchemaMode::of(path, repaired);
            assert_eq!(mode.as_str(), want);
            assert_eq!(mode.is_repaired(), repaired);
            assert_eq!(serde_json::to_value(mode).unwrap(), json!(want));
        }
    }

    #[test]
    fn schema_version_is_sha256_of_canonical_json() {
        // sha256 of the empty object's canonical text "{}".
        assert_eq!(
            schema_version(&json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        let one: Value =
            serde_json::from_str(r#"{"type":"object","properties":{"a":{"type":"string","enum":["x"]}}}"#)
                .unwrap();
        let two: Value = serde_json::from_str(
            "{ \"properties\" : { \"a\" : { \"enum\" : [\"x\"], \"type\" : \"string\" } },\n \"type\" : \"object\" }",
        )
        .unwrap();
        assert_eq!(schema_version(&one), schema_version(&two));
        let changed = json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["y"]}}});
        assert_ne!(schema_version(&one), schema_version(&changed));
        assert_eq!(schema_version(&one).len(), 64);
    }
}
