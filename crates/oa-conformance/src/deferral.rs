//! The committed deferral tables: what the adapter does not run yet, each entry with its reason. A deferred case
//! is reported as skipped with its reason, never as passed, and the coverage test fails on an entry that matches
//! no case.
//!
//! Observability cases are deferred by the vocabulary they use ([`VOCABULARY_DEFERRALS`]: a directive naming a
//! feature oa does not have), never by their file name, so a renamed or new fixture is judged like any other.
//! [`DEFERRALS`], the table by fixture name, is empty: every llm-provider fixture runs.

use crate::node::Node;

/// One deferral: a fixture id (`<capability>/<stem>`, or `<capability>/*` for a whole capability
/// directory), optionally one case of it, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deferral {
    /// `<capability>/<stem>` or `<capability>/*`.
    pub fixture: &'static str,
    /// One case name, or `None` for every case of the fixture.
    pub case: Option<&'static str>,
    /// Why it is not run, as a reviewer would read it.
    pub reason: &'static str,
}

/// Every deferral by fixture name, counted by the coverage test: none. Every llm-provider fixture runs (the three
/// wire formats are implemented), and observability cases are deferred by the vocabulary they use.
pub const DEFERRALS: &[Deferral] = &[];

/// Where a vocabulary deferral's directive sits in a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// A key of the case itself (`subgraph:`, `prompt_backend:`).
    Case,
    /// A directive of one of the case's nodes (`nodes.<name>.fan_out:`).
    Node,
    /// A key of an entry of the case's `invocations:` list (`invocations: [{session_id: ...}]`).
    Invocation,
}

/// A deferral by vocabulary: a case of `capability` that uses `directive` at `position` is not run, for `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VocabularyDeferral {
    /// The capability directory the entry applies to.
    pub capability: &'static str,
    /// The directive.
    pub directive: &'static str,
    /// Where it sits.
    pub position: Position,
    /// The feature oa lacks, as a reviewer would read it.
    pub reason: &'static str,
}

const GRAPH_ENGINE: &str = "needs a full graph engine: subgraphs, fan-out and parallel branches (pipeline-utilities \
     §9, §11), which oa's linear runtime does not have";
const NODE_RETRY: &str = "needs node-level retry middleware (pipeline-utilities §6.1), part of a full graph engine; \
     oa retries at the call level only";
const CHECKPOINTS: &str =
    "needs checkpointing and resume (pipeline-utilities §10), part of a full graph engine";
const PROMPTS: &str = "needs prompt management (prompt_backend, active prompt and prompt groups, token budgets), \
     which oa does not have";
const RETRIEVAL: &str = "needs retrieval providers (embedding and rerank calls, their events, spans, observations \
     and metrics), which oa does not have";
const SPAN_LOGS: &str = "needs node-body logs correlated with the active node span: oa renders spans from the \
     event queue, so a node body has no active OpenTelemetry span";

/// Every vocabulary deferral, counted by the coverage test.
pub const VOCABULARY_DEFERRALS: &[VocabularyDeferral] = &[
    vocabulary("subgraph", Position::Case, GRAPH_ENGINE),
    vocabulary("subgraphs", Position::Case, GRAPH_ENGINE),
    vocabulary("inner_subgraphs", Position::Case, GRAPH_ENGINE),
    vocabulary("subgraph", Position::Node, GRAPH_ENGINE),
    vocabulary("fan_out", Position::Node, GRAPH_ENGINE),
    vocabulary("parallel_branches", Position::Node, GRAPH_ENGINE),
    vocabulary("flaky", Position::Node, NODE_RETRY),
    vocabulary("retry_middleware", Position::Node, NODE_RETRY),
    vocabulary("checkpointer", Position::Case, CHECKPOINTS),
    vocabulary("prompt_backend", Position::Case, PROMPTS),
    vocabulary("mock_embedding", Position::Case, RETRIEVAL),
    vocabulary("mock_rerank", Position::Case, RETRIEVAL),
    vocabulary("calls_embed", Position::Node, RETRIEVAL),
    vocabulary("calls_rerank", Position::Node, RETRIEVAL),
    vocabulary("emits_log", Position::Node, SPAN_LOGS),
];

const fn vocabulary(directive: &'static str, position: Position, reason: &'static str) -> VocabularyDeferral {
    VocabularyDeferral {
        capability: "observability",
        directive,
        position,
        reason,
    }
}

impl VocabularyDeferral {
    /// Whether `case` (a case body of `capability`) uses this entry's directive. The conformance-adapter
    /// fixtures are graph cases in the observability vocabulary, judged by its entries.
    pub fn covers(&self, capability: &str, case: &Node) -> bool {
        let capability = match capability {
            "conformance-adapter" => "observability",
            other => other,
        };
        if capability != self.capability {
            return false;
        }
        match self.position {
            Position::Case => case.get(self.directive).is_some(),
            Position::Node => case
                .get("nodes")
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .any(|(_, node)| node.get(self.directive).is_some()),
            Position::Invocation => case
                .get("invocations")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .any(|invocation| invocation.get(self.directive).is_some()),
        }
    }
}

/// The vocabulary deferral covering `case` of `capability`, if any.
pub fn vocabulary_deferral(capability: &str, case: &Node) -> Option<&'static VocabularyDeferral> {
    VOCABULARY_DEFERRALS
        .iter()
        .find(|deferral| deferral.covers(capability, case))
}

impl Deferral {
    /// Whether this entry covers `case` of `fixture`.
    pub fn covers(&self, fixture: &str, case: Option<&str>) -> bool {
        let fixture_matches = match self.fixture.strip_suffix("/*") {
            Some(capability) => fixture.split_once('/').is_some_and(|(cap, _)| cap == capability),
            None => self.fixture == fixture,
        };
        fixture_matches && (self.case.is_none() || self.case == case)
    }
}

/// The deferral covering `case` of `fixture`, if any.
pub fn deferral_for(fixture: &str, case: Option<&str>) -> Option<&'static Deferral> {
    DEFERRALS.iter().find(|deferral| deferral.covers(fixture, case))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_match_by_fixture_case_and_capability() {
        let exact = Deferral {
            fixture: "c/001-a",
            case: Some("x"),
            reason: "r",
        };
        assert!(exact.covers("c/001-a", Some("x")));
        assert!(!exact.covers("c/001-a", Some("y")));
        assert!(!exact.covers("c/001-a", None));
        let whole = Deferral {
            fixture: "c/*",
            case: None,
            reason: "r",
        };
        assert!(whole.covers("c/009-z", None));
        assert!(!whole.covers("cc/009-z", None));
        assert!(deferral_for("llm-provider/001-basic-completion", None).is_none());
        assert!(deferral_for("llm-provider/039-anthropic-error-mapping", Some("auth")).is_none());
    }

    #[test]
    fn vocabulary_entries_match_by_position_and_capability() {
        let case = Node::from_yaml_str("subgraph: {}\nnodes: {a: {fan_out: {}}, b: {update: {}}}").unwrap();
        let reasons: Vec<&str> = VOCABULARY_DEFERRALS
            .iter()
            .filter(|d| d.covers("observability", &case))
            .map(|d| d.directive)
            .collect();
        assert_eq!(reasons, ["subgraph", "fan_out"]);
        assert!(vocabulary_deferral("llm-provider", &case).is_none());
        // A node's directive at the case level, or a case key under a node, is not the same vocabulary.
        let moved = Node::from_yaml_str("fan_out: {}\nnodes: {a: {prompt_backend: x}}").unwrap();
        assert!(vocabulary_deferral("observability", &moved).is_none());
        // An entry keyed on an invocation entry's directive matches it there and nowhere else.
        let per_invocation = vocabulary("resume_token", Position::Invocation, "needs a test");
        let listed = Node::from_yaml_str("invocations: [{initial_state: {}}, {resume_token: t}]").unwrap();
        assert!(per_invocation.covers("observability", &listed));
        let at_case = Node::from_yaml_str("resume_token: t\ninvocations: 2").unwrap();
        assert!(!per_invocation.covers("observability", &at_case));
    }

    #[test]
    fn every_entry_has_a_reason() {
        for deferral in DEFERRALS {
            assert!(deferral.reason.len() > 20, "{deferral:?}");
        }
        for deferral in VOCABULARY_DEFERRALS {
            assert!(deferral.reason.starts_with("needs "), "{deferral:?}");
        }
        assert!(DEFERRALS.is_empty(), "no fixture is deferred by its name");
    }
}
