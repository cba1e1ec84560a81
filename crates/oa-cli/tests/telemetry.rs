//! `oa complete --otlp` and `--trace` as a built binary: an OTLP/HTTP receiver on 127.0.0.1 gets the call's spans
//! (one per attempt, with the structured-output path and the enforcement marker), the `schema_not_honored` log
//! record and the metrics, decoded from the protobuf the real exporter sent; `--trace` prints the same tree.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Output;

use oa_testkit::{Reply, Responder, Server};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use serde_json::json;
use support::chat;

const SCHEMA_NOT_HONORED: &str = "openarmature.structured_output.schema_not_honored";

/// A collector stand-in: every POST is answered 200 with an empty protobuf body, and captured.
fn receiver() -> Server {
    Server::start(Responder::function(|_| Reply::Raw {
        status: 200,
        headers: vec![("content-type".to_owned(), "application/x-protobuf".to_owned())],
        body: Vec::new(),
    }))
    .unwrap()
}

fn collector_url(receiver: &Server) -> String {
    format!("http://{}", receiver.address())
}

/// `oa complete` on a structured call whose first answer is prose (one schema_not_honored) and whose reask
/// recovers: two attempts.
fn complete(endpoint: &Server, extra: &[&str], envs: &[(&str, String)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let schema = support::answer_schema_file(&dir);
    let mut command = support::complete_command(&endpoint.base_url(), &["--reask", "--json"]);
    command
        .arg("--schema")
        .arg(&schema)
        .args(extra)
        .arg("What is six times seven?");
    for (name, value) in envs {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn prose_then_valid() -> Server {
    Server::start(vec![
        chat("Forty-two.", "stop"),
        chat(r#"{"answer": 42}"#, "stop"),
    ])
    .unwrap()
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|value| value.value.as_ref()) {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        Some(any_value::Value::IntValue(number)) => number.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|attribute| attribute.key == key)
        .map(|attribute| text(attribute.value.as_ref()))
}

/// Every item the receiver got at `path`: each request body decoded as a `T`, then flattened through its
/// resources and their scopes (spans, log records or metrics).
fn exported<T: Message + Default, R, S, I>(
    receiver: &Server,
    path: &str,
    resources: fn(T) -> Vec<R>,
    scopes: fn(R) -> Vec<S>,
    items: fn(S) -> Vec<I>,
) -> Vec<I> {
    receiver
        .requests()
        .into_iter()
        .filter(|request| request.path == path)
        .flat_map(|request| resources(T::decode(request.body.as_slice()).unwrap()))
        .flat_map(scopes)
        .flat_map(items)
        .collect()
}

/// The receiver got what the issue asks of `--otlp`: a span per attempt with the path and marker, the diagnostic's
/// log record, and metric samples carrying the marker.
fn assert_exported(receiver: &Server) {
    let spans: Vec<_> = exported(
        receiver,
        "/v1/traces",
        |request: ExportTraceServiceRequest| request.resource_spans,
        |resource| resource.scope_spans,
        |scope| scope.spans,
    )
    .into_iter()
    .filter(|span| span.name == "openarmature.llm.complete")
    .collect();
    assert_eq!(spans.len(), 2, "one span per attempt");
    let mut modes: Vec<(String, String, String)> = spans
        .iter()
        .map(|span| {
            (
                attribute(&span.attributes, "openarmature.llm.attempt_index").unwrap(),
                attribute(&span.attributes, "openarmature.llm.structured_output.path").unwrap(),
                attribute(&span.attributes, "openarmature.llm.schema_mode").unwrap(),
            )
        })
        .collect();
    modes.sort();
    assert_eq!(
        modes,
        [
            ("0".into(), "native".into(), "unverified".into()),
            ("1".into(), "native".into(), "unverified_repaired".into())
        ]
    );
    let logs = exported(
        receiver,
        "/v1/logs",
        |request: ExportLogsServiceRequest| request.resource_logs,
        |resource| resource.scope_logs,
        |scope| scope.log_records,
    );
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0].event_name, SCHEMA_NOT_HONORED);
    assert_eq!(
        attribute(&logs[0].attributes, "openarmature.llm.attempt_index").as_deref(),
        Some("0")
    );
    assert_eq!(
        attribute(&logs[0].attributes, "openarmature.llm.schema_mode").as_deref(),
        Some("unverified")
    );
    let metrics = exported(
        receiver,
        "/v1/metrics",
        |request: ExportMetricsServiceRequest| request.resource_metrics,
        |resource| resource.scope_metrics,
        |scope| scope.metrics,
    );
    let names: Vec<&str> = metrics.iter().map(|metric| metric.name.as_str()).collect();
    assert!(
        names.contains(&"openarmature.gen_ai.client.operation.duration"),
        "{names:?}"
    );
    let failures = metrics
        .iter()
        .find(|metric| metric.name == "openarmature.structured_output.failures")
        .expect("the failure-class counter");
    let debug = format!("{failures:?}");
    assert!(
        debug.contains("not_json") && debug.contains("unverified"),
        "{debug}"
    );
}

#[test]
fn otlp_flag_exports_spans_logs_and_metrics_before_exit() {
    let endpoint = prose_then_valid();
    let receiver = receiver();
    let output = complete(&endpoint, &["--otlp", &collector_url(&receiver)], &[]);
    support::assert_exit(&output, 0);
    assert_exported(&receiver);
}

#[test]
fn the_standard_variable_names_the_collector_too() {
    let endpoint = prose_then_valid();
    let receiver = receiver();
    let output = complete(
        &endpoint,
        &[],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(&receiver))],
    );
    support::assert_exit(&output, 0);
    assert_exported(&receiver);
}

#[test]
fn trace_prints_the_span_tree_and_log_records_to_stderr() {
    let endpoint = prose_then_valid();
    let output = complete(&endpoint, &["--trace"], &[]);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let span_lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.trim_start().starts_with("openarmature.llm.complete ["))
        .collect();
    assert_eq!(span_lines.len(), 2, "{stderr}");
    assert!(
        span_lines[0].contains("openarmature.llm.structured_output.path=native"),
        "{stderr}"
    );
    assert!(
        span_lines[0].contains("openarmature.llm.schema_mode=unverified,"),
        "{stderr}"
    );
    assert!(
        span_lines[1].contains("openarmature.llm.schema_mode=unverified_repaired"),
        "{stderr}"
    );
    support::assert_contains(&stderr, &format!("WARNING {SCHEMA_NOT_HONORED}"));
    // stdout stays the one JSON object.
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["schema_mode"], json!("unverified_repaired"));
}

#[test]
fn a_collector_that_is_down_does_not_fail_the_call() {
    let endpoint = prose_then_valid();
    let closed = oa_testkit::closed_base_url().unwrap();
    let collector = closed.trim_end_matches("/v1");
    let output = complete(&endpoint, &["--otlp", collector], &[]);
    support::assert_exit(&output, 0);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["parsed"], json!({"answer": 42}));
}
