//! oa-conformance: runs the OpenArmature YAML conformance fixtures against the oa stack.
//!
//! The adapter of the conformance-adapter spec: [`Fixture::load`] parses a fixture into cases and
//! checks its vocabulary (raising the §9 errors), the matchers of §5.10 compare what a run produced
//! with what a case expects, and [`run`] discovers fixture directories, runs or defers every case and
//! returns a [`Report`].

mod discover;
mod error;
mod fixture;
mod node;
mod vocabulary;

pub use discover::{DiscoverError, FixtureFile, discover};
pub use error::{FixtureError, FixtureErrorKind};
pub use fixture::{ADAPTER_VERSION, Case, Fixture, FixtureId};
pub use node::Node;
