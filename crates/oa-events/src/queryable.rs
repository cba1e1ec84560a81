//! Queryable observers (observability §9): observers whose read methods a node may call mid-invocation through a
//! reference it holds. Reads are query-only, lock-consistent (never a torn view) and dispatch nothing; they see
//! whatever the delivery queue has delivered so far, which may lag the graph (§9.2) — a node that needs every
//! earlier event first waits with [`EventBus::drain_events_for`](crate::EventBus::drain_events_for).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;

use crate::delivery::{Observer, ObserverError};
use crate::event::{Event, NodeEvent};

/// Counts the node events (started and completed) delivered to it.
///
/// ```
/// use std::sync::Arc;
/// use oa_events::{EventBus, EventCounter, Graph, InvokeOptions, Observer};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let counter = Arc::new(EventCounter::default());
/// let bus = EventBus::new(vec![counter.clone() as Arc<dyn Observer>]);
/// let graph = Graph::builder().node("a", |_| async { Ok(serde_json::json!({})) }).build()?;
/// graph.invoke(&bus, serde_json::json!({}), InvokeOptions::default()).await?;
/// bus.drain(std::time::Duration::from_secs(1)).await?;
/// assert_eq!(counter.count(), 2);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default)]
pub struct EventCounter {
    count: AtomicU64,
}

impl EventCounter {
    /// How many node events were delivered so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    fn count_event(&self, event: &Event) {
        if matches!(event, Event::NodeStarted(_) | Event::NodeCompleted(_)) {
            self.count.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[async_trait]
impl Observer for EventCounter {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.count_event(event);
        Ok(())
    }

    /// Counting never waits: done at once.
    fn on_event_now(&self, event: &Event) -> Option<Result<(), ObserverError>> {
        self.count_event(event);
        Some(Ok(()))
    }

    /// It counts node events only.
    fn wants_tokens(&self) -> bool {
        false
    }
}

/// Which side of a node's run a bucketed event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodePhase {
    /// The node began.
    Started,
    /// The node ended.
    Completed,
}

/// Keeps the node events delivered to it in one bucket per invocation id. Buckets outlive their invocation's
/// completion (§9.4: an end-of-invocation reader must still find them) until [`drop_invocation`] releases one;
/// an accumulator that lives across many invocations holds every bucket nobody dropped.
///
/// [`drop_invocation`]: InvocationAccumulator::drop_invocation
///
/// ```
/// use std::sync::Arc;
/// use oa_events::{EventBus, Graph, InvocationAccumulator, InvokeOptions, Observer};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let accumulator = Arc::new(InvocationAccumulator::default());
/// let bus = EventBus::new(vec![accumulator.clone() as Arc<dyn Observer>]);
/// let graph = Graph::builder().node("a", |_| async { Ok(serde_json::json!({})) }).build()?;
/// let options = InvokeOptions { invocation_id: Some("run-1".into()), ..InvokeOptions::default() };
/// graph.invoke(&bus, serde_json::json!({}), options).await?;
/// bus.drain(std::time::Duration::from_secs(1)).await?;
/// assert_eq!(accumulator.bucket("run-1").map(|bucket| bucket.len()), Some(2), "kept after completion");
/// assert!(accumulator.drop_invocation("run-1"));
/// assert!(accumulator.bucket("run-1").is_none());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default)]
pub struct InvocationAccumulator {
    buckets: Mutex<BTreeMap<String, Vec<(NodePhase, NodeEvent)>>>,
}

impl InvocationAccumulator {
    /// A copy of the bucket of `invocation_id`, in delivery order; `None` when it holds nothing (never filled, or
    /// dropped).
    pub fn bucket(&self, invocation_id: &str) -> Option<Vec<(NodePhase, NodeEvent)>> {
        self.lock().get(invocation_id).cloned()
    }

    /// Releases the bucket of `invocation_id`; whether there was one.
    pub fn drop_invocation(&self, invocation_id: &str) -> bool {
        self.lock().remove(invocation_id).is_some()
    }

    /// The invocation ids that have a bucket.
    pub fn invocation_ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<(NodePhase, NodeEvent)>>> {
        self.buckets.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl Observer for InvocationAccumulator {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        let (phase, node) = match event {
            Event::NodeStarted(node) => (NodePhase::Started, node),
            Event::NodeCompleted(node) => (NodePhase::Completed, node),
            _ => return Ok(()),
        };
        self.lock()
            .entry(node.scope.invocation_id.clone())
            .or_default()
            .push((phase, node.clone()));
        Ok(())
    }

    /// It buckets node events only.
    fn wants_tokens(&self) -> bool {
        false
    }
}
