//! oa-testkit: the one test-support crate of oa. A scripted loopback HTTP/1.1 server on 127.0.0.1 (replies in
//! order, streams written in pieces, raw bytes at a given pace, stalls, hangs, dropped connections, every request
//! captured or only counted), a seeded [`Chaos`] responder for soak and load tests, the same server as a gateway
//! relay that deletes `response_format`, a closed-port helper, a `tracing` capture layer, and (feature
//! `otel`) the real OpenTelemetry SDK with in-memory exporters. [`openai`], [`anthropic`] and [`gemini`] hold the
//! canned bodies of each wire mapping that tests script; [`vendor`] holds scripted vendors that answer a request
//! whose native schema breaks a documented rule with the vendor's 400.
//!
//! # Example
//!
//! ```
//! use oa_testkit::{Reply, Server};
//! use serde_json::json;
//!
//! let server = Server::start(vec![Reply::json(200, json!({"id": "first"})), Reply::Drop])?;
//! let request = b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}";
//! let first = oa_testkit::exchange(server.address(), request)?;
//! assert!(first.ends_with(br#"{"id":"first"}"#));
//! let second = oa_testkit::exchange(server.address(), request)?;
//! assert!(second.is_empty(), "dropped without an answer");
//! assert_eq!(server.n_requests(), 2);
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod anthropic;
mod chaos;
pub mod gemini;
mod http;
pub mod openai;
mod redis;
mod relay;
mod reply;
mod server;
#[cfg(feature = "otel")]
mod telemetry;
mod tracing_capture;
pub mod vendor;

use std::io;
use std::net::SocketAddr;

use std::io::{Read, Write};

pub use chaos::{Behaviour, Chaos, ChaosSettings, RetryAfter};
pub use http::{MAX_BODY_BYTES, MAX_HEAD_BYTES, Request};
pub use redis::RedisServer;
pub use reply::{Reply, sse_bytes};
pub use server::{Responder, Script, Server};
#[cfg(feature = "otel")]
pub use telemetry::{Point, PointValue, Telemetry, attribute};
pub use tracing_capture::{Traced, TracedKind, TracingCapture};

/// A base URL (`http://127.0.0.1:PORT/v1`) where nothing listens: a port bound and released, so connecting is
/// refused unless another process takes it in between.
///
/// ```
/// let url = oa_testkit::closed_base_url().unwrap();
/// let address = url.trim_start_matches("http://").trim_end_matches("/v1");
/// assert!(std::net::TcpStream::connect(address).is_err());
/// ```
///
/// # Errors
///
/// The bind error.
pub fn closed_base_url() -> io::Result<String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    Ok(format!("http://127.0.0.1:{port}/v1"))
}

/// One raw exchange over a fresh connection: writes `request` and returns every byte the server sent until it
/// closed (empty when it closed without answering; never returns against [`Reply::Hang`]).
///
/// # Errors
///
/// The connection's.
pub fn exchange(address: SocketAddr, request: &[u8]) -> io::Result<Vec<u8>> {
    let mut stream = std::net::TcpStream::connect(address)?;
    stream.write_all(request)?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    Ok(response)
}

// The README's example runs as a doc test, so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
