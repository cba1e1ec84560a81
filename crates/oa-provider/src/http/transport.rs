//! HTTP for every wire format: one reqwest client with redirects off, the key as a sensitive header, every read
//! bounded by an idle gap and a total deadline, bodies capped in size, and transport errors scrubbed of URLs
//! and the key.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::time::Instant;

use crate::endpoint::BuildError;
use crate::http::urls::Urls;
use crate::model::{Category, ProviderError, ScrubbedCause, TransportCause};

/// Timeouts and size caps for one provider (documented defaults on each provider's builder).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) connect_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) total_timeout: Duration,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_sse_line_bytes: usize,
}

/// A configured HTTP client bound to a base URL.
pub(crate) struct Transport {
    client: reqwest::Client,
    base_url: String,
    /// `host:port` of the base URL: what an error may name (never the path or a query).
    authority: String,
    urls: Urls,
    /// The headers of a GET: the wire format's fixed ones, the caller's extras, the key.
    headers: HeaderMap,
    /// Those of a POST (`content-type` appended) and of a streamed POST (`accept` appended too), made once: a
    /// request takes a clone instead of having each header inserted into it again.
    post_headers: HeaderMap,
    post_sse_headers: HeaderMap,
    /// The key and every extra header value: text scrubbed from anything the provider echoes back.
    secrets: Vec<String>,
    pub(crate) limits: Limits,
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Headers (the key among them) are never printed; only their names would be safe, and none are needed.
        f.debug_struct("Transport")
            .field("base_url", &self.base_url)
            .field("n_secrets", &self.secrets.len())
            .field("n_headers", &self.headers.len())
            .field("limits", &self.limits)
            .finish()
    }
}

/// A request ready to send, or why reqwest could not build it.
struct Outgoing(Result<reqwest::Request, reqwest::Error>);

impl Outgoing {
    fn body(self, body: bytes::Bytes) -> Self {
        Self(self.0.map(|mut request| {
            *request.body_mut() = Some(body.into());
            request
        }))
    }
}

/// A response whose status and headers have arrived; the body is read on demand within the deadlines.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<String>,
    response: reqwest::Response,
    deadline: Instant,
}

impl Transport {
    pub(crate) fn new(
        base_url: String,
        headers: HeaderMap,
        secrets: Vec<String>,
        limits: Limits,
    ) -> Result<Self, reqwest::Error> {
        let client = reqwest::Client::builder()
            // A 3xx is an error: following it would forward custom key headers to another host.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(limits.connect_timeout)
            .build()?;
        let authority = reqwest::Url::parse(&base_url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_owned();
                Some(format!("{host}:{}", url.port_or_known_default()?))
            })
            .unwrap_or_else(|| "the endpoint".to_owned());
        // Appended, as `RequestBuilder::header` does: the same headers, in the same order, as when each request
        // added them.
        let mut post_headers = headers.clone();
        post_headers.append(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let mut post_sse_headers = post_headers.clone();
        post_sse_headers.append(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        Ok(Self {
            client,
            base_url,
            authority,
            urls: Urls::default(),
            headers,
            post_headers,
            post_sse_headers,
            secrets,
            limits,
        })
    }

    /// Replaces the key and header values in provider-supplied text, so an echoed secret never reaches an error.
    /// Values shorter than 4 bytes are left alone: they carry no secret and would mangle ordinary text.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for secret in self.secrets.iter().filter(|secret| secret.len() >= 4) {
            text = text.replace(secret.as_str(), "[redacted]");
        }
        text.replace(&self.base_url, "[base-url]")
    }

    /// POSTs `body` (already canonical JSON) to `path` under the base URL.
    pub(crate) async fn post(
        &self,
        path: &str,
        body: bytes::Bytes,
        accept_sse: bool,
    ) -> Result<Reply, ProviderError> {
        let deadline = Instant::now() + self.limits.total_timeout;
        let headers = if accept_sse {
            &self.post_sse_headers
        } else {
            &self.post_headers
        };
        let request = self.request(reqwest::Method::POST, path, headers).body(body);
        self.send(request, deadline).await
    }

    /// GETs `path` under the base URL.
    pub(crate) async fn get(&self, path: &str) -> Result<Reply, ProviderError> {
        let deadline = Instant::now() + self.limits.total_timeout;
        let request = self.request(reqwest::Method::GET, path, &self.headers);
        self.send(request, deadline).await
    }

    /// A request to `path` under the base URL with `headers`, its URL parsed once per path (given as text when it
    /// does not parse, so reqwest reports that as before).
    fn request(&self, method: reqwest::Method, path: &str, headers: &HeaderMap) -> Outgoing {
        let builder = match self.urls.get(&self.base_url, path) {
            Some(url) => self.client.request(method, url),
            None => self.client.request(method, format!("{}{path}", self.base_url)),
        };
        // The request's headers are empty until now, so the map is the clone as it is, with no header inserted
        // one by one (`RequestBuilder::headers` would).
        let request = builder.build().map(|mut request| {
            *request.headers_mut() = headers.clone();
            request
        });
        Outgoing(request)
    }

    async fn send(&self, outgoing: Outgoing, deadline: Instant) -> Result<Reply, ProviderError> {
        // A request that could not be built (a URL reqwest refuses) fails as sending it would have.
        let request = outgoing.0.map_err(|error| self.transport_error(error))?;
        let response = self
            .bounded(deadline, self.client.execute(request))
            .await?
            .map_err(|error| self.transport_error(error))?;
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        Ok(Reply {
            status: response.status().as_u16(),
            retry_after,
            response,
            deadline,
        })
    }

    /// Reads the whole body, failing past the size cap. A body that arrives in one chunk (the usual case for a
    /// completion) is returned as that chunk, not copied.
    pub(crate) async fn read_body(&self, reply: &mut Reply) -> Result<bytes::Bytes, ProviderError> {
        let too_large = || {
            ProviderError::invalid_response(format!(
                "response body exceeds {} bytes",
                self.limits.max_body_bytes
            ))
        };
        let Some(first) = self.next_chunk(reply).await? else {
            return Ok(bytes::Bytes::new());
        };
        if first.len() > self.limits.max_body_bytes {
            return Err(too_large());
        }
        // A body of known length that has all arrived (hyper counts down what remains) is complete: no second read
        // (and no second deadline timer) just to be told so. hyper drains the nothing that is left and keeps the
        // connection.
        if reply.response.content_length() == Some(0) {
            return Ok(first);
        }
        let Some(second) = self.next_chunk(reply).await? else {
            return Ok(first);
        };
        let mut body = Vec::with_capacity(first.len() + second.len());
        body.extend_from_slice(&first);
        let mut chunk = Some(second);
        while let Some(next) = chunk {
            if body.len() + next.len() > self.limits.max_body_bytes {
                return Err(too_large());
            }
            body.extend_from_slice(&next);
            chunk = self.next_chunk(reply).await?;
        }
        Ok(bytes::Bytes::from(body))
    }

    /// The next body chunk, within the idle gap and the total deadline; `None` at the end.
    pub(crate) async fn next_chunk(&self, reply: &mut Reply) -> Result<Option<bytes::Bytes>, ProviderError> {
        let deadline = reply.deadline;
        self.bounded(deadline, reply.response.chunk())
            .await?
            .map_err(|error| self.transport_error(error))
    }

    /// Runs `future` until the sooner of the idle gap and the deadline.
    async fn bounded<T>(
        &self,
        deadline: Instant,
        future: impl Future<Output = T>,
    ) -> Result<T, ProviderError> {
        let idle_end = Instant::now() + self.limits.idle_timeout;
        let total_hit = deadline <= idle_end;
        match tokio::time::timeout_at(idle_end.min(deadline), future).await {
            Ok(value) => Ok(value),
            Err(_) => {
                let (cause, message) = if total_hit {
                    (
                        TransportCause::TotalTimeout,
                        format!(
                            "timed out: {} gave no complete answer within the total timeout of {}",
                            self.authority,
                            seconds(self.limits.total_timeout)
                        ),
                    )
                } else {
                    (
                        TransportCause::IdleTimeout,
                        format!(
                            "timed out: {} sent nothing for {} (the idle timeout)",
                            self.authority,
                            seconds(self.limits.idle_timeout)
                        ),
                    )
                };
                Err(ProviderError::new(Category::Unavailable, message)
                    .with_timeout()
                    .with_transport_cause(cause))
            }
        }
    }

    fn transport_error(&self, error: reqwest::Error) -> ProviderError {
        let timeout = error.is_timeout();
        let connecting = error.is_connect();
        // reqwest's Display names the URL; drop it and keep the causes' text, scrubbed again for good measure.
        let error = error.without_url();
        let mut text = error.to_string();
        let mut io_kind = None;
        let mut source: Option<&(dyn StdError + 'static)> = error.source();
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                io_kind.get_or_insert(io.kind());
            }
            source = cause.source();
        }
        let text = self.scrub(&text);
        let cause = TransportCause::classify(timeout, connecting, io_kind, &text);
        let message = cause.describe(&self.authority, self.limits.connect_timeout);
        let mut provider_error = ProviderError::new(Category::Unavailable, message)
            .with_source(ScrubbedCause(text))
            .with_transport_cause(cause);
        if timeout {
            provider_error = provider_error.with_timeout();
        }
        provider_error
    }
}

/// Whole seconds, or milliseconds below one second, for messages.
fn seconds(duration: Duration) -> String {
    if duration >= Duration::from_secs(1) {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

impl TransportCause {
    /// Reads a transport failure: reqwest's flags, the first I/O error kind in the chain, and the chain's text
    /// (DNS and TLS failures are recognised only there).
    fn classify(timeout: bool, connecting: bool, io_kind: Option<std::io::ErrorKind>, text: &str) -> Self {
        let lower = text.to_ascii_lowercase();
        if timeout && connecting {
            Self::ConnectTimeout
        } else if timeout {
            Self::IdleTimeout
        } else if lower.contains("dns error") || lower.contains("failed to lookup address") {
            Self::NameNotResolved
        } else if io_kind == Some(std::io::ErrorKind::ConnectionRefused) {
            Self::ConnectionRefused
        } else if lower.contains("tls") || lower.contains("certificate") || lower.contains("handshake") {
            Self::Tls
        } else if matches!(
            io_kind,
            Some(
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            )
        ) || lower.contains("connection closed")
            || lower.contains("incomplete message")
        {
            Self::ConnectionReset
        } else {
            Self::Other
        }
    }

    /// The error's message: the cause, the endpoint's `host:port`, and for a timeout which one and how long.
    fn describe(self, authority: &str, connect_timeout: Duration) -> String {
        match self {
            Self::ConnectionRefused => format!("connection refused by {authority} (is the server running?)"),
            Self::NameNotResolved => format!("name not resolved: {authority}"),
            Self::Tls => format!("TLS handshake with {authority} failed"),
            Self::ConnectionReset => {
                format!("connection to {authority} was closed or reset before the answer completed")
            }
            Self::ConnectTimeout => format!(
                "timed out connecting to {authority} after {} (the connect timeout)",
                seconds(connect_timeout)
            ),
            Self::IdleTimeout | Self::TotalTimeout => format!("timed out talking to {authority}"),
            Self::Other => format!("transport error talking to {authority}"),
        }
    }
}

/// How a wire format sends its API key: always in a header, never in the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer KEY` (OpenAI).
    Bearer,
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
    /// `x-goog-api-key: KEY` (Gemini; the key is never put in a `?key=` query).
    XGoogApiKey,
}

impl KeyHeader {
    /// The header name and value that carry `secret`.
    fn carrying(self, secret: &str) -> (HeaderName, String) {
        match self {
            Self::Bearer => (reqwest::header::AUTHORIZATION, format!("Bearer {secret}")),
            Self::XApiKey => (HeaderName::from_static("x-api-key"), secret.to_owned()),
            Self::XGoogApiKey => (HeaderName::from_static("x-goog-api-key"), secret.to_owned()),
        }
    }
}

/// Builds the header map: the wire format's fixed protocol headers (not secret, e.g. `anthropic-version`), then
/// the caller's extra headers (which may replace a fixed one), then the key in the wire format's header; extra
/// and key values are marked sensitive so no Debug prints them.
pub(crate) fn build_headers(
    fixed: &[(&'static str, &'static str)],
    extra: &[(String, String)],
    secret: Option<&str>,
    key_header: KeyHeader,
) -> Result<HeaderMap, BuildError> {
    let mut headers = HeaderMap::new();
    for (name, value) in fixed {
        headers.insert(HeaderName::from_static(name), HeaderValue::from_static(value));
    }
    for (name, value) in extra {
        let header_name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| BuildError::InvalidHeader { name: name.clone() })?;
        let mut header_value =
            HeaderValue::from_str(value).map_err(|_| BuildError::InvalidHeader { name: name.clone() })?;
        header_value.set_sensitive(true);
        headers.insert(header_name, header_value);
    }
    if let Some(secret) = secret {
        let (name, value) = key_header.carrying(secret);
        let mut value = HeaderValue::from_str(&value).map_err(|_| BuildError::InvalidHeader {
            name: name.as_str().to_owned(),
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(headers)
}
