//! A gateway for end-to-end tests: an OpenAI-compatible pass-through on 127.0.0.1 that forwards every request to
//! an upstream server after deleting `response_format` from the JSON body, as a gateway whose API model predates
//! structured output does. Blocking std sockets on its own threads, so any test (async or not) can use it; shared
//! by the oa-provider and oa-cli end-to-end tests.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;

/// A running gateway; dropping it stops accepting.
pub struct Gateway {
    address: SocketAddr,
    prefix: String,
    stop: Arc<AtomicBool>,
    n_dropped: Arc<AtomicUsize>,
    accept: Option<JoinHandle<()>>,
}

impl Gateway {
    /// Starts a gateway in front of `upstream_base_url` (`http://HOST:PORT/PREFIX`).
    pub fn start(upstream_base_url: &str) -> Self {
        let rest = upstream_base_url
            .strip_prefix("http://")
            .expect("the gateway forwards plain http only");
        let (upstream, prefix) = match rest.find('/') {
            Some(slash) => (rest[..slash].to_owned(), rest[slash..].to_owned()),
            None => (rest.to_owned(), String::new()),
        };
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let n_dropped = Arc::new(AtomicUsize::new(0));
        let accept = {
            let stop = Arc::clone(&stop);
            let n_dropped = Arc::clone(&n_dropped);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let upstream = upstream.clone();
                    let n_dropped = Arc::clone(&n_dropped);
                    std::thread::spawn(move || {
                        let _ = relay(stream, &upstream, &n_dropped);
                    });
                }
            })
        };
        Self {
            address,
            prefix,
            stop,
            n_dropped,
            accept: Some(accept),
        }
    }

    /// The base URL clients use instead of the upstream's.
    pub fn base_url(&self) -> String {
        format!("http://{}{}", self.address, self.prefix)
    }

    /// How many forwarded requests had a `response_format` the gateway deleted.
    pub fn n_dropped(&self) -> usize {
        self.n_dropped.load(Ordering::SeqCst)
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the thread sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn relay(mut client: TcpStream, upstream: &str, n_dropped: &AtomicUsize) -> std::io::Result<()> {
    let (head, mut body) = read_request(&mut client)?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_owned();
    let headers: Vec<&str> = lines
        .filter(|line| {
            let name = line
                .split(':')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            !line.is_empty() && !matches!(name.as_str(), "host" | "content-length" | "connection")
        })
        .collect();
    if let Ok(serde_json::Value::Object(mut map)) = serde_json::from_slice::<serde_json::Value>(&body) {
        if map.remove("response_format").is_some() {
            n_dropped.fetch_add(1, Ordering::SeqCst);
        }
        body = serde_json::to_vec(&map).unwrap();
    }
    let mut forwarded = format!("{request_line}\r\nHost: {upstream}\r\n");
    for header in headers {
        forwarded.push_str(header);
        forwarded.push_str("\r\n");
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
    // The reply goes back verbatim except that the connection closes after it (one request per connection).
    let split = find(&reply, b"\r\n\r\n").map_or(reply.len(), |at| at + 4);
    let reply_head = String::from_utf8_lossy(&reply[..split]).into_owned();
    let mut new_head: String = reply_head
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

fn read_request(client: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(at) = find(&buffer, b"\r\n\r\n") {
            break at;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let content_length = head
        .split("\r\n")
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < content_length {
        let n = client.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok((head, body))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}
