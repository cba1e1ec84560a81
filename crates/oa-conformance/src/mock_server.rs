//! The mock provider: a real HTTP/1.1 server on 127.0.0.1 serving a fixture's canned responses in
//! order and capturing every request's bytes (llm-provider fixture 001, 005, 007 and 059 headers).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::node::Node;

/// The largest request head the mock reads; a client sending more is answered 431.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The largest request body the mock reads; a client sending more is answered 413.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// One canned reply, as a fixture's `mock_provider.responses` entry or `health_endpoint` describes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MockReply {
    /// An HTTP response: status, extra headers, and a JSON body or an SSE stream.
    Http {
        /// The status code.
        status: u16,
        /// Extra headers (`Retry-After`, …), values as strings.
        headers: Vec<(String, String)>,
        /// The body.
        body: MockBody,
    },
    /// Close the connection without answering (`connection_failure: true`).
    ConnectionFailure,
}

/// A canned body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MockBody {
    /// `body:` serialized as JSON (absent `body:` is an empty body).
    Json(Option<Value>),
    /// `stream_body:` as Server-Sent Events: each JSON object, or the literal `[DONE]`, on its own `data:` line.
    Sse(Vec<Value>),
}

impl MockReply {
    /// Reads a `responses` entry or a `health_endpoint` block.
    pub(crate) fn from_node(node: &Node) -> Result<MockReply, String> {
        if node.get("connection_failure").and_then(Node::as_bool) == Some(true) {
            return Ok(MockReply::ConnectionFailure);
        }
        let status = node
            .get("status")
            .and_then(Node::as_i64)
            .ok_or("a mock response needs an integer `status`")?;
        let status = u16::try_from(status)
            .ok()
            .filter(|s| (100..=999).contains(s))
            .ok_or("status out of range")?;
        let mut headers = Vec::new();
        for (name, value) in node.get("headers").and_then(Node::as_map).unwrap_or_default() {
            let value = match value {
                Node::Str(text) => text.clone(),
                other => other.to_json().to_string(),
            };
            headers.push((name.clone(), value));
        }
        let body = match node.get("stream_body").and_then(Node::as_seq) {
            Some(chunks) => MockBody::Sse(chunks.iter().map(Node::to_json).collect()),
            None => MockBody::Json(node.get("body").map(Node::to_json)),
        };
        Ok(MockReply::Http {
            status,
            headers,
            body,
        })
    }
}

/// A request the mock received, captured as bytes.
#[derive(Debug, Clone)]
pub(crate) struct CapturedRequest {
    /// `GET`, `POST`, …
    pub(crate) method: String,
    /// The request target (path and query).
    pub(crate) path: String,
    /// The body bytes exactly as received.
    pub(crate) body: Vec<u8>,
}

impl CapturedRequest {
    /// The body parsed as JSON, when it is JSON.
    pub(crate) fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

#[derive(Debug, Default)]
struct State {
    replies: VecDeque<MockReply>,
    health: Option<(String, MockReply)>,
    captured: Vec<CapturedRequest>,
    /// Requests that found no reply left; each is answered 599 so the client sees a failure.
    n_unanswered: usize,
}

/// A running mock provider. Dropping it stops the server.
#[derive(Debug)]
pub(crate) struct MockServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl MockServer {
    /// Binds 127.0.0.1 on a free port and serves `replies` in order, and `health` (path, reply) for
    /// requests to that path. Must be called inside a tokio runtime.
    pub(crate) async fn start(
        replies: Vec<MockReply>,
        health: Option<(String, MockReply)>,
    ) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            replies: replies.into(),
            health,
            ..State::default()
        }));
        let task_state = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&task_state);
                tokio::spawn(async move {
                    // A client that hangs up mid-request is its own business; nothing to report.
                    let _ = serve_connection(stream, state).await;
                });
            }
        });
        Ok(MockServer { addr, state, task })
    }

    /// The base URL clients talk to: `http://127.0.0.1:<port>/v1`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request received so far, in arrival order.
    pub(crate) fn captured(&self) -> Vec<CapturedRequest> {
        self.lock().captured.clone()
    }

    /// How many canned replies are still unconsumed.
    pub(crate) fn n_unconsumed(&self) -> usize {
        self.lock().replies.len()
    }

    /// How many requests arrived after the canned replies ran out.
    pub(crate) fn n_unanswered(&self) -> usize {
        self.lock().n_unanswered
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve_connection(mut stream: TcpStream, state: Arc<Mutex<State>>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else {
        return Ok(());
    };
    let reply = {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        let path_only = request.path.split('?').next().unwrap_or_default().to_owned();
        let health = state
            .health
            .as_ref()
            .filter(|(path, _)| *path == path_only)
            .map(|(_, reply)| reply.clone());
        state.captured.push(request);
        match health {
            Some(reply) => Some(reply),
            None => {
                let next = state.replies.pop_front();
                if next.is_none() {
                    state.n_unanswered += 1;
                }
                next
            }
        }
    };
    let bytes = match reply {
        Some(MockReply::ConnectionFailure) => return stream.shutdown().await,
        Some(MockReply::Http {
            status,
            headers,
            body,
        }) => render(status, &headers, &body),
        None => render(
            599,
            &[],
            &MockBody::Json(Some(
                serde_json::json!({"error": {"message": "mock provider: no canned response left"}}),
            )),
        ),
    };
    stream.write_all(&bytes).await?;
    stream.shutdown().await
}

/// Reads one HTTP/1.1 request; `None` when the client closed before sending one.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<CapturedRequest>> {
    let mut buffer = Vec::with_capacity(4096);
    let head_end = loop {
        if let Some(pos) = find(&buffer, b"\r\n\r\n") {
            break pos;
        }
        if buffer.len() > MAX_HEAD_BYTES {
            stream.write_all(&render(431, &[], &MockBody::Json(None))).await?;
            return Ok(None);
        }
        let mut chunk = [0_u8; 4096];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let content_length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    if content_length > MAX_BODY_BYTES {
        stream.write_all(&render(413, &[], &MockBody::Json(None))).await?;
        return Ok(None);
    }
    let mut body = buffer.split_off(head_end + 4);
    while body.len() < content_length {
        let mut chunk = vec![0_u8; (content_length - body.len()).min(64 * 1024)];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(content_length);
    Ok(Some(CapturedRequest { method, path, body }))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

fn render(status: u16, headers: &[(String, String)], body: &MockBody) -> Vec<u8> {
    let (content_type, payload) = match body {
        MockBody::Json(None) => ("application/json", Vec::new()),
        MockBody::Json(Some(value)) => ("application/json", value.to_string().into_bytes()),
        MockBody::Sse(chunks) => {
            let mut text = String::new();
            for chunk in chunks {
                let data = match chunk {
                    Value::String(literal) => literal.clone(),
                    other => other.to_string(),
                };
                text.push_str("data: ");
                text.push_str(&data);
                text.push_str("\n\n");
            }
            ("text/event-stream", text.into_bytes())
        }
    };
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    out.push_str(&format!(
        "content-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        payload.len()
    ));
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&payload);
    bytes
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw HTTP/1.1 exchange over a fresh connection: returns the whole response as text.
    async fn exchange(addr: &str, request: &str) -> String {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        String::from_utf8(response).unwrap()
    }

    fn reply(yaml: &str) -> MockReply {
        MockReply::from_node(&Node::from_yaml_str(yaml).unwrap()).unwrap()
    }

    #[tokio::test]
    async fn serves_in_order_and_captures_bytes() {
        let replies = vec![
            reply("{status: 503, body: {error: {message: down}}, headers: {Retry-After: 2}}"),
            reply("{status: 200, body: {id: x}}"),
        ];
        let server = MockServer::start(replies, None).await.unwrap();
        let addr = server
            .base_url()
            .trim_start_matches("http://")
            .trim_end_matches("/v1")
            .to_owned();
        let body = r#"{"b":1,"a":2}"#;
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let first = exchange(&addr, &request).await;
        assert!(first.starts_with("HTTP/1.1 503 "), "{first}");
        assert!(first.contains("Retry-After: 2\r\n"), "{first}");
        assert!(first.ends_with(r#"{"error":{"message":"down"}}"#), "{first}");
        let second = exchange(&addr, &request).await;
        assert!(second.starts_with("HTTP/1.1 200 "), "{second}");
        assert_eq!(server.n_unconsumed(), 0);
        let third = exchange(&addr, &request).await;
        assert!(third.starts_with("HTTP/1.1 599 "), "{third}");
        assert_eq!(server.n_unanswered(), 1);
        let captured = server.captured();
        assert_eq!(captured.len(), 3);
        assert_eq!(captured[0].method, "POST");
        assert_eq!(captured[0].path, "/v1/chat/completions");
        assert_eq!(captured[0].body, body.as_bytes());
    }

    #[tokio::test]
    async fn streams_sse_and_serves_health() {
        let replies = vec![reply("{status: 200, stream_body: [{a: 1}, '[DONE]']}")];
        let health = Some((
            "/v1/models".to_owned(),
            reply("{status: 200, body: {object: list}}"),
        ));
        let server = MockServer::start(replies, health).await.unwrap();
        let addr = server
            .base_url()
            .trim_start_matches("http://")
            .trim_end_matches("/v1")
            .to_owned();
        let health_response = exchange(&addr, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n").await;
        assert!(
            health_response.ends_with(r#"{"object":"list"}"#),
            "{health_response}"
        );
        assert_eq!(
            server.n_unconsumed(),
            1,
            "the health probe consumes no canned response"
        );
        let streamed = exchange(
            &addr,
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        )
        .await;
        assert!(streamed.contains("content-type: text/event-stream"), "{streamed}");
        assert!(
            streamed.ends_with("data: {\"a\":1}\n\ndata: [DONE]\n\n"),
            "{streamed}"
        );
    }

    #[tokio::test]
    async fn connection_failure_closes_without_a_response() {
        let server = MockServer::start(vec![reply("{connection_failure: true}")], None)
            .await
            .unwrap();
        let addr = server
            .base_url()
            .trim_start_matches("http://")
            .trim_end_matches("/v1")
            .to_owned();
        let response = exchange(
            &addr,
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        )
        .await;
        assert_eq!(response, "");
        assert_eq!(server.captured().len(), 1);
    }

    #[test]
    fn malformed_entries_are_errors() {
        assert!(MockReply::from_node(&Node::from_yaml_str("{body: {}}").unwrap()).is_err());
        assert!(MockReply::from_node(&Node::from_yaml_str("{status: 70000}").unwrap()).is_err());
    }
}
