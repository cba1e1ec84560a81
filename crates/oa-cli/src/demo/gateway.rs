//! The demo's gateway: a pass-through on 127.0.0.1 that deletes `response_format` from every JSON body before
//! forwarding it, as a gateway whose API model predates structured output does, silently.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};

use serde_json::Value;

use super::http;

/// A running gateway in front of one upstream; it serves until the process ends.
#[derive(Debug)]
pub(super) struct Gateway {
    address: SocketAddr,
    prefix: String,
}

impl Gateway {
    /// Starts a gateway in front of `upstream_base_url` (`http://HOST:PORT/PREFIX`; plain http only).
    pub(super) fn start(upstream_base_url: &str) -> Result<Self, String> {
        let rest = upstream_base_url
            .strip_prefix("http://")
            .ok_or("the demo gateway forwards plain http only")?;
        let (upstream, prefix) = match rest.find('/') {
            Some(slash) => (
                rest[..slash].to_owned(),
                rest[slash..].trim_end_matches('/').to_owned(),
            ),
            None => (rest.to_owned(), String::new()),
        };
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("gateway: {e}"))?;
        let address = listener.local_addr().map_err(|e| format!("gateway: {e}"))?;
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let upstream = upstream.clone();
                std::thread::spawn(move || {
                    let _ = relay(stream, &upstream);
                });
            }
        });
        Ok(Self { address, prefix })
    }

    /// The base URL clients use instead of the upstream's.
    pub(super) fn base_url(&self) -> String {
        format!("http://{}{}", self.address, self.prefix)
    }
}

fn relay(mut client: TcpStream, upstream: &str) -> std::io::Result<()> {
    let request = http::read_request(&mut client)?;
    let mut body = request.body;
    if let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(&body) {
        map.remove("response_format");
        body = serde_json::to_vec(&map).unwrap_or(body);
    }
    let mut forwarded = format!("{}\r\nHost: {upstream}\r\n", request.line);
    for header in &request.headers {
        let name = header
            .split(':')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if !matches!(name.as_str(), "host" | "content-length" | "connection") {
            forwarded.push_str(header);
            forwarded.push_str("\r\n");
        }
    }
    forwarded.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut server = TcpStream::connect(upstream)?;
    server.write_all(forwarded.as_bytes())?;
    server.write_all(&body)?;
    let mut reply = Vec::new();
    server.read_to_end(&mut reply)?;
    // Back verbatim, except that the connection closes after it.
    let split = http::find(&reply, b"\r\n\r\n").map_or(reply.len(), |at| at + 4);
    let head = String::from_utf8_lossy(&reply[..split]).into_owned();
    let mut new_head: String = head
        .trim_end()
        .split("\r\n")
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .map(|line| format!("{line}\r\n"))
        .collect();
    new_head.push_str("Connection: close\r\n\r\n");
    client.write_all(new_head.as_bytes())?;
    client.write_all(&reply[split..])?;
    client.flush()
}
