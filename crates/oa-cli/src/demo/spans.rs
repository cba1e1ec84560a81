//! The demo's span tree: an OpenTelemetry span exporter that keeps finished spans in memory, and a printer that
//! draws them as a tree (parents before children, siblings by start time).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use opentelemetry::trace::{SpanId, Status};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

/// Keeps every exported span; clones share the store.
#[derive(Debug, Clone, Default)]
pub(super) struct SpanCollector(Arc<Mutex<Vec<SpanData>>>);

impl SpanCollector {
    /// The spans exported so far.
    pub(super) fn take(&self) -> Vec<SpanData> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl SpanExporter for SpanCollector {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(batch);
        std::future::ready(Ok(()))
    }
}

// The attributes worth a newcomer's glance, by key suffix; the rest stay in the exporter.
const SHOWN: [&str; 6] = [
    "attempt_index",
    "retry_reason",
    "structured_output.path",
    "error.type",
    "finish_reasons",
    "node_name",
];

/// The spans as indented lines.
pub(super) fn tree_lines(spans: &[SpanData]) -> Vec<String> {
    let mut lines = Vec::new();
    let is_known = |id: SpanId| spans.iter().any(|span| span.span_context.span_id() == id);
    let mut roots: Vec<&SpanData> = spans
        .iter()
        .filter(|span| span.parent_span_id == SpanId::INVALID || !is_known(span.parent_span_id))
        .collect();
    roots.sort_by_key(|span| span.start_time);
    for root in roots {
        push_subtree(root, spans, 0, &mut lines);
    }
    lines
}

// Span trees from one demo call are a few levels deep; the bound only guards against a malformed parent cycle.
const MAX_DEPTH: usize = 32;

fn push_subtree(span: &SpanData, spans: &[SpanData], depth: usize, lines: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    let shown: Vec<String> = span
        .attributes
        .iter()
        .filter(|attribute| {
            SHOWN
                .iter()
                .any(|suffix| attribute.key.as_str().ends_with(suffix))
        })
        .map(|attribute| format!("{}={}", attribute.key.as_str(), attribute.value.as_str()))
        .collect();
    let status = match &span.status {
        Status::Error { .. } => " status=error",
        _ => "",
    };
    lines.push(format!(
        "{}{}{}{status}",
        "   ".repeat(depth),
        span.name,
        if shown.is_empty() {
            String::new()
        } else {
            format!(" [{}]", shown.join(", "))
        }
    ));
    let mut children: Vec<&SpanData> = spans
        .iter()
        .filter(|child| child.parent_span_id == span.span_context.span_id())
        .collect();
    children.sort_by_key(|child| child.start_time);
    for child in children {
        push_subtree(child, spans, depth + 1, lines);
    }
}
