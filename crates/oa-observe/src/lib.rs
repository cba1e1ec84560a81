#![doc = include_str!("../README.md")]
//!
//! ## API map
//!
//! - [`OtelObserver`] is an [`oa_events::Observer`]: it renders an invocation span, a span per node, an LLM
//!   provider span per wire attempt and an `openarmature.tool.call` span per instrumented tool execution under the
//!   calling node's span (observability §4, §5.5, §5.5.11, with proposal 0126's
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
mod tool;
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
