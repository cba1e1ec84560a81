//! Just enough HTTP/1.1 for one exchange per connection: read a request (head, then a `Content-Length` body) under
//! the head and body caps, and write a response head.

use std::io;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The largest request head the server reads; a client sending more is answered 431.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The largest request body the server reads; a `Content-Length` above it is answered 413.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// One captured request.
///
/// ```
/// let request = oa_testkit::Request {
///     method: "POST".into(),
///     path: "/v1/chat/completions".into(),
///     headers: vec![("content-type".into(), "application/json".into())],
///     body: br#"{"model": "m"}"#.to_vec(),
/// };
/// assert_eq!(request.header("Content-Type"), Some("application/json"));
/// assert_eq!(request.json().unwrap()["model"], "m");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target (path and query).
    pub path: String,
    /// Header names lowercased, values trimmed, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body bytes exactly as received.
    pub body: Vec<u8>,
}

impl Request {
    /// The body parsed as JSON, when it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The first value of the header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Reads one request; `None` when the client closed before sending one, or when a cap was hit (the client was then
/// answered 431 or 413).
pub(crate) async fn read_request(socket: &mut TcpStream) -> io::Result<Option<Request>> {
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0_u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break at;
        }
        if buffer.len() > MAX_HEAD_BYTES {
            return refuse(socket, 431).await;
        }
        let n_read = socket.read(&mut chunk).await?;
        if n_read == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n_read]);
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
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY_BYTES {
        return refuse(socket, 413).await;
    }
    let mut body = buffer.split_off(head_end + 4);
    while body.len() < length {
        let n_read = socket.read(&mut chunk).await?;
        if n_read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n_read]);
    }
    body.truncate(length);
    Ok(Some(Request {
        method,
        path,
        headers,
        body,
    }))
}

async fn refuse(socket: &mut TcpStream, status: u16) -> io::Result<Option<Request>> {
    socket
        .write_all(head(status, &[], "application/json", Some(0)).as_bytes())
        .await?;
    Ok(None)
}

/// A response head: the status line, `content-type` (unless `headers` name one), `content-length` when known,
/// `connection: close`, then `headers`.
pub(crate) fn head(
    status: u16,
    headers: &[(String, String)],
    content_type: &str,
    length: Option<usize>,
) -> String {
    let reason = if status == 200 { "OK" } else { "Status" };
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-type"))
    {
        head.push_str(&format!("content-type: {content_type}\r\n"));
    }
    if let Some(length) = length {
        head.push_str(&format!("content-length: {length}\r\n"));
    }
    head.push_str("connection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head
}
