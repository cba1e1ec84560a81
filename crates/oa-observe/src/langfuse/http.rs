//! The real client: Langfuse's public ingestion API (`POST {host}/api/public/ingestion`, HTTP Basic auth with the
//! public key as user and the secret key as password, a `{"batch": [...]}` body of typed events, a 207 answer
//! listing per-event successes and errors). Records are queued (bounded: the oldest are dropped and counted when
//! full) and sent in batches on flush, each request bounded in time; redirects are not followed, so the key never
//! travels to another host. The secret key appears in no error, log line or `Debug` output: errors name what
//! failed, and any text a server sends back is scrubbed of both keys before it is shown.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use reqwest::header::CONTENT_TYPE;
use reqwest::{StatusCode, Url};
use serde_json::{Value, json};

use super::client::{FlushReport, LangfuseClient, LangfuseError};
use super::isolation::ProviderBinding;
use super::model::{ObservationRecord, TraceRecord};
use super::time::rfc3339;

/// The variable Langfuse's SDKs read the public key from.
pub const PUBLIC_KEY_ENV: &str = "LANGFUSE_PUBLIC_KEY";
/// The variable Langfuse's SDKs read the secret key from.
pub const SECRET_KEY_ENV: &str = "LANGFUSE_SECRET_KEY";
/// The variable Langfuse's SDKs read the host from.
pub const HOST_ENV: &str = "LANGFUSE_HOST";
/// The host when none is given: Langfuse Cloud.
pub const DEFAULT_HOST: &str = "https://cloud.langfuse.com";

/// How much of a response body is read, at most.
const MAX_RESPONSE_BYTES: usize = 256 * 1024;
/// How many rejection messages a [`FlushReport`] keeps.
const MAX_REJECTIONS: usize = 5;

/// A Langfuse project's keys and host. `Debug` shows the public key and host, never the secret.
///
/// ```
/// use oa_observe::LangfuseCredentials;
///
/// let credentials = LangfuseCredentials::new("pk-lf-1", "sk-lf-very-secret", "http://127.0.0.1:3000");
/// assert!(!format!("{credentials:?}").contains("very-secret"));
/// ```
#[derive(Clone)]
pub struct LangfuseCredentials {
    public_key: String,
    secret_key: String,
    host: String,
}

impl fmt::Debug for LangfuseCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LangfuseCredentials")
            .field("public_key", &self.public_key)
            .field("secret_key", &"<redacted>")
            .field("host", &self.host)
            .finish()
    }
}

impl LangfuseCredentials {
    /// Keys and host as given.
    pub fn new(
        public_key: impl Into<String>,
        secret_key: impl Into<String>,
        host: impl Into<String>,
    ) -> Self {
        Self {
            public_key: public_key.into(),
            secret_key: secret_key.into(),
            host: host.into(),
        }
    }

    /// From `LANGFUSE_PUBLIC_KEY`, `LANGFUSE_SECRET_KEY` and `LANGFUSE_HOST` (default: Langfuse Cloud), the
    /// names Langfuse's own SDKs read.
    ///
    /// # Errors
    ///
    /// [`LangfuseError::MissingCredential`] naming the unset or empty key variable.
    pub fn from_env() -> Result<Self, LangfuseError> {
        let read = |name: &'static str| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
                .ok_or(LangfuseError::MissingCredential(name))
        };
        let host = read(HOST_ENV).unwrap_or_else(|_| DEFAULT_HOST.to_owned());
        Ok(Self::new(read(PUBLIC_KEY_ENV)?, read(SECRET_KEY_ENV)?, host))
    }

    /// 0114: a blank key is refused where a client is built from the credentials, never filled in from the
    /// environment behind the caller's back.
    pub(crate) fn check(&self) -> Result<(), LangfuseError> {
        if self.public_key.trim().is_empty() {
            return Err(LangfuseError::MissingCredential("public_key"));
        }
        if self.secret_key.trim().is_empty() {
            return Err(LangfuseError::MissingCredential("secret_key"));
        }
        Ok(())
    }

    /// The host (base URL).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The public key.
    pub fn public_key(&self) -> &str {
        &self.public_key
    }
}

/// The HTTP client's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Events per request (default 50).
    pub batch_size: usize,
    /// Events held between flushes; past it the oldest are dropped and counted (default 10,000).
    pub max_queue: usize,
    /// Serialized bytes per request (default 3 MB, under Langfuse's 3.5 MB request limit).
    pub max_batch_bytes: usize,
    /// The whole of one request (default 10 s).
    pub timeout: Duration,
    /// Establishing a connection (default 5 s).
    pub connect_timeout: Duration,
    /// Tries per batch when the server fails (5xx, 429) or the request does (default 3).
    pub max_attempts: u32,
    /// The wait between tries (default 500 ms).
    pub retry_wait: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            batch_size: 50,
            max_queue: 10_000,
            max_batch_bytes: 3_000_000,
            timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            max_attempts: 3,
            retry_wait: Duration::from_millis(500),
        }
    }
}

/// Sends records to Langfuse's public ingestion API. Queues on record; sends on [`flush`](LangfuseClient::flush).
///
/// ```
/// use oa_observe::{HttpLangfuseClient, HttpLimits, LangfuseCredentials, LangfuseError};
///
/// let credentials = LangfuseCredentials::new("pk", "sk", "ftp://example.invalid");
/// let error = HttpLangfuseClient::new(credentials, HttpLimits::default()).unwrap_err();
/// assert!(matches!(error, LangfuseError::InvalidHost(_)));
/// ```
pub struct HttpLangfuseClient {
    http: reqwest::Client,
    endpoint: Url,
    credentials: LangfuseCredentials,
    limits: HttpLimits,
    queue: Mutex<VecDeque<Value>>,
    n_dropped: AtomicUsize,
    flushing: tokio::sync::Mutex<()>,
}

impl fmt::Debug for HttpLangfuseClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpLangfuseClient")
            .field("endpoint", &self.endpoint.as_str())
            .field("credentials", &self.credentials)
            .field("limits", &self.limits)
            .field("queued", &self.queue().len())
            .finish()
    }
}

impl HttpLangfuseClient {
    /// A client for `credentials`' host.
    ///
    /// # Errors
    ///
    /// [`LangfuseError::MissingCredential`] for a blank key; [`LangfuseError::InvalidHost`] for a host that is not
    /// an http(s) URL, or carries a user, password, query or fragment; [`LangfuseError::Build`] when the HTTP client
    /// cannot be built.
    pub fn new(credentials: LangfuseCredentials, limits: HttpLimits) -> Result<Self, LangfuseError> {
        credentials.check()?;
        let host =
            Url::parse(credentials.host.trim()).map_err(|_| LangfuseError::InvalidHost("not a URL"))?;
        if !matches!(host.scheme(), "http" | "https") {
            return Err(LangfuseError::InvalidHost("the scheme must be http or https"));
        }
        if !host.username().is_empty() || host.password().is_some() {
            return Err(LangfuseError::InvalidHost(
                "credentials go in the keys, not in the URL",
            ));
        }
        if host.query().is_some() || host.fragment().is_some() {
            return Err(LangfuseError::InvalidHost(
                "a query or fragment has no place in it",
            ));
        }
        let mut base = host;
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let endpoint = base
            .join("api/public/ingestion")
            .map_err(|_| LangfuseError::InvalidHost("cannot form the ingestion URL"))?;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(limits.timeout)
            .connect_timeout(limits.connect_timeout)
            .build()
            .map_err(|_| LangfuseError::Build)?;
        Ok(Self {
            http,
            endpoint,
            credentials,
            limits,
            queue: Mutex::new(VecDeque::new()),
            n_dropped: AtomicUsize::new(0),
            flushing: tokio::sync::Mutex::new(()),
        })
    }

    /// How many events wait for the next flush.
    pub fn n_queued(&self) -> usize {
        self.queue().len()
    }

    fn queue(&self) -> MutexGuard<'_, VecDeque<Value>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn enqueue(&self, kind: &str, body: Value) {
        let event = json!({
            "id": oa_events::random_uuid(),
            "type": kind,
            "timestamp": rfc3339(SystemTime::now()),
            "body": body,
        });
        let mut queue = self.queue();
        queue.push_back(event);
        self.bound(&mut queue);
    }

    /// Drops the oldest events past the queue bound, counting them.
    fn bound(&self, queue: &mut VecDeque<Value>) {
        while queue.len() > self.limits.max_queue {
            queue.pop_front();
            self.n_dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The next batch: up to `batch_size` events and `max_batch_bytes` bytes (an event alone over the byte cap is
    /// dropped and reported).
    fn next_batch(&self, report: &mut FlushReport) -> Vec<Value> {
        let mut queue = self.queue();
        let mut batch = Vec::new();
        let mut n_bytes = 0;
        while let Some(event) = queue.front() {
            let size = event.to_string().len();
            if size > self.limits.max_batch_bytes {
                queue.pop_front();
                report.n_rejected += 1;
                push_rejection(
                    report,
                    "an event larger than the batch byte cap was dropped".to_owned(),
                );
                continue;
            }
            if batch.len() == self.limits.batch_size || n_bytes + size > self.limits.max_batch_bytes {
                break;
            }
            n_bytes += size;
            batch.extend(queue.pop_front());
        }
        batch
    }

    /// One request; `Ok` carries the 2xx answer's body.
    async fn post(&self, batch: &[Value]) -> Result<Value, Failure> {
        let body = serde_json::to_vec(&json!({"batch": batch})).unwrap_or_default();
        let response = self
            .http
            .post(self.endpoint.clone())
            .basic_auth(&self.credentials.public_key, Some(&self.credentials.secret_key))
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|error| Failure::Retry(self.transport_error(&error)))?;
        let status = response.status();
        let text = read_capped(response).await;
        if status.is_success() {
            return Ok(serde_json::from_str(&text).unwrap_or(Value::Null));
        }
        let error = LangfuseError::Status {
            url: self.endpoint.to_string(),
            status: status.as_u16(),
            message: self.scrub(&text),
        };
        if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
            Err(Failure::Retry(error))
        } else {
            Err(Failure::Final(error))
        }
    }

    /// [`post`](Self::post), tried again after a wait while the failure is worth retrying and tries remain.
    async fn post_with_retries(&self, batch: &[Value]) -> Result<Value, Failure> {
        let mut attempt = 1;
        loop {
            match self.post(batch).await {
                Err(Failure::Retry(_)) if attempt < self.limits.max_attempts => {
                    attempt += 1;
                    tokio::time::sleep(self.limits.retry_wait).await;
                }
                outcome => return outcome,
            }
        }
    }

    /// The URL and the cause in words: the socket's own error (connection refused, name not resolved) or the
    /// timeout; never reqwest's Display, which repeats the URL as sent.
    fn transport_error(&self, error: &reqwest::Error) -> LangfuseError {
        let what = if error.is_timeout() {
            format!("timed out (limit {:?})", self.limits.timeout)
        } else if let Some(io) = crate::cause::io_cause(error) {
            io
        } else if error.is_connect() {
            "could not connect to the Langfuse host".to_owned()
        } else {
            "the exchange failed".to_owned()
        };
        LangfuseError::Transport(format!("POST {}: {what}", self.endpoint))
    }

    /// Server text with both keys replaced and cut to 300 characters.
    fn scrub(&self, text: &str) -> String {
        let mut scrubbed = text.to_owned();
        for key in [&self.credentials.secret_key, &self.credentials.public_key] {
            if !key.is_empty() {
                scrubbed = scrubbed.replace(key.as_str(), "<redacted>");
            }
        }
        scrubbed.chars().take(300).collect()
    }

    /// Puts a batch back at the front of the queue (within the bound) for the next flush.
    fn requeue(&self, batch: Vec<Value>) {
        let mut queue = self.queue();
        for event in batch.into_iter().rev() {
            queue.push_front(event);
        }
        while queue.len() > self.limits.max_queue {
            queue.pop_back();
            self.n_dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Why a request failed: worth retrying (5xx, 429, transport) or not (any other status).
enum Failure {
    Retry(LangfuseError),
    Final(LangfuseError),
}

fn push_rejection(report: &mut FlushReport, message: String) {
    if report.rejections.len() < MAX_REJECTIONS {
        report.rejections.push(message);
    }
}

/// The body as text, at most [`MAX_RESPONSE_BYTES`] of it.
async fn read_capped(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = MAX_RESPONSE_BYTES.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_RESPONSE_BYTES {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

#[async_trait]
impl LangfuseClient for HttpLangfuseClient {
    /// It talks to the ingestion API itself: no OpenTelemetry provider sees its records.
    fn binding(&self) -> ProviderBinding {
        ProviderBinding::NoProvider
    }

    fn upsert_trace(&self, trace: &TraceRecord) {
        self.enqueue("trace-create", trace.to_json());
    }

    fn record_observation(&self, observation: &ObservationRecord) {
        self.enqueue(observation.ingestion_type(), observation.to_json());
    }

    fn wants_flush(&self) -> bool {
        self.queue().len() >= self.limits.batch_size
    }

    async fn flush(&self) -> Result<FlushReport, LangfuseError> {
        let _one_at_a_time = self.flushing.lock().await;
        let mut report = FlushReport::default();
        loop {
            let batch = self.next_batch(&mut report);
            if batch.is_empty() {
                break;
            }
            let answer = match self.post_with_retries(&batch).await {
                Ok(answer) => answer,
                Err(Failure::Retry(error)) => {
                    self.requeue(batch);
                    return Err(error);
                }
                Err(Failure::Final(error)) => {
                    report.n_rejected += batch.len();
                    return Err(error);
                }
            };
            let errors = answer["errors"].as_array().map_or(&[][..], Vec::as_slice);
            for error in errors {
                let message = error["message"]
                    .as_str()
                    .or_else(|| error["error"].as_str())
                    .unwrap_or("rejected");
                push_rejection(&mut report, self.scrub(message));
            }
            report.n_rejected += errors.len();
            report.n_sent += batch.len().saturating_sub(errors.len());
        }
        report.n_dropped = self.n_dropped.swap(0, Ordering::Relaxed);
        Ok(report)
    }
}
