//! oa-observe: OpenTelemetry for OpenArmature LLM calls, on `opentelemetry_sdk`, through providers the application
//! passes in (never the global ones), and the Langfuse mapping.
//!
//! # Overview
//!
//! - [`OtelObserver`] is an [`oa_events::Observer`]: it renders an invocation span, a span per node and an LLM
//!   provider span per wire attempt under the calling node's span (observability §4, §5.5, with proposal 0126's
//!   `openarmature.llm.structured_output.path`), honouring [`ObserverConfig`]'s `disable_llm_spans`,
//!   `disable_provider_payload` (default on), `disable_genai_semconv`, payload cap (§5.5.5) and `enable_metrics`
//!   (§11: duration and token usage per attempt, and a counter of structured-output failure classes).
//! - [`LangfuseObserver`] renders the same events as Langfuse traces, span observations and one generation per
//!   call (observability §8) through a [`LangfuseClient`]: [`LangfuseRecorder`] in memory, or
//!   [`HttpLangfuseClient`] to Langfuse's public ingestion API.
//! - [`LogBridge`] is a `tracing_subscriber` layer that turns oa's diagnostics (the `openarmature` target, e.g.
//!   `openarmature.structured_output.schema_not_honored`, which the provider emits where the call is made) into
//!   OpenTelemetry log records with the §7 correlation fields.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use oa_events::{EventBus, Observer};
//! use oa_observe::{ObserverConfig, OtelObserver};
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tracer_provider = SdkTracerProvider::builder().build(); // add the application's exporter here
//! let observer = OtelObserver::new(&tracer_provider, None, ObserverConfig::builder().build()?);
//! let bus = EventBus::new(vec![Arc::new(observer) as Arc<dyn Observer>]);
//! # let _ = bus;
//! # Ok(())
//! # }
//! ```
//!
//! - [`Telemetry`] builds the three providers for two destinations (in memory, with [`span_tree`] to print the
//!   call's spans; OTLP over HTTP/protobuf with feature `otlp`) and flushes them before exit.
//!
//! Feature `otlp` (default): [`Telemetry::otlp_http`], through the maintained `opentelemetry-otlp` exporter.

mod attributes;
mod cause;
mod config;
pub mod langfuse;
mod logs;
mod metrics;
pub mod names;
mod observer;
mod telemetry;
mod truncate;

pub use config::{ConfigError, ObserverConfig, ObserverConfigBuilder};
pub use langfuse::{
    FlushReport, HttpLangfuseClient, HttpLimits, LangfuseClient, LangfuseConfig, LangfuseConfigBuilder,
    LangfuseCredentials, LangfuseError, LangfuseObserver, LangfuseRecorder,
};
pub use logs::LogBridge;
pub use observer::{INSTRUMENTATION_SCOPE, OtelObserver};
pub use opentelemetry_sdk::trace::SpanData;
pub use telemetry::{CapturedLog, LogCapture, SpanCapture, Telemetry, TelemetryError, span_tree};
pub use truncate::{DEFAULT_PAYLOAD_CAP, MIN_PAYLOAD_CAP, truncate};

// The README's example runs as a doc test, so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
