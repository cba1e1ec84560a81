//! The mock provider: a fixture's canned responses as replies of oa-testkit's loopback server on 127.0.0.1, which
//! serves them in order and captures every request's bytes (llm-provider fixture 001, 005, 007 and 059 headers).

use oa_testkit::{Reply, Responder, Script, Server};
use serde_json::{Value, json};

use crate::node::Node;

/// Reads a `responses` entry or a `health_endpoint` block: `connection_failure: true` closes the connection
/// unanswered; otherwise `status`, `headers` (values as strings), and `body` as JSON (absent: empty) or
/// `stream_body` as Server-Sent Events.
pub(crate) fn reply_from_node(node: &Node) -> Result<Reply, String> {
    if node.get("connection_failure").and_then(Node::as_bool) == Some(true) {
        return Ok(Reply::Drop);
    }
    let status = node
        .get("status")
        .and_then(Node::as_i64)
        .ok_or("a mock response needs an integer `status`")?;
    let status = u16::try_from(status)
        .ok()
        .filter(|s| (100..=999).contains(s))
        .ok_or("status out of range")?;
    let mut headers = Vec::new();
    for (name, value) in node.get("headers").and_then(Node::as_map).unwrap_or_default() {
        let value = match value {
            Node::Str(text) => text.clone(),
            other => other.to_json().to_string(),
        };
        headers.push((name.clone(), value));
    }
    Ok(
        match (node.get("stream_body").and_then(Node::as_seq), node.get("body")) {
            (Some(chunks), _) => sse(
                status,
                headers,
                &chunks.iter().map(Node::to_json).collect::<Vec<_>>(),
            ),
            (None, Some(body)) => Reply::json_with_headers(status, headers, body.to_json()),
            (None, None) => Reply::Raw {
                status,
                headers,
                body: Vec::new(),
            },
        },
    )
}

/// A complete `text/event-stream` response: each chunk, or the literal `[DONE]`, on its own `data:` line.
pub(crate) fn sse(status: u16, mut headers: Vec<(String, String)>, chunks: &[Value]) -> Reply {
    headers.push(("content-type".into(), "text/event-stream".into()));
    Reply::Raw {
        status,
        headers,
        body: oa_testkit::sse_bytes(chunks),
    }
}

/// Starts the mock: `replies` in order, and `health` (path, reply) for every request to
/// that path. A request after the replies run out is answered 599, so the client sees a failure, and counted
/// (`n_defaulted`).
pub(crate) fn start(replies: Vec<Reply>, health: Option<(String, Reply)>) -> std::io::Result<Server> {
    let mut script = Script::new(replies);
    script.default = Reply::json(
        599,
        json!({"error": {"message": "mock provider: no canned response left"}}),
    );
    script.routes.extend(health);
    Server::start(Responder::Script(script))
}

/// The model a mocked provider's bodies name first, with a trailing `-YYYY-MM-DD` release date removed (a
/// dated response model is what a provider bound to the undated one answers with): the model a harness binds when
/// the fixture names none (0126 notes no fixture defines it).
pub(crate) fn mocked_model(entries: &[Node]) -> Option<String> {
    entries
        .iter()
        .find_map(|entry| {
            entry
                .get("body")
                .and_then(|b| b.get("model"))
                .and_then(Node::as_str)
        })
        .map(|model| strip_release_date(model).to_owned())
}

fn strip_release_date(model: &str) -> &str {
    let bytes = model.as_bytes();
    if bytes.len() > 11 {
        let (head, tail) = model.split_at(model.len() - 11);
        let t = tail.as_bytes();
        let dated = t[0] == b'-'
            && t[5] == b'-'
            && t[8] == b'-'
            && [1, 2, 3, 4, 6, 7, 9, 10].iter().all(|&i| t[i].is_ascii_digit());
        if dated {
            return head;
        }
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw HTTP/1.1 exchange over a fresh connection: returns the whole response as text.
    fn exchange(server: &Server, request: &str) -> String {
        let response = oa_testkit::exchange(server.address(), request.as_bytes());
        String::from_utf8(response.unwrap()).unwrap()
    }

    fn reply(yaml: &str) -> Reply {
        reply_from_node(&Node::from_yaml_str(yaml).unwrap()).unwrap()
    }

    #[test]
    fn serves_in_order_and_captures_bytes() {
        let replies = vec![
            reply("{status: 503, body: {error: {message: down}}, headers: {Retry-After: 2}}"),
            reply("{status: 200, body: {id: x}}"),
        ];
        let server = start(replies, None).unwrap();
        let body = r#"{"b":1,"a":2}"#;
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let first = exchange(&server, &request);
        assert!(first.starts_with("HTTP/1.1 503 "), "{first}");
        assert!(first.contains("Retry-After: 2\r\n"), "{first}");
        assert!(first.ends_with(r#"{"error":{"message":"down"}}"#), "{first}");
        let second = exchange(&server, &request);
        assert!(second.starts_with("HTTP/1.1 200 "), "{second}");
        assert_eq!(server.n_unconsumed(), 0);
        let third = exchange(&server, &request);
        assert!(third.starts_with("HTTP/1.1 599 "), "{third}");
        assert_eq!(server.n_defaulted(), 1);
        let captured = server.requests();
        assert_eq!(captured.len(), 3);
        assert_eq!(captured[0].method, "POST");
        assert_eq!(captured[0].path, "/v1/chat/completions");
        assert_eq!(captured[0].body, body.as_bytes());
    }

    #[test]
    fn streams_sse_and_serves_health() {
        let replies = vec![reply("{status: 200, stream_body: [{a: 1}, '[DONE]']}")];
        let health = Some((
            "/v1/models".to_owned(),
            reply("{status: 200, body: {object: list}}"),
        ));
        let server = start(replies, health).unwrap();
        let health_response = exchange(&server, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(
            health_response.ends_with(r#"{"object":"list"}"#),
            "{health_response}"
        );
        assert_eq!(
            server.n_unconsumed(),
            1,
            "the health probe consumes no canned response"
        );
        let streamed = exchange(
            &server,
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        );
        assert!(streamed.contains("content-type: text/event-stream"), "{streamed}");
        assert!(
            streamed.ends_with("data: {\"a\":1}\n\ndata: [DONE]\n\n"),
            "{streamed}"
        );
    }

    #[test]
    fn connection_failure_closes_without_a_response() {
        let server = start(vec![reply("{connection_failure: true}")], None).unwrap();
        let response = exchange(
            &server,
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        );
        assert_eq!(response, "");
        assert_eq!(server.requests().len(), 1);
    }

    #[test]
    fn malformed_entries_are_errors() {
        assert!(reply_from_node(&Node::from_yaml_str("{body: {}}").unwrap()).is_err());
        assert!(reply_from_node(&Node::from_yaml_str("{status: 70000}").unwrap()).is_err());
    }
}
