//! Real LLM spans for the llm-provider executor: a call made through an `ObservedProvider` whose bus feeds
//! oa-observe's OTel observer on the SDK's in-memory exporter, and the attributes of the spans it rendered.

use std::sync::Arc;
use std::time::Duration;

use oa_events::{EventBus, ObservedProvider, Observer};
use oa_observe::{ObserverConfig, OtelObserver};
use oa_provider::{CompletionRequest, Provider, ProviderError, Response};
use serde_json::{Map, Value};

use super::capture::otel_json;

const LLM_SPAN: &str = "openarmature.llm.complete";

/// One call's telemetry: an OTel observer with the default configuration on a private in-memory provider.
pub(crate) struct SpanRecorder {
    telemetry: oa_testkit::Telemetry,
    bus: EventBus,
}

impl SpanRecorder {
    /// Must be built inside the case's tokio runtime (the bus's task runs there).
    pub(crate) fn new() -> Self {
        let telemetry = oa_testkit::Telemetry::new();
        let observer = OtelObserver::new(&telemetry.tracer_provider, ObserverConfig::default());
        let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);
        Self { telemetry, bus }
    }

    /// `provider.complete(request)`, reported to the observer (the request's own hook still hears everything).
    pub(crate) async fn complete(
        &self,
        provider: &Arc<dyn Provider>,
        request: &CompletionRequest,
    ) -> Result<Response, ProviderError> {
        ObservedProvider::new(Arc::clone(provider), self.bus.clone(), "llm_call")
            .complete(request)
            .await
    }

    /// The attributes of every LLM span rendered so far, in attempt order.
    pub(crate) async fn llm_spans(&self) -> Result<Vec<Map<String, Value>>, String> {
        self.bus
            .drain(Duration::from_secs(10))
            .await
            .map_err(|error| format!("harness: {error}"))?;
        let spans = self
            .telemetry
            .spans()
            .map_err(|error| format!("harness: {error}"))?;
        let mut attributes: Vec<Map<String, Value>> = spans
            .iter()
            .filter(|span| span.name == LLM_SPAN)
            .map(|span| {
                span.attributes
                    .iter()
                    .map(|kv| (kv.key.to_string(), otel_json(&kv.value)))
                    .collect()
            })
            .collect();
        attributes.sort_by_key(|attributes| {
            attributes
                .get("openarmature.llm.attempt_index")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MAX)
        });
        Ok(attributes)
    }
}
