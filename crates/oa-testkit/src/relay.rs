//! The gateway relay: deletes `response_format` from a request's JSON body, forwards the request upstream with
//! `connection: close`, and streams the upstream's reply back verbatim as it arrives.

use std::io;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::http::Request;

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
    tokio::io::copy(&mut server, &mut client).await?;
    client.shutdown().await
}
