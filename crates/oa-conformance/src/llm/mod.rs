//! The llm-provider executor: each case runs its calls through oa-provider's public API against the
//! mock provider, then every expectation and invariant of the case is checked.

mod expect;
mod invariants;
mod record;
mod stream_equivalent;
mod view;

use std::sync::Arc;
use std::time::Duration;

use oa_provider::retry::Backoff;
use oa_provider::{
    Capabilities, CompletionRequest, Mapping, Message, Provider, ProviderBuilder, RetryConfig, RuntimeConfig,
    Tool, ToolChoice,
};
use serde_json::Value;

use crate::fixture::Case;
use oa_testkit::{Reply, Server};

use crate::mock_server;
use crate::node::Node;
use record::{CallRun, CaseRun, Recorder};

/// The model the harness binds when a case's wire expectations name none.
const DEFAULT_MODEL: &str = "test-model";

/// How long any one call may take against the local mock before the harness calls it hung.
const CALL_TOTAL_TIMEOUT: Duration = Duration::from_secs(20);

/// Runs one llm-provider case; `Err` carries every failed expectation.
pub(crate) fn run_case(case: &Case) -> Result<(), String> {
    // A caller already inside a tokio runtime (an async CLI) cannot block on a nested one; the case
    // then runs on a scoped thread of its own.
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| run_case_blocking(case))
                .join()
                .unwrap_or_else(|_| Err("harness: the case thread panicked".to_owned()))
        });
    }
    run_case_blocking(case)
}

fn run_case_blocking(case: &Case) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("harness: cannot start a tokio runtime: {error}"))?;
    let run = runtime.block_on(execute(&case.body))?;
    expect::check_case(&run)
}

/// The case's wire mapping (its `mapping:` key, §8.1 when absent) and the static capabilities it declares.
fn mapping_of(body: &Node) -> Result<(Mapping, Capabilities), String> {
    let mut capabilities = Capabilities::default();
    let mapping = match body.get("mapping").and_then(Node::as_str).unwrap_or("openai") {
        // 060 header: a synthetic mapping with atomic complete() and no streaming support.
        "streaming_unsupported_stub" => {
            capabilities.streaming = false;
            Mapping::OpenAi
        }
        name => name
            .parse::<Mapping>()
            .map_err(|error| format!("harness_primitive_missing: {error}"))?,
    };
    let mock = body.get("mock_provider");
    if let Some(flags) = mock.and_then(|m| m.get("capabilities")).and_then(Node::as_map) {
        for (flag, value) in flags {
            let on = value.as_bool().unwrap_or(true);
            match flag.as_str() {
                "supports_native_structured_output" | "supports_native_response_format" => {
                    capabilities.native_response_format = on;
                }
                "supports_image_input" => capabilities.image_input = on,
                other => return Err(format!("harness_primitive_missing: capability flag `{other}`")),
            }
        }
    }
    Ok((mapping, capabilities))
}

/// The case's mapping, and a provider of it bound to a fresh mock serving `replies`.
pub(crate) async fn start(
    body: &Node,
    replies: Vec<Reply>,
) -> Result<(Server, Arc<dyn Provider>, Mapping), String> {
    let (mapping, capabilities) = mapping_of(body)?;
    let mock = body.get("mock_provider");
    let health = match mock.and_then(|m| m.get("health_endpoint")) {
        Some(endpoint) => {
            let path = endpoint
                .get("path")
                .and_then(Node::as_str)
                .unwrap_or("/v1/models")
                .to_owned();
            Some((
                path,
                mock_server::reply_from_node(endpoint).map_err(|e| format!("fixture_schema_invalid: {e}"))?,
            ))
        }
        None => None,
    };
    let server =
        mock_server::start(replies, health).map_err(|e| format!("harness: cannot bind the mock: {e}"))?;
    let provider = ProviderBuilder::new(mapping, bound_model(body))
        .base_url(server.base_url())
        .no_api_key()
        .capabilities(capabilities)
        .total_timeout(CALL_TOTAL_TIMEOUT)
        .build()
        .map_err(|error| format!("harness: cannot build the provider: {error}"))?;
    Ok((server, provider, mapping))
}

pub(crate) async fn execute(body: &Node) -> Result<CaseRun, String> {
    let replies = body
        .get("mock_provider")
        .and_then(|m| m.get("responses"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(mock_server::reply_from_node)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("fixture_schema_invalid: {e}"))?;
    let (server, provider, mapping) = start(body, replies).await?;
    let calls: Vec<&Node> = match (body.get("call"), body.get("calls").and_then(Node::as_seq)) {
        (Some(call), _) => vec![call],
        (None, Some(calls)) => calls.iter().collect(),
        (None, None) => {
            return Err("fixture_schema_invalid: the case has neither `call` nor `calls`".to_owned());
        }
    };
    let health_path = body
        .get("mock_provider")
        .and_then(|m| m.get("health_endpoint"))
        .map(|endpoint| {
            endpoint
                .get("path")
                .and_then(Node::as_str)
                .unwrap_or("/v1/models")
                .to_owned()
        });
    let mut runs = Vec::with_capacity(calls.len());
    for call in calls {
        let n_replies_before = server
            .requests()
            .iter()
            .filter(|r| Some(r.path.as_str()) != health_path.as_deref())
            .count();
        let mut run = run_call(&provider, mapping, &server, call).await?;
        run.first_reply_idx = n_replies_before;
        if call.get("stream").and_then(Node::as_bool) == Some(true) && run.result.is_ok() {
            run.non_streamed_equivalent = non_streamed_equivalent(body, call, n_replies_before).await?;
        }
        runs.push(run);
    }
    Ok(CaseRun {
        case: body.clone(),
        calls: runs,
        n_unconsumed: server.n_unconsumed(),
        n_unanswered: server.n_defaulted(),
    })
}

async fn run_call(
    provider: &Arc<dyn Provider>,
    mapping: Mapping,
    server: &Server,
    call: &Node,
) -> Result<CallRun, String> {
    let operation = call
        .get("operation")
        .and_then(Node::as_str)
        .unwrap_or("complete")
        .to_owned();
    let n_before = server.requests().len();
    let recorder = Arc::new(Recorder::default());
    let spans = crate::observability::SpanRecorder::new();
    let (result, caller_before, caller_after) = match operation.as_str() {
        "ready" => {
            let result = provider
                .ready()
                .await
                .map(|()| Value::Null)
                .map_err(|error| view::error_json(&error));
            (result, (Value::Null, Value::Null), (Value::Null, Value::Null))
        }
        "complete" => match build_request(call, &recorder)? {
            Err(error) => (
                Err(view::error_json(&error)),
                (Value::Null, Value::Null),
                (Value::Null, Value::Null),
            ),
            Ok(request) => {
                let before = caller_snapshot(&request);
                let result = spans.complete(provider, &request).await;
                let after = caller_snapshot(&request);
                let result = result
                    .map(|response| view::response_json(&response))
                    .map_err(|error| view::error_json(&error));
                (result, before, after)
            }
        },
        other => return Err(format!("harness_primitive_missing: operation `{other}`")),
    };
    let requests = server.requests().split_off(n_before);
    Ok(CallRun {
        input: call.clone(),
        mapping,
        result,
        requests,
        attempts: recorder.attempts(),
        spans: spans.llm_spans().await?,
        tokens: recorder.tokens(),
        retries: recorder.retries(),
        caller_before,
        caller_after,
        non_streamed_equivalent: None,
        first_reply_idx: 0,
    })
}

/// Runs `call` again, atomically, against a fresh mock serving the non-streamed equivalent of the
/// stream reply it consumed; the response view is what the streamed one must equal.
async fn non_streamed_equivalent(
    body: &Node,
    call: &Node,
    reply_idx: usize,
) -> Result<Option<Value>, String> {
    let replies = body
        .get("mock_provider")
        .and_then(|m| m.get("responses"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    let Some(chunks) = replies
        .get(reply_idx)
        .and_then(|reply| reply.get("stream_body"))
        .and_then(Node::as_seq)
    else {
        return Ok(None);
    };
    let chunks: Vec<Value> = chunks.iter().map(Node::to_json).collect();
    let Some(atomic) = stream_equivalent::atomic_body(&chunks) else {
        return Ok(None);
    };
    let reply = Reply::json(200, atomic);
    let (_server, provider, _) = start(body, vec![reply]).await?;
    let recorder = Arc::new(Recorder::default());
    let Ok(request) = build_request(call, &recorder)? else {
        return Ok(None);
    };
    let request = request.with_stream(false);
    Ok(provider
        .complete(&request)
        .await
        .ok()
        .map(|response| view::response_json(&response)))
}

fn caller_snapshot(request: &CompletionRequest) -> (Value, Value) {
    let messages = serde_json::to_value(&request.messages).unwrap_or(Value::Null);
    let config = serde_json::to_value(&request.config).unwrap_or(Value::Null);
    (messages, config)
}

/// Builds the `complete()` request from a call's directives. The outer `Err` is a harness or fixture
/// problem; the inner `Err` is the provider's own rejection of an input (its `from_json` constructors),
/// which the case's `raises` may expect.
fn build_request(
    call: &Node,
    recorder: &Arc<Recorder>,
) -> Result<Result<CompletionRequest, oa_provider::ProviderError>, String> {
    let mut messages = Vec::new();
    for message in call.get("messages").and_then(Node::as_seq).unwrap_or_default() {
        match Message::from_json(&message.to_json()) {
            Ok(message) => messages.push(message),
            Err(error) => return Ok(Err(error)),
        }
    }
    let mut request = CompletionRequest::new(messages);
    if let Some(tools) = call.get("tools") {
        let tools: Vec<Tool> = serde_json::from_value(tools.to_json())
            .map_err(|error| format!("fixture_schema_invalid: tools: {error}"))?;
        request = request.with_tools(tools);
    }
    if let Some(choice) = call.get("tool_choice") {
        match ToolChoice::from_json(&choice.to_json()) {
            Ok(choice) => request = request.with_tool_choice(choice),
            Err(error) => return Ok(Err(error)),
        }
    }
    if let Some(config) = call.get("config") {
        match RuntimeConfig::from_json(&config.to_json()) {
            Ok(config) => request = request.with_config(config),
            Err(error) => return Ok(Err(error)),
        }
    }
    if let Some(schema) = call.get("response_schema") {
        request = request.with_response_schema(schema.to_json());
    }
    if let Some(stream) = call.get("stream").and_then(Node::as_bool) {
        request = request.with_stream(stream);
    }
    if let Some(retry) = call.get("retry") {
        match retry_config(retry, recorder)? {
            Ok(retry) => request = request.with_retry(retry),
            Err(error) => return Ok(Err(error)),
        }
    }
    if let Some(middleware) = call.get("retry_middleware") {
        // Fixture 024: retry with the default classifier around the call. oa has no pipeline
        // middleware yet; the provider's call-level retry takes the same four-field record
        // (llm-provider §7.1 reuses pipeline-utilities §6.1) and the same default classifier.
        if middleware
            .get("classifier")
            .and_then(Node::as_str)
            .is_some_and(|c| c != "default")
        {
            return Err("harness_primitive_missing: only the default retry classifier".to_owned());
        }
        let max_attempts = crate::retry::attempts_of(middleware)?;
        let observer = Arc::clone(recorder);
        let retry = RetryConfig::new(max_attempts)
            .with_backoff(Backoff::Fixed(Duration::ZERO))
            .with_on_retry(move |attempt, _, delay| observer.record_retry(attempt, delay));
        request = request.with_retry(retry);
    }
    let observer: Arc<dyn oa_provider::AttemptHook> = recorder.clone();
    Ok(Ok(request.with_hook(observer)))
}

/// The case's `retry:` block, each retry recorded for the expectations.
fn retry_config(
    retry: &Node,
    recorder: &Arc<Recorder>,
) -> Result<Result<RetryConfig, oa_provider::ProviderError>, String> {
    let observer = Arc::clone(recorder);
    Ok(crate::retry::retry_config(retry)?
        .map(|config| config.with_on_retry(move |attempt, _, delay| observer.record_retry(attempt, delay))))
}

/// The model the harness binds: the `model` the case's wire expectations name, else the mocked responses' model
/// (see [`mock_server::mocked_model`]), else `test-model`.
fn bound_model(body: &Node) -> String {
    let from_wire = |node: &Node| {
        node.get("expected_wire_request")
            .and_then(|w| w.get("model"))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    from_wire(body)
        .or_else(|| {
            body.get("calls")
                .and_then(Node::as_seq)
                .and_then(|calls| calls.iter().find_map(from_wire))
        })
        .or_else(|| {
            let responses = body.get("mock_provider").and_then(|m| m.get("responses"));
            mock_server::mocked_model(responses.and_then(Node::as_seq).unwrap_or_default())
        })
        .unwrap_or_else(|| DEFAULT_MODEL.to_owned())
}

/// JSON equality with 1 == 1.0 (§5.10), recursively.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}
