//! Typed structured output: ask for a Rust type, get that type back (or every violation). Runs against an
//! embedded mock model on 127.0.0.1 (oa-testkit's server): no key, no network.
//!
//! `cargo run -p oa-provider --example typed`
//!
//! The mock's first answer misses a required field and uses a role outside the enum; oa reports both at their
//! pointers, reasks once, and the second answer comes back as an `Event`.

use std::time::Duration;

use oa_provider::retry::Backoff;
use oa_provider::{CompletionRequest, Message, OpenAiProvider, Provider, Reask, RetryConfig};
use oa_testkit::Server;
use oa_testkit::openai::text_reply;
use schemars::JsonSchema;
use serde::Deserialize;

/// A meetup, as the model must return it.
#[derive(Debug, Deserialize, JsonSchema)]
struct Event {
    title: String,
    status: Status,
    /// Where it happens, when the message says.
    room: Option<String>,
    speakers: Vec<Speaker>,
}

#[derive(Debug, Deserialize, JsonSchema)]
enum Status {
    Confirmed,
    Tentative,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Speaker {
    name: String,
    minutes: u32,
}

const FIRST: &str =
    r#"{"title": "Rust meetup", "room": null, "speakers": [{"name": "Ada", "minutes": "twenty"}]}"#;
const SECOND: &str = r#"{"title": "Rust meetup", "status": "Tentative", "room": "Hall B",
                         "speakers": [{"name": "Ada", "minutes": 20}, {"name": "Linus", "minutes": 15}]}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::start(vec![text_reply(FIRST, "stop"), text_reply(SECOND, "stop")])?;
    let provider = OpenAiProvider::builder("demo-model")
        .base_url(server.base_url())
        .no_api_key()
        .build()?;
    let request = CompletionRequest::new(vec![Message::user(
        "Extract the event: \"Rust meetup in Hall B, tentative; Ada speaks 20 minutes, Linus 15.\"",
    )])
    .with_output::<Event>()
    .with_retry(
        RetryConfig::new(2)
            .with_backoff(Backoff::Fixed(Duration::ZERO))
            .with_reask(Reask::template(
                "Fix every problem:\n{error_message}\nReply with the JSON only.",
            )),
    );
    let sent_schema = request.response_schema.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let response = runtime.block_on(provider.complete(&request))?;
    let event: Event = response.parsed_as()?;

    let first = server.requests()[0].json().unwrap_or_default();
    println!(
        "schema sent (strict: {}):",
        first["response_format"]["json_schema"]["strict"]
    );
    println!("{}", serde_json::to_string_pretty(&sent_schema.as_deref())?);
    let second = server.requests()[1].json().unwrap_or_default();
    let reask = second["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .cloned();
    println!(
        "\nthe reask after the first answer:\n{}",
        reask.map(|m| m["content"].to_string()).unwrap_or_default()
    );
    println!(
        "\nschema_mode: {:?}",
        response.schema_mode.map(|mode| mode.as_str())
    );
    println!("the typed value:\n{event:#?}");
    let minutes: u32 = event.speakers.iter().map(|speaker| speaker.minutes).sum();
    let names: Vec<&str> = event
        .speakers
        .iter()
        .map(|speaker| speaker.name.as_str())
        .collect();
    println!(
        "{} ({:?}, room {}): {} speak for {minutes} minutes in all",
        event.title,
        event.status,
        event.room.as_deref().unwrap_or("unknown"),
        names.join(" and ")
    );
    Ok(())
}
