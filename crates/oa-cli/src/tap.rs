//! The diagnostics a call earns, read from its attempt records (where the provider puts them as typed values), so
//! `oa complete` and `oa demo` can print them: no `tracing` subscriber, no thread-local collector.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use oa_provider::hook::TokenDelta;
use oa_provider::{
    AttemptHook, AttemptRecord, CallExtras, CompletionRequest, Provider, ProviderError, Response,
};
use serde_json::{Map, Value};

/// One diagnostic as the command prints it: its event name, severity and the identity of the attempt it is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Diagnostic {
    pub(crate) event_name: &'static str,
    pub(crate) attributes: Map<String, Value>,
}

impl Diagnostic {
    /// The diagnostics of one attempt record.
    pub(crate) fn of_record(record: &AttemptRecord<'_>) -> Vec<Diagnostic> {
        record
            .diagnostics
            .iter()
            .map(|diagnostic| {
                let mut attributes = Map::new();
                attributes.insert("openarmature.llm.provider".into(), Value::from(record.provider));
                attributes.insert("openarmature.llm.model".into(), Value::from(record.model));
                attributes.insert("openarmature.llm.call_id".into(), Value::from(record.call_id));
                attributes.insert(
                    "openarmature.llm.attempt_index".into(),
                    Value::from(record.attempt_index),
                );
                if let Some(mode) = record.schema_mode {
                    attributes.insert("openarmature.llm.schema_mode".into(), Value::from(mode.as_str()));
                }
                if let Some(version) = record.schema_version {
                    attributes.insert("openarmature.llm.schema_version".into(), Value::from(version));
                }
                Diagnostic {
                    event_name: diagnostic.name(),
                    attributes,
                }
            })
            .collect()
    }
}

/// A provider whose calls' diagnostics are collected (each call's own hook still receives everything).
#[derive(Debug)]
pub(crate) struct DiagnosticTap<P> {
    inner: P,
    seen: Arc<Mutex<Vec<Diagnostic>>>,
}

impl<P> DiagnosticTap<P> {
    pub(crate) fn new(inner: P) -> Self {
        Self {
            inner,
            seen: Arc::default(),
        }
    }

    /// The diagnostics collected so far, in order.
    pub(crate) fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.seen.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl<P: Provider> DiagnosticTap<P> {
    /// The call with the tap as its hook, chaining to the hook `extras` resolve to (theirs, else the request's):
    /// passed beside the borrowed request, which is not copied; any typed decoder passes through.
    async fn complete_tapped(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        let tapped = extras.clone().with_hook(Arc::new(Tap {
            next: extras.hook_for(request).cloned(),
            seen: Arc::clone(&self.seen),
        }));
        self.inner.complete_with(request, &tapped).await
    }
}

#[async_trait]
impl<P: Provider> Provider for DiagnosticTap<P> {
    async fn ready(&self) -> Result<(), ProviderError> {
        self.inner.ready().await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        self.complete_tapped(request, &CallExtras::NONE).await
    }

    async fn complete_with(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        self.complete_tapped(request, extras).await
    }

    fn capability_key(&self) -> Option<oa_provider::enforcement::CapabilityKey> {
        self.inner.capability_key()
    }
}

struct Tap {
    next: Option<Arc<dyn AttemptHook>>,
    seen: Arc<Mutex<Vec<Diagnostic>>>,
}

impl AttemptHook for Tap {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        if let Some(next) = &self.next {
            next.on_token(delta);
        }
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(Diagnostic::of_record(record));
        if let Some(next) = &self.next {
            next.on_attempt(record);
        }
    }
}
