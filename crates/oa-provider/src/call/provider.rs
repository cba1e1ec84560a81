//! The §5 provider interface every wire format implements.

use std::fmt;

use async_trait::async_trait;

use crate::call::{CallExtras, CompletionRequest};
use crate::enforcement::CapabilityKey;
use crate::model::{ProviderError, Response};

/// An LLM provider bound to one model (§5).
///
/// Contract: `complete()` is reentrant (concurrent calls go to the wire concurrently, never serialized), never
/// mutates its request, does not loop on tool calls, and retries only when the request carries a
/// [`RetryConfig`](crate::RetryConfig). `ready()` is never called by `complete()`. Cancelling is dropping the future; a dropped
/// call sends nothing further and is not retried.
#[async_trait]
pub trait Provider: Send + Sync + fmt::Debug {
    /// Checks that the bound model is reachable and serving, so the next `complete()` should not fail with
    /// authentication, invalid-model, not-loaded or unavailable.
    ///
    /// # Errors
    ///
    /// One of those four categories (or `provider_rate_limit` / `provider_invalid_response` from the probe).
    async fn ready(&self) -> Result<(), ProviderError>;

    /// Performs one completion call (with in-call retries when `request.retry` is set).
    ///
    /// # Errors
    ///
    /// A [`ProviderError`] of one of the §7 categories; `provider_invalid_request` for anything rejected before
    /// sending, `structured_output_invalid` with its carries when the content fails the response_schema.
    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError>;

    /// Performs `complete(request)` with `extras` in place of the request's own hook and typed decoder (each
    /// extra that is set): how a wrapper (an observer's recorder, a diagnostics tap) attaches its hook to a caller's
    /// request it only borrows, and how [`complete_as`](crate::complete_as) attaches its decoder. The wrapper
    /// chains to `request.hook` itself if that should still see everything.
    ///
    /// The default copies the request to apply the extras (none when there are none), then calls
    /// [`complete`](Self::complete); the built-in providers and wrappers take them as they are, with no copy.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use oa_provider::{AttemptHook, AttemptRecord, CallExtras, CompletionRequest, Message, OpenAiProvider, Provider};
    ///
    /// struct Printer;
    /// impl AttemptHook for Printer {
    ///     fn on_attempt(&self, record: &AttemptRecord<'_>) {
    ///         println!("attempt {} of {}", record.attempt_index, record.call_id);
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let provider = OpenAiProvider::builder("gpt-4o-mini").base_url("http://127.0.0.1:9").no_api_key().build()?;
    /// let request = CompletionRequest::new(vec![Message::user("hi")]);
    /// let extras = CallExtras::default().with_hook(Arc::new(Printer));
    /// // Nothing listens on port 9: the call fails, and the hook still sees its attempt.
    /// assert!(provider.complete_with(&request, &extras).await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`complete`](Self::complete).
    async fn complete_with(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        if extras.is_empty() {
            return self.complete(request).await;
        }
        self.complete(&extras.applied_to(request)).await
    }

    /// The route this provider serves, as the capability registry keys it (provider name, model, base URL);
    /// `None` for a provider that is not one route (a router, a test double). Probes record their verdicts under
    /// it, and a provider built with a registry reads its verdict under it.
    fn capability_key(&self) -> Option<CapabilityKey> {
        None
    }
}
