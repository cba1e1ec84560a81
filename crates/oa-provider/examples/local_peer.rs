//! Drives a real OpenAI-compatible server (e.g. llama.cpp's, as ../shared/README.md describes) through `ready`,
//! a structured-output call, a streamed call and a prose call. Run by hand:
//! `cargo run -p oa-provider --example local_peer -- http://127.0.0.1:8080/v1 <model>`.

use std::sync::Arc;

use oa_provider::hook::TokenDelta;
use oa_provider::{
    AttemptHook, AttemptRecord, CompletionRequest, Message, OpenAiProvider, Provider, RuntimeConfig,
};
use serde_json::json;

#[derive(Debug)]
struct Print;

impl AttemptHook for Print {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        eprint!("[{}:{}]", delta.kind.as_str(), delta.text);
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        eprintln!(
            "\nattempt {} path {:?} took {:?}",
            record.attempt_index, record.structured_output_path, record.duration
        );
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let base_url = args.next().ok_or("usage: local_peer <base-url> <model>")?;
    let model = args.next().ok_or("usage: local_peer <base-url> <model>")?;
    let provider = OpenAiProvider::builder(model)
        .base_url(base_url)
        .no_api_key()
        .build()?;
    provider.ready().await?;
    println!("ready");

    let config = RuntimeConfig {
        max_tokens: Some(64),
        temperature: Some(0.0),
        ..Default::default()
    };
    let schema = json!({
        "type": "object",
        "properties": {"number": {"type": "string", "enum": ["seventeen", "eighteen"]}},
        "required": ["number"],
        "additionalProperties": false
    });
    let structured = CompletionRequest::new(vec![Message::user(
        "What number comes after sixteen? Answer in words.",
    )])
    .with_config(config.clone())
    .with_response_schema(schema)
    .with_hook(Arc::new(Print));
    let response = provider.complete(&structured).await?;
    println!(
        "structured: parsed={:?} path={:?}",
        response.parsed, response.structured_output_path
    );

    let streamed = CompletionRequest::new(vec![Message::user("Say hello in five words.")])
        .with_config(config.clone())
        .with_stream(true)
        .with_hook(Arc::new(Print));
    let response = provider.complete(&streamed).await?;
    println!(
        "\nstreamed: {:?} finish={:?} usage={:?}",
        response.message.text(),
        response.finish_reason,
        response.usage
    );

    let prose = CompletionRequest::new(vec![Message::user("Name a colour.")]).with_config(config);
    let response = provider.complete(&prose).await?;
    println!("prose: {:?}", response.message.text());
    Ok(())
}
