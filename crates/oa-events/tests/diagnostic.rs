//! schema_not_honored (0126 on observability §5.5.7): emitted where the call is made, once per qualifying attempt,
//! with no observer attached, and never in the excluded cases (fixture 161's table, through the real provider).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use oa_events::{Event, EventBus, Graph, InvokeOptions, NodeError, Observer};
use oa_provider::hook::SCHEMA_NOT_HONORED;
use oa_provider::retry::Backoff;
use oa_provider::{CompletionRequest, Message, Provider, Reask, RetryConfig, RuntimeConfig};
use oa_testkit::openai::text_reply;
use oa_testkit::{Reply, Server};
use oa_testkit::{Traced, TracingCapture};
use serde_json::{Value, json};
use support::{Collect, provider, provider_without_native, strict_schema};
use tracing::instrument::WithSubscriber;

fn structured() -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("answer in JSON")]).with_response_schema(strict_schema())
}

/// Runs one call with no observer of any kind, straight on the provider, and returns the records it emitted.
async fn records_for(replies: Vec<Reply>, request: CompletionRequest, native: bool) -> Vec<Traced> {
    let capture = TracingCapture::default();
    let server = Server::start(replies).unwrap();
    let provider = if native {
        provider(&server.base_url())
    } else {
        provider_without_native(&server.base_url())
    };
    let _ = provider
        .complete(&request)
        .with_subscriber(capture.dispatch())
        .await;
    capture.named(SCHEMA_NOT_HONORED)
}

fn config(value: Value) -> RuntimeConfig {
    RuntimeConfig::from_json(&value).unwrap()
}

#[tokio::test]
async fn emitted_with_no_observer_attached_carrying_the_four_attributes() {
    let records = records_for(vec![text_reply("not json at all", "stop")], structured(), true).await;
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record.level, tracing::Level::WARN);
    assert_eq!(record.fields["openarmature.llm.provider"], "openai");
    assert_eq!(
        record.fields["openarmature.llm.model"], "gpt-test",
        "the bound model, not the response's"
    );
    assert_eq!(record.fields["openarmature.llm.attempt_index"], 0);
    assert!(
        record.fields["openarmature.llm.call_id"]
            .as_str()
            .unwrap()
            .starts_with("call_")
    );
}

#[tokio::test]
async fn the_table_of_fixture_161_through_the_real_provider() {
    let object_failing = r#"{"answer": 7}"#;
    // (case, reply content, finish_reason, config, native capability, expected number of records)
    let cases: Vec<(&str, &str, &str, Value, bool, usize)> = vec![
        ("1 not JSON, stop", "nope", "stop", json!({}), true, 1),
        (
            "2 object failing the schema",
            object_failing,
            "stop",
            json!({}),
            true,
            0,
        ),
        ("3 an array", "[1, 2]", "stop", json!({}), true, 1),
        ("4 length", "nope", "length", json!({}), true, 0),
        ("5 content_filter", "nope", "content_filter", json!({}), true, 0),
        (
            "6 declared stop_sequences",
            "nope",
            "stop",
            json!({"stop_sequences": ["END"]}),
            true,
            0,
        ),
        (
            "7 stop in extras",
            "nope",
            "stop",
            json!({"extras": {"stop": ["END"]}}),
            true,
            0,
        ),
        ("8 prompt augmentation", "nope", "stop", json!({}), false, 0),
        (
            "9 valid content",
            r#"{"answer": "x"}"#,
            "stop",
            json!({}),
            true,
            0,
        ),
        (
            "15 empty declared list",
            "nope",
            "stop",
            json!({"stop_sequences": []}),
            true,
            1,
        ),
        (
            "18 empty list in extras",
            "nope",
            "stop",
            json!({"extras": {"stop": []}}),
            true,
            1,
        ),
    ];
    for (case, content, finish_reason, config_json, native, expected) in cases {
        let request = structured().with_config(config(config_json));
        let records = records_for(vec![text_reply(content, finish_reason)], request, native).await;
        assert_eq!(records.len(), expected, "case {case}");
    }
}

#[tokio::test]
async fn no_schema_and_a_call_rejected_before_sending_emit_nothing() {
    let plain = CompletionRequest::new(vec![Message::user("hi")]);
    assert!(
        records_for(vec![text_reply("nope", "stop")], plain, true)
            .await
            .is_empty()
    );
    let conflicting =
        structured().with_config(config(json!({"extras": {"response_format": {"type": "text"}}})));
    assert!(
        records_for(vec![text_reply("nope", "stop")], conflicting, true)
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn an_openai_refusal_reported_as_stop_is_content_filter_and_emits_nothing() {
    let refusal = Reply::json(
        200,
        json!({
            "id": "r", "model": "gpt-test",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": null, "refusal": "I can't help"}}]
        }),
    );
    assert!(records_for(vec![refusal], structured(), true).await.is_empty());
}

fn reask() -> RetryConfig {
    RetryConfig::new(2)
        .with_backoff(Backoff::Fixed(Duration::ZERO))
        .with_reask(Reask::template("fix: {error_message}"))
}

/// Case 19 with two observers on the bus: one record per qualifying attempt, never one per observer.
#[tokio::test]
async fn one_record_per_qualifying_attempt_with_two_observers_attached() {
    let capture = TracingCapture::default();
    let server = Server::start(vec![text_reply("nope", "stop"), text_reply("still no", "stop")]).unwrap();
    let provider = Arc::new(provider(&server.base_url()));
    let first = Arc::new(Collect::default());
    let second = Arc::new(Collect::default());
    let bus = EventBus::new(vec![
        Arc::clone(&first) as Arc<dyn Observer>,
        Arc::clone(&second) as Arc<dyn Observer>,
    ]);
    let node_provider = Arc::clone(&provider);
    let graph = Graph::builder()
        .node("ask", move |_| {
            let provider = Arc::clone(&node_provider);
            async move {
                oa_events::complete(provider.as_ref(), structured().with_retry(reask())).await?;
                Ok::<_, NodeError>(json!({}))
            }
        })
        .build()
        .unwrap();
    let outcome = graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .with_subscriber(capture.dispatch())
        .await;
    assert!(outcome.is_err());
    bus.drain(Duration::from_secs(5)).await.unwrap();
    let records = capture.named(SCHEMA_NOT_HONORED);
    let indices: Vec<&Value> = records
        .iter()
        .map(|r| &r.fields["openarmature.llm.attempt_index"])
        .collect();
    assert_eq!(indices, [&json!(0), &json!(1)]);
    let call_ids: Vec<&Value> = records
        .iter()
        .map(|r| &r.fields["openarmature.llm.call_id"])
        .collect();
    assert_eq!(call_ids[0], call_ids[1], "one call, one call_id");
    for observer in [&first, &second] {
        let events = observer.events();
        let failed = oa_testkit::variants!(events, Event::LlmFailed);
        assert_eq!(failed.len(), 1, "one terminal event per call");
        assert_eq!(failed[0].scope.attempt_index, 0, "node-level index");
        assert_eq!(
            &json!(failed[0].request.call_id),
            call_ids[0],
            "the record joins the typed event"
        );
    }
}
