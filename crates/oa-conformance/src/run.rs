//! The entry point: plan every case of the given fixture directories, then run or defer each one.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use crate::capability::{AdapterCapabilities, Requirement, requirement};
use crate::deferral::{deferral_for, vocabulary_deferral};
use crate::discover::{DiscoverError, discover};
use crate::error::{FixtureError, FixtureErrorKind};
use crate::fixture::{Fixture, FixtureId, case_location};
use crate::llm;
use crate::report::{CaseReport, Outcome, Report};

/// One case ready to run: what it is and what will happen to it.
#[derive(Debug, Clone)]
pub struct PlannedCase {
    fixture: FixtureId,
    case: Option<String>,
    action: Action,
}

#[derive(Debug, Clone)]
enum Action {
    /// Run case `usize` of the fixture, under the adapter's declared capabilities.
    Run(Arc<Fixture>, usize, AdapterCapabilities),
    /// Report skipped with this reason (a deferral table's, or a `requires_capability` arm for another adapter).
    Defer(Cow<'static, str>),
    /// The fixture did not load: report failed with the §9 error.
    LoadFailed(FixtureError),
}

impl PlannedCase {
    /// `<capability>/<stem>`.
    pub fn fixture(&self) -> &FixtureId {
        &self.fixture
    }

    /// The case name, `None` for a single-case fixture or one that failed to load.
    pub fn case(&self) -> Option<&str> {
        self.case.as_deref()
    }

    /// `fixture` or `fixture::case`.
    pub fn display_name(&self) -> String {
        match &self.case {
            Some(case) => format!("{}::{case}", self.fixture),
            None => self.fixture.to_string(),
        }
    }

    /// The reason when this case will be skipped.
    pub fn deferral_reason(&self) -> Option<&str> {
        match &self.action {
            Action::Defer(reason) => Some(reason),
            _ => None,
        }
    }

    /// Runs (or skips) the case. Each case gets its own tokio runtime, mock server and provider:
    /// nothing is shared between cases (conformance-adapter §4.2).
    pub fn run(&self) -> CaseReport {
        let (outcome, reason) = match &self.action {
            Action::Defer(reason) => (Outcome::Skipped, Some(reason.to_string())),
            Action::LoadFailed(error) => (Outcome::Failed, Some(error.to_string())),
            Action::Run(fixture, idx, capabilities) => match execute(fixture, *idx, *capabilities) {
                Ok(()) => (Outcome::Passed, None),
                Err(reason) => (Outcome::Failed, Some(reason)),
            },
        };
        CaseReport {
            fixture: self.fixture.to_string(),
            case: self.case.clone(),
            outcome,
            reason,
        }
    }
}

/// 0120's second obligation, for a case about to run: a key the vocabulary knows but no runner of its capability
/// reads (the llm-provider vocabulary is read whole by its executor).
fn unread(capability: &str, body: &crate::node::Node) -> Option<(String, String)> {
    match capability {
        "observability" | "conformance-adapter" => crate::observability::support::unread(body),
        _ => None,
    }
}

fn execute(fixture: &Fixture, case_idx: usize, capabilities: AdapterCapabilities) -> Result<(), String> {
    let case = fixture
        .cases
        .get(case_idx)
        .ok_or("case index out of range (adapter bug)")?;
    match fixture.id.capability() {
        "llm-provider" => llm::run_case(case),
        "observability" | "conformance-adapter" => crate::observability::run_case(case, capabilities),
        other => Err(format!(
            "harness_primitive_missing: no executor for capability `{other}`"
        )),
    }
}

/// Discovers every fixture under `dirs` and plans each case: run it, defer it by a table (the llm-provider names,
/// or the vocabulary it uses), or report its load error. A fixture file is never dropped: each becomes at least
/// one planned case.
///
/// # Errors
///
/// When a directory cannot be read or holds no fixture.
pub fn plan(dirs: &[PathBuf]) -> Result<Vec<PlannedCase>, DiscoverError> {
    plan_with(dirs, AdapterCapabilities::DECLARED)
}

/// [`plan`] under a given capability declaration (the declared one, or its opposite where a test runs the other
/// arm of a fixture).
pub(crate) fn plan_with(
    dirs: &[PathBuf],
    capabilities: AdapterCapabilities,
) -> Result<Vec<PlannedCase>, DiscoverError> {
    let mut planned = Vec::new();
    for dir in dirs {
        for file in discover(dir)? {
            let stem = file
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let id = FixtureId::new(file.capability.clone(), stem);
            match Fixture::load(&file.path, &file.capability) {
                Err(error) => planned.push(PlannedCase {
                    fixture: id,
                    case: None,
                    action: Action::LoadFailed(error),
                }),
                Ok(fixture) => {
                    let fixture = Arc::new(fixture);
                    for (idx, case) in fixture.cases.iter().enumerate() {
                        let by_name = deferral_for(&id.to_string(), case.name.as_deref()).map(|d| d.reason);
                        let by_vocabulary =
                            vocabulary_deferral(id.capability(), &case.body).map(|d| d.reason);
                        let action = match requirement(&case.body, capabilities) {
                            Requirement::Undeclared(name) => Action::LoadFailed(FixtureError::new(
                                FixtureErrorKind::HarnessPrimitiveMissing,
                                &format!("{}/requires_capability/{name}", case_location(case, idx)),
                                format!("the adapter declares no capability `{name}`"),
                            )),
                            Requirement::OtherArm(reason) => Action::Defer(Cow::Owned(reason)),
                            Requirement::Applies => match by_name.or(by_vocabulary) {
                                Some(reason) => Action::Defer(Cow::Borrowed(reason)),
                                None => match unread(id.capability(), &case.body) {
                                    Some((at, key)) => Action::LoadFailed(FixtureError::new(
                                        FixtureErrorKind::HarnessPrimitiveMissing,
                                        &format!("{}{at}", case_location(case, idx)),
                                        format!(
                                            "`{key}` is in the recognised vocabulary, but no oa runner reads it"
                                        ),
                                    )),
                                    None => Action::Run(Arc::clone(&fixture), idx, capabilities),
                                },
                            },
                        };
                        planned.push(PlannedCase {
                            fixture: id.clone(),
                            case: case.name.clone(),
                            action,
                        });
                    }
                }
            }
        }
    }
    Ok(planned)
}

/// Runs every fixture case under `dirs` and reports each one (the `oa conformance` entry point).
/// A directory may be a `conformance/` directory or any directory with `conformance/` directories below it.
///
/// # Errors
///
/// When a directory cannot be read or holds no fixture.
pub fn run(dirs: &[PathBuf]) -> Result<Report, DiscoverError> {
    let cases = plan(dirs)?.iter().map(PlannedCase::run).collect();
    Ok(Report { cases })
}

/// The spec fixtures oa implements, relative to a workspace root: spec v0.118.2, the base proposal 0126 is
/// written on (the v0.109 copy in `../shared/openarmature-spec` still runs when named).
const SPEC_FIXTURES: &str = "../shared/openarmature-spec-0.118/spec";

/// The directories `oa conformance` runs by default, relative to a workspace root: the llm-provider,
/// observability and conformance-adapter fixtures of spec v0.118.2 in `../shared`, and this crate's own fixtures
/// (proposal 0126's llm-provider 082/083 and observability 161).
pub fn default_dirs(workspace_root: &std::path::Path) -> Vec<PathBuf> {
    let spec = workspace_root.join(SPEC_FIXTURES);
    vec![
        spec.join("llm-provider/conformance"),
        spec.join("observability/conformance"),
        spec.join("conformance-adapter/conformance"),
        workspace_root.join("crates/oa-conformance/fixtures/llm-provider/conformance"),
        workspace_root.join("crates/oa-conformance/fixtures/observability/conformance"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 158's other arm: run as an adapter that cannot establish a Langfuse client's binding would be, the
    /// suppress-floor cases (skipped under oa's declaration; the tool case's failed Tool observation among them) run
    /// and pass through the same observer, which then closes every payload channel with one warning; the raise
    /// cases become the recognised skips.
    #[test]
    fn fixture_158_passes_its_suppress_arm_for_an_adapter_that_cannot_detect_the_binding() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(SPEC_FIXTURES)
            .join("observability/conformance");
        assert!(
            dir.is_dir(),
            "{} is missing: the shared reference material must sit beside the repository",
            dir.display()
        );
        let blind = AdapterCapabilities {
            langfuse_bound_provider_detection: false,
        };
        let planned: Vec<PlannedCase> = plan_with(&[dir], blind)
            .unwrap()
            .into_iter()
            .filter(|case| case.fixture().number() == Some("158"))
            .collect();
        let outcomes: Vec<(Option<&str>, Outcome)> = planned
            .iter()
            .map(|case| (case.case(), case.run().outcome))
            .collect();
        let ran = |name: &str| {
            outcomes
                .iter()
                .find(|(case, _)| *case == Some(name))
                .map(|(_, o)| *o)
        };
        for name in [
            "singleton_preexists_suppresses",
            "singleton_preexists_optout_proceeds",
            "state_channel_preexists_suppresses",
            "hook_preexists_suppresses",
            // A failed tool on the shared provider: ERROR, its type kept, its message nowhere (0118's repoint).
            "tool_failure_omitted_on_shared",
        ] {
            assert_eq!(ran(name), Some(Outcome::Passed), "{name}: {outcomes:?}");
        }
        for name in [
            "singleton_preexists_raises",
            "state_channel_preexists_raises",
            "hook_preexists_raises",
        ] {
            assert_eq!(ran(name), Some(Outcome::Skipped), "{name}");
        }
        assert!(
            outcomes.iter().all(|(_, outcome)| *outcome != Outcome::Failed),
            "{outcomes:?}"
        );
    }
}
