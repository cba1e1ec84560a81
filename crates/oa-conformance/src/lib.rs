#![doc = include_str!("../README.md")]

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
mod retry;
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
