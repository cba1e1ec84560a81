//! The Langfuse HTTP client against a loopback stand-in (oa-testkit's server): Basic auth from the two keys, the
//! ingestion path and batch shapes, batching, a 207 with per-event errors, a 5xx retried then given up (the
//! events kept for the next flush), a 4xx not retried, no redirect followed, a timeout, the queue bound, and the
//! secret key in no error, report or `Debug` output.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, SystemTime};

use oa_observe::langfuse::{Level, ObservationRecord, ObservationType, TraceRecord, Usage};
use oa_observe::{HttpLangfuseClient, HttpLimits, LangfuseClient, LangfuseCredentials, LangfuseError};
use oa_testkit::{Reply, Server};
use serde_json::{Map, Value, json};

const SECRET: &str = "sk-lf-canary-SECRET";
/// base64("pk-lf-test:sk-lf-canary-SECRET").
const BASIC: &str = "Basic cGstbGYtdGVzdDpzay1sZi1jYW5hcnktU0VDUkVU";

fn limits() -> HttpLimits {
    HttpLimits {
        retry_wait: Duration::from_millis(10),
        timeout: Duration::from_secs(5),
        ..HttpLimits::default()
    }
}

fn client_for(server: &Server, limits: HttpLimits) -> HttpLangfuseClient {
    // The host with a trailing path segment, as a self-hosted Langfuse behind a prefix is.
    let host = server.base_url().replace("/v1", "/langfuse");
    HttpLangfuseClient::new(LangfuseCredentials::new("pk-lf-test", SECRET, host), limits).unwrap()
}

fn trace(id: &str) -> TraceRecord {
    let mut metadata = Map::new();
    metadata.insert("correlation_id".into(), json!("corr-1"));
    TraceRecord {
        id: id.into(),
        name: "ask".into(),
        timestamp: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
        metadata,
        input: Some(json!({"entry_node": "ask"})),
        output: None,
        user_id: Some("user-42".into()),
        session_id: None,
    }
}

fn generation(trace_id: &str) -> ObservationRecord {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let mut metadata = Map::new();
    metadata.insert("structured_output_path".into(), json!("native"));
    let mut parameters = Map::new();
    parameters.insert("temperature".into(), json!(0.2));
    ObservationRecord {
        id: "0123456789abcdef".into(),
        trace_id: trace_id.into(),
        parent_observation_id: Some("fedcba9876543210".into()),
        kind: ObservationType::Generation,
        name: "openarmature.llm.complete".into(),
        start_time: start,
        end_time: Some(start + Duration::from_millis(1500)),
        metadata,
        level: Level::Error,
        status_message: Some("structured_output_invalid".into()),
        input: None,
        output: None,
        model: Some("gpt-test".into()),
        model_parameters: parameters,
        usage: Some(Usage {
            input: None,
            output: Some(5),
            total: Some(15),
        }),
    }
}

fn accepted(batch_ids: &[&str]) -> Reply {
    let successes: Vec<Value> = batch_ids
        .iter()
        .map(|id| json!({"id": id, "status": 201}))
        .collect();
    Reply::json(207, json!({"successes": successes, "errors": []}))
}

fn assert_no_secret(text: &str) {
    assert!(!text.contains(SECRET), "the secret key leaked: {text}");
}

#[tokio::test]
async fn a_flush_posts_one_authenticated_batch_of_typed_events() {
    let server = Server::start(vec![accepted(&[])]).unwrap();
    let client = client_for(&server, limits());
    client.upsert_trace(&trace("0af7651916cd43dd8448eb211c80319c"));
    client.record_observation(&generation("0af7651916cd43dd8448eb211c80319c"));
    assert_eq!(client.n_queued(), 2);
    let report = client.flush().await.unwrap();
    assert_eq!((report.n_sent, report.n_rejected, report.n_dropped), (2, 0, 0));
    assert_eq!(client.n_queued(), 0);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/langfuse/api/public/ingestion")
    );
    assert_eq!(request.header("authorization"), Some(BASIC));
    assert_eq!(request.header("content-type"), Some("application/json"));
    let body = request.json().unwrap();
    let batch = body["batch"].as_array().unwrap();
    assert_eq!(batch.len(), 2);
    for event in batch {
        assert_eq!(event["id"].as_str().unwrap().len(), 36, "a UUID per event");
        assert!(event["timestamp"].as_str().unwrap().ends_with('Z'));
    }
    assert_eq!(batch[0]["type"], "trace-create");
    assert_eq!(
        batch[0]["body"],
        json!({"id": "0af7651916cd43dd8448eb211c80319c", "name": "ask", "timestamp": "2023-11-14T22:13:20.000Z",
               "metadata": {"correlation_id": "corr-1"}, "input": {"entry_node": "ask"}, "userId": "user-42"})
    );
    assert_eq!(batch[1]["type"], "generation-create");
    assert_eq!(
        batch[1]["body"],
        json!({"id": "0123456789abcdef", "traceId": "0af7651916cd43dd8448eb211c80319c",
               "parentObservationId": "fedcba9876543210", "type": "generation",
               "name": "openarmature.llm.complete", "startTime": "2023-11-14T22:13:20.000Z",
               "endTime": "2023-11-14T22:13:21.500Z", "metadata": {"structured_output_path": "native"},
               "level": "ERROR", "statusMessage": "structured_output_invalid", "model": "gpt-test",
               "modelParameters": {"temperature": 0.2}, "usageDetails": {"output": 5, "total": 15}})
    );
    assert_no_secret(&String::from_utf8_lossy(&request.body));
}

#[tokio::test]
async fn events_go_in_batches_of_the_configured_size() {
    let server = Server::start(vec![accepted(&[]), accepted(&[]), accepted(&[])]).unwrap();
    let client = client_for(
        &server,
        HttpLimits {
            batch_size: 2,
            ..limits()
        },
    );
    for n in 0..5 {
        client.upsert_trace(&trace(&format!("{n:032x}")));
        assert_eq!(client.wants_flush(), n >= 1, "after {} events", n + 1);
    }
    let report = client.flush().await.unwrap();
    assert_eq!(report.n_sent, 5);
    let sizes: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| r.json().unwrap()["batch"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [2, 2, 1]);
}

#[tokio::test]
async fn a_207_with_errors_reports_them_scrubbed_and_does_not_resend() {
    // A stand-in that quotes the secret back in its error text must not get it into the report.
    let reply = Reply::json(
        207,
        json!({"successes": [{"id": "a", "status": 201}],
               "errors": [{"id": "b", "status": 400, "message": format!("invalid body for key {SECRET}")}]}),
    );
    let server = Server::start(vec![reply]).unwrap();
    let client = client_for(&server, limits());
    client.upsert_trace(&trace("00000000000000000000000000000001"));
    client.record_observation(&generation("00000000000000000000000000000001"));
    let report = client.flush().await.unwrap();
    assert_eq!((report.n_sent, report.n_rejected), (1, 1));
    assert_eq!(report.rejections, ["invalid body for key <redacted>"]);
    assert_no_secret(&format!("{report:?}"));
    // Nothing is left to send.
    let again = client.flush().await.unwrap();
    assert_eq!(again.n_sent, 0);
    assert_eq!(server.n_requests(), 1);
}

#[tokio::test]
async fn a_5xx_is_retried_then_the_batch_waits_for_the_next_flush() {
    let unavailable = || Reply::json(503, json!({"message": format!("overloaded ({SECRET})")}));
    let server = Server::start(vec![unavailable(), accepted(&[])]).unwrap();
    let client = client_for(
        &server,
        HttpLimits {
            max_attempts: 2,
            ..limits()
        },
    );
    client.upsert_trace(&trace("00000000000000000000000000000002"));
    assert_eq!(
        client.flush().await.unwrap().n_sent,
        1,
        "the second try went through"
    );
    assert_eq!(server.n_requests(), 2);

    let server = Server::start(vec![unavailable(), unavailable(), accepted(&[])]).unwrap();
    let client = client_for(
        &server,
        HttpLimits {
            max_attempts: 2,
            ..limits()
        },
    );
    client.upsert_trace(&trace("00000000000000000000000000000003"));
    let error = client.flush().await.unwrap_err();
    assert!(
        matches!(error, LangfuseError::Status { status: 503, .. }),
        "{error:?}"
    );
    assert_no_secret(&error.to_string());
    assert_no_secret(&format!("{error:?}"));
    assert_eq!(client.n_queued(), 1, "kept for the next flush");
    assert_eq!(client.flush().await.unwrap().n_sent, 1);
    assert_eq!(server.n_requests(), 3);
}

#[tokio::test]
async fn a_4xx_is_not_retried_and_a_redirect_not_followed() {
    let server = Server::start(vec![Reply::json(401, json!({"message": "bad keys"}))]).unwrap();
    let client = client_for(&server, limits());
    client.upsert_trace(&trace("00000000000000000000000000000004"));
    let error = client.flush().await.unwrap_err();
    assert!(
        matches!(error, LangfuseError::Status { status: 401, .. }),
        "{error:?}"
    );
    assert_eq!(server.n_requests(), 1);
    assert_eq!(client.n_queued(), 0, "rejected events are not resent forever");

    let elsewhere = Server::start(vec![accepted(&[])]).unwrap();
    let redirect = Reply::json_with_header(
        307,
        "location",
        &format!("{}/api/public/ingestion", elsewhere.base_url()),
        json!({}),
    );
    let server = Server::start(vec![redirect]).unwrap();
    let client = client_for(&server, limits());
    client.upsert_trace(&trace("00000000000000000000000000000005"));
    let error = client.flush().await.unwrap_err();
    assert!(
        matches!(error, LangfuseError::Status { status: 307, .. }),
        "{error:?}"
    );
    assert_eq!(elsewhere.n_requests(), 0, "the keys never travel to another host");
}

#[tokio::test]
async fn a_hung_server_times_out_and_a_full_queue_drops_the_oldest() {
    let server = Server::start(vec![Reply::Hang, Reply::Hang]).unwrap();
    let client = client_for(
        &server,
        HttpLimits {
            timeout: Duration::from_millis(200),
            max_attempts: 1,
            max_queue: 3,
            ..limits()
        },
    );
    for n in 0..5 {
        client.upsert_trace(&trace(&format!("{n:032x}")));
    }
    assert_eq!(client.n_queued(), 3);
    let error = client.flush().await.unwrap_err();
    assert!(
        matches!(&error, LangfuseError::Transport(what) if what.contains("timed out")),
        "{error:?}"
    );
    assert_eq!(client.n_queued(), 3, "kept for the next flush");
    let accepting = Server::start(vec![accepted(&[])]).unwrap();
    let bounded = client_for(
        &accepting,
        HttpLimits {
            max_queue: 3,
            ..limits()
        },
    );
    for n in 0..5 {
        bounded.upsert_trace(&trace(&format!("{n:032x}")));
    }
    let report = bounded.flush().await.unwrap();
    assert_eq!((report.n_sent, report.n_dropped), (3, 2));
    let sent = accepting.requests()[0].json().unwrap();
    assert_eq!(
        sent["batch"][0]["body"]["id"],
        format!("{:032x}", 2),
        "the oldest two were dropped"
    );
}

#[test]
fn hosts_with_credentials_or_other_schemes_are_refused_without_echoing_them() {
    for host in [
        "https://user:hunter2@cloud.langfuse.com",
        "ftp://cloud.langfuse.com",
        "not a url",
        "https://cloud.langfuse.com/?token=hunter2",
    ] {
        let error =
            HttpLangfuseClient::new(LangfuseCredentials::new("pk", SECRET, host), limits()).unwrap_err();
        assert!(
            matches!(error, LangfuseError::InvalidHost(_)),
            "{host}: {error:?}"
        );
        assert!(!error.to_string().contains("hunter2"), "{error}");
    }
    let client = HttpLangfuseClient::new(
        LangfuseCredentials::new("pk-lf-test", SECRET, "http://127.0.0.1:1"),
        limits(),
    )
    .unwrap();
    assert_no_secret(&format!("{client:?}"));
}
