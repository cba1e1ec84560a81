//! How a structured result was produced (`schema_mode`), stamped on every structured
//! [`Response`](crate::Response) beside its `schema_version` so a dashboard can group by them.

use serde::{Deserialize, Serialize};

use crate::model::StructuredOutputPath;

/// How the schema constrained a structured result: the path it was sent on, whether the capability registry
/// holds a fresh verdict that the route enforces, and whether a reask was needed. The marker of the enforcement
/// chapter: it travels with every record and is a dimension of every metric.
///
/// `enforced` is earned, never assumed: a native strict request is `enforced` only when, at call time, the
/// registry the provider reads holds a fresh probe verdict that this route enforces; without one it is
/// `unverified` (an unknown or stale route falls to the degraded reading, not the optimistic one). The set is
/// closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaMode {
    /// The `native` path (`strict: true`) on a route the registry verified as enforcing; the first answer
    /// validated.
    Enforced,
    /// `enforced`, valid only after one or more reasks.
    EnforcedRepaired,
    /// The `native` path (`strict: true`) on a route with no fresh enforcing verdict (none, stale, or not
    /// enforcing); the first answer validated.
    Unverified,
    /// `unverified`, valid only after one or more reasks.
    UnverifiedRepaired,
    /// Sent natively with `strict: false` (the `native_unenforced` path); the first answer validated.
    Unenforced,
    /// The `native_unenforced` path, valid only after a reask.
    UnenforcedRepaired,
    /// The schema went as a synthetic tool's input schema (`tool_coercion`, Anthropic's fallback); the first answer
    /// validated. Never `enforced`: the probes test the native path, so no verdict speaks for this one, and the
    /// mapping does not ask for strict tool use.
    Coerced,
    /// The tool-coercion path, valid only after a reask.
    CoercedRepaired,
    /// The schema went into the prompt as text (`prompt_augmentation`); the first answer validated.
    Prompted,
    /// The prompt path, valid only after a reask.
    PromptedRepaired,
}

impl SchemaMode {
    /// Every mode, in declaration order (for pre-registering metric dimensions and documenting the set).
    pub const ALL: [SchemaMode; 10] = [
        Self::Enforced,
        Self::EnforcedRepaired,
        Self::Unverified,
        Self::UnverifiedRepaired,
        Self::Unenforced,
        Self::UnenforcedRepaired,
        Self::Coerced,
        Self::CoercedRepaired,
        Self::Prompted,
        Self::PromptedRepaired,
    ];

    /// The mode of a result produced on `path`; `verified` when the registry held a fresh enforcing verdict for
    /// the route at call time (it matters only on the `native` path), `repaired` when an earlier attempt of the
    /// call failed validation and was reasked.
    pub fn of(path: StructuredOutputPath, verified: bool, repaired: bool) -> Self {
        match (path, verified, repaired) {
            (StructuredOutputPath::Native, true, false) => Self::Enforced,
            (StructuredOutputPath::Native, true, true) => Self::EnforcedRepaired,
            (StructuredOutputPath::Native, false, false) => Self::Unverified,
            (StructuredOutputPath::Native, false, true) => Self::UnverifiedRepaired,
            (StructuredOutputPath::NativeUnenforced, _, false) => Self::Unenforced,
            (StructuredOutputPath::NativeUnenforced, _, true) => Self::UnenforcedRepaired,
            (StructuredOutputPath::ToolCoercion, _, false) => Self::Coerced,
            (StructuredOutputPath::ToolCoercion, _, true) => Self::CoercedRepaired,
            (StructuredOutputPath::PromptAugmentation, _, false) => Self::Prompted,
            (StructuredOutputPath::PromptAugmentation, _, true) => Self::PromptedRepaired,
        }
    }

    /// The marker string, e.g. `"prompted_repaired"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enforced => "enforced",
            Self::EnforcedRepaired => "enforced_repaired",
            Self::Unverified => "unverified",
            Self::UnverifiedRepaired => "unverified_repaired",
            Self::Unenforced => "unenforced",
            Self::UnenforcedRepaired => "unenforced_repaired",
            Self::Coerced => "coerced",
            Self::CoercedRepaired => "coerced_repaired",
            Self::Prompted => "prompted",
            Self::PromptedRepaired => "prompted_repaired",
        }
    }

    /// Whether the result needed a reask.
    pub fn is_repaired(self) -> bool {
        matches!(
            self,
            Self::EnforcedRepaired
                | Self::UnverifiedRepaired
                | Self::UnenforcedRepaired
                | Self::CoercedRepaired
                | Self::PromptedRepaired
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_mode_has_its_marker_string() {
        use StructuredOutputPath::{Native, NativeUnenforced, PromptAugmentation, ToolCoercion};
        let cases = [
            (Native, true, false, "enforced"),
            (Native, true, true, "enforced_repaired"),
            (Native, false, false, "unverified"),
            (Native, false, true, "unverified_repaired"),
            (NativeUnenforced, false, false, "unenforced"),
            (NativeUnenforced, true, true, "unenforced_repaired"),
            (ToolCoercion, true, false, "coerced"),
            (ToolCoercion, false, true, "coerced_repaired"),
            (PromptAugmentation, true, false, "prompted"),
            (PromptAugmentation, false, true, "prompted_repaired"),
        ];
        for (path, verified, repaired, want) in cases {
            let mode = SchemaMode::of(path, verified, repaired);
            assert_eq!(mode.as_str(), want);
            assert_eq!(mode.is_repaired(), repaired);
            assert_eq!(serde_json::to_value(mode).unwrap(), json!(want));
        }
        // A verdict says nothing about a request that never asked for enforcement.
        assert_eq!(
            SchemaMode::of(NativeUnenforced, true, false),
            SchemaMode::Unenforced
        );
        let names: Vec<&str> = SchemaMode::ALL.iter().map(|mode| mode.as_str()).collect();
        assert_eq!(names.len(), 10);
        let distinct: std::collections::HashSet<&str> = names.iter().copied().collect();
        assert_eq!(distinct.len(), names.len());
    }
}
