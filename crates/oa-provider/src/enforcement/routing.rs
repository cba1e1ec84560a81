//! Opt-in routing on the capability registry, and sampled canaries that keep the registry fresh from production
//! traffic. A [`RoutedProvider`] wraps two providers for one route: one that asks natively for enforcement, one
//! that puts the schema in the prompt. It sends a structured call natively only while the registry says the
//! route enforces; otherwise the prompt path takes it at temperature 0 with one bounded repair, and the result's
//! `schema_mode` says so.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;

use crate::call::{Backoff, Reask, RetryConfig};
use crate::call::{CallExtras, CompletionRequest, Provider};
use crate::enforcement::probe::{ProbeOutcome, probe_canary};
use crate::enforcement::registry::{Capability, CapabilityKey, CapabilityRegistry, ProbeKind};
use crate::model::ProviderError;
use crate::model::Response;

/// Decides which calls carry a canary: one per `every` calls per route, the first call of a route included (so a
/// fresh process verifies a route on its first use rather than after `every` unverified calls).
pub struct CanarySampler {
    every: u64,
    counts: Mutex<HashMap<CapabilityKey, u64>>,
}

impl CanarySampler {
    /// One canary per `every` calls per route; `0` is read as `1` (a canary with every call).
    pub fn new(every: u64) -> Self {
        Self {
            every: every.max(1),
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// The sampling interval.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// Counts one call on `key` and says whether this call is the one that carries a canary.
    pub fn should_probe(&self, key: &CapabilityKey) -> bool {
        let mut counts = self.counts.lock().unwrap_or_else(|poison| poison.into_inner());
        let count = counts.entry(key.clone()).or_insert(0);
        let fire = count.is_multiple_of(self.every);
        *count = count.wrapping_add(1);
        fire
    }
}

impl fmt::Debug for CanarySampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CanarySampler")
            .field("every", &self.every)
            .finish()
    }
}

/// The correction the degraded path sends once when the prompted answer fails validation.
pub const REPAIR_TEMPLATE: &str =
    "Your answer did not match the JSON Schema:\n{error_message}\nReply with the corrected JSON only.";

/// A provider for one route that reads (and, with a sampler, feeds) a [`CapabilityRegistry`].
///
/// Routing is opt-in ([`RoutedProvider::with_routing`]): without it every call goes to the native provider and the
/// registry is only written. With it, a call with a response_schema goes natively only when the registry says the
/// route enforces (fresh entry, `enforces: true`); an absent or stale entry sends it to the prompt path.
/// The router reads only probe results; the `schema_not_honored` diagnostic never changes a route.
pub struct RoutedProvider {
    native: Arc<dyn Provider>,
    prompted: Arc<dyn Provider>,
    registry: Arc<CapabilityRegistry>,
    key: CapabilityKey,
    routing: bool,
    sampler: Option<CanarySampler>,
}

impl RoutedProvider {
    /// A router for `key`: `native` asks for enforcement (native structured output on), `prompted` takes the
    /// mapping's fallback (built with `Capabilities::native_response_format` off: the prompt on OpenAI and Gemini,
    /// tool coercion on Anthropic for a call without tools). Routing off, no sampler.
    pub fn new(
        native: Arc<dyn Provider>,
        prompted: Arc<dyn Provider>,
        registry: Arc<CapabilityRegistry>,
        key: CapabilityKey,
    ) -> Self {
        Self {
            native,
            prompted,
            registry,
            key,
            routing: false,
            sampler: None,
        }
    }

    /// Turns routing on (default: off, the registry is only recorded into).
    pub fn with_routing(mut self, routing: bool) -> Self {
        self.routing = routing;
        self
    }

    /// Sends a canary through the native provider on one call per `every` (default: no sampled canaries).
    pub fn with_sampled_canary(mut self, every: u64) -> Self {
        self.sampler = Some(CanarySampler::new(every));
        self
    }

    /// The route this router serves.
    pub fn key(&self) -> &CapabilityKey {
        &self.key
    }

    /// Runs the canary through the native provider now and records the verdict; an error verdict records
    /// nothing (an unreachable route is not evidence either way, and staleness takes care of it). Call it when the
    /// process starts (the enforcement chapter's second place to probe: it catches a model that changed under a
    /// pinned name); sampled canaries then keep the verdict fresh, and `oa probe --pairs` is the CI place.
    ///
    /// # Errors
    ///
    /// Only a registry file that cannot be written; the verdict is returned inside `Ok`.
    pub async fn probe_now(&self) -> Result<ProbeOutcome, crate::enforcement::RegistryError> {
        let outcome = probe_canary(self.native.as_ref()).await;
        let enforces = match &outcome {
            ProbeOutcome::Enforced => true,
            ProbeOutcome::NotEnforced { .. } => false,
            ProbeOutcome::Error { .. } => return Ok(outcome),
        };
        let capability = Capability {
            enforces,
            checked_at: SystemTime::now(),
            probe: ProbeKind::Canary,
            keywords: crate::enforcement::KeywordSet::canary(),
        };
        self.registry.record_verdict(self.key.clone(), capability).await?;
        Ok(outcome)
    }

    /// Whether a structured call would go natively now (reading the registry's store when it has one).
    pub async fn routes_natively(&self) -> bool {
        !self.routing || self.registry.is_enforced_now(&self.key).await
    }
}

impl fmt::Debug for RoutedProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoutedProvider")
            .field("key", &self.key)
            .field("routing", &self.routing)
            .field("sampler", &self.sampler)
            .finish()
    }
}

#[async_trait]
impl Provider for RoutedProvider {
    async fn ready(&self) -> Result<(), ProviderError> {
        self.native.ready().await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        self.route(request, &CallExtras::NONE).await
    }

    async fn complete_with(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        self.route(request, extras).await
    }
}

impl RoutedProvider {
    /// The call on the route the registry says, `extras` passed on in place of the request's own.
    async fn route(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        if self
            .sampler
            .as_ref()
            .is_some_and(|sampler| sampler.should_probe(&self.key))
        {
            // A registry file that cannot be written must not fail the caller's call; the in-memory entry is
            // recorded regardless.
            let _ = self.probe_now().await;
        }
        if request.response_schema.is_none() || self.routes_natively().await {
            return self.native.complete_with(request, extras).await;
        }
        // The degraded request is a copy already: the extras are set on it.
        let mut degraded = degraded(request);
        extras.apply(&mut degraded);
        self.prompted.complete(&degraded).await
    }
}

/// The request as the degraded path sends it: temperature 0 unless the caller set one, and one reask carrying the
/// validator's report when the caller configured no retry (a repair recovers most failures; more rarely pay).
fn degraded(request: &CompletionRequest) -> CompletionRequest {
    let mut degraded = request.clone();
    if degraded.config.temperature.is_none() {
        degraded.config.temperature = Some(0.0);
    }
    if degraded.retry.is_none() {
        degraded.retry = Some(
            RetryConfig::new(2)
                .with_backoff(Backoff::Fixed(Duration::ZERO))
                .with_reask(Reask::template(REPAIR_TEMPLATE)),
        );
    }
    degraded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sampler_fires_on_the_first_and_every_nth_call_per_route() {
        let sampler = CanarySampler::new(3);
        let one = CapabilityKey::new("openai", "a", "e");
        let two = CapabilityKey::new("openai", "b", "e");
        let fired: Vec<bool> = (0..7).map(|_| sampler.should_probe(&one)).collect();
        assert_eq!(fired, [true, false, false, true, false, false, true]);
        assert!(sampler.should_probe(&two), "each route counts on its own");
        assert!(!sampler.should_probe(&two));
        assert_eq!(CanarySampler::new(0).every(), 1);
    }

    #[test]
    fn the_degraded_request_drops_temperature_and_adds_one_repair() {
        let request = CompletionRequest::new(Vec::new());
        let sent = degraded(&request);
        assert_eq!(sent.config.temperature, Some(0.0));
        let retry = sent.retry.unwrap();
        assert_eq!(retry.max_attempts, 2);
        assert!(retry.reask.is_some());
        let mut own = CompletionRequest::new(Vec::new()).with_retry(RetryConfig::new(5));
        own.config.temperature = Some(0.7);
        let kept = degraded(&own);
        assert_eq!(kept.config.temperature, Some(0.7));
        assert_eq!(kept.retry.unwrap().max_attempts, 5, "the caller's retry is kept");
    }
}
