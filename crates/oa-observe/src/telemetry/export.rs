//! The HTTP client the OTLP exporters send through: reqwest's blocking client (the SDK's batch processors export
//! from their own threads), which also remembers why the first export failed. The exporter itself keeps only
//! "network error" or a status code; a collector that is down must be named, with its cause, once.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

/// The largest collector answer read (what opentelemetry-http's own clients allow).
const MAX_RESPONSE_BYTES: u64 = 4 * 1024 * 1024;

/// How long one export may take (the OTLP default).
pub(crate) const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The first export failure: the URL it was sent to (checked at build to hold no user, password or query) and the
/// cause in words.
pub(crate) type FirstFailure = Arc<Mutex<Option<String>>>;

/// An OTLP HTTP client recording the first failed export (refused, timed out, an error status) into a shared slot.
#[derive(Debug, Clone)]
pub(crate) struct RecordingClient {
    http: reqwest::blocking::Client,
    failure: FirstFailure,
}

impl RecordingClient {
    /// A client with the export timeout and no redirects, recording into `failure`. Builds a blocking client:
    /// call outside an async runtime's worker.
    pub(crate) fn new(failure: FirstFailure) -> Result<Self, reqwest::Error> {
        let http = reqwest::blocking::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Self { http, failure })
    }

    fn record(&self, url: &str, cause: &str) {
        let mut slot = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(format!("OTLP export to {url} failed: {cause}"));
        }
    }
}

#[async_trait]
impl HttpClient for RecordingClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let url = request.uri().to_string();
        let request = reqwest::blocking::Request::try_from(request.map(|body| body.to_vec()))?;
        let response = match self.http.execute(request) {
            Ok(response) => response,
            Err(error) => {
                self.record(&url, &cause(&error));
                return Err(Box::new(error));
            }
        };
        let status = response.status();
        if !status.is_success() {
            self.record(&url, &format!("the collector answered HTTP {}", status.as_u16()));
        }
        let headers = response.headers().clone();
        let mut body = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(response, MAX_RESPONSE_BYTES), &mut body)?;
        let mut answer = Response::builder()
            .status(status.as_u16())
            .body(Bytes::from(body))?;
        *answer.headers_mut() = headers;
        Ok(answer)
    }
}

/// Why a request did not complete, in words: the socket's own error (connection refused, name not resolved) or a
/// timeout; never reqwest's Display, which repeats the URL.
fn cause(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("no answer within {EXPORT_TIMEOUT:?}");
    }
    crate::cause::io_cause(error).unwrap_or_else(|| {
        if error.is_connect() {
            "could not connect".to_owned()
        } else {
            "the exchange failed".to_owned()
        }
    })
}
