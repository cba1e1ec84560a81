//! The observer delivery queue: strictly serial, asynchronous delivery of events to observers, with observer
//! errors and panics isolated, and drains that wait (up to a timeout) for what was dispatched to be delivered.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use foldhash::fast::FixedState;
use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot, watch};

use crate::event::Event;
use crate::shared_names::SharedNames;

/// Receives events from the delivery queue.
///
/// Contract: `on_event` is called for every event, one at a time, in dispatch order, on the queue's own task, never
/// concurrently with itself or with another observer of the same queue; graph execution does not wait for it. An
/// `Err` or a panic is recorded (see [`EventBus::n_observer_errors`]) and delivery continues with the next observer
/// and event. Observers must not depend on the invocation runtime: the event is all they get.
#[async_trait]
pub trait Observer: Send + Sync {
    /// Handles one event.
    ///
    /// # Errors
    ///
    /// An [`ObserverError`] the queue records and isolates.
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError>;

    /// Handles one event at once, for an observer whose handling never waits: `Some` with the outcome, and the
    /// queue does not call [`on_event`](Self::on_event) for that event; `None` (the default) and the queue awaits
    /// `on_event`. Such an observer answers both alike; this way the queue spares the boxed future `on_event`
    /// costs per event and observer. Errors and panics are isolated as `on_event`'s are.
    ///
    /// ```
    /// use async_trait::async_trait;
    /// use oa_events::{Event, Observer, ObserverError};
    ///
    /// struct Log;
    ///
    /// impl Log {
    ///     fn handle(&self, event: &Event) -> Result<(), ObserverError> {
    ///         println!("{}", event.invocation_id());
    ///         Ok(())
    ///     }
    /// }
    ///
    /// #[async_trait]
    /// impl Observer for Log {
    ///     async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
    ///         self.handle(event)
    ///     }
    ///
    ///     fn on_event_now(&self, event: &Event) -> Option<Result<(), ObserverError>> {
    ///         Some(self.handle(event))
    ///     }
    /// }
    /// ```
    fn on_event_now(&self, event: &Event) -> Option<Result<(), ObserverError>> {
        let _ = event;
        None
    }

    /// Whether this observer reads [`Event::LlmToken`]: a stream of 2,000 tokens is 2,000 events, so when no
    /// observer of a queue wants them they are not built at all. Defaults to `true` (every event is delivered);
    /// an observer that ignores token events says `false`.
    fn wants_tokens(&self) -> bool {
        true
    }
}

/// An observer's failure, isolated by the queue.
#[derive(Debug, thiserror::Error)]
#[error("observer failed: {message}")]
pub struct ObserverError {
    message: String,
}

impl ObserverError {
    /// An error with a short description.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A drain did not finish before its timeout; delivery goes on in the background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("event delivery did not drain within {timeout:?}")]
pub struct DrainTimeout {
    /// The timeout that passed.
    pub timeout: Duration,
}

enum Item {
    Event(Box<Event>),
    /// Two events that go onto the queue back to back (a call's successful attempt and its terminal event): one
    /// allocation and one send for both.
    Pair(Box<(Event, Event)>),
    Flush(oneshot::Sender<()>),
}

/// A handle on one delivery queue; clones share the queue. Built inside a Tokio runtime, which runs the queue's
/// task.
#[derive(Clone)]
pub struct EventBus {
    sender: mpsc::UnboundedSender<Item>,
    shared: Arc<Shared>,
    n_observers: usize,
    wants_tokens: bool,
}

/// What the handles of one queue share beside the sender.
struct Shared {
    n_observer_errors: AtomicU64,
    /// The provider and model names of the queue's attempt records.
    names: SharedNames,
    /// Events put on the queue so far, and by invocation the number of its last one: what a per-invocation drain
    /// waits for.
    dispatched: Mutex<Dispatched>,
    /// Events delivered to every observer so far (the queue is serial, so these are the first that many
    /// dispatched).
    delivered: watch::Sender<u64>,
}

/// The queue's count of dispatched events, and the number of each invocation's last one.
#[derive(Default)]
struct Dispatched {
    n_events: u64,
    /// An invocation (by [`key`]) → the number of its last dispatched event; an entry whose event has been
    /// delivered is dropped once there are more than [`KEPT_INVOCATIONS`], so the table stays the size of what is in
    /// flight.
    last_of: HashMap<u64, u64, FixedState>,
}

/// An invocation's key in the dispatch table: a 64-bit hash of its id, so no id is copied per invocation. Two ids
/// of one hash share an entry, and a drain for either waits for the events of both: longer, never shorter.
fn key(invocation_id: &str) -> u64 {
    FixedState::with_seed(0x6f61_6472_6169_6e73).hash_one(invocation_id)
}

/// How many invocations the dispatch table keeps before dropping those whose last event has been delivered.
const KEPT_INVOCATIONS: usize = 64;

impl Shared {
    /// Counts the events of `item` and puts it on the queue, in one step, so the numbers follow the queue's order.
    fn dispatch(&self, sender: &mpsc::UnboundedSender<Item>, item: Item) {
        let mut dispatched = self.dispatched.lock().unwrap_or_else(PoisonError::into_inner);
        let Dispatched { n_events, last_of } = &mut *dispatched;
        let events: [Option<&Event>; 2] = match &item {
            Item::Event(event) => [Some(event), None],
            Item::Pair(pair) => [Some(&pair.0), Some(&pair.1)],
            Item::Flush(_) => [None, None],
        };
        for event in events.into_iter().flatten() {
            *n_events += 1;
            let invocation = key(event.invocation_id());
            match last_of.get_mut(&invocation) {
                Some(last) => *last = *n_events,
                None => {
                    if last_of.len() >= KEPT_INVOCATIONS {
                        let delivered = *self.delivered.borrow();
                        last_of.retain(|_, last| *last > delivered);
                    }
                    last_of.insert(invocation, *n_events);
                }
            }
        }
        // The receiver lives as long as any sender, so a send fails only if the runtime is shutting down.
        let _ = sender.send(item);
    }

    /// The number of `invocation_id`'s last dispatched event, when it may not have been delivered yet.
    fn last_of(&self, invocation_id: &str) -> Option<u64> {
        let dispatched = self.dispatched.lock().unwrap_or_else(PoisonError::into_inner);
        dispatched.last_of.get(&key(invocation_id)).copied()
    }

    fn count_delivered(&self) {
        self.delivered.send_modify(|delivered| *delivered += 1);
    }
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus")
            .field("n_observers", &self.n_observers)
            .field("wants_tokens", &self.wants_tokens)
            .field("n_observer_errors", &self.n_observer_errors())
            .finish()
    }
}

impl EventBus {
    /// Starts a queue delivering to `observers`, in the order given.
    ///
    /// # Panics
    ///
    /// When called outside a Tokio runtime (the queue's task needs one).
    pub fn new(observers: Vec<Arc<dyn Observer>>) -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            n_observer_errors: AtomicU64::new(0),
            names: SharedNames::default(),
            dispatched: Mutex::default(),
            delivered: watch::Sender::new(0),
        });
        let n_observers = observers.len();
        let wants_tokens = observers.iter().any(|observer| observer.wants_tokens());
        tokio::spawn(deliver(receiver, observers, Arc::clone(&shared)));
        Self {
            sender,
            shared,
            n_observers,
            wants_tokens,
        }
    }

    /// Whether any observer of this queue reads token events (see [`Observer::wants_tokens`]); when none does,
    /// the event layer builds none.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use std::sync::Arc;
    /// use oa_events::{EventBus, EventCounter, Observer};
    ///
    /// let counter: Arc<dyn Observer> = Arc::new(EventCounter::default());
    /// assert!(!EventBus::new(vec![counter]).wants_tokens());
    /// # }
    /// ```
    pub fn wants_tokens(&self) -> bool {
        self.wants_tokens
    }

    /// Puts `event` on the queue without waiting for delivery.
    pub fn dispatch(&self, event: Event) {
        self.shared.dispatch(&self.sender, Item::Event(Box::new(event)));
    }

    /// Puts `first` then `second` on the queue in one send (nothing can come between them).
    pub(crate) fn dispatch_pair(&self, first: Event, second: Event) {
        self.shared
            .dispatch(&self.sender, Item::Pair(Box::new((first, second))));
    }

    /// Waits until every event dispatched before this call has been delivered to every observer.
    ///
    /// # Errors
    ///
    /// [`DrainTimeout`] when `timeout` passes first.
    pub async fn drain(&self, timeout: Duration) -> Result<(), DrainTimeout> {
        let (done, wait) = oneshot::channel();
        if self.sender.send(Item::Flush(done)).is_err() {
            return Ok(());
        }
        match tokio::time::timeout(timeout, wait).await {
            Ok(_) => Ok(()),
            Err(_) => Err(DrainTimeout { timeout }),
        }
    }

    /// Waits until every event of `invocation_id` dispatched before this call has been delivered to every
    /// observer (graph-engine §6 *Per-invocation drain*): at once when there is none undelivered, and never for
    /// events of other invocations dispatched after that invocation's last one, nor for its own dispatched after
    /// the call. Delivery is strictly serial, so events dispatched before its last one are delivered first. A
    /// timeout cancels nothing: delivery goes on.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use std::time::Duration;
    /// use oa_events::EventBus;
    ///
    /// let bus = EventBus::new(Vec::new());
    /// assert!(bus.drain_events_for("no such invocation", Duration::ZERO).await.is_ok());
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`DrainTimeout`] when `timeout` passes first.
    pub async fn drain_events_for(&self, invocation_id: &str, timeout: Duration) -> Result<(), DrainTimeout> {
        let Some(last) = self.shared.last_of(invocation_id) else {
            return Ok(());
        };
        let mut delivered = self.shared.delivered.subscribe();
        match tokio::time::timeout(timeout, delivered.wait_for(|&delivered| delivered >= last)).await {
            // An error: the sender is gone with the queue's handles, so nothing more will be delivered.
            Ok(_) => Ok(()),
            Err(_) => Err(DrainTimeout { timeout }),
        }
    }

    /// How many observer calls failed or panicked so far.
    pub fn n_observer_errors(&self) -> u64 {
        self.shared.n_observer_errors.load(Ordering::Relaxed)
    }

    /// `name` (a provider or model name) as the queue's shared string for it.
    pub(crate) fn shared_name(&self, name: &str) -> Arc<str> {
        self.shared.names.get(name)
    }
}

async fn deliver(
    mut receiver: mpsc::UnboundedReceiver<Item>,
    observers: Vec<Arc<dyn Observer>>,
    shared: Arc<Shared>,
) {
    let n_observer_errors = &shared.n_observer_errors;
    while let Some(item) = receiver.recv().await {
        match item {
            Item::Flush(done) => {
                let _ = done.send(());
            }
            Item::Event(event) => {
                deliver_one(&event, &observers, n_observer_errors).await;
                shared.count_delivered();
            }
            Item::Pair(pair) => {
                deliver_one(&pair.0, &observers, n_observer_errors).await;
                shared.count_delivered();
                deliver_one(&pair.1, &observers, n_observer_errors).await;
                shared.count_delivered();
            }
        }
    }
}

/// Hands `event` to every observer in turn, isolating each one's error or panic: at once to an observer that
/// handles it so ([`Observer::on_event_now`]), else through its `on_event`.
async fn deliver_one(event: &Event, observers: &[Arc<dyn Observer>], n_observer_errors: &AtomicU64) {
    for observer in observers {
        let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| observer.on_event_now(event))) {
            Ok(Some(handled)) => Ok(handled),
            Ok(None) => AssertUnwindSafe(observer.on_event(event)).catch_unwind().await,
            Err(panic) => Err(panic),
        };
        let failed = match outcome {
            Ok(Ok(())) => false,
            Ok(Err(error)) => {
                tracing::warn!(target: "openarmature", %error, "observer error isolated");
                true
            }
            Err(_) => {
                tracing::warn!(target: "openarmature", "observer panic isolated");
                true
            }
        };
        if failed {
            n_observer_errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use serde_json::{Map, Value};

    use super::*;
    use crate::event::InvocationEvent;

    fn started(invocation_id: String) -> Event {
        Event::InvocationStarted(InvocationEvent {
            invocation_id,
            correlation_id: None,
            session_id: None,
            entry_node: "n".to_owned(),
            label: None,
            metadata: Map::new(),
            state: Value::Null,
            final_node: None,
            error: None,
            error_category: None,
            at: SystemTime::UNIX_EPOCH,
        })
    }

    #[tokio::test]
    async fn the_dispatch_table_keeps_only_what_may_be_undelivered() {
        let bus = EventBus::new(Vec::new());
        for n in 0..500 {
            bus.dispatch(started(format!("i{n}")));
            bus.drain_events_for(&format!("i{n}"), Duration::from_secs(5))
                .await
                .unwrap();
        }
        let kept = bus.shared.dispatched.lock().unwrap().last_of.len();
        assert!(kept <= KEPT_INVOCATIONS, "{kept} invocations kept");
        assert_eq!(*bus.shared.delivered.borrow(), 500);
    }
}
