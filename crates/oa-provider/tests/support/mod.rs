//! A scripted HTTP/1.1 server on 127.0.0.1 for the provider's tests: each request takes the next reply in
//! order, and every request is captured as bytes.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete response with a JSON body.
    Json {
        status: u16,
        headers: Vec<(String, String)>,
        body: Value,
    },
    /// A complete response with raw body bytes.
    Raw {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// A 200 event stream written piece by piece (connection closes after the last piece), with a pause before
    /// each piece.
    Stream { pieces: Vec<Vec<u8>>, pause: Duration },
    /// Headers of a 200 stream, these pieces, then silence with the connection held open.
    StallAfter { pieces: Vec<Vec<u8>> },
    /// Read the request, then close the connection without answering.
    Drop,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Self {
        Self::Json {
            status,
            headers: Vec::new(),
            body,
        }
    }

    pub fn json_with_header(status: u16, name: &str, value: &str, body: Value) -> Self {
        Self::Json {
            status,
            headers: vec![(name.to_owned(), value.to_owned())],
            body,
        }
    }

    /// An SSE stream of `data:` lines for each chunk, in one piece.
    pub fn sse(chunks: &[Value]) -> Self {
        Self::Stream {
            pieces: vec![sse_bytes(chunks)],
            pause: Duration::ZERO,
        }
    }
}

/// The SSE bytes for these chunks: a JSON chunk per event, a string chunk verbatim (e.g. `[DONE]`).
pub fn sse_bytes(chunks: &[Value]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for chunk in chunks {
        let data = match chunk {
            Value::String(text) => text.clone(),
            other => serde_json::to_string(other).unwrap(),
        };
        bytes.extend_from_slice(format!("data: {data}\n\n").as_bytes());
    }
    bytes
}

/// One captured request.
#[derive(Debug, Clone)]
pub struct Captured {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Captured {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// The running server; it stops when dropped.
pub struct MockServer {
    port: u16,
    captured: Arc<Mutex<Vec<Captured>>>,
    task: tokio::task::JoinHandle<()>,
}

impl MockServer {
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let captured = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::new(Mutex::new(VecDeque::from(replies)));
        let task = {
            let captured = captured.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((socket, _)) = listener.accept().await else {
                        return;
                    };
                    let captured = captured.clone();
                    let queue = queue.clone();
                    tokio::spawn(async move { serve(socket, captured, queue).await });
                }
            })
        };
        Self { port, captured, task }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn requests(&self) -> Vec<Captured> {
        self.captured.lock().unwrap().clone()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A base URL where nothing listens (connection refused).
pub async fn closed_base_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

async fn serve(
    mut socket: TcpStream,
    captured: Arc<Mutex<Vec<Captured>>>,
    queue: Arc<Mutex<VecDeque<Reply>>>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    captured.lock().unwrap().push(request);
    let reply = queue.lock().unwrap().pop_front();
    let reply = reply.unwrap_or_else(|| {
        Reply::json(
            500,
            serde_json::json!({"error": {"message": "mock: no reply left"}}),
        )
    });
    match reply {
        Reply::Json {
            status,
            headers,
            body,
        } => {
            write_full(
                &mut socket,
                status,
                &headers,
                "application/json",
                &serde_json::to_vec(&body).unwrap(),
            )
            .await;
        }
        Reply::Raw {
            status,
            headers,
            body,
        } => write_full(&mut socket, status, &headers, "application/json", &body).await,
        Reply::Stream { pieces, pause } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for piece in pieces {
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
                if socket.write_all(&piece).await.is_err() || socket.flush().await.is_err() {
                    return;
                }
            }
            let _ = socket.shutdown().await;
        }
        Reply::StallAfter { pieces } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
            let _ = socket.write_all(head.as_bytes()).await;
            for piece in pieces {
                let _ = socket.write_all(&piece).await;
                let _ = socket.flush().await;
            }
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Reply::Drop => drop(socket),
    }
}

async fn write_full(
    socket: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    content_type: &str,
    body: &[u8],
) {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(body).await;
    let _ = socket.shutdown().await;
}

async fn read_request(socket: &mut TcpStream) -> Option<Captured> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Captured {
        method,
        path,
        headers,
        body,
    })
}

/// A chat.completion body with this assistant message and finish reason.
pub fn completion(message: Value, finish_reason: &str) -> Value {
    serde_json::json!({
        "id": "cc-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    })
}

/// A plain-text completion body.
pub fn text_completion(text: &str) -> Value {
    completion(serde_json::json!({"role": "assistant", "content": text}), "stop")
}
