//! An observer on the soak's event bus, beside the OpenTelemetry one, that counts what the bus delivered: one
//! attempt event per wire attempt (and those stopped early), one terminal event per call, a token event per
//! streamed delta, a partial-value event per value a streamed structured answer completed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use oa_events::{Event, Observer, ObserverError};

/// The counts, shared between the observer on the bus and the driver.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    attempts: AtomicU64,
    completions: AtomicU64,
    failures: AtomicU64,
    tokens: AtomicU64,
    early_stops: AtomicU64,
    partial_values: AtomicU64,
}

/// The counts at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// `LlmAttempt` events.
    pub attempts: u64,
    /// `LlmCompletion` events.
    pub completions: u64,
    /// `LlmFailed` events.
    pub failures: u64,
    /// `LlmToken` events.
    pub tokens: u64,
    /// `LlmAttempt` events of attempts stopped at their first certain violation.
    pub early_stops: u64,
    /// `LlmPartialValue` events.
    pub partial_values: u64,
}

impl Tally {
    /// The counts so far.
    pub(crate) fn counts(&self) -> Counts {
        Counts {
            attempts: self.attempts.load(Ordering::Relaxed),
            completions: self.completions.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            tokens: self.tokens.load(Ordering::Relaxed),
            early_stops: self.early_stops.load(Ordering::Relaxed),
            partial_values: self.partial_values.load(Ordering::Relaxed),
        }
    }
}

/// The observer half: counts each event into its [`Tally`].
#[derive(Debug)]
pub(crate) struct TallyObserver(pub(crate) Arc<Tally>);

#[async_trait]
impl Observer for TallyObserver {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        if let Event::LlmAttempt(attempt) = event
            && attempt.early_stop.is_some()
        {
            self.0.early_stops.fetch_add(1, Ordering::Relaxed);
        }
        let counter = match event {
            Event::LlmAttempt(_) => &self.0.attempts,
            Event::LlmPartialValue(_) => &self.0.partial_values,
            Event::LlmCompletion(_) => &self.0.completions,
            Event::LlmFailed(_) => &self.0.failures,
            Event::LlmToken(_) => &self.0.tokens,
            _ => return Ok(()),
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
