//! A fixture's `retry:` block (llm-provider §7.1), written alike by the llm-provider cases' calls and the
//! observability cases' `calls_llm`, read into the provider's [`RetryConfig`] once for both.

use std::time::Duration;

use oa_provider::retry::Backoff;
use oa_provider::{ProviderError, Reask, RetryConfig, RuntimeConfig};

use crate::node::Node;

/// The block's `max_attempts` (also `retry_middleware`'s).
pub(crate) fn attempts_of(retry: &Node) -> Result<u32, String> {
    retry
        .get("max_attempts")
        .and_then(Node::as_i64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| "fixture_schema_invalid: retry needs an integer max_attempts".to_owned())
}

/// The retry the block describes: its attempts, deterministic backoff, per-attempt overrides and reask template.
/// The inner error is the provider's own rejection of a per-attempt override (an llm-provider case may expect it);
/// the outer one a block the harness cannot read.
pub(crate) fn retry_config(retry: &Node) -> Result<Result<RetryConfig, ProviderError>, String> {
    let mut config = RetryConfig::new(attempts_of(retry)?);
    if let Some(backoff) = retry.get("backoff") {
        match backoff.get("type").and_then(Node::as_str) {
            Some("deterministic") => {
                let seconds = backoff.get("seconds").and_then(Node::as_f64).unwrap_or(0.0);
                let wait = Duration::try_from_secs_f64(seconds).map_err(|_| {
                    "fixture_schema_invalid: backoff seconds must be a non-negative number".to_owned()
                })?;
                config = config.with_backoff(Backoff::Fixed(wait));
            }
            other => return Err(format!("harness_primitive_missing: backoff type {other:?}")),
        }
    }
    if let Some(schedule) = retry.get("per_attempt_override").and_then(Node::as_seq) {
        let mut overrides = Vec::with_capacity(schedule.len());
        for entry in schedule {
            match RuntimeConfig::from_json(&entry.to_json()) {
                Ok(entry) => overrides.push(entry),
                Err(error) => return Ok(Err(error)),
            }
        }
        config = config.with_per_attempt_override(overrides);
    }
    if let Some(template) = retry
        .get("reask")
        .and_then(|r| r.get("template"))
        .and_then(Node::as_str)
    {
        config = config.with_reask(Reask::template(template));
    }
    Ok(Ok(config))
}
