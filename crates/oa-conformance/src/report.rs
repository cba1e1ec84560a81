//! What a conformance run reports: one outcome per case, and the totals.

use std::fmt;

use serde_json::{Value, json};

/// How one case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Every assertion held.
    Passed,
    /// An assertion failed, the fixture could not be loaded, or the harness could not run it.
    Failed,
    /// Deferred by the committed deferral table; never counted as passed.
    Skipped,
}

impl Outcome {
    /// `"passed"`, `"failed"` or `"skipped"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseReport {
    /// `<capability>/<file stem>`.
    pub fixture: String,
    /// The case name; `None` for a single-case fixture (or a fixture that failed to load).
    pub case: Option<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Why it failed or was skipped; `None` when it passed.
    pub reason: Option<String>,
}

impl CaseReport {
    /// The case as the `--json` line: `{"fixture", "case", "outcome", "reason"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "fixture": self.fixture,
            "case": self.case,
            "outcome": self.outcome.as_str(),
            "reason": self.reason,
        })
    }

    /// `fixture` or `fixture::case`, the name a test runner shows.
    pub fn display_name(&self) -> String {
        match &self.case {
            Some(case) => format!("{}::{case}", self.fixture),
            None => self.fixture.clone(),
        }
    }
}

/// Every case of a run, in discovery order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The cases.
    pub cases: Vec<CaseReport>,
}

impl Report {
    /// How many cases ended with `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.cases.iter().filter(|case| case.outcome == outcome).count()
    }

    /// Whether no case failed.
    pub fn is_success(&self) -> bool {
        self.count(Outcome::Failed) == 0
    }

    /// The closing line: `N passed, M failed, K skipped`.
    pub fn totals_line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.count(Outcome::Passed),
            self.count(Outcome::Failed),
            self.count(Outcome::Skipped)
        )
    }

    /// One line per fixture: its worst outcome, its case counts, and the first failure or skip reason.
    pub fn fixture_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut idx = 0;
        while idx < self.cases.len() {
            let fixture = &self.cases[idx].fixture;
            let group: Vec<&CaseReport> = self.cases[idx..]
                .iter()
                .take_while(|case| &case.fixture == fixture)
                .collect();
            idx += group.len();
            let n_of = |outcome| group.iter().filter(|case| case.outcome == outcome).count();
            let (n_failed, n_skipped, n_passed) = (
                n_of(Outcome::Failed),
                n_of(Outcome::Skipped),
                n_of(Outcome::Passed),
            );
            let worst = if n_failed > 0 {
                Outcome::Failed
            } else if n_passed == 0 {
                Outcome::Skipped
            } else {
                Outcome::Passed
            };
            let mut line =
                format!("{worst:<7} {fixture} ({n_passed} passed, {n_failed} failed, {n_skipped} skipped)");
            let first_reason = group
                .iter()
                .find(|case| case.outcome == Outcome::Failed)
                .or_else(|| group.iter().find(|case| case.outcome == Outcome::Skipped))
                .and_then(|case| case.reason.as_ref().map(|reason| (case, reason)));
            if let Some((case, reason)) = first_reason {
                let label = case
                    .case
                    .as_deref()
                    .map(|name| format!("{name}: "))
                    .unwrap_or_default();
                line.push_str(&format!(": {label}{reason}"));
            }
            lines.push(line);
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(fixture: &str, case: Option<&str>, outcome: Outcome, reason: Option<&str>) -> CaseReport {
        CaseReport {
            fixture: fixture.to_owned(),
            case: case.map(str::to_owned),
            outcome,
            reason: reason.map(str::to_owned),
        }
    }

    #[test]
    fn json_line_shape() {
        let report = case("llm-provider/001-basic-completion", None, Outcome::Passed, None);
        assert_eq!(
            report.to_json().to_string(),
            r#"{"case":null,"fixture":"llm-provider/001-basic-completion","outcome":"passed","reason":null}"#
        );
        let report = case(
            "llm-provider/005-x",
            Some("a"),
            Outcome::Skipped,
            Some("mapping not implemented"),
        );
        assert_eq!(report.to_json()["reason"], "mapping not implemented");
        assert_eq!(report.to_json()["case"], "a");
    }

    #[test]
    fn totals_and_fixture_lines() {
        let report = Report {
            cases: vec![
                case("c/001-a", Some("x"), Outcome::Passed, None),
                case("c/001-a", Some("y"), Outcome::Failed, Some("boom")),
                case("c/002-b", None, Outcome::Skipped, Some("later")),
                case("c/003-c", None, Outcome::Passed, None),
            ],
        };
        assert_eq!(report.totals_line(), "2 passed, 1 failed, 1 skipped");
        assert!(!report.is_success());
        assert_eq!(
            report.fixture_lines(),
            [
                "failed  c/001-a (1 passed, 1 failed, 0 skipped): y: boom",
                "skipped c/002-b (0 passed, 0 failed, 1 skipped): later",
                "passed  c/003-c (1 passed, 0 failed, 0 skipped)",
            ]
        );
    }
}
