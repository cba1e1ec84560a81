//! The gateway relay: forwards one request upstream with `response_format` deleted from its JSON body, and sends the
//! upstream's reply back verbatim except that the connection closes after it.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::http::{Request, find};

/// `http://HOST:PORT/PREFIX` as (`HOST:PORT`, `/PREFIX` without a trailing slash).
pub(crate) fn split_base_url(base_url: &str) -> io::Result<(String, String)> {
    let rest = base_url
        .strip_prefix("http://")
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the relay forwards plain http only"))?;
    Ok(match rest.find('/') {
        Some(slash) => (
            rest[..slash].to_owned(),
            rest[slash..].trim_end_matches('/').to_owned(),
        ),
        None => (rest.to_owned(), String::new()),
    })
}

pub(crate) async fn forward(
    mut client: TcpStream,
    upstream: &str,
    request: Request,
    n_stripped: &AtomicUsize,
) -> io::Result<()> {
    let mut body = request.body;
    if let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(&body)
        && map.remove("response_format").is_some()
    {
        n_stripped.fetch_add(1, Ordering::SeqCst);
        body = Value::Object(map).to_string().into_bytes();
    }
    let mut head = format!(
        "{} {} HTTP/1.1\r\nhost: {upstream}\r\n",
        request.method, request.path
    );
    for (name, value) in &request.headers {
        if !matches!(name.as_str(), "host" | "content-length" | "connection") {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    ));
    let mut server = TcpStream::connect(upstream).await?;
    server.write_all(head.as_bytes()).await?;
    server.write_all(&body).await?;
    let mut reply = Vec::new();
    server.read_to_end(&mut reply).await?;
    let split = find(&reply, b"\r\n\r\n").map_or(reply.len(), |at| at + 4);
    let mut reply_head: String = String::from_utf8_lossy(&reply[..split])
        .trim_end()
        .split("\r\n")
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .map(|line| format!("{line}\r\n"))
        .collect();
    reply_head.push_str("connection: close\r\n\r\n");
    client.write_all(reply_head.as_bytes()).await?;
    client.write_all(&reply[split..]).await?;
    client.shutdown().await
}
