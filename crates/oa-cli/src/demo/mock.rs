//! The demo's model: an OpenAI-compatible Chat Completions server on 127.0.0.1 that answers a request carrying
//! `response_format` with the next scripted JSON answer, and a request without one with prose, as an unbound model
//! would. No key, no network.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use super::http;

/// The prose an unbound model writes to the canary question when nothing constrains it.
pub(super) const CANARY_PROSE: &str = "Two plus two is four.";
/// The prose an unbound model writes to anything else.
pub(super) const PROSE: &str = "The meetup is on 3 December in Hall B; Ada speaks and Linus hosts.";

/// A running mock; it serves until the process ends (the demo is one short process).
#[derive(Debug)]
pub(super) struct MockModel {
    address: SocketAddr,
}

impl MockModel {
    /// Starts the mock with the JSON answers it gives, in order, to schema-carrying requests (the last repeats).
    pub(super) fn start(answers: Vec<String>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let answers = Arc::new(Mutex::new((answers, 0usize)));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let answers = Arc::clone(&answers);
                std::thread::spawn(move || {
                    let _ = serve(stream, &answers);
                });
            }
        });
        Ok(Self { address })
    }

    /// The base URL to build a provider with.
    pub(super) fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }
}

fn serve(mut stream: TcpStream, answers: &Mutex<(Vec<String>, usize)>) -> std::io::Result<()> {
    let request = http::read_request(&mut stream)?;
    if request.line.starts_with("GET ") {
        return http::write_json(
            &mut stream,
            200,
            br#"{"object":"list","data":[{"id":"demo-model"}]}"#,
        );
    }
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let content = if body.get("response_format").is_some() {
        let mut answers = answers.lock().unwrap_or_else(PoisonError::into_inner);
        let (list, next) = &mut *answers;
        let answer = list.get(*next).or(list.last()).cloned().unwrap_or_default();
        *next += 1;
        answer
    } else if request_text(&body).contains("two plus two") {
        CANARY_PROSE.to_owned()
    } else {
        PROSE.to_owned()
    };
    let reply = json!({
        "id": "chatcmpl-demo",
        "object": "chat.completion",
        "model": "demo-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 60, "total_tokens": 180}
    });
    http::write_json(&mut stream, 200, reply.to_string().as_bytes())
}

/// The request's message texts, joined, lowercased.
fn request_text(body: &Value) -> String {
    body.get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .filter_map(|message| message.get("content").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
                .to_lowercase()
        })
        .unwrap_or_default()
}
