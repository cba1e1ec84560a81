//! In-memory exporters: spans kept as the SDK hands them over, log records turned into owned values at export.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use opentelemetry::logs::AnyValue;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::logs::{LogBatch, LogExporter};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

/// Keeps every exported span; clones share the store.
#[derive(Debug, Clone, Default)]
pub struct SpanCapture(Arc<Mutex<Vec<SpanData>>>);

impl SpanCapture {
    /// The spans exported so far.
    pub fn spans(&self) -> Vec<SpanData> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The spans exported so far, removed from the store (a long run takes them as it goes, so memory stays flat).
    pub fn take(&self) -> Vec<SpanData> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl SpanExporter for SpanCapture {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(batch);
        std::future::ready(Ok(()))
    }
}

/// One exported log record, owned.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedLog {
    /// The event name, e.g. `openarmature.structured_output.schema_not_honored`.
    pub event_name: Option<String>,
    /// The severity text, e.g. `WARNING`.
    pub severity: Option<String>,
    /// The body, as text.
    pub body: Option<String>,
    /// The attributes, values as text, in emission order.
    pub attributes: Vec<(String, String)>,
}

/// Keeps every exported log record; clones share the store.
#[derive(Debug, Clone, Default)]
pub struct LogCapture(Arc<Mutex<Vec<CapturedLog>>>);

impl LogCapture {
    /// The records exported so far.
    pub fn records(&self) -> Vec<CapturedLog> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The records exported so far, removed from the store.
    pub fn take(&self) -> Vec<CapturedLog> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl LogExporter for LogCapture {
    fn export(&self, batch: LogBatch<'_>) -> impl Future<Output = OTelSdkResult> + Send {
        let records: Vec<CapturedLog> = batch
            .iter()
            .map(|(record, _scope)| CapturedLog {
                event_name: record.event_name().map(str::to_owned),
                severity: record.severity_text().map(str::to_owned),
                body: record.body().map(text),
                attributes: record
                    .attributes_iter()
                    .map(|(key, value)| (key.as_str().to_owned(), text(value)))
                    .collect(),
            })
            .collect();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(records);
        std::future::ready(Ok(()))
    }
}

fn text(value: &AnyValue) -> String {
    match value {
        AnyValue::String(text) => text.as_str().to_owned(),
        AnyValue::Int(number) => number.to_string(),
        AnyValue::Double(number) => number.to_string(),
        AnyValue::Boolean(flag) => flag.to_string(),
        other => format!("{other:?}"),
    }
}
