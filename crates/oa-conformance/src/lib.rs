//! oa-conformance: runs the OpenArmature YAML conformance fixtures against the oa stack.
//!
//! The adapter of the conformance-adapter spec: [`Fixture::load`] parses a fixture into cases and
//! checks its vocabulary (raising the §9 errors), the matchers of §5.10 compare what a run produced
//! with what a case expects, and [`run`] discovers the `conformance/` directories at or below the given ones,
//! runs or defers every case (observability cases by the vocabulary they use, [`VOCABULARY_DEFERRALS`]) and
//! returns a [`Report`].
//!
//! ```no_run
//! use std::path::PathBuf;
//!
//! let dirs = [PathBuf::from("../shared/openarmature-spec-0.118/spec/llm-provider/conformance")];
//! let report = oa_conformance::run(&dirs)?;
//! println!("{}", report.totals_line());
//! # Ok::<(), oa_conformance::DiscoverError>(())
//! ```
//!
//! No optional features. See the README for the guarantees and every known limit.

mod capability;
mod deferral;
mod discover;
mod error;
mod fixture;
mod llm;
mod matcher;
mod mock_server;
mod node;
mod observability;
mod report;
mod run;
mod vocabulary;

pub use deferral::{
    DEFERRALS, Deferral, Position, VOCABULARY_DEFERRALS, VocabularyDeferral, deferral_for,
    vocabulary_deferral,
};
pub use discover::{DiscoverError, FixtureFile, MAX_DEPTH, discover};
pub use error::{FixtureError, FixtureErrorKind};
pub use fixture::{ADAPTER_VERSION, Case, Fixture, FixtureId};
pub use node::Node;
pub use report::{CaseReport, Outcome, Report};
pub use run::{PlannedCase, default_dirs, plan, run};
