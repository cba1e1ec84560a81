//! Just enough HTTP/1.1 for the demo's in-process servers: read one request (head and Content-Length body), write
//! one response, one request per connection. Blocking std sockets on their own threads, so the servers run beside
//! any async runtime.

use std::io::{self, Read, Write};
use std::net::TcpStream;

/// A request as read off the socket.
#[derive(Debug)]
pub(super) struct Request {
    /// The request line, e.g. `POST /v1/chat/completions HTTP/1.1`.
    pub(super) line: String,
    /// Header lines, verbatim, without the request line.
    pub(super) headers: Vec<String>,
    /// The body bytes.
    pub(super) body: Vec<u8>,
}

// A demo server reads requests from oa itself; the cap only stops a stray client from growing memory.
const MAX_REQUEST_BYTES: usize = 4 << 20;

/// Reads one request.
pub(super) fn read_request(stream: &mut TcpStream) -> io::Result<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n_read = stream.read(&mut chunk)?;
        if n_read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..n_read]);
        if let Some(at) = find(&buffer, b"\r\n\r\n") {
            break at;
        }
        if buffer.len() > MAX_REQUEST_BYTES {
            return Err(io::ErrorKind::InvalidData.into());
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n").map(str::to_owned);
    let line = lines.next().unwrap_or_default();
    let headers: Vec<String> = lines.filter(|header| !header.is_empty()).collect();
    let content_length = headers
        .iter()
        .find_map(|header| {
            let (name, value) = header.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0)
        .min(MAX_REQUEST_BYTES);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < content_length {
        let n_read = stream.read(&mut chunk)?;
        if n_read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n_read]);
    }
    Ok(Request { line, headers, body })
}

/// Writes a complete JSON response and closes the exchange.
pub(super) fn write_json(stream: &mut TcpStream, status: u16, body: &[u8]) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        if status == 200 { "OK" } else { "Not Found" },
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

/// The first index of `needle` in `haystack`.
pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}
