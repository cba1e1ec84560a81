//! Who emits the events: the runtime-identity constants observability §5.1 puts on every invocation span (and
//! §8.4.1 on every Langfuse trace), whatever the privacy settings.

/// The openarmature-spec version this implementation targets (`openarmature.graph.spec_version`): v0.118.2, the
/// base proposal 0126 is written on (its fixtures in `../shared/openarmature-spec-0.118`), plus 0126.
pub const SPEC_VERSION: &str = "0.118.2";

/// `openarmature.implementation.name`, following §5.1's `openarmature-<language>` convention for ports.
pub const IMPLEMENTATION_NAME: &str = "openarmature-rust";

/// `openarmature.implementation.version`: this crate's package version.
pub const IMPLEMENTATION_VERSION: &str = env!("CARGO_PKG_VERSION");
