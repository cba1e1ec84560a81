//! The loopback server every client talks to: HTTP/1.1 with keep-alive on 127.0.0.1, on a current-thread runtime
//! of its own thread, answering each request with prepared bytes chosen by the path's first segment (one per
//! workload), with no artificial delay.
//!
//! Not oa-testkit's server: that one closes the connection after every reply and keeps a copy of every request
//! for the tests to inspect, so a benchmark through it would time a TCP handshake per call and a growing request
//! log, not the client. This one keeps connections open (as every real endpoint does) and keeps nothing, except
//! the one request body the pre-check asks it to capture.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Largest request head or body the server reads; the benchmark's requests are a few kilobytes.
const MAX_REQUEST_BYTES: usize = 1 << 20;

/// Prepared replies, whole HTTP responses keyed by the path's first segment.
pub(crate) struct Replies(pub(crate) HashMap<String, Bytes>);

struct Shared {
    replies: Replies,
    capture: AtomicBool,
    captured: Mutex<Option<Vec<u8>>>,
}

/// A running server; it lives as long as the benchmark process.
pub(crate) struct BenchServer {
    address: SocketAddr,
    shared: Arc<Shared>,
    /// `/proc/self/task/TID` of the server's thread, whose CPU time is not the client's.
    pub(crate) thread_task: String,
}

impl BenchServer {
    pub(crate) fn start(replies: Replies) -> io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            replies,
            capture: AtomicBool::new(false),
            captured: Mutex::new(None),
        });
        let loop_shared = Arc::clone(&shared);
        let (task_tx, task_rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("bench-server".into())
            .spawn(move || {
                let task = std::fs::read_link("/proc/thread-self")
                    .map(|path| format!("/proc/{}", path.display()))
                    .unwrap_or_default();
                let _ = task_tx.send(task);
                let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                    return;
                };
                runtime.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(listener) else {
                        return;
                    };
                    while let Ok((socket, _)) = listener.accept().await {
                        let _ = socket.set_nodelay(true);
                        tokio::spawn(serve(socket, Arc::clone(&loop_shared)));
                    }
                });
            })?;
        let thread_task = task_rx.recv().unwrap_or_default();
        Ok(Self {
            address,
            shared,
            thread_task,
        })
    }

    /// The base URL for one workload: `http://127.0.0.1:PORT/WORKLOAD/v1`.
    pub(crate) fn base_url(&self, workload: &str) -> String {
        format!("http://{}/{workload}/v1", self.address)
    }

    /// Captures the body of the next request (the pre-check uses it to give the floor oa's exact request bytes).
    pub(crate) fn capture_next(&self) {
        *lock(&self.shared.captured) = None;
        self.shared.capture.store(true, Ordering::SeqCst);
    }

    /// The captured body, if a request came since [`Self::capture_next`].
    pub(crate) fn captured(&self) -> Option<Vec<u8>> {
        lock(&self.shared.captured).take()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves requests on one connection until the client closes it.
async fn serve(mut socket: TcpStream, shared: Arc<Shared>) {
    let mut buffer: Vec<u8> = Vec::with_capacity(16 * 1024);
    loop {
        let Some((head_end, content_length, path_key)) = read_head(&mut socket, &mut buffer).await else {
            return;
        };
        let total = head_end + content_length;
        while buffer.len() < total {
            if !read_more(&mut socket, &mut buffer).await {
                return;
            }
        }
        if shared.capture.swap(false, Ordering::SeqCst) {
            *lock(&shared.captured) = Some(buffer[head_end..total].to_vec());
        }
        buffer.drain(..total);
        let reply = shared.replies.0.get(&path_key).cloned().unwrap_or_else(not_found);
        if socket.write_all(&reply).await.is_err() {
            return;
        }
    }
}

/// Reads until the head is complete: its length, the body's Content-Length and the path's first segment.
async fn read_head(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<(usize, usize, String)> {
    loop {
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            let head = std::str::from_utf8(&buffer[..end]).ok()?;
            let mut lines = head.split("\r\n");
            let path = lines.next()?.split(' ').nth(1)?;
            let key = path.trim_start_matches('/').split('/').next()?.to_owned();
            let content_length = lines
                .filter_map(|line| line.split_once(':'))
                .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
                .and_then(|(_, value)| value.trim().parse().ok())
                .unwrap_or(0);
            if content_length > MAX_REQUEST_BYTES {
                return None;
            }
            return Some((end + 4, content_length, key));
        }
        if buffer.len() > MAX_REQUEST_BYTES || !read_more(socket, buffer).await {
            return None;
        }
    }
}

async fn read_more(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 16 * 1024];
    match socket.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buffer.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

fn not_found() -> Bytes {
    response(
        "404 Not Found",
        "application/json",
        br#"{"error":{"message":"no such workload"}}"#,
    )
}

/// A whole HTTP/1.1 response with a Content-Length, so the connection stays open after it.
pub(crate) fn response(status: &str, content_type: &str, body: &[u8]) -> Bytes {
    let mut bytes = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    Bytes::from(bytes)
}
