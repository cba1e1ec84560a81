//! Early stop, measured: a set of invalid ~2,000-token answers, each streamed by oa-testkit's scripted server on
//! 127.0.0.1 at one token (delta) per millisecond, called with `CompletionRequest::with_early_stop(true)`. For each:
//! where the first certain violation was, the deltas and bytes the client had received when it stopped, the pieces
//! the server had written when it saw the connection close, and the share of the answer never generated.
//!
//! Run: `cargo run --release -p oa-provider --example early_stop` (figures in docs/benchmarks.md).

use std::time::Duration;

use oa_provider::{CompletionRequest, Message, OpenAiProvider, Provider};
use oa_testkit::Server;
use oa_testkit::openai::content_stream;
use serde_json::json;

/// The pause before each event: a model writing 1,000 tokens a second (real ones are slower, which only makes the
/// server see the close sooner in tokens).
const PAUSE: Duration = Duration::from_millis(1);

/// `n` deltas of prose, one token each.
fn words(n: usize) -> Vec<String> {
    (0..n)
        .map(|at| {
            if at % 12 == 11 {
                " end.".to_owned()
            } else {
                " word".to_owned()
            }
        })
        .collect()
}

/// An answer: `head` delta by delta, `n` deltas of prose, then `tail`.
fn answer(head: &[&str], n: usize, tail: &[&str]) -> Vec<String> {
    let mut deltas: Vec<String> = head.iter().map(|part| (*part).to_owned()).collect();
    deltas.extend(words(n));
    deltas.extend(tail.iter().map(|part| (*part).to_owned()));
    deltas
}

/// The invalid answers: a name, and the deltas.
fn cases() -> Vec<(&'static str, Vec<String>)> {
    let close = ["\"}"];
    // A first member, then a long string member.
    let first = |name: &str, value: &str, rest: &str| {
        answer(
            &["{\"", name, "\":", " \"", value, "\",", " \"", rest, "\":", " \""],
            1_990,
            &close,
        )
    };
    vec![
        ("enum at the first member", first("severity", "urgent", "summary")),
        (
            "type at the first member (string for integer)",
            first("count", "many", "summary"),
        ),
        (
            "a name additionalProperties refuses, first",
            first("severity_level", "low", "summary"),
        ),
        (
            "enum after a 1,000-token member",
            [
                answer(&["{\"", "summary", "\":", " \""], 995, &[]),
                answer(
                    &[
                        "\",", " \"", "severity", "\":", " \"", "critical", "\",", " \"", "notes", "\":",
                        " \"",
                    ],
                    990,
                    &close,
                ),
            ]
            .concat(),
        ),
        (
            "maxItems 3 passed by a 4th tag",
            answer(
                &[
                    "{\"", "tags", "\":", " [\"", "disk", "\",", " \"", "io", "\",", " \"", "net", "\",",
                    " \"", "cpu", "\"],", " \"", "summary", "\":", " \"",
                ],
                1_980,
                &close,
            ),
        ),
        (
            "maxLength 2,000 passed inside a 10,000-character string",
            first("severity", "low", "details"),
        ),
        (
            "required member missing (known at the close)",
            answer(&["{\"", "summary", "\":", " \""], 1_995, &close),
        ),
        (
            "enum at the last member",
            answer(
                &["{\"", "summary", "\":", " \""],
                1_985,
                &["\",", " \"", "severity", "\":", " \"", "urgent", "\"}"],
            ),
        ),
    ]
}

fn schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "severity": {"enum": ["low", "high"]},
            "count": {"type": "integer"},
            "summary": {"type": "string"},
            "details": {"type": "string", "maxLength": 2000},
            "notes": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}
        },
        "required": ["severity", "summary"],
        "additionalProperties": false
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| answer | deltas | bytes | stopped at | deltas received | bytes received | pieces written (server) | never generated |"
    );
    println!("|---|---:|---:|---|---:|---:|---:|---:|");
    let (mut total_deltas, mut total_written) = (0usize, 0usize);
    for (name, deltas) in cases() {
        let texts: Vec<&str> = deltas.iter().map(String::as_str).collect();
        let server = Server::start(vec![content_stream(&texts, PAUSE)])?;
        let provider = OpenAiProvider::builder("test-model")
            .base_url(server.base_url())
            .no_api_key()
            .build()?;
        let request = CompletionRequest::new(vec![Message::user("triage")])
            .with_response_schema(schema())
            .with_stream(true)
            .with_early_stop(true);
        let error = match provider.complete(&request).await {
            Ok(_) => return Err(format!("{name}: the answer passed").into()),
            Err(error) => error,
        };
        let stop = error
            .structured_output()
            .and_then(|failure| failure.early_stop())
            .cloned();
        // The server notices the close at its next pause.
        let mut ends = server.stream_ends();
        for _ in 0..500 {
            if !ends.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
            ends = server.stream_ends();
        }
        let end = ends.first().copied().ok_or("the server saw no end")?;
        // Pieces: one event per delta, then the stop chunk, usage and [DONE].
        let written = end.written.min(deltas.len());
        total_deltas += deltas.len();
        total_written += written;
        let bytes: usize = deltas.iter().map(String::len).sum();
        let (at, received, received_bytes) = match &stop {
            Some(stop) => (
                format!("`{}` {}", stop.pointer.to_fragment(), stop.keyword()),
                stop.deltas.to_string(),
                stop.bytes.to_string(),
            ),
            None => (
                "not stopped (judged at the end)".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
            ),
        };
        let saved = 100.0 * (1.0 - written as f64 / deltas.len() as f64);
        println!(
            "| {name} | {} | {bytes} | {at} | {received} | {received_bytes} | {written} | {saved:.1}% |",
            deltas.len()
        );
    }
    let saved = 100.0 * (1.0 - total_written as f64 / total_deltas as f64);
    println!(
        "| **all {} answers** | {total_deltas} | | | | | {total_written} | {saved:.1}% |",
        cases().len()
    );
    Ok(())
}
