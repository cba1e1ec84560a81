//! The Langfuse observer: renders the event stream as Langfuse traces and observations (observability §8): an
//! invocation is a trace (its session, when bound, the trace's `sessionId`), a node a span observation, an LLM
//! call one generation under its node's span (one per `complete()` call, whatever the number of wire attempts;
//! token events are not rendered), a tool execution one Tool observation under its node's span.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use async_trait::async_trait;
use oa_events::{Event, InvocationEvent, MetadataEvent, NodeEvent, Observer, ObserverError, Scope};
use serde_json::{Value, json};

use super::builder::LangfuseObserverBuilder;
use super::client::{FlushReport, LangfuseClient, LangfuseError};
use super::config::LangfuseConfig;
use super::http::LangfuseCredentials;
use super::model::{Level, ObservationRecord, ObservationType, TraceRecord};
use super::render::{
    CallOutcome, capped, generation, identity, observation_metadata, stub_input, stub_output,
    tool_observation, trace_id, trace_metadata,
};
use crate::tool::ToolOutcome;

/// Renders events as Langfuse traces and observations through a [`LangfuseClient`]. Attach it to an
/// [`EventBus`](oa_events::EventBus) beside (or instead of) the OTel observer; its configuration is its own
/// (§8.9).
///
/// Two ways to get a client (§8.9's ownership modes): hand one in with [`LangfuseObserver::new`] (the caller owns
/// it and whatever provider it is bound to; the observer never touches it), or give credentials to
/// [`LangfuseObserver::from_credentials`] (the observer owns an [`HttpLangfuseClient`] that talks to Langfuse's
/// ingestion API directly and emits nothing through any OpenTelemetry provider, so no other exporter sees its
/// payloads) or to [`LangfuseObserverBuilder::from_credentials_with`] (a client of the caller's making, built on
/// an isolated provider; §6's payload-leak rule is checked at construction).
///
/// [`HttpLangfuseClient`]: super::HttpLangfuseClient
///
/// ```
/// use std::sync::Arc;
/// use oa_events::{EventBus, Graph, InvokeOptions, Observer};
/// use oa_observe::{LangfuseClient, LangfuseConfig, LangfuseObserver, LangfuseRecorder};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let recorder = Arc::new(LangfuseRecorder::default());
/// let observer = LangfuseObserver::new(recorder.clone() as Arc<dyn LangfuseClient>, LangfuseConfig::default());
/// let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);
/// let graph = Graph::builder().node("a", |_| async { Ok(serde_json::json!({})) }).build()?;
/// graph.invoke(&bus, serde_json::json!({}), InvokeOptions::default()).await?;
/// bus.drain(std::time::Duration::from_secs(1)).await?;
/// assert_eq!(recorder.traces()[0].name, "a");
/// assert_eq!(recorder.observations()[0].name, "a");
/// # Ok(())
/// # }
/// ```
pub struct LangfuseObserver {
    client: Arc<dyn LangfuseClient>,
    config: LangfuseConfig,
    trace_input: Option<TraceHook>,
    trace_output: Option<TraceHook>,
    open: Mutex<HashMap<String, OpenTrace>>,
    /// What the observer's own flushes (at an invocation's end) reported, until [`LangfuseObserver::flush`] hands
    /// it to the caller.
    unreported: Mutex<(FlushReport, Option<LangfuseError>)>,
}

/// §8.4.1's caller hooks: the trace's input (from the initial state) or output (from the final state); `None`
/// falls through to the state or the stub.
pub(super) type TraceHook = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// A trace whose invocation is running, and its open node spans by node name.
struct OpenTrace {
    trace: TraceRecord,
    spans: HashMap<String, ObservationRecord>,
}

impl std::fmt::Debug for LangfuseObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LangfuseObserver")
            .field("client", &self.client)
            .field("config", &self.config)
            .field("trace_input_hook", &self.trace_input.is_some())
            .field("trace_output_hook", &self.trace_output.is_some())
            .finish()
    }
}

impl LangfuseObserver {
    /// A builder for the trace hooks and the shared-provider opt-out; the shorthands below cover the plain cases.
    pub fn builder(config: LangfuseConfig) -> LangfuseObserverBuilder {
        LangfuseObserverBuilder::new(config)
    }

    /// An observer writing through `client` (§8.9 mode (a): the caller's client, left exactly as given).
    pub fn new(client: Arc<dyn LangfuseClient>, config: LangfuseConfig) -> Self {
        Self::builder(config).client(client)
    }

    /// An observer that builds and owns its client from credentials (§8.9 mode (b)): an
    /// [`HttpLangfuseClient`](super::HttpLangfuseClient) with the default limits, which emits through no
    /// OpenTelemetry provider.
    ///
    /// # Errors
    ///
    /// [`LangfuseError`] when a key is blank, the host is unusable or the HTTP client cannot be built.
    pub fn from_credentials(
        credentials: LangfuseCredentials,
        config: LangfuseConfig,
    ) -> Result<Self, LangfuseError> {
        Self::builder(config).from_credentials(credentials)
    }

    /// The observer as a builder assembled it.
    pub(super) fn assemble(
        client: Arc<dyn LangfuseClient>,
        config: LangfuseConfig,
        trace_input: Option<TraceHook>,
        trace_output: Option<TraceHook>,
    ) -> Self {
        Self {
            client,
            config,
            trace_input,
            trace_output,
            open: Mutex::new(HashMap::new()),
            unreported: Mutex::new((FlushReport::default(), None)),
        }
    }

    /// Sends what the client has queued (the observer also flushes when an invocation, or a call made outside a
    /// graph, ends). The report adds up everything since the last call, the observer's own flushes included.
    ///
    /// # Errors
    ///
    /// The client's [`LangfuseError`], or the first one the observer's own flushes met since the last call.
    pub async fn flush(&self) -> Result<FlushReport, LangfuseError> {
        let now = self.client.flush().await;
        let (mut report, earlier) = std::mem::take(&mut *self.lock_unreported());
        let now = now?;
        if let Some(error) = earlier {
            return Err(error);
        }
        add(&mut report, now);
        Ok(report)
    }

    fn lock_unreported(&self) -> MutexGuard<'_, (FlushReport, Option<LangfuseError>)> {
        self.unreported.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn open(&self) -> MutexGuard<'_, HashMap<String, OpenTrace>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn invocation_started(&self, event: &InvocationEvent) {
        let (id, derived) = trace_id(&event.invocation_id);
        let metadata = trace_metadata(event, derived);
        let trace = TraceRecord {
            id,
            // §8.6: the caller's label, else the entry node's name.
            name: event.label.clone().unwrap_or_else(|| event.entry_node.clone()),
            timestamp: event.at,
            user_id: user_id(&metadata),
            metadata,
            input: Some(self.trace_io(self.trace_input.as_ref(), &event.state, stub_input(event))),
            output: None,
            // §8.4.1: a session-bound invocation's trace joins its Langfuse Session.
            session_id: event.session_id.clone(),
        };
        self.client.upsert_trace(&trace);
        self.open().insert(
            event.invocation_id.clone(),
            OpenTrace {
                trace,
                spans: HashMap::new(),
            },
        );
    }

    fn invocation_completed(&self, event: &InvocationEvent) {
        let Some(mut open) = self.open().remove(&event.invocation_id) else {
            return;
        };
        for (_, mut span) in open.spans.drain() {
            span.end_time = Some(event.at);
            self.client.record_observation(&span);
        }
        let (_, derived) = trace_id(&event.invocation_id);
        open.trace.metadata = trace_metadata(event, derived);
        open.trace.user_id = user_id(&open.trace.metadata);
        open.trace.output = Some(self.trace_io(self.trace_output.as_ref(), &event.state, stub_output(event)));
        self.client.upsert_trace(&open.trace);
    }

    fn node_started(&self, event: &NodeEvent) {
        let scope = &event.scope;
        let mut open = self.open();
        let Some(trace) = open.get_mut(&scope.invocation_id) else {
            return;
        };
        let span = ObservationRecord {
            id: observation_id(),
            trace_id: trace.trace.id.clone(),
            parent_observation_id: None,
            kind: ObservationType::Span,
            name: scope.node_name.clone(),
            start_time: event.at,
            end_time: None,
            metadata: observation_metadata(scope, Some(event.step)),
            level: Level::Default,
            status_message: None,
            input: None,
            output: None,
            model: None,
            model_parameters: serde_json::Map::new(),
            usage: None,
        };
        trace.spans.insert(scope.node_name.clone(), span);
    }

    fn node_completed(&self, event: &NodeEvent) {
        let scope = &event.scope;
        let Some(mut span) = self
            .open()
            .get_mut(&scope.invocation_id)
            .and_then(|trace| trace.spans.remove(&scope.node_name))
        else {
            return;
        };
        span.end_time = Some(event.at);
        span.metadata
            .extend(observation_metadata(scope, Some(event.step)));
        if event.error.is_some() {
            span.level = Level::Error;
            span.status_message = Some(
                event
                    .graph_error
                    .map_or("node_exception", |c| c.as_str())
                    .to_owned(),
            );
        }
        self.client.record_observation(&span);
    }

    /// §3.4: the trace and the augmenting node's open span take the entries in place.
    fn metadata_augmented(&self, event: &MetadataEvent) {
        let scope = &event.scope;
        let mut open = self.open();
        let Some(trace) = open.get_mut(&scope.invocation_id) else {
            return;
        };
        for (key, value) in &event.entries {
            trace.trace.metadata.insert(key.clone(), value.clone());
        }
        trace.trace.user_id = user_id(&trace.trace.metadata);
        if let Some(span) = trace.spans.get_mut(&scope.node_name) {
            for (key, value) in &event.entries {
                span.metadata.insert(key.clone(), value.clone());
            }
        }
    }

    /// Records the call's Generation; whether it was made outside a graph (its trace is then complete).
    fn llm_call(&self, outcome: &CallOutcome<'_>) -> bool {
        if self.config.disable_llm_spans {
            return false;
        }
        let (ids, standalone) = self.ids_under_node(outcome.scope);
        let record = generation(outcome, &self.config, ids, SystemTime::now());
        self.client.record_observation(&record);
        standalone
    }

    /// Records a tool execution's Tool observation (§8.4.6; `disable_llm_spans` does not gate it); whether its
    /// trace is complete (it was not part of an open invocation).
    fn tool_call(&self, outcome: &ToolOutcome<'_>) -> bool {
        let (ids, standalone) = self.ids_under_node(outcome.scope);
        self.client
            .record_observation(&tool_observation(outcome, &self.config, ids));
        standalone
    }

    /// A fresh observation's ids under the calling node's open span in its invocation's trace (none when the node
    /// span is not open), or in a trace of its own when no invocation is open (then also `true`).
    fn ids_under_node(&self, scope: &Scope) -> ((String, String, Option<String>), bool) {
        let open = self.open();
        match open.get(&scope.invocation_id) {
            Some(trace) => (
                (
                    observation_id(),
                    trace.trace.id.clone(),
                    trace.spans.get(&scope.node_name).map(|span| span.id.clone()),
                ),
                false,
            ),
            None => {
                drop(open);
                ((observation_id(), self.standalone_trace(scope), None), true)
            }
        }
    }

    /// A call made outside a graph (through `ObservedProvider`) gets a trace of its own, named for its node.
    fn standalone_trace(&self, scope: &Scope) -> String {
        let (id, derived) = trace_id(&scope.invocation_id);
        let mut metadata = scope.caller_invocation_metadata.clone().unwrap_or_default();
        if let Some(correlation_id) = &scope.correlation_id {
            metadata.insert("correlation_id".into(), json!(correlation_id));
        }
        metadata.extend(identity());
        if derived {
            metadata.insert("invocation_id".into(), json!(scope.invocation_id));
        }
        let trace = TraceRecord {
            id: id.clone(),
            name: scope.node_name.clone(),
            timestamp: SystemTime::now(),
            user_id: user_id(&metadata),
            metadata,
            input: None,
            output: None,
            session_id: scope.session_id.clone(),
        };
        self.client.upsert_trace(&trace);
        id
    }

    /// §8.4.1's decision tree: the hook's value, else the state when state payload is on, else the stub; capped.
    fn trace_io(&self, hook: Option<&TraceHook>, state: &Value, stub: Value) -> Value {
        if let Some(value) = hook.and_then(|hook| hook(state)) {
            return capped(&value, self.config.payload_cap);
        }
        if self.config.disable_state_payload {
            stub
        } else {
            capped(state, self.config.payload_cap)
        }
    }

    async fn flush_if(&self, ended: bool) -> Result<(), ObserverError> {
        if !(ended || self.client.wants_flush()) {
            return Ok(());
        }
        let outcome = self.client.flush().await;
        let mut unreported = self.lock_unreported();
        match outcome {
            Ok(report) => {
                add(&mut unreported.0, report);
                Ok(())
            }
            Err(error) => {
                let message = error.to_string();
                unreported.1.get_or_insert(error);
                Err(ObserverError::new(message))
            }
        }
    }
}

/// §8.4.1: the `userId` caller key, promoted to the trace's user (it stays in the metadata too).
fn user_id(metadata: &serde_json::Map<String, Value>) -> Option<String> {
    metadata.get("userId").map(|value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    })
}

/// Adds `more` to `report` (the rejection messages up to the report's bound).
fn add(report: &mut FlushReport, more: FlushReport) {
    report.n_sent += more.n_sent;
    report.n_rejected += more.n_rejected;
    report.n_dropped += more.n_dropped;
    for rejection in more.rejections {
        if report.rejections.len() < 5 {
            report.rejections.push(rejection);
        }
    }
}

/// A fresh observation id: 16 lowercase hex characters.
fn observation_id() -> String {
    oa_events::random_uuid().replace('-', "")[..16].to_owned()
}

#[async_trait]
impl Observer for LangfuseObserver {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        let mut ended = false;
        match event {
            Event::InvocationStarted(event) => self.invocation_started(event),
            Event::InvocationCompleted(event) => {
                self.invocation_completed(event);
                ended = true;
            }
            Event::NodeStarted(event) => self.node_started(event),
            Event::NodeCompleted(event) => self.node_completed(event),
            Event::MetadataAugmented(event) => self.metadata_augmented(event),
            Event::LlmCompletion(event) => {
                ended = self.llm_call(&CallOutcome {
                    scope: &event.scope,
                    request: &event.request,
                    response: &event.response,
                    latency_ms: event.latency_ms,
                    failure: None,
                });
            }
            Event::LlmFailed(event) => {
                ended = self.llm_call(&CallOutcome {
                    scope: &event.scope,
                    request: &event.request,
                    response: &event.response,
                    latency_ms: event.latency_ms,
                    failure: Some((
                        event.error_category.as_str(),
                        event.error_type.as_deref(),
                        &event.error_message,
                    )),
                });
            }
            Event::ToolCall(event) => ended = self.tool_call(&event.into()),
            Event::ToolCallFailed(event) => ended = self.tool_call(&event.into()),
            // Per-attempt records stay on the OTel side; token events are not rendered (§8.4.3).
            _ => {}
        }
        self.flush_if(ended).await
    }

    /// Tokens are not rendered, so none need be built for this observer.
    fn wants_tokens(&self) -> bool {
        false
    }
}
