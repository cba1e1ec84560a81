//! A scripted OpenAI-compatible endpoint on 127.0.0.1 for CLI tests: replies in order, records request bodies.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A JSON body with status 200.
    Json(String),
    /// An SSE body (`text/event-stream`) with status 200.
    Sse(String),
}

/// A running endpoint; it serves `replies.len()` requests, then stops.
pub struct Endpoint {
    pub base_url: String,
    requests: Arc<Mutex<Vec<serde_json::Value>>>,
    handle: Option<JoinHandle<()>>,
}

impl Endpoint {
    pub fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let handle = std::thread::spawn(move || {
            for reply in replies {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                serve(stream, &reply, &recorded);
            }
        });
        Self {
            base_url,
            requests,
            handle: Some(handle),
        }
    }

    /// The request bodies received so far, parsed.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // Wake a listener still waiting for a request nobody sent, then join it.
        let _ = TcpStream::connect(
            self.base_url
                .trim_start_matches("http://")
                .trim_end_matches("/v1"),
        );
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn serve(stream: TcpStream, reply: &Reply, recorded: &Mutex<Vec<serde_json::Value>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut content_length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            content_length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; content_length];
    reader.read_exact(&mut body).unwrap();
    recorded
        .lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap());
    let (content_type, body) = match reply {
        Reply::Json(body) => ("application/json", body),
        Reply::Sse(body) => ("text/event-stream", body),
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
}

/// A Chat Completions response with one choice.
pub fn chat(content: &str, finish_reason: &str) -> Reply {
    Reply::Json(
        serde_json::json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}
        })
        .to_string(),
    )
}

/// A Chat Completions response whose message is a refusal.
pub fn refusal(text: &str) -> Reply {
    Reply::Json(
        serde_json::json!({
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
        })
        .to_string(),
    )
}

/// A streamed refusal, in two pieces.
pub fn streamed_refusal(first: &str, second: &str) -> Reply {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        serde_json::json!({"id": "c", "object": "chat.completion.chunk", "model": "test-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(serde_json::json!({"role": "assistant"}), serde_json::Value::Null),
        chunk(serde_json::json!({"refusal": first}), serde_json::Value::Null),
        chunk(serde_json::json!({"refusal": second}), serde_json::Value::Null),
        chunk(serde_json::json!({}), serde_json::json!("stop")),
    );
    Reply::Sse(body)
}

/// The real llama.cpp peer's base URL, from `OA_LLAMA_BASE_URL` (set by `cargo xtask ci`). Without it: a loud
/// message and `None` outside CI; a failure under `CI=true`.
pub fn llama_peer(test: &str) -> Option<String> {
    match std::env::var("OA_LLAMA_BASE_URL") {
        Ok(base_url) if !base_url.is_empty() => Some(base_url),
        _ => {
            let message = format!(
                "OA_LLAMA_BASE_URL is not set: no llama.cpp peer, so the end-to-end test {test} did NOT run. \
                 Run `cargo xtask ci`, or `cargo xtask peer -- cargo test -p oa-cli`."
            );
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("\n!!!!! SKIPPED: {message}\n");
            None
        }
    }
}
