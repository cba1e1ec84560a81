//! What a violation says failed, as a type: the keyword (by its 2020-12 name, or the older spelling the schema
//! used), or a limit of the validator itself. Callers match on it instead of comparing keyword strings.

/// What failed: one variant per keyword that reports violations, and two for the validator's own limits.
///
/// A keyword that only applies subschemas (`properties`, `allOf`, `$ref`, `if`, ...) never reports one of its
/// own: the assertions below it do. [`keyword`](Self::keyword) gives the name as it appears in the report's
/// keyword path and message.
///
/// ```
/// use oa_schema::{Validator, ViolationKind};
/// use serde_json::json;
///
/// let validator = Validator::new(&json!({"required": ["id"], "properties": {"id": {"type": "integer"}}})).unwrap();
/// let report = validator.validate(&json!({"name": "x"})).unwrap_err();
/// let violation = report.iter().next().unwrap();
/// assert_eq!(violation.kind(), ViolationKind::Required);
/// assert_eq!(violation.kind().keyword(), Some("required"));
/// assert_eq!(violation.keyword(), Some("required"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ViolationKind {
    /// A `false` subschema, reached other than through a keyword that reports it as its own (`items`,
    /// `additionalItems`, `additionalProperties`, `unevaluatedItems`, `unevaluatedProperties`).
    False,
    /// `type`.
    Type,
    /// `const`.
    Const,
    /// `enum`.
    Enum,
    /// `minimum` (also draft 4's `minimum` made exclusive by `exclusiveMinimum: true`).
    Minimum,
    /// `maximum` (also draft 4's `maximum` made exclusive by `exclusiveMaximum: true`).
    Maximum,
    /// `exclusiveMinimum`.
    ExclusiveMinimum,
    /// `exclusiveMaximum`.
    ExclusiveMaximum,
    /// `multipleOf`.
    MultipleOf,
    /// `maxLength`.
    MaxLength,
    /// `minLength`.
    MinLength,
    /// `pattern` (also when matching exceeded the regex budget).
    Pattern,
    /// `format`, when asserted.
    Format,
    /// `maxItems`.
    MaxItems,
    /// `minItems`.
    MinItems,
    /// `uniqueItems`.
    UniqueItems,
    /// `items` whose schema is `false`, at the item it rejects.
    Items,
    /// `additionalItems` (before 2020-12) whose schema is `false`, at the item it rejects.
    AdditionalItems,
    /// `contains`: no item matches.
    Contains,
    /// `minContains`: too few items match.
    MinContains,
    /// `maxContains`: too many items match.
    MaxContains,
    /// `unevaluatedItems` whose schema is `false`, at the item it rejects.
    UnevaluatedItems,
    /// `maxProperties`.
    MaxProperties,
    /// `minProperties`.
    MinProperties,
    /// `required`, at the missing property's place.
    Required,
    /// `dependentRequired`, at the missing property's place.
    DependentRequired,
    /// `dependencies` (before 2019-09), at the missing property's place.
    Dependencies,
    /// `additionalProperties` whose schema is `false`, at the property it rejects.
    AdditionalProperties,
    /// `patternProperties`: matching a member name exceeded the regex budget.
    PatternProperties,
    /// `unevaluatedProperties` whose schema is `false`, at the property it rejects.
    UnevaluatedProperties,
    /// `anyOf`: no member holds and none admits the instance's type (otherwise the members' own violations are
    /// reported).
    AnyOf,
    /// `oneOf`: more than one member holds, or none holds and none admits the instance's type.
    OneOf,
    /// `not`: its subschema holds.
    Not,
    /// A `$ref` that resolves to no schema was reached (see
    /// [`Violation::unresolved_reference`](crate::Violation::unresolved_reference)).
    Ref,
    /// A `$dynamicRef` that resolves to no schema was reached.
    DynamicRef,
    /// A `$recursiveRef` (2019-09) that resolves to no schema was reached.
    RecursiveRef,
    /// The evaluation depth limit: no keyword, a limit of the validator.
    DepthLimit,
    /// An internal error of the validator (a report that would otherwise be empty): no keyword.
    Internal,
}

impl ViolationKind {
    /// The keyword's name as the report writes it (`"required"`, `"$ref"`, `"false"` for a `false` subschema);
    /// `None` for the validator's own limits ([`DepthLimit`](Self::DepthLimit), [`Internal`](Self::Internal)).
    pub fn keyword(self) -> Option<&'static str> {
        Some(match self {
            Self::False => "false",
            Self::Type => "type",
            Self::Const => "const",
            Self::Enum => "enum",
            Self::Minimum => "minimum",
            Self::Maximum => "maximum",
            Self::ExclusiveMinimum => "exclusiveMinimum",
            Self::ExclusiveMaximum => "exclusiveMaximum",
            Self::MultipleOf => "multipleOf",
            Self::MaxLength => "maxLength",
            Self::MinLength => "minLength",
            Self::Pattern => "pattern",
            Self::Format => "format",
            Self::MaxItems => "maxItems",
            Self::MinItems => "minItems",
            Self::UniqueItems => "uniqueItems",
            Self::Items => "items",
            Self::AdditionalItems => "additionalItems",
            Self::Contains => "contains",
            Self::MinContains => "minContains",
            Self::MaxContains => "maxContains",
            Self::UnevaluatedItems => "unevaluatedItems",
            Self::MaxProperties => "maxProperties",
            Self::MinProperties => "minProperties",
            Self::Required => "required",
            Self::DependentRequired => "dependentRequired",
            Self::Dependencies => "dependencies",
            Self::AdditionalProperties => "additionalProperties",
            Self::PatternProperties => "patternProperties",
            Self::UnevaluatedProperties => "unevaluatedProperties",
            Self::AnyOf => "anyOf",
            Self::OneOf => "oneOf",
            Self::Not => "not",
            Self::Ref => "$ref",
            Self::DynamicRef => "$dynamicRef",
            Self::RecursiveRef => "$recursiveRef",
            Self::DepthLimit | Self::Internal => return None,
        })
    }

    /// The keyword's name, for kinds that have one (every kind the evaluator's keywords report).
    pub(crate) fn name(self) -> &'static str {
        self.keyword().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::ViolationKind;

    /// Every kind, in declaration order (a new kind must be added here, and to `keyword`).
    const ALL: [ViolationKind; 38] = [
        ViolationKind::False,
        ViolationKind::Type,
        ViolationKind::Const,
        ViolationKind::Enum,
        ViolationKind::Minimum,
        ViolationKind::Maximum,
        ViolationKind::ExclusiveMinimum,
        ViolationKind::ExclusiveMaximum,
        ViolationKind::MultipleOf,
        ViolationKind::MaxLength,
        ViolationKind::MinLength,
        ViolationKind::Pattern,
        ViolationKind::Format,
        ViolationKind::MaxItems,
        ViolationKind::MinItems,
        ViolationKind::UniqueItems,
        ViolationKind::Items,
        ViolationKind::AdditionalItems,
        ViolationKind::Contains,
        ViolationKind::MinContains,
        ViolationKind::MaxContains,
        ViolationKind::UnevaluatedItems,
        ViolationKind::MaxProperties,
        ViolationKind::MinProperties,
        ViolationKind::Required,
        ViolationKind::DependentRequired,
        ViolationKind::Dependencies,
        ViolationKind::AdditionalProperties,
        ViolationKind::PatternProperties,
        ViolationKind::UnevaluatedProperties,
        ViolationKind::AnyOf,
        ViolationKind::OneOf,
        ViolationKind::Not,
        ViolationKind::Ref,
        ViolationKind::DynamicRef,
        ViolationKind::RecursiveRef,
        ViolationKind::DepthLimit,
        ViolationKind::Internal,
    ];

    #[test]
    fn each_keyword_names_one_kind_and_is_a_known_keyword() {
        let mut names: Vec<&str> = ALL.iter().filter_map(|kind| kind.keyword()).collect();
        assert_eq!(names.len(), ALL.len() - 2, "only the two limits have no keyword");
        for name in &names {
            // Every name but `false` is a keyword some draft knows.
            assert!(
                *name == "false"
                    || crate::draft::Draft::ALL
                        .iter()
                        .any(|draft| crate::dialect::Dialect::of(*draft).keyword(name).is_some()),
                "{name} is no keyword of any draft"
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len() - 2, "two kinds share a keyword");
    }
}
