//! Turns the shared endpoint flags into a provider builder, so `oa probe` and `oa complete` reach an endpoint the
//! same way.

use crate::cli::{EndpointArgs, TimeoutArgs};
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use oa_provider::enforcement::CapabilityRegistry;
use oa_provider::enforcement::{RedisStore, RegistryError};
use oa_provider::{Category, ProviderBuilder, ProviderError};

impl EndpointArgs {
    /// A provider builder for this endpoint: mapping, model, base URL and key. No key is sent unless
    /// `--api-key-env` names a variable; the key is read from it at build and never printed (only the name is).
    pub(crate) fn provider_builder(&self) -> Result<ProviderBuilder, String> {
        let (Some(base_url), Some(model)) = (&self.base_url, &self.model) else {
            return Err("--base-url URL and --model NAME are required".to_owned());
        };
        let builder = self
            .timeouts
            .apply(ProviderBuilder::new(self.mapping.into(), model).base_url(base_url));
        Ok(match &self.api_key_env {
            Some(variable) => {
                if std::env::var_os(variable).is_none() {
                    return Err(format!(
                        "--api-key-env {variable}: that environment variable is not set"
                    ));
                }
                builder.api_key_env(variable)
            }
            None => builder.no_api_key(),
        })
    }
}

impl TimeoutArgs {
    /// The deadline of the whole call.
    pub(crate) fn whole_call(&self) -> Duration {
        Duration::from_secs(self.timeout)
    }

    /// The provider's connect timeout, and its per-attempt total no longer than the whole call's.
    pub(crate) fn apply(&self, builder: ProviderBuilder) -> ProviderBuilder {
        builder
            .connect_timeout(Duration::from_secs(self.connect_timeout))
            .total_timeout(self.whole_call())
    }
}

/// Runs `call` under the whole-call deadline: past it, a `provider_unavailable` timeout naming the flag.
pub(crate) async fn within<T>(
    timeouts: TimeoutArgs,
    call: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    tokio::time::timeout(timeouts.whole_call(), call)
        .await
        .unwrap_or_else(|_| {
            Err(ProviderError::new(
                Category::Unavailable,
                format!(
                    "timed out: the call took longer than --timeout {} s",
                    timeouts.timeout
                ),
            ))
        })
}

/// Opens the registry `oa complete --registry` reads: as [`open_registry`], except that a file that does not exist
/// or cannot be read is a warning naming it and the cause (once), and reads as holding no verdict: every route
/// unverified, the call going on. A file that is not a registry is still an input error.
pub(crate) fn open_registry_to_read(
    location: &str,
    stale_after: Duration,
) -> Result<Arc<CapabilityRegistry>, String> {
    let is_store = location.starts_with("redis://") || location.starts_with("rediss://");
    if !is_store && !Path::new(location).exists() {
        eprintln!(
            "oa complete: warning: --registry {location}: no such file (`oa probe --registry {location}` writes \
             one): the route reads as unverified"
        );
        return Ok(Arc::new(CapabilityRegistry::new().with_stale_after(stale_after)));
    }
    if is_store {
        return open_registry(location, stale_after);
    }
    let registry = match CapabilityRegistry::with_file(Path::new(location)) {
        Ok(registry) => registry,
        Err(error @ RegistryError::Io { .. }) => {
            eprintln!("oa complete: warning: --registry: {error}: the route reads as unverified");
            CapabilityRegistry::new()
        }
        Err(error) => return Err(format!("--registry: {error}")),
    };
    Ok(Arc::new(registry.with_stale_after(stale_after)))
}

/// Says once, after the call, that the registry's store could not be read (naming it and the cause, never a
/// password): the route read as unverified.
pub(crate) fn warn_if_unreachable(registry: &CapabilityRegistry) {
    if let Some(why) = registry.store_unreachable() {
        eprintln!("oa complete: warning: --registry could not be read ({why}): the route read as unverified");
    }
}

/// Opens the registry `--registry` names: a Redis server (`redis://`, `rediss://`) shared by every instance, or a
/// JSON file (started when absent; a malformed one is an input error), with `stale_after` as the freshness window.
pub(crate) fn open_registry(
    location: &str,
    stale_after: Duration,
) -> Result<Arc<CapabilityRegistry>, String> {
    let registry = if location.starts_with("redis://") || location.starts_with("rediss://") {
        let store = RedisStore::open(location).map_err(|error| format!("--registry: {error}"))?;
        CapabilityRegistry::with_store(Arc::new(store))
    } else {
        CapabilityRegistry::with_file(Path::new(location)).map_err(|error| format!("--registry: {error}"))?
    };
    Ok(Arc::new(registry.with_stale_after(stale_after)))
}
