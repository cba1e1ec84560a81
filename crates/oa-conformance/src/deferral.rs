//! The committed deferral table: fixtures (or single cases) the adapter does not run yet, each with
//! the reason. A deferred case is reported as skipped with its reason, never as passed, and the
//! coverage test fails on an entry that matches no fixture.

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

const OBSERVABILITY: &str = "not run yet: the observability executor covers linear graphs of update/calls_llm nodes \
     with span_tree, llm_spans, typed-observer, log_records assertions; this fixture needs more (a fuller graph \
     engine, Langfuse, named invariants, metrics or other vocabulary)";

/// Every deferral, counted by the coverage test. No llm-provider fixture is deferred; observability fixtures
/// wait for issue 8.
pub const DEFERRALS: &[Deferral] = &[
    Deferral {
        fixture: "observability/064-llm-completion-event-active-prompt-populated",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/066-llm-completion-event-active-prompt-group-populated",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/126-token-budget-input-exceeded",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/127-token-budget-total-exceeded",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/128-token-budget-under-budget-no-warning",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/129-token-budget-absent-unchanged",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/131-token-budget-on-structured-output-failure",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/146-token-budget-input-bound-not-evaluated-on-null-counter",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/147-otel-null-counter-reaches-no-span-histogram-or-budget",
        case: None,
        reason: "needs prompt management (`prompt_backend`, active prompt, token budgets), which oa does not have",
    },
    Deferral {
        fixture: "observability/*",
        case: None,
        reason: OBSERVABILITY,
    },
];

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

/// Observability fixtures the executor runs (and that pass); every other observability fixture is deferred by
/// the `observability/*` entry.
pub const OBSERVABILITY_RUN: &[&str] = &[
    "observability/005-otel-llm-provider-span-nested",
    "observability/012-otel-llm-payload-default-off",
    "observability/013-otel-llm-payload-enabled",
    "observability/014-otel-llm-payload-truncation",
    "observability/015-otel-llm-payload-image-redaction",
    "observability/016-otel-llm-request-params",
    "observability/017-otel-llm-request-params-partial",
    "observability/018-otel-llm-request-extras",
    "observability/019-otel-llm-genai-semconv",
    "observability/021-otel-llm-disable-genai-semconv",
    "observability/025-otel-llm-request-params-extended",
    "observability/026-otel-caller-supplied-metadata",
    "observability/040-llm-cache-attribute-emission",
    "observability/041-llm-cache-attribute-absence",
    "observability/042-llm-cache-attribute-reported-zero",
    "observability/050-llm-completion-event-dispatch",
    "observability/051-llm-completion-event-type-discrimination",
    "observability/052-llm-completion-event-caller-metadata-opt-in",
    "observability/053-llm-completion-event-no-event-on-failure",
    "observability/056-llm-completion-event-strict-serial-ordering",
    "observability/057-llm-attempt-index-single-attempt-default",
    "observability/060-llm-completion-event-input-messages-populated",
    "observability/061-llm-completion-event-output-content-populated",
    "observability/062-llm-completion-event-request-params-populated",
    "observability/063-llm-completion-event-request-extras-populated",
    "observability/065-llm-completion-event-active-prompt-null",
    "observability/067-llm-completion-event-call-id-always-present-and-distinct",
    "observability/068-llm-completion-event-response-model-distinct-from-request",
    "observability/069-llm-failure-event-dispatch-on-provider-unavailable",
    "observability/070-llm-failure-event-dispatch-on-provider-invalid-request",
    "observability/071-llm-failure-event-call-id-distinct-from-completion-event",
    "observability/072-llm-failure-event-mutual-exclusion-with-completion-event",
    "observability/020-otel-llm-genai-system-override",
    "observability/073-llm-failure-event-error-type-vendor-specific",
    "observability/085-llm-tool-call-request-attributes",
    "observability/086-llm-tool-call-request-absent",
    "observability/087-llm-tool-call-request-survives-payload-gating",
    "observability/088-llm-metrics-token-and-duration",
    "observability/090-metrics-error-type-on-duration",
    "observability/091-metrics-disabled-no-measurements",
    "observability/111-llm-token-event-dispatch-on-stream",
    "observability/112-llm-token-event-absent-without-stream",
    "observability/113-streamed-tool-call-reassembles-no-token-events",
    "observability/114-llm-token-event-then-failure-mid-stream",
    "observability/115-llm-token-event-call-id-links-to-completion",
    "observability/116-llm-token-event-call-level-retry-one-call-id",
    "observability/118-llm-token-event-reasoning-delta-kind",
    "observability/120-llm-failure-event-structured-output-truncation",
    "observability/121-llm-failure-event-structured-output-schema-mismatch",
    "observability/122-llm-failure-event-response-side-null-on-non-body-failure",
    "observability/124-otel-error-span-renders-output-usage-finish-reason",
    "observability/125-metrics-token-usage-on-structured-output-failure",
    "observability/144-otel-llm-span-omits-input-usage-on-null-counter",
    "observability/145-llm-metrics-no-input-token-observation-on-null-counter",
    "observability/149-malformed-wire-counter-nulled-through-mapping-to-event-and-span",
    "observability/161-structured-output-schema-not-honored",
];

/// The deferral covering `case` of `fixture`, if any.
pub fn deferral_for(fixture: &str, case: Option<&str>) -> Option<&'static Deferral> {
    if OBSERVABILITY_RUN.contains(&fixture) {
        return None;
    }
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
        assert!(deferral_for("observability/001-anything", None).is_some());
    }

    #[test]
    fn every_entry_has_a_reason() {
        for deferral in DEFERRALS {
            assert!(deferral.reason.len() > 20, "{deferral:?}");
        }
        // Every wire mapping the llm-provider fixtures name is implemented: none of them is deferred.
        assert!(
            DEFERRALS.iter().all(|d| !d.fixture.starts_with("llm-provider/")),
            "{DEFERRALS:?}"
        );
    }
}
