//! The loopback server over real sockets: each kind of reply, the script's order, routes and default, the caps,
//! the blocking handle, the relay, and that dropping the server closes what it holds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use oa_testkit::{Reply, Responder, Script, Server, exchange};
use serde_json::json;

const POST: &[u8] = b"POST /v1/chat/completions HTTP/1.1\r\nX-Key: k\r\ncontent-length: 7\r\n\r\n{\"a\":1}";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Sends `POST` and returns the open connection with what arrived until nothing came for `wait`.
fn open(server: &Server, wait: Duration) -> (TcpStream, Vec<u8>) {
    let mut stream = TcpStream::connect(server.address()).unwrap();
    stream.write_all(POST).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut received = Vec::new();
    let mut chunk = [0_u8; 4096];
    while let Ok(n) = stream.read(&mut chunk) {
        if n == 0 {
            break;
        }
        received.extend_from_slice(&chunk[..n]);
    }
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    (stream, received)
}

#[test]
fn replies_in_order_then_the_default_and_every_request_is_captured() {
    let mut script = Script::new(vec![
        Reply::json_with_header(503, "Retry-After", "2", json!({"error": {"message": "down"}})),
        Reply::Raw {
            status: 200,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: b"plain".to_vec(),
        },
    ]);
    script
        .routes
        .push(("/v1/models".into(), Reply::json(200, json!({"object": "list"}))));
    script.default = Reply::json(599, json!({"error": {"message": "none left"}}));
    let server = Server::start(Responder::Script(script)).unwrap();
    let first = text(&exchange(server.address(), POST).unwrap());
    assert!(first.starts_with("HTTP/1.1 503 "), "{first}");
    assert!(first.contains("Retry-After: 2\r\n"), "{first}");
    assert!(first.ends_with(r#"{"error":{"message":"down"}}"#), "{first}");
    let models = text(&exchange(server.address(), b"GET /v1/models?x=1 HTTP/1.1\r\n\r\n").unwrap());
    assert!(models.ends_with(r#"{"object":"list"}"#), "{models}");
    assert_eq!(server.n_unconsumed(), 1, "a route consumes nothing");
    let second = text(&exchange(server.address(), POST).unwrap());
    assert!(second.contains("content-type: text/plain\r\n"), "{second}");
    assert!(!second.contains("application/json"), "{second}");
    assert!(second.ends_with("\r\n\r\nplain"), "{second}");
    let third = text(&exchange(server.address(), POST).unwrap());
    assert!(third.starts_with("HTTP/1.1 599 "), "{third}");
    assert_eq!((server.n_unconsumed(), server.n_defaulted()), (0, 1));
    let requests = server.requests();
    assert_eq!(server.n_requests(), 4);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("x-key"), Some("k"));
    assert_eq!(requests[0].json(), Some(json!({"a": 1})));
    assert_eq!(requests[1].path, "/v1/models?x=1");
}

#[test]
fn a_stream_arrives_in_pieces_and_closes() {
    let server = Server::start(vec![Reply::Stream {
        pieces: vec![b"data: 1\n\n".to_vec(), b"data: 2\n\n".to_vec()],
        pause: Duration::from_millis(300),
    }])
    .unwrap();
    // Within the first pause only the head has arrived; the rest follows, then the server closes.
    let (mut stream, early) = open(&server, Duration::from_millis(100));
    let early = text(&early);
    assert!(early.contains("content-type: text/event-stream\r\n"), "{early}");
    assert!(!early.contains("content-length"), "{early}");
    assert!(!early.contains("data: 1"), "{early}");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    assert_eq!(text(&rest), "data: 1\n\ndata: 2\n\n");
}

#[test]
fn a_stall_and_a_hang_hold_the_connection_until_the_server_drops() {
    let server = Server::start(vec![
        Reply::StallAfter {
            pieces: vec![b"data: 1\n\n".to_vec()],
        },
        Reply::Hang,
    ])
    .unwrap();
    let (mut stalled, received) = open(&server, Duration::from_millis(200));
    assert!(
        text(&received).ends_with("\r\n\r\ndata: 1\n\n"),
        "{}",
        text(&received)
    );
    let (mut hung, received) = open(&server, Duration::from_millis(200));
    assert!(received.is_empty(), "{}", text(&received));
    assert_eq!(server.n_requests(), 2, "both requests were read");
    drop(server);
    for stream in [&mut stalled, &mut hung] {
        let closed = stream.read_to_end(&mut Vec::new());
        assert!(
            matches!(closed, Ok(0)),
            "the connection was not closed: {closed:?}"
        );
    }
}

#[test]
fn paced_bytes_arrive_after_their_pauses_then_the_connection_closes() {
    let server = Server::start_uncaptured(vec![Reply::Paced {
        pieces: vec![
            (Duration::ZERO, b"HTTP/1.1 200 OK\r\n\r\nfirst".to_vec()),
            (Duration::from_millis(400), b" second".to_vec()),
        ],
    }])
    .unwrap();
    let (mut stream, early) = open(&server, Duration::from_millis(150));
    assert_eq!(text(&early), "HTTP/1.1 200 OK\r\n\r\nfirst");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    assert_eq!(text(&rest), " second", "the rest came, then the close");
    // Uncaptured: counted, not kept.
    assert_eq!((server.n_requests(), server.requests().len()), (1, 0));
}

#[test]
fn a_thousand_simultaneous_connections_are_all_answered() {
    let server =
        Server::start_uncaptured(Responder::function(|_| Reply::json(200, json!({"ok": true})))).unwrap();
    let address = server.address();
    let clients: Vec<_> = (0..1000)
        .map(|_| {
            std::thread::Builder::new()
                .stack_size(64 << 10)
                .spawn(move || exchange(address, POST).unwrap())
                .unwrap()
        })
        .collect();
    for client in clients {
        assert!(text(&client.join().unwrap()).ends_with(r#"{"ok":true}"#));
    }
    assert_eq!(server.n_requests(), 1000);
}

#[test]
fn drop_closes_unanswered_and_a_function_answers_from_the_request() {
    let server = Server::start(vec![Reply::Drop]).unwrap();
    assert_eq!(exchange(server.address(), POST).unwrap(), b"");
    assert_eq!(server.n_requests(), 1);
    let echo = Server::start(Responder::function(|request| {
        Reply::json(200, json!({"method": request.method}))
    }))
    .unwrap();
    let response = text(&exchange(echo.address(), POST).unwrap());
    assert!(response.ends_with(r#"{"method":"POST"}"#), "{response}");
}

#[test]
fn oversized_heads_and_bodies_are_refused_uncaptured() {
    let server = Server::start(vec![Reply::json(200, json!({}))]).unwrap();
    let long_head = format!("GET / HTTP/1.1\r\nx-pad: {}", "a".repeat(70 * 1024));
    let response = text(&exchange(server.address(), long_head.as_bytes()).unwrap());
    assert!(response.starts_with("HTTP/1.1 431 "), "{response}");
    let big_body = b"POST / HTTP/1.1\r\ncontent-length: 16777217\r\n\r\n";
    let response = text(&exchange(server.address(), big_body).unwrap());
    assert!(response.starts_with("HTTP/1.1 413 "), "{response}");
    assert_eq!(server.n_requests(), 0);
    assert_eq!(server.n_unconsumed(), 1);
}

#[test]
fn the_relay_deletes_response_format_and_passes_the_reply_back() {
    let upstream = Server::start(vec![
        Reply::json(200, json!({"id": "u1"})),
        Reply::json(200, json!({})),
    ])
    .unwrap();
    let gateway = Server::start(Responder::Relay(upstream.base_url())).unwrap();
    assert_eq!(gateway.base_url(), format!("http://{}/v1", gateway.address()));
    let body = r#"{"model":"m","response_format":{"type":"json_object"}}"#;
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer t\r\nConnection: keep-alive\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let response = text(&exchange(gateway.address(), request.as_bytes()).unwrap());
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert_eq!(response.matches("connection: close").count(), 1, "{response}");
    assert!(response.ends_with(r#"{"id":"u1"}"#), "{response}");
    let forwarded = &upstream.requests()[0];
    assert_eq!(forwarded.path, "/v1/chat/completions");
    assert_eq!(forwarded.header("authorization"), Some("Bearer t"));
    assert_eq!(forwarded.json(), Some(json!({"model": "m"})));
    assert_eq!((gateway.n_stripped(), gateway.n_requests()), (1, 1));
    // A body without response_format goes through as it is, uncounted.
    let plain = "POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 11\r\n\r\n{\"model\":1}";
    exchange(gateway.address(), plain.as_bytes()).unwrap();
    assert_eq!(upstream.requests()[1].body, b"{\"model\":1}");
    assert_eq!(gateway.n_stripped(), 1);
    assert!(Server::start(Responder::Relay("https://x/v1".into())).is_err());
}

#[tokio::test]
async fn the_server_serves_beside_a_caller_runtime_stops_when_dropped_and_the_closed_port_refuses() {
    let server = Server::start(vec![Reply::json(201, json!({"ok": true}))]).unwrap();
    let mut stream = std::net::TcpStream::connect(server.address()).unwrap();
    stream.write_all(POST).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 201 "), "{response}");
    assert_eq!(server.requests()[0].json(), Some(json!({"a": 1})));
    let address = server.address();
    drop(server);
    assert!(
        std::net::TcpStream::connect(address).is_err(),
        "a dropped server stops listening"
    );
    let closed = oa_testkit::closed_base_url().unwrap();
    let closed = closed.trim_start_matches("http://").trim_end_matches("/v1");
    assert!(std::net::TcpStream::connect(closed).is_err());
}
