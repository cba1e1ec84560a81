//! The three OpenTelemetry providers an application hands to oa-observe, built for the two destinations a command
//! line needs: in memory (to print the call's span tree and log records) and OTLP over HTTP with protobuf (to a
//! collector). Nothing here is installed globally; [`Telemetry::shutdown`] flushes everything before exit.

mod capture;
#[cfg(feature = "otlp")]
mod export;
mod tree;

use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

pub use capture::{CapturedLog, LogCapture, SpanCapture};
pub use tree::span_tree;

use crate::{ObserverConfig, OtelObserver};

/// Why telemetry could not be set up or flushed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// The OTLP endpoint is not an absolute http(s) URL.
    #[error("otlp endpoint must be an absolute http or https url, without user, password, query or fragment")]
    InvalidEndpoint,
    /// An exporter could not be built.
    #[error("otlp exporter could not be built: {0}")]
    Exporter(String),
    /// A provider failed to flush or shut down (the collector unreachable, a timeout).
    #[error("telemetry could not be flushed: {0}")]
    Flush(String),
    /// An export to the collector failed: the URL it went to (no user, password or query) and why (connection
    /// refused, no answer in time, an error status). The first failure only: one collector down is one message.
    #[error("{0}")]
    Export(String),
}

/// A tracer, logger and meter provider, wired to one destination.
///
/// ```
/// use oa_observe::{ObserverConfig, Telemetry};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let telemetry = Telemetry::in_memory();
/// let _observer = telemetry.observer(ObserverConfig::builder().build()?);
/// // ... run calls through an EventBus holding the observer, drain it, then:
/// telemetry.shutdown()?;
/// assert!(telemetry.spans().is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    logger_provider: SdkLoggerProvider,
    meter_provider: SdkMeterProvider,
    spans: Option<SpanCapture>,
    logs: Option<LogCapture>,
    /// Why the first export failed, for the OTLP destination.
    #[cfg(feature = "otlp")]
    export_failure: Option<export::FirstFailure>,
}

impl Telemetry {
    /// Spans and log records kept in memory (read them with [`spans`](Self::spans) and
    /// [`log_records`](Self::log_records)); metrics are recorded and dropped.
    pub fn in_memory() -> Self {
        let spans = SpanCapture::default();
        let logs = LogCapture::default();
        Self {
            tracer_provider: SdkTracerProvider::builder()
                .with_simple_exporter(spans.clone())
                .build(),
            logger_provider: SdkLoggerProvider::builder()
                .with_simple_exporter(logs.clone())
                .build(),
            meter_provider: SdkMeterProvider::builder().build(),
            spans: Some(spans),
            logs: Some(logs),
            #[cfg(feature = "otlp")]
            export_failure: None,
        }
    }

    /// Spans, log records and metrics exported over OTLP/HTTP with protobuf to `endpoint`'s `/v1/traces`,
    /// `/v1/logs` and `/v1/metrics` (the collector's base URL, e.g. `http://127.0.0.1:4318`). Exports run on the
    /// SDK's own background threads with a blocking HTTP client, so build and shut this down outside an async
    /// runtime's worker.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::InvalidEndpoint`] for a malformed URL (or one carrying a user, password, query or
    /// fragment, which errors would otherwise repeat), [`TelemetryError::Exporter`] when an exporter cannot be
    /// built.
    #[cfg(feature = "otlp")]
    pub fn otlp_http(endpoint: &str) -> Result<Self, TelemetryError> {
        use opentelemetry_otlp::{
            LogExporter, MetricExporter, SpanExporter, WithExportConfig, WithHttpConfig,
        };
        use opentelemetry_sdk::metrics::PeriodicReader;

        let base = endpoint.trim_end_matches('/');
        let url = url::Url::parse(base).map_err(|_| TelemetryError::InvalidEndpoint)?;
        if !matches!(url.scheme(), "http" | "https")
            || url.query().is_some()
            || url.fragment().is_some()
            || !url.username().is_empty()
            || url.password().is_some()
        {
            return Err(TelemetryError::InvalidEndpoint);
        }
        let failure = export::FirstFailure::default();
        let client = export::RecordingClient::new(std::sync::Arc::clone(&failure))
            .map_err(|error| TelemetryError::Exporter(format!("the HTTP client: {error}")))?;
        let exporter_error =
            |error: opentelemetry_otlp::ExporterBuildError| TelemetryError::Exporter(error.to_string());
        let spans = SpanExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_timeout(export::EXPORT_TIMEOUT)
            .with_endpoint(format!("{base}/v1/traces"))
            .build()
            .map_err(exporter_error)?;
        let logs = LogExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_timeout(export::EXPORT_TIMEOUT)
            .with_endpoint(format!("{base}/v1/logs"))
            .build()
            .map_err(exporter_error)?;
        let metrics = MetricExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_timeout(export::EXPORT_TIMEOUT)
            .with_endpoint(format!("{base}/v1/metrics"))
            .build()
            .map_err(exporter_error)?;
        Ok(Self {
            tracer_provider: SdkTracerProvider::builder().with_batch_exporter(spans).build(),
            logger_provider: SdkLoggerProvider::builder().with_batch_exporter(logs).build(),
            meter_provider: SdkMeterProvider::builder()
                .with_reader(PeriodicReader::builder(metrics).build())
                .build(),
            spans: None,
            logs: None,
            export_failure: Some(failure),
        })
    }

    /// An [`OtelObserver`] writing spans, metrics (when `config` enables them) and the typed diagnostics' log
    /// records through these providers.
    pub fn observer(&self, config: ObserverConfig) -> OtelObserver {
        OtelObserver::new(&self.tracer_provider, Some(&self.meter_provider), config)
            .with_logger_provider(&self.logger_provider)
    }

    /// The tracer provider.
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer_provider
    }

    /// The logger provider.
    pub fn logger_provider(&self) -> &SdkLoggerProvider {
        &self.logger_provider
    }

    /// The meter provider.
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.meter_provider
    }

    /// The spans finished so far (in memory only; empty otherwise).
    pub fn spans(&self) -> Vec<opentelemetry_sdk::trace::SpanData> {
        self.spans.as_ref().map(SpanCapture::spans).unwrap_or_default()
    }

    /// The log records emitted so far (in memory only; empty otherwise).
    pub fn log_records(&self) -> Vec<CapturedLog> {
        self.logs.as_ref().map(LogCapture::records).unwrap_or_default()
    }

    /// The spans finished so far, taken out of memory: a long-running process reads them as it goes and keeps its
    /// memory flat (in memory only; empty otherwise).
    ///
    /// ```
    /// use opentelemetry::trace::{Tracer as _, TracerProvider as _};
    ///
    /// let telemetry = oa_observe::Telemetry::in_memory();
    /// telemetry.tracer_provider().tracer("t").in_span("work", |_| {});
    /// assert_eq!(telemetry.take_spans().len(), 1);
    /// assert!(telemetry.spans().is_empty());
    /// ```
    pub fn take_spans(&self) -> Vec<opentelemetry_sdk::trace::SpanData> {
        self.spans.as_ref().map(SpanCapture::take).unwrap_or_default()
    }

    /// The log records emitted so far, taken out of memory (in memory only; empty otherwise).
    pub fn take_log_records(&self) -> Vec<CapturedLog> {
        self.logs.as_ref().map(LogCapture::take).unwrap_or_default()
    }

    /// Flushes and shuts down all three providers, exporting what is pending.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Export`] naming the URL and cause of the first export that failed (during the run or
    /// now), else [`TelemetryError::Flush`] naming the first provider that failed; the others are still shut down.
    pub fn shutdown(&self) -> Result<(), TelemetryError> {
        let flushed = self.shutdown_providers();
        #[cfg(feature = "otlp")]
        if let Some(failure) = &self.export_failure {
            let first = failure
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            if let Some(first) = first {
                return Err(TelemetryError::Export(first));
            }
        }
        flushed
    }

    fn shutdown_providers(&self) -> Result<(), TelemetryError> {
        let results = [
            self.tracer_provider
                .shutdown()
                .map_err(|error| format!("traces: {error}")),
            self.logger_provider
                .shutdown()
                .map_err(|error| format!("logs: {error}")),
            self.meter_provider
                .shutdown()
                .map_err(|error| format!("metrics: {error}")),
        ];
        results
            .into_iter()
            .collect::<Result<Vec<()>, String>>()
            .map(|_| ())
            .map_err(TelemetryError::Flush)
    }
}
