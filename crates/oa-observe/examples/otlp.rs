//! Exporting oa's spans, diagnostics and metrics over OTLP (HTTP/protobuf), the way an application wires it: its
//! own providers and exporters, handed to oa-observe, never installed globally.
//!
//! Run against a local collector and an OpenAI-compatible server:
//! `cargo run -p oa-observe --example otlp -- http://127.0.0.1:4318 http://127.0.0.1:8080/v1 model-name`.

use std::sync::Arc;
use std::time::Duration;

use oa_events::{EventBus, ObservedProvider, Observer};
use oa_observe::{ObserverConfig, Telemetry};
use oa_provider::{CompletionRequest, Message, OpenAiProvider, Provider};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let collector = args.next().unwrap_or_else(|| "http://127.0.0.1:4318".to_owned());
    let base_url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080/v1".to_owned());
    let model = args.next().unwrap_or_else(|| "local-model".to_owned());

    // Built and shut down outside the async runtime: the exporters use a blocking HTTP client on the SDK's threads.
    let telemetry = Telemetry::otlp_http(&collector)?;
    let config = ObserverConfig::builder().build()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async {
        let bus = EventBus::new(vec![Arc::new(
            telemetry
                .observer(config)
                .enable_metrics(telemetry.meter_provider()),
        ) as Arc<dyn Observer>]);
        let provider = OpenAiProvider::builder(model)
            .base_url(base_url)
            .no_api_key()
            .build()?;
        // Outside a graph, ObservedProvider reports the call's events to the bus.
        let observed = ObservedProvider::new(Arc::new(provider), bus.clone(), "ask");
        let request = CompletionRequest::new(vec![Message::user("Name a prime above 10.")])
            .with_response_schema(json!({
                "type": "object",
                "properties": {"prime": {"type": "integer"}},
                "required": ["prime"],
                "additionalProperties": false
            }));
        let outcome = observed.complete(&request).await;
        bus.drain(Duration::from_secs(5)).await?;
        Ok::<_, Box<dyn std::error::Error>>(outcome)
    })?;
    telemetry.shutdown()?;
    println!("{outcome:?}");
    Ok(())
}
