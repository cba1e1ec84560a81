//! Verifying enforcement (`../shared/seeds/003_…`, the enforcement chapter): the marker every structured record
//! carries (`schema_mode`, `schema_version`), the canary and per-keyword probes that establish whether a route
//! really enforces a schema, the capability registry the probes write and the request path reads, and opt-in
//! routing on it.

mod coverage;
mod probe;
#[cfg(feature = "redis")]
mod redis_store;
mod registry;
mod routing;
mod schema_version;

pub use coverage::KeywordSet;
pub(crate) use probe::ACCOUNTED_KEYWORDS;
pub use probe::{
    CANARY_ANSWER, CANARY_QUESTION, EnforcementMatrix, PROBE_MAX_TOKENS, PROBED_KEYWORDS, Probe,
    ProbeOutcome, canary_schema, keyword_probe, keywords_not_probed, keywords_used, probe_canary,
    probe_keywords,
};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use registry::{
    Capability, CapabilityKey, CapabilityRegistry, DEFAULT_STALE_AFTER, DEFAULT_STORE_READ_TIMEOUT,
    ProbeKind, RegistryError, RegistryStore,
};
pub use routing::{CanarySampler, REPAIR_TEMPLATE, RoutedProvider};
pub use schema_version::schema_version;
pub(crate) use schema_version::version_of_canonical;
