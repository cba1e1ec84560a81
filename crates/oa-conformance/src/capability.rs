//! The capabilities this adapter declares (conformance-adapter §5.5, proposal 0115), and what a case's
//! `requires_capability` makes of them: a case whose arm does not match the declaration is a recognised skip
//! with its reason; a capability name the adapter does not declare is an error, never a silent skip (an
//! undeclared name reads the same whether the capability is absent or the table has not caught up).

use crate::node::Node;

/// What the adapter can do that varies between adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AdapterCapabilities {
    /// Whether the adapter can establish which tracer provider a Langfuse client emits through (0116). oa's
    /// `LangfuseClient::binding` says it: `HttpLangfuseClient` emits through none, a client built on the
    /// observer's `IsolatedProvider` carries its token, and the harness's provider-faithful fake reports the
    /// provider it was bound to. So oa takes §6's raise arm on a detected shared provider, and the cases written
    /// for an adapter that cannot detect it (the suppress arm) are recognised skips here.
    pub(crate) langfuse_bound_provider_detection: bool,
}

impl AdapterCapabilities {
    /// oa's declaration.
    pub(crate) const DECLARED: AdapterCapabilities = AdapterCapabilities {
        langfuse_bound_provider_detection: true,
    };

    /// The declared value of the capability `name`, `None` when the adapter declares no such capability.
    fn get(self, name: &str) -> Option<bool> {
        match name {
            "langfuse_bound_provider_detection" => Some(self.langfuse_bound_provider_detection),
            _ => None,
        }
    }
}

/// What a case's `requires_capability` says under a declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Requirement {
    /// No requirement, or every one matches: the case runs.
    Applies,
    /// An arm for another adapter: a recognised skip, with its reason.
    OtherArm(String),
    /// A capability the adapter does not declare: the case fails, naming it.
    Undeclared(String),
}

/// Reads `case`'s `requires_capability: {name: bool, ...}` against `declared`.
pub(crate) fn requirement(case: &Node, declared: AdapterCapabilities) -> Requirement {
    for (name, wanted) in case
        .get("requires_capability")
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        let Some(have) = declared.get(name) else {
            return Requirement::Undeclared(name.clone());
        };
        // The vocabulary checked the value is a boolean at load.
        if wanted.as_bool() != Some(have) {
            return Requirement::OtherArm(format!(
                "requires adapter capability {name}: {}, and this adapter declares {have} (conformance-adapter \
                 §5.5: the case is the arm for an adapter declaring otherwise)",
                wanted.to_json()
            ));
        }
    }
    Requirement::Applies
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(yaml: &str) -> Node {
        Node::from_yaml_str(yaml).unwrap()
    }

    #[test]
    fn a_matching_arm_applies_a_mismatch_skips_and_an_undeclared_name_is_an_error() {
        let declared = AdapterCapabilities::DECLARED;
        assert_eq!(requirement(&case("entry: a"), declared), Requirement::Applies);
        assert_eq!(
            requirement(
                &case("requires_capability: {langfuse_bound_provider_detection: true}"),
                declared
            ),
            Requirement::Applies
        );
        let Requirement::OtherArm(reason) = requirement(
            &case("requires_capability: {langfuse_bound_provider_detection: false}"),
            declared,
        ) else {
            panic!("expected a skip");
        };
        assert!(
            reason.contains("langfuse_bound_provider_detection: false"),
            "{reason}"
        );
        assert_eq!(
            requirement(
                &case("requires_capability: {langfuse_bound_provider_detection: true, telepathy: true}"),
                declared
            ),
            Requirement::Undeclared("telepathy".to_owned())
        );
        // The other declaration selects the other arm.
        let blind = AdapterCapabilities {
            langfuse_bound_provider_detection: false,
        };
        assert_eq!(
            requirement(
                &case("requires_capability: {langfuse_bound_provider_detection: false}"),
                blind
            ),
            Requirement::Applies
        );
    }
}
