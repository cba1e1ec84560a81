//! A seeded chaos responder for soak and load tests: each attempt of each call gets a behaviour drawn from the seed,
//! the call's number and the attempt's index (never from arrival order, so a run is reproducible whatever the
//! concurrency): a good answer, prose, a refusal, JSON of the wrong shape, 429 or 5xx with and without
//! Retry-After, a stall mid-answer, a dropped connection, an answer cut off, an oversized body or SSE line, or a
//! malformed answer, in the OpenAI Chat Completions shape, atomic or streamed as the request asks.
//!
//! A request names its call with [`Chaos::marker`] anywhere in its body; the attempt is how many requests that
//! call made before. The client under test draws the same [`Behaviour`] with [`Chaos::behaviour`] to know what each
//! call must end in, and [`Chaos::finish`] says how many requests a call made.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Request, head};
use crate::reply::Reply;
use crate::server::Responder;

/// How a Retry-After header is written, when there is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RetryAfter {
    /// No header.
    Absent,
    /// `Retry-After: 1` (delay-seconds).
    OneSecond,
    /// An HTTP-date in the past: wait nothing.
    PastDate,
    /// An HTTP-date in 2100: past any client's cap.
    FarDate,
}

impl RetryAfter {
    /// The header value, if any.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Self::Absent => None,
            Self::OneSecond => Some("1"),
            Self::PastDate => Some("Sun, 06 Nov 1994 08:49:37 GMT"),
            Self::FarDate => Some("Fri, 01 Jan 2100 00:00:00 GMT"),
        }
    }
}

/// What the server does with one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Behaviour {
    /// 200 with [`Chaos::answer`] as the message content, finishing `stop`.
    Answer,
    /// 200 with prose as the content: not JSON.
    Prose,
    /// 200 with a `refusal` and no content.
    Refusal,
    /// 200 with JSON content of the wrong shape (`call` a string, `attempt` missing).
    WrongShape,
    /// 429 with this Retry-After.
    RateLimited(RetryAfter),
    /// This 5xx status with this Retry-After.
    ServerError(u16, RetryAfter),
    /// Part of the answer, then silence for the stall time, then the rest (which the client no longer reads).
    Stall,
    /// The request read, then the connection closed unanswered.
    Drop,
    /// Part of the answer, then the connection closed: a body short of its length, a stream without its end.
    CutOff,
    /// A body over the client's body cap, or (streamed) one event line over its SSE line cap.
    Oversized,
    /// A body that is not JSON or not a completion, or (streamed) an event with invalid UTF-8, non-JSON data or a
    /// non-object chunk.
    Malformed,
}

/// The client's caps and the stall and hold times the chaos is sized against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaosSettings {
    /// The client's largest response body: an oversized body passes it.
    pub max_body_bytes: usize,
    /// The client's longest SSE line: an oversized line passes it.
    pub max_sse_line_bytes: usize,
    /// How long a stall lasts: longer than the client's idle timeout, so the client gives up first.
    pub stall: Duration,
    /// A wait before every reply's first byte (zero for a soak; a load test holds calls in flight with it).
    pub hold: Duration,
}

/// The chaos responder's state: the seed, the settings, and how many requests each open call has made.
pub struct Chaos {
    seed: u64,
    settings: ChaosSettings,
    attempts: Mutex<HashMap<u64, u32>>,
}

impl fmt::Debug for Chaos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chaos")
            .field("seed", &self.seed)
            .field("settings", &self.settings)
            .finish()
    }
}

/// What a good answer's `note` says; prose and refusals are other words.
const NOTE: &str = "chaos answer";

impl Chaos {
    /// A responder drawing from `seed`, sized by `settings`.
    pub fn new(seed: u64, settings: ChaosSettings) -> Arc<Self> {
        Arc::new(Self {
            seed,
            settings,
            attempts: Mutex::new(HashMap::new()),
        })
    }

    /// A server responder answering every request from this chaos.
    ///
    /// ```
    /// use std::time::Duration;
    /// use oa_testkit::{Behaviour, Chaos, ChaosSettings, Server};
    ///
    /// let settings = ChaosSettings {
    ///     max_body_bytes: 1 << 16,
    ///     max_sse_line_bytes: 1 << 14,
    ///     stall: Duration::from_millis(50),
    ///     hold: Duration::ZERO,
    /// };
    /// let chaos = Chaos::new(7, settings);
    /// let server = Server::start_uncaptured(chaos.responder())?;
    /// let body = format!(r#"{{"messages": [{{"role": "user", "content": "{}"}}]}}"#, Chaos::marker(3));
    /// let request = format!("POST /v1/chat/completions HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}", body.len());
    /// let response = oa_testkit::exchange(server.address(), request.as_bytes())?;
    /// // What the server chose for the first attempt of call 3 is what anyone with the seed computes.
    /// if chaos.behaviour(3, 0) == Behaviour::Drop {
    ///     assert!(response.is_empty());
    /// } else {
    ///     assert!(response.starts_with(b"HTTP/1.1 "));
    /// }
    /// assert_eq!(chaos.finish(3), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn responder(self: &Arc<Self>) -> Responder {
        let chaos = Arc::clone(self);
        Responder::function(move |request| chaos.reply(request))
    }

    /// The text that names call `call` in a request body.
    pub fn marker(call: u64) -> String {
        format!("chaos-call={call}")
    }

    /// The content of a good answer to attempt `attempt` of call `call`.
    pub fn answer(call: u64, attempt: u32) -> Value {
        json!({"call": call, "attempt": attempt, "note": NOTE})
    }

    /// How many requests call `call` made, forgetting it (so a long soak keeps no per-call state).
    pub fn finish(&self, call: u64) -> u32 {
        self.lock().remove(&call).unwrap_or(0)
    }

    /// What the server does with attempt `attempt` of call `call`: a pure function of the seed.
    pub fn behaviour(&self, call: u64, attempt: u32) -> Behaviour {
        let draw = self.draw(call, attempt);
        let retry_after = match (draw >> 8) % 4 {
            0 => RetryAfter::Absent,
            1 => RetryAfter::OneSecond,
            2 => RetryAfter::PastDate,
            _ => RetryAfter::FarDate,
        };
        match draw % 100 {
            0..44 => Behaviour::Answer,
            44..50 => Behaviour::Prose,
            50..54 => Behaviour::Refusal,
            54..58 => Behaviour::WrongShape,
            58..68 => Behaviour::RateLimited(retry_after),
            68..76 => Behaviour::ServerError([500, 502, 503][(draw >> 16) as usize % 3], retry_after),
            76..81 => Behaviour::Stall,
            81..86 => Behaviour::Drop,
            86..90 => Behaviour::CutOff,
            90..95 => Behaviour::Oversized,
            _ => Behaviour::Malformed,
        }
    }

    /// A 64-bit draw for one attempt (splitmix64 over the seed, the call and the attempt).
    fn draw(&self, call: u64, attempt: u32) -> u64 {
        let mut x = self.seed
            ^ call.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(attempt).wrapping_mul(0xD1B5_4A32_D192_ED03);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, u32>> {
        self.attempts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The reply to one request: its call read from the marker, its attempt counted.
    fn reply(&self, request: &Request) -> Reply {
        let Some(call) = find_call(&request.body) else {
            return Reply::json(
                400,
                json!({"error": {"message": "chaos: the request names no chaos-call"}}),
            );
        };
        let attempt = {
            let mut attempts = self.lock();
            let seen = attempts.entry(call).or_insert(0);
            *seen += 1;
            *seen - 1
        };
        let stream = request
            .json()
            .and_then(|body| body.get("stream").and_then(Value::as_bool))
            == Some(true);
        let behaviour = self.behaviour(call, attempt);
        let draw = self.draw(call, attempt) >> 24;
        let pieces = Wire {
            stream,
            draw,
            settings: self.settings,
        }
        .pieces(behaviour, call, attempt);
        let mut pieces = pieces.into_iter();
        let first = pieces
            .next()
            .map_or((self.settings.hold, Vec::new()), |(pause, bytes)| {
                (pause + self.settings.hold, bytes)
            });
        Reply::Paced {
            pieces: std::iter::once(first).chain(pieces).collect(),
        }
    }
}

/// The call number after the first marker in `body`.
fn find_call(body: &[u8]) -> Option<u64> {
    let marker = b"chaos-call=";
    let at = body.windows(marker.len()).position(|window| window == marker)? + marker.len();
    let digits: Vec<u8> = body[at..]
        .iter()
        .copied()
        .take_while(u8::is_ascii_digit)
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

/// Writes one behaviour as bytes on the wire.
struct Wire {
    stream: bool,
    /// Bits for the choices within a behaviour.
    draw: u64,
    settings: ChaosSettings,
}

impl Wire {
    /// The pieces of the reply, each with the pause before it; an empty list drops the connection unanswered.
    fn pieces(&self, behaviour: Behaviour, call: u64, attempt: u32) -> Vec<(Duration, Vec<u8>)> {
        let now = |bytes: Vec<u8>| vec![(Duration::ZERO, bytes)];
        match behaviour {
            Behaviour::Answer => now(self.answer(Content::Text(Chaos::answer(call, attempt).to_string()))),
            Behaviour::Prose => now(self.answer(Content::Text(format!(
                "Sure! Here is the answer for attempt {attempt}, in words."
            )))),
            Behaviour::Refusal => now(self.answer(Content::Refusal("I can't help with that."))),
            Behaviour::WrongShape => now(self.answer(Content::Text(
                json!({"call": call.to_string(), "note": NOTE}).to_string(),
            ))),
            Behaviour::RateLimited(retry_after) => now(error(429, retry_after, "rate_limit_exceeded")),
            Behaviour::ServerError(status, retry_after) => now(error(status, retry_after, "server_error")),
            Behaviour::Stall => {
                let bytes = self.answer(Content::Text(Chaos::answer(call, attempt).to_string()));
                let (first, rest) = bytes.split_at(self.cut(&bytes));
                vec![
                    (Duration::ZERO, first.to_vec()),
                    (self.settings.stall, rest.to_vec()),
                ]
            }
            Behaviour::Drop => Vec::new(),
            Behaviour::CutOff => {
                // A stream loses its finish and end with the cut; a body is cut short of its length.
                let content = Content::Text(Chaos::answer(call, attempt).to_string());
                let mut bytes = if self.stream {
                    self.content_events(&content)
                } else {
                    self.answer(content)
                };
                bytes.truncate(self.cut(&bytes));
                now(bytes)
            }
            Behaviour::Oversized if self.stream => {
                let line = "x".repeat(self.settings.max_sse_line_bytes + 1024);
                now(stream_bytes(&[
                    delta(json!({"content": line}), None),
                    json!("[DONE]"),
                ]))
            }
            Behaviour::Oversized => {
                let content = "x".repeat(self.settings.max_body_bytes + 1024);
                now(complete(
                    200,
                    &[],
                    "application/json",
                    &crate::openai::text_completion(&content).to_string(),
                ))
            }
            Behaviour::Malformed if self.stream => {
                let mut bytes = head(200, &[], "text/event-stream", None).into_bytes();
                bytes.extend_from_slice(match self.draw % 3 {
                    0 => b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n"
                        .as_slice(),
                    1 => b"data: {\"choices\": [{\"index\": 0, \"delta\"\n\n".as_slice(),
                    _ => b"data: [1, 2]\n\n".as_slice(),
                });
                now(bytes)
            }
            Behaviour::Malformed => {
                let body = if self.draw.is_multiple_of(2) {
                    r#"{"id": "cc-chaos", "choices": [{"#
                } else {
                    r#"{"object": "chat.completion"}"#
                };
                now(complete(200, &[], "application/json", body))
            }
        }
    }

    /// A point strictly inside the reply's body (past the head) where it is cut.
    fn cut(&self, bytes: &[u8]) -> usize {
        let body_start = bytes
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .map_or(0, |at| at + 4);
        let body_len = bytes.len() - body_start;
        body_start + 1 + (self.draw as usize % body_len.saturating_sub(1).max(1))
    }

    /// A 200 answer carrying `content`, atomic or streamed: the content events, the finish, usage, `[DONE]`.
    fn answer(&self, content: Content) -> Vec<u8> {
        if !self.stream {
            let message = match content {
                Content::Text(text) => json!({"role": "assistant", "content": text}),
                Content::Refusal(text) => json!({"role": "assistant", "content": null, "refusal": text}),
            };
            return complete(
                200,
                &[],
                "application/json",
                &crate::openai::completion(message, "stop").to_string(),
            );
        }
        let mut bytes = self.content_events(&content);
        let usage = json!({"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8});
        bytes.extend_from_slice(&crate::reply::sse_bytes(&[
            delta(json!({}), Some("stop")),
            json!({"id": "cc-chaos", "object": "chat.completion.chunk", "model": "test-model", "choices": [], "usage": usage}),
            json!("[DONE]"),
        ]));
        bytes
    }

    /// A 200 event-stream head and the content in three events, split where the draw says (on characters).
    fn content_events(&self, content: &Content) -> Vec<u8> {
        let (key, text) = match content {
            Content::Text(text) => ("content", text.as_str()),
            Content::Refusal(text) => ("refusal", *text),
        };
        let chars: Vec<char> = text.chars().collect();
        let first = (self.draw as usize) % (chars.len() + 1);
        let second = first + (self.draw as usize >> 8) % (chars.len() - first + 1);
        let events: Vec<Value> = [&chars[..first], &chars[first..second], &chars[second..]]
            .iter()
            .map(|piece| delta(json!({key: piece.iter().collect::<String>()}), None))
            .collect();
        stream_bytes(&events)
    }
}

/// What an answer says.
enum Content {
    Text(String),
    Refusal(&'static str),
}

/// One chunk of a streamed completion.
fn delta(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({"id": "cc-chaos", "object": "chat.completion.chunk", "model": "test-model",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
}

/// A 200 event-stream head and the events.
fn stream_bytes(events: &[Value]) -> Vec<u8> {
    let mut bytes = head(200, &[], "text/event-stream", None).into_bytes();
    bytes.extend_from_slice(&crate::reply::sse_bytes(events));
    bytes
}

/// A complete response: head with its length, then the body.
fn complete(status: u16, headers: &[(String, String)], content_type: &str, body: &str) -> Vec<u8> {
    let mut bytes = head(status, headers, content_type, Some(body.len())).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// An OpenAI error envelope with this status, code and Retry-After.
fn error(status: u16, retry_after: RetryAfter, code: &str) -> Vec<u8> {
    let headers: Vec<(String, String)> = retry_after
        .header()
        .map(|value| ("Retry-After".to_owned(), value.to_owned()))
        .into_iter()
        .collect();
    let body = json!({"error": {"message": format!("chaos: {code}"), "type": code, "code": code}});
    complete(status, &headers, "application/json", &body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> ChaosSettings {
        ChaosSettings {
            max_body_bytes: 4096,
            max_sse_line_bytes: 1024,
            stall: Duration::from_millis(10),
            hold: Duration::ZERO,
        }
    }

    #[test]
    fn the_draw_is_a_function_of_seed_call_and_attempt_and_covers_every_behaviour() {
        let (one, same, other) = (
            Chaos::new(1, settings()),
            Chaos::new(1, settings()),
            Chaos::new(2, settings()),
        );
        let mut seen = std::collections::HashSet::new();
        let mut differs = false;
        for call in 0..2000 {
            let behaviour = one.behaviour(call, call as u32 % 4);
            assert_eq!(behaviour, same.behaviour(call, call as u32 % 4));
            differs |= behaviour != other.behaviour(call, call as u32 % 4);
            seen.insert(std::mem::discriminant(&behaviour));
        }
        assert!(differs, "another seed draws the same");
        assert_eq!(seen.len(), 11, "every behaviour is drawn");
    }

    #[test]
    fn a_marker_names_its_call_and_attempts_are_counted_per_call() {
        assert_eq!(find_call(br#"{"content": "x chaos-call=42 y"}"#), Some(42));
        assert_eq!(find_call(b"chaos-call=x"), None);
        let chaos = Chaos::new(5, settings());
        let request = |call: u64| Request {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: Vec::new(),
            body: format!(r#"{{"stream": true, "m": "{}"}}"#, Chaos::marker(call)).into_bytes(),
        };
        for _ in 0..3 {
            chaos.reply(&request(1));
        }
        chaos.reply(&request(2));
        assert_eq!((chaos.finish(1), chaos.finish(2), chaos.finish(1)), (3, 1, 0));
        let unnamed = Request {
            body: b"{}".to_vec(),
            ..request(0)
        };
        assert!(matches!(chaos.reply(&unnamed), Reply::Raw { status: 400, .. }));
    }

    #[test]
    fn oversized_replies_pass_the_caps_and_cuts_fall_inside_the_body() {
        for stream in [false, true] {
            let cap = if stream {
                settings().max_sse_line_bytes
            } else {
                settings().max_body_bytes
            };
            for draw in 0..50 {
                let wire = Wire {
                    stream,
                    draw,
                    settings: settings(),
                };
                let length = |behaviour| -> usize {
                    wire.pieces(behaviour, 1, 0)
                        .iter()
                        .map(|(_, bytes)| bytes.len())
                        .sum()
                };
                assert!(length(Behaviour::Oversized) > cap + 1000);
                let content = Content::Text(Chaos::answer(1, 0).to_string());
                let whole = if stream {
                    wire.content_events(&content)
                } else {
                    wire.answer(content)
                };
                let head_len = whole.windows(4).position(|window| window == b"\r\n\r\n").unwrap() + 4;
                let cut = length(Behaviour::CutOff);
                assert!(head_len < cut && cut < whole.len(), "{cut} of {}", whole.len());
                let stalled = wire.pieces(Behaviour::Stall, 1, 0);
                assert_eq!(stalled[1].0, settings().stall);
                assert!(stalled[0].1.len() > head_len);
            }
        }
    }
}
