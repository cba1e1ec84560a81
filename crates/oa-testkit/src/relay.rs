//! The gateway relay: deletes `response_format` from a request's JSON body, forwards the request upstream, and sends
//! the upstream's reply back verbatim except that the connection closes after it.

use std::io;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::http::{Request, find};

/// `http://HOST:PORT/PREFIX` as (`HOST:PORT`, `/PREFIX` without a trailing slash).
pub(crate) fn split_base_url(base_url: &str) -> io::Result<(String, String)> {
    let rest = base_url
        .strip_prefix("http://")
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the relay forwards plain http only"))?;
    let (upstream, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    Ok((upstream.to_owned(), prefix.trim_end_matches('/').to_owned()))
}

/// Deletes `response_format` from a JSON object body; whether there was one.
pub(crate) fn strip_response_format(body: &mut Vec<u8>) -> bool {
    let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    let stripped = map.remove("response_format").is_some();
    if stripped {
        *body = Value::Object(map).to_string().into_bytes();
    }
    stripped
}

pub(crate) async fn forward(mut client: TcpStream, upstream: &str, request: &Request) -> io::Result<()> {
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
        request.body.len()
    ));
    let mut server = TcpStream::connect(upstream).await?;
    server.write_all(head.as_bytes()).await?;
    server.write_all(&request.body).await?;
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
