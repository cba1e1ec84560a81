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

fn pieces(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|part| (*part).to_owned()).collect()
}

/// The invalid answers: a name, and the deltas.
fn cases() -> Vec<(&'static str, Vec<String>)> {
    let mut cases = Vec::new();
    let close = pieces(&["\"}"]);
    let mut enum_first = pieces(&[
        "{\"", "severity", "\":", " \"", "urgent", "\",", " \"", "summary", "\":", " \"",
    ]);
    enum_first.extend(words(1_990));
    enum_first.extend(close.clone());
    cases.push(("enum at the first member", enum_first));

    let mut type_first = pieces(&[
        "{\"", "count", "\":", " \"", "many", "\",", " \"", "summary", "\":", " \"",
    ]);
    type_first.extend(words(1_990));
    type_first.extend(close.clone());
    cases.push(("type at the first member (string for integer)", type_first));

    let mut extra_key = pieces(&[
        "{\"",
        "sever",
        "ity_level",
        "\":",
        " \"",
        "low",
        "\",",
        " \"",
        "summary",
        "\":",
        " \"",
    ]);
    extra_key.extend(words(1_990));
    extra_key.extend(close.clone());
    cases.push(("a name additionalProperties refuses, first", extra_key));

    let mut enum_middle = pieces(&["{\"", "summary", "\":", " \""]);
    enum_middle.extend(words(995));
    enum_middle.extend(pieces(&[
        "\",", " \"", "severity", "\":", " \"", "critical", "\",", " \"", "notes", "\":", " \"",
    ]));
    enum_middle.extend(words(990));
    enum_middle.extend(close.clone());
    cases.push(("enum after a 1,000-token member", enum_middle));

    let mut max_items = pieces(&[
        "{\"", "tags", "\":", " [\"", "disk", "\",", " \"", "io", "\",", " \"", "net", "\",", " \"", "cpu",
        "\"],", " \"", "summary", "\":", " \"",
    ]);
    max_items.extend(words(1_980));
    max_items.extend(close.clone());
    cases.push(("maxItems 3 passed by a 4th tag", max_items));

    let mut max_length = pieces(&[
        "{\"", "severity", "\":", " \"", "low", "\",", " \"", "details", "\":", " \"",
    ]);
    max_length.extend(words(1_990));
    max_length.extend(close.clone());
    cases.push((
        "maxLength 2,000 passed inside a 10,000-character string",
        max_length,
    ));

    let mut missing = pieces(&["{\"", "summary", "\":", " \""]);
    missing.extend(words(1_995));
    missing.extend(close.clone());
    cases.push(("required member missing (known at the close)", missing));

    let mut enum_last = pieces(&["{\"", "summary", "\":", " \""]);
    enum_last.extend(words(1_985));
    enum_last.extend(pieces(&["\",", " \"", "severity", "\":", " \"", "urgent", "\"}"]));
    cases.push(("enum at the last member", enum_last));
    cases
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
