//! Turns the shared endpoint flags into a provider builder, so `oa probe` and `oa complete` reach an endpoint the
//! same way.

use crate::cli::EndpointArgs;
use std::path::Path;
use std::sync::Arc;

use oa_provider::{CapabilityRegistry, ProviderBuilder};

impl EndpointArgs {
    /// A provider builder for this endpoint: mapping, model, base URL and key. No key is sent unless
    /// `--api-key-env` names a variable; the key is read from it at build and never printed (only the name is).
    pub(crate) fn provider_builder(&self) -> Result<ProviderBuilder, String> {
        let builder = ProviderBuilder::new(self.mapping.into(), &self.model).base_url(&self.base_url);
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

/// Opens (or starts) a registry file; a malformed one is an input error.
pub(crate) fn open_registry(path: &Path) -> Result<Arc<CapabilityRegistry>, String> {
    CapabilityRegistry::with_file(path)
        .map(Arc::new)
        .map_err(|error| format!("--registry: {error}"))
}
