//! The §11 metrics, one sample per wire attempt (0126 on §11): duration with `error.type` on a failed attempt,
//! token usage per reported counter, and a counter of structured-output failures by class.

use std::sync::Arc;

use oa_events::LlmAttempt;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider};
use opentelemetry_sdk::metrics::SdkMeterProvider;

use crate::attributes::marker_attributes;
use crate::names;
use crate::observer::INSTRUMENTATION_SCOPE;

/// The instruments, created once per observer.
pub(crate) struct Metrics {
    duration: Histogram<f64>,
    token_usage: Histogram<u64>,
    failures: Counter<u64>,
}

impl Metrics {
    pub(crate) fn new(meter_provider: &SdkMeterProvider) -> Self {
        let meter = meter_provider.meter(INSTRUMENTATION_SCOPE);
        Self {
            duration: meter
                .f64_histogram(names::METRIC_OPERATION_DURATION)
                .with_unit("s")
                .with_boundaries(names::DURATION_BUCKETS.to_vec())
                .build(),
            token_usage: meter
                .u64_histogram(names::METRIC_TOKEN_USAGE)
                .with_unit("{token}")
                .with_boundaries(names::TOKEN_BUCKETS.to_vec())
                .build(),
            failures: meter
                .u64_counter(names::METRIC_STRUCTURED_OUTPUT_FAILURES)
                .with_unit("{attempt}")
                .build(),
        }
    }

    pub(crate) fn record_attempt(&self, attempt: &LlmAttempt) {
        let request = &attempt.request;
        let mut base = vec![
            KeyValue::new(names::DIM_OPERATION, "chat"),
            KeyValue::new(names::GEN_AI_REQUEST_MODEL, Arc::clone(&request.model)),
            KeyValue::new(names::GEN_AI_SYSTEM, Arc::clone(&request.provider)),
        ];
        // The marker is a dimension on every metric (the enforcement chapter).
        base.extend(marker_attributes(request));
        let mut duration_dims = base.clone();
        if let Some(category) = attempt.error_category {
            duration_dims.push(KeyValue::new(names::DIM_ERROR_TYPE, category.as_str()));
        }
        self.duration
            .record(attempt.duration.as_secs_f64(), &duration_dims);
        if let Some(usage) = attempt.response.as_ref().and_then(|response| response.usage) {
            for (token_type, count) in [
                ("input", usage.prompt_tokens),
                ("output", usage.completion_tokens),
            ] {
                if let Some(count) = count {
                    let mut dims = base.clone();
                    dims.push(KeyValue::new(names::DIM_TOKEN_TYPE, token_type));
                    self.token_usage.record(count, &dims);
                }
            }
        }
        if let Some(class) = attempt.failure_class {
            let mut dims = base;
            if let Some(path) = request.structured_output_path {
                dims.push(KeyValue::new(names::LLM_STRUCTURED_OUTPUT_PATH, path.as_str()));
            }
            dims.push(KeyValue::new(names::DIM_FAILURE_CLASS, class.as_str()));
            self.failures.add(1, &dims);
        }
    }
}
