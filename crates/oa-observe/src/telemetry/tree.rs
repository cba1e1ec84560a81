//! Spans drawn as an indented tree, parents before children and siblings by start time, each with the attributes
//! a reader looks for first (the full set stays in the exporter).

use opentelemetry::trace::{SpanId, Status};
use opentelemetry_sdk::trace::SpanData;

use crate::names;

/// The attributes shown beside a span's name, in this order when present.
const SHOWN: [&str; 10] = [
    names::NODE_NAME,
    names::LLM_ATTEMPT_INDEX,
    names::LLM_RETRY_REASON,
    names::LLM_STRUCTURED_OUTPUT_PATH,
    names::LLM_SCHEMA_MODE,
    names::LLM_SCHEMA_VERSION,
    names::LLM_FINISH_REASON,
    names::ERROR_CATEGORY,
    names::LLM_PROMPT_TOKENS,
    names::LLM_COMPLETION_TOKENS,
];

// Span trees of one call are a few levels deep; the bound only guards against a malformed parent cycle.
const MAX_DEPTH: usize = 32;

/// The spans as indented lines, e.g. `openarmature.llm.complete [openarmature.llm.attempt_index=0, ...]`.
pub fn span_tree(spans: &[SpanData]) -> Vec<String> {
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

fn push_subtree(span: &SpanData, spans: &[SpanData], depth: usize, lines: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    let shown: Vec<String> = SHOWN
        .iter()
        .filter_map(|key| {
            span.attributes
                .iter()
                .find(|attribute| attribute.key.as_str() == *key)
                .map(|attribute| format!("{key}={}", attribute.value.as_str()))
        })
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
