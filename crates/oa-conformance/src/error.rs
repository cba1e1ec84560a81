//! Adapter-layer errors: the four conformance-adapter §9 categories, raised while loading a fixture.

use std::fmt;

/// The §9 error category an adapter raises instead of silently recovering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FixtureErrorKind {
    /// A directive the adapter does not know (`fixture_directive_unknown`).
    DirectiveUnknown,
    /// Broken YAML or a malformed known directive (`fixture_schema_invalid`).
    SchemaInvalid,
    /// A fixture declares a `conformance_version` newer than the adapter's (`fixture_version_unsupported`).
    VersionUnsupported,
    /// A fixture names a harness primitive the adapter does not provide (`harness_primitive_missing`).
    HarnessPrimitiveMissing,
}

impl FixtureErrorKind {
    /// The category name as §9 spells it.
    pub fn category(self) -> &'static str {
        match self {
            FixtureErrorKind::DirectiveUnknown => "fixture_directive_unknown",
            FixtureErrorKind::SchemaInvalid => "fixture_schema_invalid",
            FixtureErrorKind::VersionUnsupported => "fixture_version_unsupported",
            FixtureErrorKind::HarnessPrimitiveMissing => "harness_primitive_missing",
        }
    }
}

/// A §9 error with the fixture location (a JSON-Pointer-like path into the YAML) it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureError {
    kind: FixtureErrorKind,
    location: String,
    detail: String,
}

impl FixtureError {
    /// Builds an error of `kind` at `location` (`""` for the whole document).
    pub fn new(kind: FixtureErrorKind, location: &str, detail: impl Into<String>) -> Self {
        FixtureError {
            kind,
            location: location.to_owned(),
            detail: detail.into(),
        }
    }

    /// The §9 category.
    pub fn kind(&self) -> FixtureErrorKind {
        self.kind
    }

    /// Where in the fixture the problem is (`""` for the document root).
    pub fn location(&self) -> &str {
        &self.location
    }
}

impl fmt::Display for FixtureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let location = if self.location.is_empty() {
            "/"
        } else {
            &self.location
        };
        write!(f, "{} at {location}: {}", self.kind.category(), self.detail)
    }
}

impl std::error::Error for FixtureError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_category_and_location() {
        let cases = [
            (
                FixtureErrorKind::DirectiveUnknown,
                "fixture_directive_unknown at /calls/0/frob: x",
            ),
            (
                FixtureErrorKind::SchemaInvalid,
                "fixture_schema_invalid at /calls/0/frob: x",
            ),
            (
                FixtureErrorKind::VersionUnsupported,
                "fixture_version_unsupported at /calls/0/frob: x",
            ),
            (
                FixtureErrorKind::HarnessPrimitiveMissing,
                "harness_primitive_missing at /calls/0/frob: x",
            ),
        ];
        for (kind, want) in cases {
            assert_eq!(FixtureError::new(kind, "/calls/0/frob", "x").to_string(), want);
        }
        assert_eq!(
            FixtureError::new(FixtureErrorKind::SchemaInvalid, "", "y").to_string(),
            "fixture_schema_invalid at /: y"
        );
    }
}
