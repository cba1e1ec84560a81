//! What the server does with one request: a complete response, a stream written in pieces, raw bytes at a given
//! pace, a stall, a hang or a dropped connection.

use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::http::head;

/// One scripted reply.
///
/// ```
/// use oa_testkit::Reply;
/// use serde_json::json;
///
/// let replies = vec![
///     Reply::json_with_header(429, "Retry-After", "0", json!({"error": {"message": "slow down"}})),
///     Reply::json(200, json!({"choices": []})),
///     Reply::sse(&[json!({"choices": []}), json!("[DONE]")]),
///     Reply::Drop,
/// ];
/// assert_eq!(replies.len(), 4);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A complete response with these body bytes; `content-type` is `application/json` unless `headers` name one
    /// (the `json` constructors build it from a JSON value).
    Raw {
        /// The status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// The body bytes.
        body: Vec<u8>,
    },
    /// A 200 `text/event-stream` without a length, written piece by piece with `pause` before each piece; the
    /// connection closes after the last.
    Stream {
        /// The pieces, written and flushed one at a time.
        pieces: Vec<Vec<u8>>,
        /// The pause before each piece.
        pause: Duration,
    },
    /// The head of a 200 event stream and these pieces, then silence with the connection held open until the
    /// server stops.
    StallAfter {
        /// The pieces written before the stall.
        pieces: Vec<Vec<u8>>,
    },
    /// Raw response bytes, head included, written piece by piece, each after its own pause; then the connection
    /// closes. A bounded stall (a long pause before the last piece), an answer cut off mid-body (pieces that end
    /// early) and a slow answer are this.
    Paced {
        /// The pieces with the pause before each.
        pieces: Vec<(Duration, Vec<u8>)>,
    },
    /// Read the request, then never answer; the connection stays open until the server stops.
    Hang,
    /// Read the request, then close the connection without answering.
    Drop,
}

impl Reply {
    /// A JSON response with no extra header.
    pub fn json(status: u16, body: Value) -> Self {
        Self::json_with_headers(status, Vec::new(), body)
    }

    /// A JSON response with one extra header.
    pub fn json_with_header(status: u16, name: &str, value: &str, body: Value) -> Self {
        Self::json_with_headers(status, vec![(name.to_owned(), value.to_owned())], body)
    }

    /// A JSON response with these extra headers.
    pub fn json_with_headers(status: u16, headers: Vec<(String, String)>, body: Value) -> Self {
        let body = body.to_string().into_bytes();
        Self::Raw {
            status,
            headers,
            body,
        }
    }

    /// A 200 event stream of these chunks, in one piece (see [`sse_bytes`]).
    pub fn sse(chunks: &[Value]) -> Self {
        Self::sse_text(sse_bytes(chunks))
    }

    /// A 200 event stream of these bytes as they are (malformed ones too), in one piece.
    pub fn sse_text(bytes: Vec<u8>) -> Self {
        Self::Stream {
            pieces: vec![bytes],
            pause: Duration::ZERO,
        }
    }

    /// Writes this reply on `socket`; a write error ends the exchange (the client hung up). For a
    /// [`Stream`](Self::Stream), what the client did: closed the connection before the last piece (and how many
    /// pieces were written then), or not.
    pub(crate) async fn send(self, mut socket: TcpStream) -> Option<StreamEnd> {
        if let Self::Stream { pieces, pause } = self {
            let end = write_stream(&mut socket, &pieces, pause).await;
            let _ = socket.shutdown().await;
            return Some(end);
        }
        let _ = self.write(&mut socket).await;
        None
    }

    async fn write(self, socket: &mut TcpStream) -> std::io::Result<()> {
        let (status, headers, body) = match self {
            Self::Raw {
                status,
                headers,
                body,
            } => (status, headers, body),
            Self::Stream { pieces, pause } => {
                write_stream(socket, &pieces, pause).await;
                return socket.shutdown().await;
            }
            Self::StallAfter { pieces } => {
                if write_stream(socket, &pieces, Duration::ZERO).await.client_closed {
                    return Ok(());
                }
                return std::future::pending().await;
            }
            Self::Paced { pieces } => {
                for (pause, piece) in pieces {
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                    socket.write_all(&piece).await?;
                    socket.flush().await?;
                }
                return socket.shutdown().await;
            }
            Self::Hang => return std::future::pending().await,
            Self::Drop => return socket.shutdown().await,
        };
        let head = head(status, &headers, "application/json", Some(body.len()));
        socket.write_all(head.as_bytes()).await?;
        socket.write_all(&body).await?;
        socket.shutdown().await
    }
}

/// Server-Sent Events bytes: a `data:` line per chunk, a string chunk verbatim (e.g. `[DONE]`), any other chunk as
/// JSON.
///
/// ```
/// let bytes = oa_testkit::sse_bytes(&[serde_json::json!({"a": 1}), serde_json::json!("[DONE]")]);
/// assert_eq!(bytes, b"data: {\"a\":1}\n\ndata: [DONE]\n\n");
/// ```
pub fn sse_bytes(chunks: &[Value]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for chunk in chunks {
        let data = match chunk {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        bytes.extend_from_slice(format!("data: {data}\n\n").as_bytes());
    }
    bytes
}

/// How a scripted event stream ([`Reply::Stream`]) ended, as the server saw it (see
/// [`Server::stream_ends`](crate::Server::stream_ends)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamEnd {
    /// The pieces the script holds.
    pub pieces: usize,
    /// The pieces written (and flushed) before the stream ended.
    pub written: usize,
    /// Whether the client closed the connection (or reset it) before the last piece was written.
    pub client_closed: bool,
}

/// The head of a 200 event stream, then each piece after `pause`, flushed, until the client closes the connection:
/// during each pause the server watches for the client's end of the connection, as a provider that stops
/// generating when its client hangs up does (with no pause, only a failed write shows it).
async fn write_stream(socket: &mut TcpStream, pieces: &[Vec<u8>], pause: Duration) -> StreamEnd {
    let mut end = StreamEnd {
        pieces: pieces.len(),
        written: 0,
        client_closed: false,
    };
    let head = head(200, &[], "text/event-stream", None);
    if socket.write_all(head.as_bytes()).await.is_err() {
        end.client_closed = !pieces.is_empty();
        return end;
    }
    for piece in pieces {
        if !pause.is_zero() && client_closed_within(socket, pause).await {
            end.client_closed = true;
            return end;
        }
        if socket.write_all(piece).await.is_err() || socket.flush().await.is_err() {
            end.client_closed = true;
            return end;
        }
        end.written += 1;
    }
    end
}

/// Waits `pause`, reading what the client sends meanwhile: `true` as soon as it closed (end of stream or an
/// error), `false` after the pause otherwise.
async fn client_closed_within(socket: &mut TcpStream, pause: Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let deadline = tokio::time::Instant::now() + pause;
    let mut scratch = [0u8; 512];
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut scratch)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            // Bytes after the request (none expected): read and ignored.
            Ok(Ok(_)) => {}
        }
    }
}
