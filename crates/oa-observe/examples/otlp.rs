//! Exporting oa's spans, diagnostics and metrics over OTLP (HTTP/protobuf), the way an application wires it: its
//! own providers and exporters, handed to oa-observe, never installed globally.
//!
//! Run against a local collector (`OTEL_EXPORTER_OTLP_ENDPOINT`, default `http://localhost:4318`) and an
//! OpenAI-compatible server: `cargo run -p oa-observe --example otlp -- http://127.0.0.1:8080/v1 model-name`.

use std::sync::Arc;
use std::time::Duration;

use oa_events::{EventBus, Graph, InvokeOptions, NodeError, Observer};
use oa_observe::{LogBridge, ObserverConfig, OtelObserver};
use oa_provider::{CompletionRequest, Message, OpenAiProvider};
use opentelemetry_otlp::{LogExporter, MetricExporter, SpanExporter};
use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::json;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::layer::SubscriberExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let base_url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080/v1".to_owned());
    let model = args.next().unwrap_or_else(|| "local-model".to_owned());

    let tracer_provider = SdkTracerProvider::builder()
        .with_batch_exporter(SpanExporter::builder().with_http().build()?)
        .build();
    let logger_provider = SdkLoggerProvider::builder()
        .with_batch_exporter(LogExporter::builder().with_http().build()?)
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(MetricExporter::builder().with_http().build()?).build())
        .build();

    let config = ObserverConfig::builder().enable_metrics(true).build()?;
    let observer = OtelObserver::new(&tracer_provider, Some(&meter_provider), config);
    let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);

    let provider = Arc::new(
        OpenAiProvider::builder(model)
            .base_url(base_url)
            .no_api_key()
            .build()?,
    );
    let graph = Graph::builder()
        .node("ask", move |_| {
            let provider = Arc::clone(&provider);
            async move {
                let request = CompletionRequest::new(vec![Message::user("Name a prime above 10.")])
                    .with_response_schema(json!({
                        "type": "object",
                        "properties": {"prime": {"type": "integer"}},
                        "required": ["prime"],
                        "additionalProperties": false
                    }));
                let response = oa_events::complete(provider.as_ref(), request).await?;
                Ok::<_, NodeError>(json!({"prime": response.parsed}))
            }
        })
        .build()?;

    // The application's subscriber carries oa's diagnostics (schema_not_honored) into OTel logs.
    let subscriber = tracing_subscriber::registry().with(LogBridge::new(&logger_provider));
    let outcome = graph
        .invoke(&bus, json!({}), InvokeOptions::default())
        .with_subscriber(tracing::Dispatch::new(subscriber))
        .await;
    bus.drain(Duration::from_secs(5)).await?;
    tracer_provider.shutdown()?;
    logger_provider.shutdown()?;
    meter_provider.shutdown()?;
    println!("{outcome:?}");
    Ok(())
}
