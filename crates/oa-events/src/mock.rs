//! A scripted OpenAI-compatible server on 127.0.0.1 for tests (feature `testing`): each wire request takes the next
//! reply, and every request body is captured. Real sockets, so the provider under test runs unchanged.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum MockReply {
    /// A complete response with a JSON body.
    Json {
        /// The HTTP status.
        status: u16,
        /// The body.
        body: Value,
    },
    /// A 200 event stream of these chunks (a string chunk is sent verbatim, e.g. `[DONE]`).
    Sse(Vec<Value>),
}

impl MockReply {
    /// A 200 chat completion whose message content is `content`, finishing with `finish_reason`.
    pub fn content(content: &str, finish_reason: &str) -> Self {
        Self::Json {
            status: 200,
            body: json!({
                "id": "chatcmpl-mock",
                "object": "chat.completion",
                "model": "mock-model",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": finish_reason}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            }),
        }
    }
}

/// The running server; dropping it stops it.
#[derive(Debug)]
pub struct MockLlm {
    base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    task: JoinHandle<()>,
}

impl MockLlm {
    /// Binds 127.0.0.1:0 and serves `replies` in order (a request past the end gets a 500).
    ///
    /// # Errors
    ///
    /// The bind error.
    pub async fn start(replies: Vec<MockReply>) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}/v1", listener.local_addr()?);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::new(Mutex::new(VecDeque::from(replies)));
        let captured = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let queue = Arc::clone(&queue);
                let captured = Arc::clone(&captured);
                tokio::spawn(async move {
                    let _ = serve(socket, &queue, &captured).await;
                });
            }
        });
        Ok(Self {
            base_url,
            requests,
            task,
        })
    }

    /// The base URL to build a provider with (`http://127.0.0.1:port/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Every request body received so far, parsed.
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .map(|requests| requests.clone())
            .unwrap_or_default()
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut socket: TcpStream,
    queue: &Mutex<VecDeque<MockReply>>,
    captured: &Mutex<Vec<Value>>,
) -> io::Result<()> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        let n_read = socket.read(&mut chunk).await?;
        if n_read == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..n_read]);
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_ascii_lowercase();
    let content_length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buffer.len() < header_end + content_length {
        let n_read = socket.read(&mut chunk).await?;
        if n_read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..n_read]);
    }
    let body = serde_json::from_slice(&buffer[header_end..]).unwrap_or(Value::Null);
    if let Ok(mut captured) = captured.lock() {
        captured.push(body);
    }
    let reply = queue.lock().ok().and_then(|mut queue| queue.pop_front());
    let (status, content_type, payload) = match reply {
        Some(MockReply::Json { status, body }) => (status, "application/json", body.to_string()),
        Some(MockReply::Sse(chunks)) => {
            let mut payload = String::new();
            for chunk in chunks {
                let data = match chunk {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                payload.push_str(&format!("data: {data}\n\n"));
            }
            (200, "text/event-stream", payload)
        }
        None => (
            500,
            "application/json",
            json!({"error": {"message": "no reply scripted"}}).to_string(),
        ),
    };
    let response = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{payload}",
        payload.len()
    );
    socket.write_all(response.as_bytes()).await?;
    socket.shutdown().await
}
