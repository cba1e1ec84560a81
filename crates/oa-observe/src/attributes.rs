//! The attributes of an LLM provider span, built from one attempt record (observability §5.5 to §5.5.5 with 0126):
//! the baseline, the structured-output path, the request parameters and `gen_ai.*` response attributes unless
//! `disable_genai_semconv`, the §5.5.10 tool-call identity projections, and the payload only when `disable_provider_payload` is off, truncated to the cap.

use std::sync::Arc;

use oa_events::{LlmAttempt, LlmRequest, Scope};
use opentelemetry::{Array, KeyValue, StringValue, Value as OtelValue};
use serde_json::Value;

use crate::config::ObserverConfig;
use crate::names;
use crate::truncate::truncate;

/// Every attribute of the span for `attempt` under `config`. The provider and model names are the record's shared
/// strings: each span takes a reference count, not a copy.
pub(crate) fn llm_span_attributes(attempt: &LlmAttempt, config: &ObserverConfig) -> Vec<KeyValue> {
    let request = &attempt.request;
    // Room for a plain attempt's attributes with the gen_ai family (no regrowth on the way).
    let mut attributes = Vec::with_capacity(24);
    push_scope_attributes(&attempt.scope, &mut attributes);
    let model = StringValue::from(Arc::clone(&request.model));
    attributes.push(KeyValue::new(names::LLM_MODEL, model.clone()));
    attributes.push(KeyValue::new(names::LLM_CALL_ID, request.call_id.clone()));
    attributes.push(KeyValue::new(
        names::LLM_ATTEMPT_INDEX,
        i64::from(attempt.wire_attempt_index),
    ));
    // A classification, not payload: set whenever a schema was supplied and a request was sent (0126).
    if let (Some(path), true) = (request.structured_output_path, attempt.sent) {
        attributes.push(KeyValue::new(names::LLM_STRUCTURED_OUTPUT_PATH, path.as_str()));
    }
    attributes.extend(marker_attributes(request));
    if let (Some(account), true) = (&request.schema_account, attempt.sent) {
        let unenforced = serde_json::to_string(&account.unenforced).unwrap_or_default();
        attributes.push(KeyValue::new(names::LLM_SCHEMA_UNENFORCED, unenforced));
    }
    if let Some(reason) = attempt.retry_reason {
        attributes.push(KeyValue::new(names::LLM_RETRY_REASON, reason.as_str()));
    }
    if let Some(category) = attempt.error_category {
        attributes.push(KeyValue::new(names::ERROR_CATEGORY, category.as_str()));
    }
    if let Some(stop) = &attempt.early_stop {
        attributes.push(KeyValue::new(
            names::LLM_EARLY_STOP_POINTER,
            stop.pointer.to_string(),
        ));
        attributes.push(KeyValue::new(names::LLM_EARLY_STOP_KEYWORD, stop.keyword()));
        push_count(&mut attributes, names::LLM_EARLY_STOP_BYTES, Some(stop.bytes));
        push_count(&mut attributes, names::LLM_EARLY_STOP_DELTAS, Some(stop.deltas));
    }
    if let Some(response) = &attempt.response {
        if let Some(finish_reason) = response.finish_reason {
            attributes.push(KeyValue::new(names::LLM_FINISH_REASON, finish_reason.as_str()));
        }
        if let Some(usage) = &response.usage {
            push_count(&mut attributes, names::LLM_PROMPT_TOKENS, usage.prompt_tokens);
            push_count(
                &mut attributes,
                names::LLM_COMPLETION_TOKENS,
                usage.completion_tokens,
            );
            push_count(&mut attributes, names::LLM_TOTAL_TOKENS, usage.total_tokens);
        }
        if let Some(tool_calls) = &response.output_tool_calls {
            tool_call_identity(tool_calls, &mut attributes);
        }
    }
    if !config.disable_genai_semconv {
        let provider = StringValue::from(Arc::clone(&request.provider));
        genai_attributes(attempt, provider, model, &mut attributes);
    }
    if !config.disable_provider_payload {
        payload_attributes(attempt, config.payload_cap, &mut attributes);
    }
    attributes
}

/// The enforcement marker of a structured attempt: `schema_mode` and `schema_version`, on its span, its log
/// records and every metric sample it produces (nothing for an unstructured or unsent attempt).
pub(crate) fn marker_attributes(request: &LlmRequest) -> Vec<KeyValue> {
    let mut attributes = Vec::new();
    if let Some(mode) = request.schema_mode {
        attributes.push(KeyValue::new(names::LLM_SCHEMA_MODE, mode.as_str()));
    }
    if let Some(version) = &request.schema_version {
        attributes.push(KeyValue::new(names::LLM_SCHEMA_VERSION, version.clone()));
    }
    attributes
}

/// The §5.6 cross-cutting attributes every span of an invocation carries.
pub(crate) fn scope_attributes(scope: &Scope) -> Vec<KeyValue> {
    let mut attributes = Vec::new();
    push_scope_attributes(scope, &mut attributes);
    attributes
}

fn push_scope_attributes(scope: &Scope, attributes: &mut Vec<KeyValue>) {
    attributes.push(KeyValue::new(names::INVOCATION_ID, scope.invocation_id.clone()));
    if let Some(correlation_id) = &scope.correlation_id {
        attributes.push(KeyValue::new(names::CORRELATION_ID, correlation_id.clone()));
    }
    if let Some(session_id) = &scope.session_id {
        attributes.push(KeyValue::new(names::SESSION_ID, session_id.clone()));
    }
    if let Some(metadata) = &scope.caller_invocation_metadata {
        for (key, value) in metadata {
            attributes.push(KeyValue::new(
                format!("{}{key}", names::USER_PREFIX),
                otel_value(value),
            ));
        }
    }
}

fn genai_attributes(
    attempt: &LlmAttempt,
    provider: StringValue,
    model: StringValue,
    attributes: &mut Vec<KeyValue>,
) {
    let request = &attempt.request;
    attributes.push(KeyValue::new(names::GEN_AI_SYSTEM, provider));
    attributes.push(KeyValue::new(names::GEN_AI_REQUEST_MODEL, model));
    for (name, value) in &request.request_params {
        attributes.push(KeyValue::new(
            format!("{}{name}", names::GEN_AI_REQUEST_PREFIX),
            otel_value(value),
        ));
    }
    let Some(response) = &attempt.response else {
        return;
    };
    if let Some(model) = &response.response_model {
        attributes.push(KeyValue::new(names::GEN_AI_RESPONSE_MODEL, model.clone()));
    }
    if let Some(id) = &response.response_id {
        attributes.push(KeyValue::new(names::GEN_AI_RESPONSE_ID, id.clone()));
    }
    if let Some(finish_reason) = response.finish_reason {
        attributes.push(KeyValue::new(
            names::GEN_AI_FINISH_REASONS,
            OtelValue::Array(Array::String(vec![StringValue::from(finish_reason.as_str())])),
        ));
    }
    if let Some(usage) = &response.usage {
        push_count(attributes, names::GEN_AI_INPUT_TOKENS, usage.prompt_tokens);
        push_count(attributes, names::GEN_AI_OUTPUT_TOKENS, usage.completion_tokens);
        push_count(attributes, names::CACHE_READ_TOKENS, usage.cached_tokens);
        push_count(
            attributes,
            names::CACHE_CREATION_TOKENS,
            usage.cache_creation_tokens,
        );
    }
}

fn payload_attributes(attempt: &LlmAttempt, cap: usize, attributes: &mut Vec<KeyValue>) {
    let request = &attempt.request;
    // Inline image bytes were redacted when the record was built (oa-events); canonical JSON sorts keys and adds
    // no whitespace (§5.5.1).
    let messages = oa_provider::json::canonical_json(&Value::Array(request.input_messages.clone()));
    attributes.push(KeyValue::new(names::LLM_INPUT_MESSAGES, truncate(&messages, cap)));
    if !request.request_extras.is_empty() {
        let extras = oa_provider::json::canonical_json(&Value::Object(request.request_extras.clone()));
        attributes.push(KeyValue::new(names::LLM_REQUEST_EXTRAS, truncate(&extras, cap)));
    }
    let Some(response) = &attempt.response else {
        return;
    };
    if let Some(content) = response
        .output_content
        .as_deref()
        .filter(|content| !content.is_empty())
    {
        attributes.push(KeyValue::new(names::LLM_OUTPUT_CONTENT, truncate(content, cap)));
    }
    if let Some(tool_calls) = &response.output_tool_calls {
        let tool_calls = oa_provider::json::canonical_json(&Value::Array(tool_calls.clone()));
        attributes.push(KeyValue::new(
            names::LLM_OUTPUT_TOOL_CALLS,
            truncate(&tool_calls, cap),
        ));
    }
}

/// §5.5.10: the requested calls' count, names and ids, index-aligned in request order; identifiers, not payload,
/// so emitted whatever `disable_provider_payload` says. Nothing when no tool was requested (absence, not zero).
fn tool_call_identity(tool_calls: &[Value], attributes: &mut Vec<KeyValue>) {
    if tool_calls.is_empty() {
        return;
    }
    let field = |name: &str| -> OtelValue {
        OtelValue::Array(Array::String(
            tool_calls
                .iter()
                .map(|call| StringValue::from(call[name].as_str().unwrap_or_default().to_owned()))
                .collect(),
        ))
    };
    attributes.push(KeyValue::new(
        names::LLM_OUTPUT_TOOL_CALLS_COUNT,
        i64::try_from(tool_calls.len()).unwrap_or(i64::MAX),
    ));
    attributes.push(KeyValue::new(names::LLM_OUTPUT_TOOL_CALLS_NAMES, field("name")));
    attributes.push(KeyValue::new(names::LLM_OUTPUT_TOOL_CALLS_IDS, field("id")));
}

fn push_count(attributes: &mut Vec<KeyValue>, name: &'static str, count: Option<u64>) {
    if let Some(count) = count {
        attributes.push(KeyValue::new(name, i64::try_from(count).unwrap_or(i64::MAX)));
    }
}

/// A JSON value as an attribute value: scalars as themselves, a list of strings as a string array, anything else
/// as its canonical JSON text.
pub(crate) fn otel_value(value: &Value) -> OtelValue {
    match value {
        Value::Bool(flag) => OtelValue::Bool(*flag),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => OtelValue::I64(integer),
            None => OtelValue::F64(number.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(text) => OtelValue::String(text.clone().into()),
        Value::Array(items) if items.iter().all(Value::is_string) => OtelValue::Array(Array::String(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|text| StringValue::from(text.to_owned()))
                .collect(),
        )),
        other => OtelValue::String(oa_provider::json::canonical_json(other).into()),
    }
}
