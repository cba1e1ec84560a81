#![doc = include_str!("../README.md")]

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
mod variants;
pub mod vendor;

use std::io;
use std::net::SocketAddr;

use std::io::{Read, Write};

pub use chaos::{Behaviour, Chaos, ChaosSettings, RetryAfter};
pub use http::{MAX_BODY_BYTES, MAX_HEAD_BYTES, Request};
pub use redis::RedisServer;
pub use reply::{Reply, StreamEnd, sse_bytes};
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
