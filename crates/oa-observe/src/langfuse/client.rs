//! Where the mapping's records go: the [`LangfuseClient`] trait, and [`LangfuseRecorder`], the in-memory client
//! the conformance adapter describes (conformance-adapter §6.4), which keeps what a Langfuse server would hold.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;

use super::isolation::ProviderBinding;
use super::model::{ObservationRecord, TraceRecord};

/// What a flush delivered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlushReport {
    /// Events the server accepted.
    pub n_sent: usize,
    /// Events the server rejected one by one (a 207's errors); not retried.
    pub n_rejected: usize,
    /// Events dropped since the last flush because the queue was full.
    pub n_dropped: usize,
    /// The first few rejection messages, secrets scrubbed.
    pub rejections: Vec<String>,
}

/// A flush that did not deliver everything, or a client that could not be built. Never carries a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LangfuseError {
    /// A credential is missing (the name of the environment variable or field, never a value).
    #[error("Langfuse credential missing: {0}")]
    MissingCredential(&'static str),
    /// The host is not a usable base URL.
    #[error("Langfuse host is not usable: {0}")]
    InvalidHost(&'static str),
    /// The HTTP client could not be built.
    #[error("cannot build the Langfuse HTTP client")]
    Build,
    /// The request did not complete (timeout, refused connection, reset): the URL it went to and the cause.
    #[error("Langfuse ingestion request failed: {0}")]
    Transport(String),
    /// The server answered an error status for the whole batch.
    #[error("Langfuse ingestion at {url} answered HTTP {status}: {message}")]
    Status {
        /// The ingestion URL (checked to hold no user, password or query).
        url: String,
        /// The status code.
        status: u16,
        /// The start of the body, secrets scrubbed.
        message: String,
    },
    /// Events are still queued after the flush gave up on them; they are retried on the next flush.
    #[error("{0} Langfuse events are still queued")]
    Pending(usize),
    /// Observability §6 (0116): the client oa built emits through a tracer provider oa did not isolate, and a
    /// payload channel is live, so payloads would reach a provider shared with the application. Raised at
    /// construction, before anything is emitted; `accept_shared_provider` is the one opt-out.
    #[error(
        "langfuse_provider_isolation_unavailable: the Langfuse client emits through a tracer provider shared with \
         the application while a payload channel is live; build the client on the isolated provider, turn the \
         payload off, or accept the shared provider explicitly"
    )]
    ProviderIsolationUnavailable,
}

impl LangfuseError {
    /// The error's category: §6's `langfuse_provider_isolation_unavailable` for
    /// [`ProviderIsolationUnavailable`](LangfuseError::ProviderIsolationUnavailable), oa's own snake_case names for
    /// the rest.
    ///
    /// ```
    /// use oa_observe::LangfuseError;
    ///
    /// assert_eq!(
    ///     LangfuseError::ProviderIsolationUnavailable.category(),
    ///     "langfuse_provider_isolation_unavailable"
    /// );
    /// ```
    pub fn category(&self) -> &'static str {
        match self {
            Self::MissingCredential(_) => "langfuse_credential_missing",
            Self::InvalidHost(_) => "langfuse_host_invalid",
            Self::Build => "langfuse_client_build_failed",
            Self::Transport(_) => "langfuse_transport_failed",
            Self::Status { .. } => "langfuse_status",
            Self::Pending(_) => "langfuse_pending",
            Self::ProviderIsolationUnavailable => "langfuse_provider_isolation_unavailable",
        }
    }
}

/// Receives the mapping's records. Recording never blocks on the network: an implementation queues (bounded) and
/// sends on [`flush`](LangfuseClient::flush).
#[async_trait]
pub trait LangfuseClient: Send + Sync + fmt::Debug {
    /// Creates or updates a trace (an upsert by id: later fields win, absent ones are kept).
    fn upsert_trace(&self, trace: &TraceRecord);

    /// Records a finished observation.
    fn record_observation(&self, observation: &ObservationRecord);

    /// Which OpenTelemetry provider the client emits its observations through (observability §6). The default,
    /// [`ProviderBinding::Unknown`], makes an observer that built the client close every payload channel.
    fn binding(&self) -> ProviderBinding {
        ProviderBinding::Unknown
    }

    /// Whether enough is queued that the observer should flush now rather than at the invocation's end.
    fn wants_flush(&self) -> bool {
        false
    }

    /// Sends what is queued.
    ///
    /// # Errors
    ///
    /// [`LangfuseError`] when something could not be delivered.
    async fn flush(&self) -> Result<FlushReport, LangfuseError> {
        Ok(FlushReport::default())
    }
}

/// The in-memory client: every trace (upserts merged as Langfuse merges them) and observation, in arrival order,
/// for tests and for the conformance harness. Nothing leaves the process.
///
/// ```
/// use std::sync::Arc;
/// use oa_observe::{LangfuseClient, LangfuseConfig, LangfuseObserver, LangfuseRecorder};
///
/// let recorder = Arc::new(LangfuseRecorder::default());
/// let observer = LangfuseObserver::new(recorder.clone() as Arc<dyn LangfuseClient>, LangfuseConfig::default());
/// assert!(recorder.traces().is_empty());
/// # let _ = observer;
/// ```
#[derive(Debug, Default)]
pub struct LangfuseRecorder {
    recorded: Mutex<Recorded>,
}

#[derive(Debug, Default)]
struct Recorded {
    traces: Vec<TraceRecord>,
    observations: Vec<ObservationRecord>,
}

impl LangfuseRecorder {
    /// Every trace, in order of first appearance, each with its upserts merged.
    pub fn traces(&self) -> Vec<TraceRecord> {
        self.lock().traces.clone()
    }

    /// Every observation, in the order recorded (each is recorded when it ends).
    pub fn observations(&self) -> Vec<ObservationRecord> {
        self.lock().observations.clone()
    }

    fn lock(&self) -> MutexGuard<'_, Recorded> {
        self.recorded.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl LangfuseClient for LangfuseRecorder {
    fn upsert_trace(&self, trace: &TraceRecord) {
        let mut recorded = self.lock();
        match recorded.traces.iter_mut().find(|known| known.id == trace.id) {
            Some(known) => merge_trace(known, trace),
            None => recorded.traces.push(trace.clone()),
        }
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.lock().observations.push(observation.clone());
    }

    /// In memory: no provider.
    fn binding(&self) -> ProviderBinding {
        ProviderBinding::NoProvider
    }
}

/// Langfuse's upsert: the later record's fields replace the earlier ones where set; metadata merges key by key.
pub(crate) fn merge_trace(known: &mut TraceRecord, update: &TraceRecord) {
    known.name.clone_from(&update.name);
    for (key, value) in &update.metadata {
        known.metadata.insert(key.clone(), value.clone());
    }
    if update.input.is_some() {
        known.input.clone_from(&update.input);
    }
    if update.output.is_some() {
        known.output.clone_from(&update.output);
    }
    if update.user_id.is_some() {
        known.user_id.clone_from(&update.user_id);
    }
    if update.session_id.is_some() {
        known.session_id.clone_from(&update.session_id);
    }
}
