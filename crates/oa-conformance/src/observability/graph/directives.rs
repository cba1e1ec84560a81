//! A node's directives as one node body: `update` / `update_pure` (a partial update, `append` reducers
//! applied), `noop`, `raises`, `calls_llm`, `calls_tool`, the §3.4 metadata helpers (`augment_metadata`,
//! `capture_invocation_metadata_into`) and the §9 queryable-observer reads (`capture_queryable_observer_read_into`,
//! `then_drop_for_current_invocation`, `then_assert_bucket_absent_into`).
//!
//! They run in document order (conformance-adapter §8.3), with one exception fixture 034's harness note fixes: a
//! node's `augment_metadata` runs "at the top of the node's body (before its LLM call runs)", so `calls_llm` runs
//! after every `augment_metadata` of its node.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use oa_events::{
    CallContext, EventCounter, InvocationAccumulator, NodeError, NodePhase, Observer,
    get_invocation_metadata, set_invocation_metadata,
};
use serde_json::{Map, Value, json};

use super::apply_reducers;
use super::llm::LlmCall;
use super::tool::ToolCall;
use crate::node::Node;

/// The case's `queryable_observers`, by name, for nodes to read.
#[derive(Debug, Default, Clone)]
pub(crate) struct Queryable {
    counters: BTreeMap<String, Arc<EventCounter>>,
    accumulators: BTreeMap<String, Arc<InvocationAccumulator>>,
}

impl Queryable {
    /// `queryable_observers: [{name, kind: event_counter | per_invocation_accumulator, ...}]`.
    pub(crate) fn from_case(body: &Node) -> Result<Self, String> {
        let mut queryable = Self::default();
        for observer in body
            .get("queryable_observers")
            .and_then(Node::as_seq)
            .unwrap_or_default()
        {
            let name = observer
                .get("name")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_owned();
            for (key, _) in observer.as_map().unwrap_or_default() {
                // An accumulator always outlives its invocations here; nothing drops a bucket but `drop`.
                if !["name", "kind", "persists_across_invocations"].contains(&key.as_str()) {
                    return Err(format!(
                        "harness_primitive_missing: queryable observer option {key}"
                    ));
                }
            }
            match observer.get("kind").and_then(Node::as_str) {
                Some("event_counter") => {
                    queryable.counters.insert(name, Arc::default());
                }
                Some("per_invocation_accumulator") => {
                    queryable.accumulators.insert(name, Arc::default());
                }
                other => {
                    return Err(format!(
                        "harness_primitive_missing: queryable observer kind {other:?}"
                    ));
                }
            }
        }
        Ok(queryable)
    }

    /// Every queryable observer, to attach to the bus.
    pub(crate) fn observers(&self) -> Vec<Arc<dyn Observer>> {
        let counters = self.counters.values().map(|o| Arc::clone(o) as Arc<dyn Observer>);
        let accumulators = self
            .accumulators
            .values()
            .map(|o| Arc::clone(o) as Arc<dyn Observer>);
        counters.chain(accumulators).collect()
    }

    /// The first event counter's count (the cases name one).
    pub(crate) fn final_count(&self) -> u64 {
        self.counters.values().next().map_or(0, |counter| counter.count())
    }

    /// Whether an accumulator holds a bucket for `invocation_id`.
    pub(crate) fn has_bucket(&self, invocation_id: &str) -> bool {
        self.accumulators
            .values()
            .any(|accumulator| accumulator.bucket(invocation_id).is_some())
    }

    fn accumulator(&self, name: &str) -> Result<&Arc<InvocationAccumulator>, NodeError> {
        self.accumulators
            .get(name)
            .ok_or_else(|| NodeError::new(format!("no per_invocation_accumulator named {name:?}")))
    }
}

/// One step of a node body.
pub(super) enum Directive {
    Update(Value),
    Noop,
    Raise(String),
    CallLlm(Arc<LlmCall>),
    CallTool(ToolCall),
    Augment(Map<String, Value>),
    CaptureMetadata(String),
    CaptureRead {
        observer: String,
        method: String,
        field: String,
    },
    DropBucket(String),
    AssertBucketAbsent(String),
}

impl Directive {
    /// The directive `name` with value `spec`; `Ok(None)` for a modifier handled elsewhere.
    pub(super) fn parse(
        name: &str,
        spec: &Node,
        llm: impl FnOnce() -> Result<LlmCall, String>,
    ) -> Result<Option<Self>, String> {
        let string = |what: &str| {
            spec.as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("fixture_schema_invalid: {what} needs a string"))
        };
        Ok(Some(match name {
            "update" | "update_pure" => Self::Update(spec.to_json()),
            "noop" => Self::Noop,
            "raises" => Self::Raise(spec.as_str().unwrap_or("raised by the fixture").to_owned()),
            "calls_llm" => Self::CallLlm(Arc::new(llm()?)),
            "calls_tool" => Self::CallTool(ToolCall::from_node(spec)?),
            "augment_metadata" => Self::Augment(
                spec.to_json()
                    .as_object()
                    .cloned()
                    .ok_or("fixture_schema_invalid: augment_metadata needs a mapping")?,
            ),
            "capture_invocation_metadata_into" => Self::CaptureMetadata(string(name)?),
            "capture_queryable_observer_read_into" => {
                let field = |key: &str| {
                    spec.get(key)
                        .and_then(Node::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| format!("fixture_schema_invalid: {name}.{key}"))
                };
                Self::CaptureRead {
                    observer: field("observer_name")?,
                    method: field("method")?,
                    field: field("state_field")?,
                }
            }
            "then_drop_for_current_invocation" => Self::DropBucket(
                spec.get("observer_name")
                    .and_then(Node::as_str)
                    .ok_or("fixture_schema_invalid: then_drop_for_current_invocation.observer_name")?
                    .to_owned(),
            ),
            "then_assert_bucket_absent_into" => Self::AssertBucketAbsent(string(name)?),
            "also_emits_via_global_tracer" => return Ok(None),
            other => return Err(format!("harness_primitive_missing: node directive `{other}`")),
        }))
    }
}

/// A node's directives, run in order over the state it received.
pub(super) struct Body {
    pub(super) steps: Vec<Directive>,
    pub(super) append: Vec<String>,
    pub(super) queryable: Queryable,
    /// `also_emits_via_global_tracer: {span_name}` (005).
    pub(super) external_span: Option<String>,
}

impl Body {
    /// Orders the steps: document order, `calls_llm` after the node's `augment_metadata` (034).
    pub(super) fn order(mut steps: Vec<Directive>) -> Vec<Directive> {
        let last_augment = steps
            .iter()
            .rposition(|step| matches!(step, Directive::Augment(_)));
        if let Some(last) = last_augment {
            let mut idx = 0;
            while idx < last {
                if matches!(steps[idx], Directive::CallLlm(_)) {
                    let call = steps.remove(idx);
                    // `last` moved down by one with the removal.
                    steps.insert(last, call);
                    return steps;
                }
                idx += 1;
            }
        }
        steps
    }

    pub(super) async fn run(&self, state: Value) -> Result<Value, NodeError> {
        if let Some(span_name) = &self.external_span {
            // `also_emits_via_global_tracer` (005): an external auto-instrumentation library's span, emitted
            // through the caller's global tracer.
            use opentelemetry::trace::{Span as _, Tracer as _};
            opentelemetry::global::tracer("external-auto-instrumentation")
                .start(span_name.clone())
                .end();
        }
        let mut view = state;
        let mut update = Map::new();
        let record = |update: &mut Map<String, Value>, view: &mut Value, key: String, value: Value| {
            if let Value::Object(view) = view {
                view.insert(key.clone(), value.clone());
            }
            update.insert(key, value);
        };
        for step in &self.steps {
            match step {
                Directive::Update(partial) => {
                    let merged = apply_reducers(&view, partial, &self.append);
                    for (key, value) in merged.as_object().cloned().unwrap_or_default() {
                        record(&mut update, &mut view, key, value);
                    }
                }
                Directive::Noop => {}
                Directive::Raise(message) => return Err(NodeError::new(message.clone())),
                Directive::CallLlm(call) => {
                    for (key, value) in call.run().await?.as_object().cloned().unwrap_or_default() {
                        record(&mut update, &mut view, key, value);
                    }
                }
                Directive::CallTool(call) => {
                    for (key, value) in call.run().await? {
                        record(&mut update, &mut view, key, value);
                    }
                }
                Directive::Augment(entries) => set_invocation_metadata(entries.clone())?,
                Directive::CaptureMetadata(field) => {
                    let snapshot = get_invocation_metadata();
                    record(
                        &mut update,
                        &mut view,
                        field.clone(),
                        Value::Object((*snapshot).clone()),
                    );
                }
                Directive::CaptureRead {
                    observer,
                    method,
                    field,
                } => {
                    let value = self.read(observer, method).await?;
                    record(&mut update, &mut view, field.clone(), value);
                }
                Directive::DropBucket(observer) => {
                    self.queryable
                        .accumulator(observer)?
                        .drop_invocation(&current_invocation()?);
                }
                Directive::AssertBucketAbsent(field) => {
                    let absent = self.queryable.accumulators.values().all(|accumulator| {
                        accumulator
                            .bucket(&current_invocation().unwrap_or_default())
                            .is_none()
                    });
                    record(&mut update, &mut view, field.clone(), Value::Bool(absent));
                }
            }
        }
        Ok(Value::Object(update))
    }

    /// A queryable observer's read method, called from the node.
    async fn read(&self, observer: &str, method: &str) -> Result<Value, NodeError> {
        match method {
            "get_count" => {
                let counter = self
                    .queryable
                    .counters
                    .get(observer)
                    .ok_or_else(|| NodeError::new(format!("no event_counter named {observer:?}")))?;
                Ok(json!(counter.count()))
            }
            "get_bucket_for_current_invocation" => {
                let invocation_id = current_invocation()?;
                // §9.2: a reader that needs every earlier event waits for this invocation's delivery first.
                if let Some(context) = CallContext::current() {
                    context
                        .bus
                        .drain_events_for(&invocation_id, Duration::from_secs(5))
                        .await
                        .map_err(|error| NodeError::new(error.to_string()))?;
                }
                let bucket = self.queryable.accumulator(observer)?.bucket(&invocation_id);
                Ok(bucket_json(&invocation_id, bucket.unwrap_or_default()))
            }
            other => Err(NodeError::new(format!(
                "harness_primitive_missing: read method {other}"
            ))),
        }
    }
}

fn current_invocation() -> Result<String, NodeError> {
    CallContext::current()
        .map(|context| context.scope.invocation_id)
        .ok_or_else(|| NodeError::new("no invocation is running"))
}

/// A bucket as state: `{invocation_id, events: [{phase, node_name, step, invocation_id}]}`.
fn bucket_json(invocation_id: &str, bucket: Vec<(NodePhase, oa_events::NodeEvent)>) -> Value {
    let events: Vec<Value> = bucket
        .into_iter()
        .map(|(phase, event)| {
            json!({
                "phase": match phase { NodePhase::Started => "started", NodePhase::Completed => "completed" },
                "node_name": event.scope.node_name,
                "step": event.step,
                "invocation_id": event.scope.invocation_id,
            })
        })
        .collect();
    json!({"invocation_id": invocation_id, "events": events})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observability::support::NODE_DIRECTIVES;

    /// Each directive the support list names is one `Directive::parse` runs, and nothing else is.
    #[test]
    fn the_listed_node_directives_are_the_ones_parse_runs() {
        for name in NODE_DIRECTIVES {
            let outcome = Directive::parse(name, &Node::Null, || Err("no call here".to_owned()));
            if let Err(error) = outcome {
                assert!(!error.contains("node directive"), "{name}: {error}");
            }
        }
        let outcome = Directive::parse("calls_llm_from_wrapper", &Node::Null, || Err(String::new()));
        assert_eq!(
            outcome.err().as_deref(),
            Some("harness_primitive_missing: node directive `calls_llm_from_wrapper`")
        );
    }
}
