//! Streamed structured calls over a real socket (oa-testkit's scripted server): each value of the answer handed to
//! the hook as it completes, with its pointer, in order; with early stop, a violating stream cut within a delta of
//! its first certain violation (the server sees the connection close), the attempt failed with what had arrived
//! and the reask answered; without it, the stream read to its end as before.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{no_wait, openai_at};

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_provider::hook::{PartialValue, TokenDelta};
use oa_provider::model::EarlyStop;
use oa_provider::{AttemptHook, AttemptRecord, Category, CompletionRequest, Message, Provider, Reask};
use oa_schema::ViolationKind;
use oa_testkit::openai::content_stream;
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};

/// What the hook saw, in order: `T` a token, `P` a partial value (attempt, pointer, value), `A` an attempt ended.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Token(String),
    Partial(u32, String, Value, usize),
    Attempt(u32, Option<EarlyStop>),
}

#[derive(Default)]
struct Watch(Mutex<Vec<Seen>>);

impl AttemptHook for Watch {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        self.0.lock().unwrap().push(Seen::Token(delta.text.to_owned()));
    }

    fn on_partial(&self, partial: &PartialValue<'_>) {
        self.0.lock().unwrap().push(Seen::Partial(
            partial.attempt_index,
            partial.pointer.to_string(),
            partial.value.clone(),
            partial.certain_violations,
        ));
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.0
            .lock()
            .unwrap()
            .push(Seen::Attempt(record.attempt_index, record.early_stop().cloned()));
    }
}

impl Watch {
    fn partials(&self) -> Vec<(u32, String, Value, usize)> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|seen| match seen {
                Seen::Partial(attempt, pointer, value, below) => {
                    Some((*attempt, pointer.clone(), value.clone(), *below))
                }
                _ => None,
            })
            .collect()
    }

    fn attempts(&self) -> Vec<(u32, Option<EarlyStop>)> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|seen| match seen {
                Seen::Attempt(index, stop) => Some((*index, stop.clone())),
                _ => None,
            })
            .collect()
    }
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "severity": {"enum": ["low", "high"]},
            "notes": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["severity", "notes"],
        "additionalProperties": false
    })
}

fn request(watch: &Arc<Watch>) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("triage this")])
        .with_response_schema(schema())
        .with_stream(true)
        .with_hook(watch.clone())
}

/// An answer of about `words` + 10 deltas whose first member is `severity` set to `severity`.
fn answer(severity: &str, words: usize) -> Vec<String> {
    let mut deltas: Vec<String> = [
        "{\"", "severity", "\":", " \"", severity, "\",", " \"", "notes", "\":", " \"",
    ]
    .iter()
    .map(|piece| (*piece).to_owned())
    .collect();
    deltas.extend((0..words).map(|_| " word".to_owned()));
    deltas.push("\"}".to_owned());
    deltas
}

fn stream(deltas: &[String], pause: Duration) -> Reply {
    let deltas: Vec<&str> = deltas.iter().map(String::as_str).collect();
    content_stream(&deltas, pause)
}

#[tokio::test]
async fn partial_values_arrive_in_order_with_their_pointers() {
    let deltas = [
        "{\"sever",
        "ity\": \"hi",
        "gh\", \"notes\": \"disk ",
        "full\", \"tags\": [\"a\"",
        ", \"b\"]",
        "}",
    ];
    let server = Server::start(vec![content_stream(&deltas, Duration::ZERO)]).unwrap();
    let watch = Arc::new(Watch::default());
    let response = openai_at(&server).complete(&request(&watch)).await.unwrap();
    let whole = json!({"severity": "high", "notes": "disk full", "tags": ["a", "b"]});
    assert_eq!(response.parsed, Some(whole.clone()));
    let partials = watch.partials();
    let expected = [
        ("/severity", json!("high")),
        ("/notes", json!("disk full")),
        ("/tags/0", json!("a")),
        ("/tags/1", json!("b")),
        ("/tags", json!(["a", "b"])),
        ("", whole),
    ];
    assert_eq!(partials.len(), expected.len(), "{partials:?}");
    for ((attempt, pointer, value, below), (want_pointer, want_value)) in partials.iter().zip(&expected) {
        assert_eq!(
            (*attempt, pointer.as_str(), value, *below),
            (0, *want_pointer, want_value, 0)
        );
    }
    // Each value right after the token that completed it: `/severity` after the second delta, before the third.
    let seen = watch.0.lock().unwrap().clone();
    let at = |wanted: &Seen| seen.iter().position(|item| item == wanted).unwrap();
    let severity = at(&Seen::Partial(0, "/severity".into(), json!("high"), 0));
    assert_eq!(seen[severity - 1], Seen::Token(deltas[2].to_owned()));
    assert!(severity < at(&Seen::Token(deltas[3].to_owned())));
    assert_eq!(watch.attempts(), [(0, None)]);
}

#[tokio::test]
async fn a_value_that_violates_is_handed_over_with_its_count() {
    let deltas = answer("urgent", 3);
    let server = Server::start(vec![stream(&deltas, Duration::ZERO)]).unwrap();
    let watch = Arc::new(Watch::default());
    let error = openai_at(&server).complete(&request(&watch)).await.unwrap_err();
    assert_eq!(error.category(), Category::StructuredOutputInvalid);
    let partials = watch.partials();
    assert_eq!(partials[0], (0, "/severity".into(), json!("urgent"), 1));
    assert_eq!(partials.last().unwrap().1, "");
    assert_eq!(partials.last().unwrap().3, 1);
    // Without early stop the whole answer was read and judged whole, as before.
    assert!(error.structured_output().unwrap().early_stop().is_none());
}

/// The acceptance case: a ~2,000-token answer whose first member violates an enum, early stop on, a reask
/// configured. The stream is cut at the delta that completed the bad value (the 6th); the server sees the client
/// close after a few more pieces at most; the attempt says where and when it stopped; the reask's answer passes.
#[tokio::test]
async fn early_stop_cuts_a_doomed_stream_and_the_reask_succeeds() {
    let doomed = answer("urgent", 2_000);
    let good = answer("high", 2);
    let pause = Duration::from_millis(2);
    let server = Server::start(vec![stream(&doomed, pause), stream(&good, Duration::ZERO)]).unwrap();
    let watch = Arc::new(Watch::default());
    let retry = no_wait(2)
        .with_backoff(oa_provider::retry::Backoff::Fixed(Duration::from_secs(30)))
        .with_reask(Reask::template("fix: {error_message}"));
    let request = request(&watch).with_early_stop(true).with_retry(retry);
    let started = std::time::Instant::now();
    let response = openai_at(&server).complete(&request).await.unwrap();
    // The reask did not wait out the 30 s backoff, nor the rest of the doomed stream (2,000 × 2 ms).
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(response.parsed.unwrap()["severity"], json!("high"));

    let attempts = watch.attempts();
    assert_eq!(attempts.len(), 2);
    let stop = attempts[0].1.clone().expect("attempt 0 stopped early");
    assert_eq!(
        (stop.pointer.as_str(), stop.kind, stop.deltas),
        ("/severity", ViolationKind::Enum, 6)
    );
    assert_eq!(stop.bytes, doomed[..6].concat().len() as u64);
    assert_eq!(attempts[1], (1, None));

    // The server saw the connection close long before the script's end: within a few pieces of the violation
    // (piece 5 is the 6th delta; the role chunk is the first delta's).
    let mut ends = server.stream_ends();
    for _ in 0..200 {
        if ends.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        ends = server.stream_ends();
    }
    let cut = ends.iter().find(|end| end.pieces == doomed.len() + 3).unwrap();
    assert!(cut.client_closed, "{cut:?}");
    assert!(cut.written <= 6 + 3, "{cut:?}");

    // The reask carried the received text and the violation.
    let requests = server.requests();
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let messages = second["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2]["content"];
    assert_eq!(assistant, &json!(doomed[..6].concat()));
    assert!(
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains("/severity")
    );
}

/// One call with early stop against `reply`, which must fail: its failure, and what the hook saw.
async fn stopped_early(reply: Reply) -> (oa_provider::StructuredOutputFailure, Arc<Watch>) {
    let server = Server::start(vec![reply]).unwrap();
    let watch = Arc::new(Watch::default());
    let error = openai_at(&server)
        .complete(&request(&watch).with_early_stop(true))
        .await
        .unwrap_err();
    (error.structured_output().unwrap().clone(), watch)
}

#[tokio::test]
async fn early_stop_fails_the_attempt_with_what_arrived() {
    let doomed = answer("urgent", 50);
    let (failure, _) = stopped_early(stream(&doomed, Duration::from_millis(1))).await;
    assert_eq!(failure.output_content, doomed[..6].concat());
    let stop = failure.early_stop().unwrap();
    assert_eq!((stop.keyword(), stop.deltas), ("enum", 6));
    let violations = failure.violations().unwrap();
    assert_eq!(violations.len(), 1);
    assert_eq!(
        violations.iter().next().unwrap().instance_location().as_str(),
        "/severity"
    );
    assert!(
        failure.error_message.contains("/severity"),
        "{}",
        failure.error_message
    );
}

#[tokio::test]
async fn without_early_stop_the_stream_is_read_to_its_end() {
    let doomed = answer("urgent", 200);
    let server = Server::start(vec![stream(&doomed, Duration::ZERO)]).unwrap();
    let watch = Arc::new(Watch::default());
    let error = openai_at(&server).complete(&request(&watch)).await.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert!(failure.early_stop().is_none());
    assert_eq!(failure.output_content, doomed.concat());
    assert_eq!(watch.attempts(), [(0, None)]);
    let ends = server.stream_ends();
    assert_eq!(ends.len(), 1);
    assert!(
        !ends[0].client_closed && ends[0].written == ends[0].pieces,
        "{:?}",
        ends[0]
    );
}

#[tokio::test]
async fn early_stop_leaves_a_valid_answer_alone() {
    let good = answer("low", 100);
    let server = Server::start(vec![stream(&good, Duration::ZERO)]).unwrap();
    let watch = Arc::new(Watch::default());
    let response = openai_at(&server)
        .complete(&request(&watch).with_early_stop(true))
        .await
        .unwrap();
    assert_eq!(response.parsed.unwrap()["severity"], json!("low"));
    assert_eq!(watch.attempts(), [(0, None)]);
}

/// The whole doomed stream in one write (one network read holds the violation and the stream's end): it still
/// stops at the deciding delta, with the text up to it, as when each delta came alone.
#[tokio::test]
async fn where_an_answer_stops_does_not_depend_on_how_the_stream_was_cut() {
    let doomed = answer("urgent", 20);
    let texts: Vec<&str> = doomed.iter().map(String::as_str).collect();
    let oa_testkit::Reply::Stream { pieces, .. } = content_stream(&texts, Duration::ZERO) else {
        panic!("a stream");
    };
    let (failure, watch) = stopped_early(Reply::sse_text(pieces.concat())).await;
    assert_eq!(failure.output_content, doomed[..6].concat());
    assert_eq!(failure.early_stop().unwrap().deltas, 6);
    // Every delta of the read was still folded and told as a token.
    let tokens = watch
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|seen| matches!(seen, Seen::Token(_)))
        .count();
    assert_eq!(tokens, doomed.len());
}

/// A hook that says it reads no partial values, and records any it is handed all the same.
#[derive(Default)]
struct NoPartials(Watch);

impl AttemptHook for NoPartials {
    fn on_partial(&self, partial: &PartialValue<'_>) {
        self.0.on_partial(partial);
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        self.0.on_attempt(record);
    }

    fn wants_partials(&self) -> bool {
        false
    }
}

/// A hook that wants no partial values is handed none (the answer is not checked for it as it streams), and an
/// early stop the request asks for still cuts a doomed answer.
#[tokio::test]
async fn a_hook_that_wants_no_partial_values_gets_none_and_early_stop_still_cuts() {
    let good = answer("low", 20);
    let doomed = answer("urgent", 200);
    let server = Server::start(vec![
        stream(&good, Duration::ZERO),
        stream(&doomed, Duration::from_millis(1)),
    ])
    .unwrap();
    let hook = Arc::new(NoPartials::default());
    let request = || {
        CompletionRequest::new(vec![Message::user("triage this")])
            .with_response_schema(schema())
            .with_stream(true)
            .with_hook(hook.clone())
    };
    let response = openai_at(&server).complete(&request()).await.unwrap();
    assert_eq!(response.parsed.unwrap()["severity"], json!("low"));
    let error = openai_at(&server)
        .complete(&request().with_early_stop(true))
        .await
        .unwrap_err();
    let stop = error.structured_output().unwrap().early_stop().unwrap().clone();
    assert_eq!((stop.keyword(), stop.deltas), ("enum", 6));
    assert!(hook.0.partials().is_empty(), "{:?}", hook.0.partials());
    assert_eq!(hook.0.attempts().len(), 2);
}
