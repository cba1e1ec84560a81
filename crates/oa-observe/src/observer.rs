//! The OpenTelemetry observer: an invocation span, a node span per node, an LLM provider span per wire attempt
//! and a tool span per instrumented tool execution under the calling node's span (observability §4, §5.5,
//! §5.5.11), plus the §11 metrics when enabled. It renders
//! the events of an [`EventBus`](oa_events::EventBus) and never touches the global providers.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use oa_events::{
    Event, InvocationEvent, LlmAttempt, MetadataEvent, NodeEvent, Observer, ObserverError, Scope,
};
use opentelemetry::trace::{Span, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use crate::attributes::{llm_span_attributes, otel_value, scope_attributes};
use crate::config::ObserverConfig;
use crate::metrics::Metrics;
use crate::names;
use crate::tool::ToolOutcome;

/// The instrumentation scope name of everything oa-observe emits.
pub const INSTRUMENTATION_SCOPE: &str = "oa-observe";

/// Renders events as spans (and metrics). Attach it to an [`EventBus`](oa_events::EventBus).
pub struct OtelObserver {
    tracer: SdkTracer,
    metrics: Option<Metrics>,
    config: ObserverConfig,
    open: Mutex<OpenSpans>,
}

impl std::fmt::Debug for OtelObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtelObserver")
            .field("config", &self.config)
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}

#[derive(Default)]
struct OpenSpans {
    invocations: HashMap<String, Context>,
    /// Node spans by invocation id, then node name: found from a scope's borrowed strings (no key copied per
    /// lookup, as a `(String, String)` key needed).
    nodes: HashMap<String, HashMap<String, Context>>,
}

impl OpenSpans {
    fn node(&self, invocation_id: &str, node_name: &str) -> Option<&Context> {
        self.nodes.get(invocation_id)?.get(node_name)
    }

    fn take_node(&mut self, invocation_id: &str, node_name: &str) -> Option<Context> {
        let nodes = self.nodes.get_mut(invocation_id)?;
        let context = nodes.remove(node_name);
        if nodes.is_empty() {
            self.nodes.remove(invocation_id);
        }
        context
    }
}

impl OtelObserver {
    /// An observer writing spans through `tracer_provider` (the application's, never the global one); no metrics
    /// until [`enable_metrics`](Self::enable_metrics). It writes no log records: the provider's diagnostics reach
    /// OpenTelemetry logs by one route, `tracing` through [`LogBridge`](crate::LogBridge).
    pub fn new(tracer_provider: &SdkTracerProvider, config: ObserverConfig) -> Self {
        Self {
            tracer: tracer_provider.tracer(INSTRUMENTATION_SCOPE),
            metrics: None,
            config,
            open: Mutex::new(OpenSpans::default()),
        }
    }

    /// Records the §11 metrics through `meter_provider` (observability §11.1's `enable_metrics`, default off: the
    /// one switch, which names the provider the instruments come from).
    ///
    /// ```
    /// use oa_observe::{ObserverConfig, OtelObserver};
    /// use opentelemetry_sdk::metrics::SdkMeterProvider;
    /// use opentelemetry_sdk::trace::SdkTracerProvider;
    ///
    /// let (tracer_provider, meter_provider) = (SdkTracerProvider::default(), SdkMeterProvider::default());
    /// let observer = OtelObserver::new(&tracer_provider, ObserverConfig::default()).enable_metrics(&meter_provider);
    /// assert!(format!("{observer:?}").contains("metrics: true"));
    /// ```
    pub fn enable_metrics(mut self, meter_provider: &SdkMeterProvider) -> Self {
        self.metrics = Some(Metrics::new(meter_provider));
        self
    }

    /// The parent of a span a node body's work emits: the calling node's span; when it is not open, the invocation
    /// span (lineage-resolved parent, §5.5).
    fn calling_node(&self, scope: &Scope) -> Result<Context, ObserverError> {
        let open = self.open()?;
        Ok(open
            .node(&scope.invocation_id, &scope.node_name)
            .or_else(|| open.invocations.get(&scope.invocation_id))
            .cloned()
            .unwrap_or_default())
    }

    fn open(&self) -> Result<std::sync::MutexGuard<'_, OpenSpans>, ObserverError> {
        self.open
            .lock()
            .map_err(|_| ObserverError::new("span table poisoned"))
    }

    fn invocation_started(&self, event: &InvocationEvent) -> Result<(), ObserverError> {
        // §5.1: identity and runtime-identity attributes, emitted whatever the privacy settings.
        let mut attributes = vec![
            KeyValue::new(names::INVOCATION_ID, event.invocation_id.clone()),
            KeyValue::new(names::GRAPH_ENTRY_NODE, event.entry_node.clone()),
            KeyValue::new(names::GRAPH_SPEC_VERSION, oa_events::SPEC_VERSION),
            KeyValue::new(names::IMPLEMENTATION_NAME, oa_events::IMPLEMENTATION_NAME),
            KeyValue::new(names::IMPLEMENTATION_VERSION, oa_events::IMPLEMENTATION_VERSION),
        ];
        if let Some(correlation_id) = &event.correlation_id {
            attributes.push(KeyValue::new(names::CORRELATION_ID, correlation_id.clone()));
        }
        if let Some(session_id) = &event.session_id {
            attributes.push(KeyValue::new(names::SESSION_ID, session_id.clone()));
        }
        for (key, value) in &event.metadata {
            attributes.push(KeyValue::new(
                format!("{}{key}", names::USER_PREFIX),
                otel_value(value),
            ));
        }
        let span = self
            .tracer
            .span_builder(names::INVOCATION_SPAN)
            .with_start_time(event.at)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &Context::new());
        let context = Context::new().with_span(span);
        self.open()?
            .invocations
            .insert(event.invocation_id.clone(), context);
        Ok(())
    }

    fn invocation_completed(&self, event: &InvocationEvent) -> Result<(), ObserverError> {
        let Some(context) = self.open()?.invocations.remove(&event.invocation_id) else {
            return Ok(());
        };
        let span = context.span();
        match &event.error {
            Some(error) => {
                let category = event.error_category.map_or("node_exception", |c| c.as_str());
                record_exception(&span, category, error, event.at);
                span.set_status(Status::error(category));
            }
            None => span.set_status(Status::Ok),
        }
        span.end_with_timestamp(event.at);
        Ok(())
    }

    fn node_started(&self, event: &NodeEvent) -> Result<(), ObserverError> {
        let scope = &event.scope;
        let parent = self
            .open()?
            .invocations
            .get(&scope.invocation_id)
            .cloned()
            .unwrap_or_default();
        let mut attributes = scope_attributes(scope);
        attributes.push(KeyValue::new(names::NODE_NAME, scope.node_name.clone()));
        attributes.push(KeyValue::new(
            names::NODE_NAMESPACE,
            otel_value(&serde_json::json!(scope.namespace)),
        ));
        attributes.push(KeyValue::new(
            names::NODE_STEP,
            i64::try_from(event.step).unwrap_or(i64::MAX),
        ));
        attributes.push(KeyValue::new(
            names::NODE_ATTEMPT_INDEX,
            i64::from(scope.attempt_index),
        ));
        let span = self
            .tracer
            .span_builder(scope.node_name.clone())
            .with_start_time(event.at)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &parent);
        let context = parent.with_span(span);
        self.open()?
            .nodes
            .entry(scope.invocation_id.clone())
            .or_default()
            .insert(scope.node_name.clone(), context);
        Ok(())
    }

    fn node_completed(&self, event: &NodeEvent) -> Result<(), ObserverError> {
        let scope = &event.scope;
        let Some(context) = self.open()?.take_node(&scope.invocation_id, &scope.node_name) else {
            return Ok(());
        };
        let span = context.span();
        if let Some(error) = &event.error {
            // §4.2: the graph-engine §4 category is the status description and the error category; the provider's
            // §7 category, when a call caused the failure, is on the LLM span and names the exception here.
            let category = event.graph_error.map_or("node_exception", |c| c.as_str());
            span.set_attribute(KeyValue::new(names::ERROR_CATEGORY, category));
            let exception_type = event.error_category.map_or(category, |c| c.as_str());
            record_exception(&span, exception_type, error, event.at);
            span.set_status(Status::error(category));
        } else {
            span.set_status(Status::Ok);
        }
        span.end_with_timestamp(event.at);
        Ok(())
    }

    /// §3.4: the augmenting context's open spans (here the invocation span and the augmenting node's span; the
    /// runtime is serial) take the added entries in place.
    fn metadata_augmented(&self, event: &MetadataEvent) -> Result<(), ObserverError> {
        let scope = &event.scope;
        let open = self.open()?;
        let spans = [
            open.invocations.get(&scope.invocation_id),
            open.node(&scope.invocation_id, &scope.node_name),
        ];
        for context in spans.into_iter().flatten() {
            let span = context.span();
            for (key, value) in &event.entries {
                span.set_attribute(KeyValue::new(
                    format!("{}{key}", names::USER_PREFIX),
                    otel_value(value),
                ));
            }
        }
        Ok(())
    }

    fn llm_attempt(&self, attempt: &LlmAttempt) -> Result<(), ObserverError> {
        if let Some(metrics) = &self.metrics {
            metrics.record_attempt(attempt);
        }
        if self.config.disable_llm_spans {
            return Ok(());
        }
        let parent = self.calling_node(&attempt.scope)?;
        let mut span = self
            .tracer
            .span_builder(names::LLM_SPAN)
            .with_start_time(attempt.started_at)
            .with_attributes(llm_span_attributes(attempt, &self.config))
            .start_with_context(&self.tracer, &parent);
        match attempt.error_category {
            Some(category) => {
                // §4.2: an ERROR span records the exception (type and message) as an OTel exception event.
                span.add_event_with_timestamp(
                    "exception",
                    attempt.started_at + attempt.duration,
                    vec![
                        KeyValue::new("exception.type", category.as_str()),
                        KeyValue::new(
                            "exception.message",
                            attempt.error_message.clone().unwrap_or_default(),
                        ),
                    ],
                );
                span.set_status(Status::error(category.as_str()));
            }
            None => span.set_status(Status::Ok),
        }
        span.end_with_timestamp(attempt.started_at + attempt.duration);
        Ok(())
    }
}

impl OtelObserver {
    /// §5.5.11: the `openarmature.tool.call` span under the calling node's span (the invocation span when that is
    /// not open), backdated by the measured latency; ERROR with `error.type` as its description and an exception
    /// event on failure. `disable_llm_spans` does not gate it.
    fn tool_call(&self, outcome: &ToolOutcome<'_>) -> Result<(), ObserverError> {
        let parent = self.calling_node(outcome.scope)?;
        let span = self
            .tracer
            .span_builder(names::TOOL_SPAN)
            .with_start_time(outcome.started_at())
            .with_attributes(outcome.span_attributes(&self.config))
            .start_with_context(&self.tracer, &parent);
        let context = Context::new().with_span(span);
        let span = context.span();
        match (&outcome.result, outcome.error_type()) {
            (Err((_, message)), Some(error_type)) => {
                record_exception(&span, error_type, message, outcome.at);
                span.set_status(Status::error(error_type.to_owned()));
            }
            _ => span.set_status(Status::Ok),
        }
        span.end_with_timestamp(outcome.at);
        Ok(())
    }
}

/// §4.2: an ERROR span records the exception (its type and message) as an OTel exception event.
fn record_exception(
    span: &opentelemetry::trace::SpanRef<'_>,
    exception_type: &str,
    message: &str,
    at: std::time::SystemTime,
) {
    span.add_event_with_timestamp(
        "exception",
        at,
        vec![
            KeyValue::new("exception.type", exception_type.to_owned()),
            KeyValue::new("exception.message", message.to_owned()),
        ],
    );
}

impl OtelObserver {
    /// Renders one event; nothing here waits.
    fn handle(&self, event: &Event) -> Result<(), ObserverError> {
        match event {
            Event::InvocationStarted(event) => self.invocation_started(event),
            Event::InvocationCompleted(event) => self.invocation_completed(event),
            Event::NodeStarted(event) => self.node_started(event),
            Event::NodeCompleted(event) => self.node_completed(event),
            Event::LlmAttempt(attempt) => self.llm_attempt(attempt),
            Event::MetadataAugmented(event) => self.metadata_augmented(event),
            Event::ToolCall(event) => self.tool_call(&event.into()),
            Event::ToolCallFailed(event) => self.tool_call(&event.into()),
            // The typed events carry what the attempt records already rendered; tokens are not rendered (§6).
            _ => Ok(()),
        }
    }
}

#[async_trait]
impl Observer for OtelObserver {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.handle(event)
    }

    /// Rendering never waits: done at once, with no boxed future per event.
    fn on_event_now(&self, event: &Event) -> Option<Result<(), ObserverError>> {
        Some(self.handle(event))
    }

    /// Tokens are not rendered, so none need be built for this observer.
    fn wants_tokens(&self) -> bool {
        false
    }
}
