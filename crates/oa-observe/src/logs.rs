//! The one route of oa's log records into OpenTelemetry (observability §7): the bridge from the `tracing` facade.
//! Every event under the `openarmature` target (the provider's schema_not_honored diagnostic, which exists whether
//! or not any observer is attached; the Langfuse §6 records; isolated observer errors) becomes a log record with its
//! fields as attributes plus the §7 correlation fields read from the ambient call context. The observers write no
//! log records, so a diagnostic is one record.

use std::borrow::Cow;
use std::time::SystemTime;

use oa_events::{CallContext, Scope};
use opentelemetry::logs::{AnyValue, LogRecord, Logger, LoggerProvider, Severity};
use opentelemetry_sdk::logs::{SdkLogger, SdkLoggerProvider};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;

use crate::names;
use crate::observer::INSTRUMENTATION_SCOPE;

/// The namespace of the stable diagnostic event names (observability §7).
const DIAGNOSTIC_NAMESPACE: &str = "openarmature.";

/// A `tracing_subscriber` layer writing oa's diagnostics as OpenTelemetry log records through the application's
/// logger provider (never the global one). Install it in the application's subscriber, e.g.
/// `tracing_subscriber::registry().with(LogBridge::new(&logger_provider))`.
///
/// Only events whose target is `openarmature` are bridged; the rest of the application's logging is its own. A
/// record for a condition the spec defines (an event named `openarmature.*`, e.g.
/// `openarmature.structured_output.schema_not_honored`, `openarmature.langfuse.payload_suppressed`) carries that name
/// in the LogRecord's `event_name` (§7, 0121); other records carry none.
/// Correlation: `openarmature.correlation_id`, `openarmature.invocation_id`, `openarmature.session_id` (of a
/// session-bound invocation) and `openarmature.user.<key>` come from the ambient [`CallContext`] of the task that
/// emitted the event, when there is one.
pub struct LogBridge {
    logger: SdkLogger,
}

impl std::fmt::Debug for LogBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogBridge")
    }
}

impl LogBridge {
    /// A bridge emitting through `logger_provider`.
    pub fn new(logger_provider: &SdkLoggerProvider) -> Self {
        Self {
            logger: logger_provider.logger(INSTRUMENTATION_SCOPE),
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for LogBridge {
    fn on_event(&self, event: &tracing::Event<'_>, _context: Context<'_, S>) {
        let metadata = event.metadata();
        if metadata.target() != oa_provider::hook::DIAGNOSTIC_TARGET {
            return;
        }
        let mut record = self.logger.create_log_record();
        // §7 (0121): a record for a condition the spec defines carries its stable `openarmature.*` name in the
        // LogRecord's event_name; any other record (an isolated observer error, say) has a callsite's
        // `event file:line` for a name, which is no event name at all.
        if metadata.name().starts_with(DIAGNOSTIC_NAMESPACE) {
            record.set_event_name(metadata.name());
        }
        record.set_target(Cow::Borrowed(metadata.target()));
        record.set_timestamp(SystemTime::now());
        let (number, text) = severity(*metadata.level());
        record.set_severity_number(number);
        record.set_severity_text(text);
        event.record(&mut Fields(&mut record));
        if let Some(context) = CallContext::current() {
            add_scope(&mut record, &context.scope);
        }
        self.logger.emit(record);
    }
}

/// The §7 correlation fields of `scope`: invocation id, correlation id, session id, caller metadata.
fn add_scope<R: LogRecord>(record: &mut R, scope: &Scope) {
    record.add_attribute(names::INVOCATION_ID, scope.invocation_id.clone());
    if let Some(correlation_id) = &scope.correlation_id {
        record.add_attribute(names::CORRELATION_ID, correlation_id.clone());
    }
    if let Some(session_id) = &scope.session_id {
        record.add_attribute(names::SESSION_ID, session_id.clone());
    }
    if let Some(metadata) = &scope.caller_invocation_metadata {
        for (key, value) in metadata {
            record.add_attribute(format!("{}{key}", names::USER_PREFIX), any_value(value));
        }
    }
}

fn severity(level: tracing::Level) -> (Severity, &'static str) {
    match level {
        tracing::Level::ERROR => (Severity::Error, "ERROR"),
        tracing::Level::WARN => (Severity::Warn, "WARNING"),
        tracing::Level::INFO => (Severity::Info, "INFO"),
        tracing::Level::DEBUG => (Severity::Debug, "DEBUG"),
        tracing::Level::TRACE => (Severity::Trace, "TRACE"),
    }
}

fn any_value(value: &serde_json::Value) -> AnyValue {
    match value {
        serde_json::Value::Bool(flag) => AnyValue::Boolean(*flag),
        serde_json::Value::Number(number) => match number.as_i64() {
            Some(integer) => AnyValue::Int(integer),
            None => AnyValue::Double(number.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(text) => AnyValue::String(text.clone().into()),
        other => AnyValue::String(oa_provider::json::canonical_json(other).into()),
    }
}

/// Copies an event's fields onto the record: `message` becomes the body, the rest attributes.
struct Fields<'a, R: LogRecord>(&'a mut R);

impl<R: LogRecord> Visit for Fields<'_, R> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0
            .add_attribute(field.name(), i64::try_from(value).unwrap_or(i64::MAX));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.add_attribute(field.name(), value);
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.add_attribute(field.name(), value);
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.set_body(AnyValue::String(value.to_owned().into()));
        } else {
            self.0.add_attribute(field.name(), value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            self.0.set_body(AnyValue::String(text.into()));
        } else {
            self.0.add_attribute(field.name(), text);
        }
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    /// Through the real SDK: a spec-defined condition's record carries its name in `event_name`; an unnamed one
    /// carries none.
    #[test]
    fn a_named_condition_carries_its_event_name_and_an_unnamed_record_none() {
        let telemetry = oa_testkit::Telemetry::new();
        let subscriber = tracing_subscriber::registry().with(LogBridge::new(&telemetry.logger_provider));
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(name: "openarmature.langfuse.payload_suppressed", target: "openarmature", "suppressed");
            tracing::warn!(target: "openarmature", "observer error isolated");
            tracing::warn!(name: "openarmature.elsewhere", target: "somebody_else", "not ours");
        });
        let logs = telemetry.logs().unwrap();
        let names: Vec<Option<&str>> = logs.iter().map(|record| record.event_name()).collect();
        assert_eq!(names, [Some("openarmature.langfuse.payload_suppressed"), None]);
        assert_eq!(logs[0].severity_number(), Some(Severity::Warn));
    }
}
