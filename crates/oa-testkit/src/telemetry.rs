//! Feature `otel`: private tracer, logger and meter providers of the real OpenTelemetry SDK with in-memory
//! exporters, and readers that flush them and return spans, log records and metric data points.

use opentelemetry::{Key, KeyValue, Value};
use opentelemetry_sdk::error::OTelSdkError;
use opentelemetry_sdk::logs::{InMemoryLogExporter, SdkLogRecord, SdkLoggerProvider};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

/// Three providers with in-memory exporters; nothing global is installed. Spans and log records are exported as
/// they end (simple processors); metrics when read.
///
/// ```
/// use opentelemetry::metrics::MeterProvider as _;
/// use opentelemetry::trace::{Tracer as _, TracerProvider as _};
///
/// let telemetry = oa_testkit::Telemetry::new();
/// telemetry.tracer_provider.tracer("test").in_span("work", |_| {});
/// let counter = telemetry.meter_provider.meter("test").u64_counter("calls").build();
/// counter.add(2, &[opentelemetry::KeyValue::new("route", "native")]);
///
/// assert_eq!(telemetry.spans().unwrap()[0].name, "work");
/// let points = telemetry.points().unwrap();
/// assert_eq!(points[0].instrument, "calls");
/// assert_eq!(points[0].value, oa_testkit::PointValue::Sum(2.0));
/// assert_eq!(points[0].attribute("route"), Some("native".into()));
/// ```
#[derive(Debug)]
pub struct Telemetry {
    /// Pass to the code under test; its spans land in [`spans`](Telemetry::spans).
    pub tracer_provider: SdkTracerProvider,
    /// Pass to the code under test; its records land in [`logs`](Telemetry::logs).
    pub logger_provider: SdkLoggerProvider,
    /// Pass to the code under test; its data points land in [`points`](Telemetry::points).
    pub meter_provider: SdkMeterProvider,
    spans: InMemorySpanExporter,
    logs: InMemoryLogExporter,
    metrics: InMemoryMetricExporter,
}

impl Default for Telemetry {
    fn default() -> Self {
        Self::new()
    }
}

impl Telemetry {
    /// Fresh providers and exporters.
    pub fn new() -> Self {
        let spans = InMemorySpanExporter::default();
        let logs = InMemoryLogExporter::default();
        let metrics = InMemoryMetricExporter::default();
        Self {
            tracer_provider: SdkTracerProvider::builder()
                .with_simple_exporter(spans.clone())
                .build(),
            logger_provider: SdkLoggerProvider::builder()
                .with_simple_exporter(logs.clone())
                .build(),
            meter_provider: SdkMeterProvider::builder()
                .with_reader(PeriodicReader::builder(metrics.clone()).build())
                .build(),
            spans,
            logs,
            metrics,
        }
    }

    /// Every span ended so far.
    ///
    /// # Errors
    ///
    /// The exporter's (a poisoned store).
    pub fn spans(&self) -> Result<Vec<SpanData>, OTelSdkError> {
        self.spans.get_finished_spans()
    }

    /// Every log record emitted so far.
    ///
    /// # Errors
    ///
    /// The exporter's (a poisoned store).
    pub fn logs(&self) -> Result<Vec<SdkLogRecord>, OTelSdkError> {
        Ok(self
            .logs
            .get_emitted_logs()?
            .into_iter()
            .map(|log| log.record)
            .collect())
    }

    /// Flushes the meter provider and returns every data point of every instrument: the cumulative state, so each
    /// read sees all that was recorded so far.
    ///
    /// # Errors
    ///
    /// The flush's or the exporter's.
    pub fn points(&self) -> Result<Vec<Point>, OTelSdkError> {
        self.meter_provider.force_flush()?;
        let mut points = Vec::new();
        for resource in self.metrics.get_finished_metrics()? {
            for scope in resource.scope_metrics() {
                for metric in scope.metrics() {
                    let name = metric.name();
                    match metric.data() {
                        AggregatedMetrics::F64(data) => push_points(name, data, |v| v, &mut points),
                        #[allow(clippy::cast_precision_loss)]
                        AggregatedMetrics::U64(data) => push_points(name, data, |v| v as f64, &mut points),
                        #[allow(clippy::cast_precision_loss)]
                        AggregatedMetrics::I64(data) => push_points(name, data, |v| v as f64, &mut points),
                    }
                }
            }
        }
        // Each flush exports the whole cumulative state again; the next read starts from a clean exporter.
        self.metrics.reset();
        Ok(points)
    }
}

/// One metric data point.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The instrument's name.
    pub instrument: String,
    /// The point's dimensions.
    pub attributes: Vec<KeyValue>,
    /// What was measured.
    pub value: PointValue,
}

impl Point {
    /// The value of the dimension `key`.
    pub fn attribute(&self, key: &str) -> Option<Value> {
        find(&self.attributes, key)
    }
}

/// The measurement of a [`Point`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PointValue {
    /// A counter's (or up-down counter's) value.
    Sum(f64),
    /// A gauge's last value.
    Gauge(f64),
    /// A histogram's number of observations and their sum (exponential histograms too).
    Histogram {
        /// How many observations.
        count: u64,
        /// Their sum.
        sum: f64,
    },
}

/// The value of the attribute `key` of a span.
///
/// ```
/// use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
///
/// let telemetry = oa_testkit::Telemetry::new();
/// let mut span = telemetry.tracer_provider.tracer("test").start("work");
/// span.set_attribute(opentelemetry::KeyValue::new("attempt", 1_i64));
/// span.end();
/// let spans = telemetry.spans().unwrap();
/// assert_eq!(oa_testkit::attribute(&spans[0], "attempt"), Some(1_i64.into()));
/// ```
pub fn attribute(span: &SpanData, key: &str) -> Option<Value> {
    find(&span.attributes, key)
}

fn find(attributes: &[KeyValue], key: &str) -> Option<Value> {
    let key = Key::from(key.to_owned());
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .map(|kv| kv.value.clone())
}

fn push_points<T: Copy>(name: &str, data: &MetricData<T>, as_f64: fn(T) -> f64, points: &mut Vec<Point>) {
    let mut push = |attributes: &mut dyn Iterator<Item = &KeyValue>, value| {
        points.push(Point {
            instrument: name.to_owned(),
            attributes: attributes.cloned().collect(),
            value,
        });
    };
    match data {
        MetricData::Sum(sum) => sum
            .data_points()
            .for_each(|p| push(&mut p.attributes(), PointValue::Sum(as_f64(p.value())))),
        MetricData::Gauge(gauge) => gauge
            .data_points()
            .for_each(|p| push(&mut p.attributes(), PointValue::Gauge(as_f64(p.value())))),
        MetricData::Histogram(histogram) => histogram.data_points().for_each(|p| {
            let value = PointValue::Histogram {
                count: p.count(),
                sum: as_f64(p.sum()),
            };
            push(&mut p.attributes(), value);
        }),
        MetricData::ExponentialHistogram(histogram) => histogram.data_points().for_each(|p| {
            let value = PointValue::Histogram {
                count: p.count() as u64,
                sum: as_f64(p.sum()),
            };
            push(&mut p.attributes(), value);
        }),
    }
}
