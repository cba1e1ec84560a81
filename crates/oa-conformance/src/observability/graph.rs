//! Builds a case's graph on oa-events' linear runtime: state defaults and `append` reducers, `update` nodes,
//! `calls_llm` nodes bound to a provider on the case's mock, and the static edges from `entry` to `END`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oa_events::{Graph, NodeError};
use oa_provider::{
    Backoff, Capabilities, CompletionRequest, Message, OpenAiProvider, Reask, Response, RetryConfig,
    RuntimeConfig, Tool,
};
use serde_json::{Map, Value};

use oa_testkit::{Reply, Server};

use crate::mock_server;
use crate::node::Node;

/// The graph, its initial state, and the mock it calls (kept alive for the run).
pub(crate) struct Built {
    pub(crate) graph: Graph,
    pub(crate) initial_state: Value,
    /// Every `Response` the graph's calls returned, in order: invariants over the terminal response (its thinking
    /// block, 118) read it.
    pub(crate) responses: Arc<Mutex<Vec<Response>>>,
    _server: Server,
}

/// The fallback models when a case names none and its mock names none: `test-model` (the llm-provider
/// executor's default), and `gpt-test` for the streamed-mock fixtures (111-116), whose expectations name it.
const DEFAULT_MODEL: &str = "test-model";
const DEFAULT_STREAM_MODEL: &str = "gpt-test";

pub(crate) async fn build(body: &Node) -> Result<Built, String> {
    let (replies, capabilities) = mock_replies(body)?;
    let server = mock_server::start(replies, None)
        .map_err(|error| format!("harness: cannot start the mock: {error}"))?;
    let (initial_state, append_fields) = state(body)?;
    let nodes = body
        .get("nodes")
        .and_then(Node::as_map)
        .ok_or("fixture_schema_invalid: no nodes")?;
    let order = order(body)?;
    let system = provider_system(body)?;
    let responses = Arc::new(Mutex::new(Vec::new()));
    let implied = implied_tools(body);
    let mut builder = Graph::builder();
    for name in order {
        let node = nodes
            .iter()
            .find(|(node_name, _)| *node_name == name)
            .map(|(_, node)| node)
            .ok_or_else(|| format!("fixture_schema_invalid: edge to unknown node {name}"))?;
        // `also_emits_via_global_tracer: {span_name}` (005): the node also emits a span through the caller's
        // global tracer, as an external auto-instrumentation library would.
        let external_span = node
            .get("also_emits_via_global_tracer")
            .map(|external| {
                external
                    .get("span_name")
                    .and_then(Node::as_str)
                    .map(str::to_owned)
                    .ok_or("fixture_schema_invalid: also_emits_via_global_tracer needs span_name")
            })
            .transpose()?;
        let directives: Vec<&(String, Node)> = node
            .as_map()
            .unwrap_or_default()
            .iter()
            .filter(|(directive, _)| directive != "also_emits_via_global_tracer")
            .collect();
        if directives.len() != 1 {
            return Err(format!(
                "harness_primitive_missing: node {name} has {} directives",
                directives.len()
            ));
        }
        let (directive, spec) = directives[0];
        if external_span.is_some() && directive != "calls_llm" {
            return Err(format!(
                "harness_primitive_missing: also_emits_via_global_tracer on a {directive} node"
            ));
        }
        builder = match directive.as_str() {
            "update" => {
                let update = spec.to_json();
                let append = append_fields.clone();
                builder.node(name, move |state: Value| {
                    let update = apply_reducers(&state, &update, &append);
                    async move { Ok::<_, NodeError>(update) }
                })
            }
            "calls_llm" => {
                let default_model = default_model(body);
                let call = LlmCall::from_node(
                    spec,
                    &server.base_url(),
                    capabilities,
                    &default_model,
                    system.as_deref(),
                    Arc::clone(&responses),
                    &implied,
                )?;
                let call = Arc::new(call);
                let external_span = external_span.clone();
                builder.node(name, move |_state: Value| {
                    let call = Arc::clone(&call);
                    if let Some(span_name) = &external_span {
                        use opentelemetry::trace::{Span as _, Tracer as _};
                        opentelemetry::global::tracer("external-auto-instrumentation")
                            .start(span_name.clone())
                            .end();
                    }
                    async move { call.run().await }
                })
            }
            other => return Err(format!("harness_primitive_missing: node directive `{other}`")),
        };
    }
    let graph = builder
        .build()
        .map_err(|error| format!("fixture_schema_invalid: {error}"))?;
    Ok(Built {
        graph,
        initial_state,
        responses,
        _server: server,
    })
}

/// `mock_llm` (list or 0126's mapping form) or `mock_llm_stream`, as the mock's replies in wire order.
fn mock_replies(body: &Node) -> Result<(Vec<Reply>, Capabilities), String> {
    let mut capabilities = Capabilities::default();
    let mut replies = Vec::new();
    if let Some(mock) = body.get("mock_llm") {
        let entries = match mock {
            Node::Seq(entries) => entries.as_slice(),
            Node::Map(_) => {
                if let Some(flags) = mock.get("capabilities").and_then(Node::as_map) {
                    for (flag, value) in flags {
                        match (flag.as_str(), value.as_bool()) {
                            ("supports_native_response_format", Some(on)) => {
                                capabilities.native_response_format = on
                            }
                            _ => return Err(format!("harness_primitive_missing: capability {flag}")),
                        }
                    }
                }
                mock.get("responses").and_then(Node::as_seq).unwrap_or_default()
            }
            _ => return Err("fixture_schema_invalid: mock_llm".to_owned()),
        };
        for entry in entries {
            replies.push(mock_server::reply_from_node(entry)?);
        }
    }
    for entry in body
        .get("mock_llm_stream")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let attempts: Vec<&Node> = match entry.get("wire_attempts").and_then(Node::as_seq) {
            Some(attempts) => attempts.iter().collect(),
            None => vec![entry],
        };
        for attempt in attempts {
            let chunks = attempt
                .as_seq()
                .ok_or("fixture_schema_invalid: mock_llm_stream entry")?;
            let error_status = chunks
                .first()
                .and_then(|chunk| chunk.get("error"))
                .and_then(|error| error.get("status"))
                .and_then(Node::as_i64);
            replies.push(match error_status {
                Some(status) => Reply::json(
                    u16::try_from(status).map_err(|_| "fixture_schema_invalid: status")?,
                    serde_json::json!({"error": {"message": "mocked"}}),
                ),
                None => mock_server::sse(
                    200,
                    Vec::new(),
                    &chunks.iter().map(Node::to_json).collect::<Vec<_>>(),
                ),
            });
        }
    }
    Ok((replies, capabilities))
}

/// The tools a `calls_llm` without `tools` declares: each tool the case's mocked (non-streamed) responses call, in
/// first-call order, with an open object schema. llm-provider §3 makes a tool call naming an undeclared tool a
/// `provider_invalid_response`; the §5.5.10 fixtures (085, 087) mock a legitimate tool-calling completion without
/// spelling out the declaration it presupposes, so the harness supplies it. Calls with their own `tools` are
/// left as written, so a fixture can still exercise the undeclared-tool rejection.
fn implied_tools(body: &Node) -> Vec<Tool> {
    let entries = match body.get("mock_llm") {
        Some(Node::Seq(entries)) => entries.as_slice(),
        Some(mock) => mock.get("responses").and_then(Node::as_seq).unwrap_or_default(),
        None => &[],
    };
    let mut tools: Vec<Tool> = Vec::new();
    for entry in entries {
        let body = entry.get("body").map(Node::to_json).unwrap_or(Value::Null);
        for call in body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(name) = call["function"]["name"].as_str()
                && !tools.iter().any(|tool| tool.name == name)
            {
                tools.push(Tool::new(
                    name,
                    "declared by the harness for the mocked call",
                    serde_json::json!({"type": "object"}),
                ));
            }
        }
    }
    tools
}

/// The case's `provider: {type: openai_compatible, genai_system}` (020): the `gen_ai.system` override, if any.
fn provider_system(body: &Node) -> Result<Option<String>, String> {
    let Some(provider) = body.get("provider") else {
        return Ok(None);
    };
    for (key, value) in provider.as_map().unwrap_or_default() {
        match (key.as_str(), value.as_str()) {
            ("type", Some("openai_compatible")) | ("genai_system", Some(_)) => {}
            _ => return Err(format!("harness_primitive_missing: provider.{key}")),
        }
    }
    Ok(provider
        .get("genai_system")
        .and_then(Node::as_str)
        .map(str::to_owned))
}

/// The initial state (field defaults under `initial_state`) and the fields whose reducer is `append`.
fn state(body: &Node) -> Result<(Value, Vec<String>), String> {
    let mut state = Map::new();
    let mut append = Vec::new();
    for (field, spec) in body
        .get("state")
        .and_then(|state| state.get("fields"))
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        state.insert(
            field.clone(),
            spec.get("default").map(Node::to_json).unwrap_or(Value::Null),
        );
        match spec.get("reducer").and_then(Node::as_str) {
            None => {}
            Some("append") => append.push(field.clone()),
            Some(other) => return Err(format!("harness_primitive_missing: reducer {other}")),
        }
    }
    if let Some(initial) = body
        .get("initial_state")
        .map(Node::to_json)
        .and_then(|v| v.as_object().cloned())
    {
        state.extend(initial);
    }
    Ok((Value::Object(state), append))
}

fn apply_reducers(state: &Value, update: &Value, append: &[String]) -> Value {
    let Some(update) = update.as_object() else {
        return update.clone();
    };
    let mut merged = update.clone();
    for field in append {
        if let (Some(Value::Array(new)), Some(Value::Array(old))) = (update.get(field), state.get(field)) {
            let mut list = old.clone();
            list.extend(new.iter().cloned());
            merged.insert(field.clone(), Value::Array(list));
        }
    }
    Value::Object(merged)
}

/// The node order: from `entry` along the static edges to `END`; every edge must continue the line.
fn order(body: &Node) -> Result<Vec<String>, String> {
    let entry = body
        .get("entry")
        .and_then(Node::as_str)
        .ok_or("fixture_schema_invalid: no entry")?;
    let edges = body.get("edges").and_then(Node::as_seq).unwrap_or_default();
    let mut order = vec![entry.to_owned()];
    let mut current = entry.to_owned();
    for _ in 0..=edges.len() {
        let next: Vec<&str> = edges
            .iter()
            .filter(|edge| edge.get("from").and_then(Node::as_str) == Some(current.as_str()))
            .filter_map(|edge| edge.get("to").and_then(Node::as_str))
            .collect();
        match next.as_slice() {
            ["END"] => return Ok(order),
            [to] => {
                current = (*to).to_owned();
                order.push(current.clone());
            }
            _ => {
                return Err(format!(
                    "harness_primitive_missing: non-linear edges at {current}"
                ));
            }
        }
    }
    Err("fixture_schema_invalid: edges do not reach END".to_owned())
}

/// A `calls_llm` node: its provider and request.
struct LlmCall {
    provider: OpenAiProvider,
    request: CompletionRequest,
    stores_response_in: Option<String>,
    responses: Arc<Mutex<Vec<Response>>>,
}

impl LlmCall {
    fn from_node(
        call: &Node,
        base_url: &str,
        capabilities: Capabilities,
        default_model: &str,
        system: Option<&str>,
        responses: Arc<Mutex<Vec<Response>>>,
        implied_tools: &[Tool],
    ) -> Result<Self, String> {
        for (key, _) in call.as_map().unwrap_or_default() {
            if ![
                "model",
                "messages",
                "response_schema",
                "config",
                "retry",
                "stream",
                "stores_response_in",
                "tools",
            ]
            .contains(&key.as_str())
            {
                return Err(format!("harness_primitive_missing: calls_llm.{key}"));
            }
        }
        let model = call
            .get("model")
            .and_then(Node::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| default_model.to_owned());
        let mut builder = OpenAiProvider::builder(model);
        if let Some(system) = system {
            builder = builder.system(system);
        }
        let provider = builder
            .base_url(base_url)
            .no_api_key()
            .capabilities(capabilities)
            .total_timeout(Duration::from_secs(20))
            .build()
            .map_err(|error| format!("harness: {error}"))?;
        let mut messages = Vec::new();
        for message in call.get("messages").and_then(Node::as_seq).unwrap_or_default() {
            let mut message = message.to_json();
            // `content_repeat: {char, bytes}` (014) expands to that many bytes of one character.
            if let Some(repeat) = message.get("content_repeat").cloned() {
                let unit = repeat["char"].as_str().unwrap_or("x").to_owned();
                let n_bytes = usize::try_from(repeat["bytes"].as_u64().unwrap_or(0))
                    .unwrap_or(0)
                    .min(16 << 20);
                let content = unit.repeat(n_bytes / unit.len().max(1));
                if let Some(object) = message.as_object_mut() {
                    object.remove("content_repeat");
                    object.insert("content".into(), Value::from(content));
                }
            }
            expand_synthetic_images(&mut message);
            messages.push(Message::from_json(&message).map_err(|e| format!("fixture_schema_invalid: {e}"))?);
        }
        let mut request = CompletionRequest::new(messages);
        if let Some(schema) = call.get("response_schema") {
            request = request.with_response_schema(schema.to_json());
        }
        if let Some(config) = call.get("config") {
            request = request.with_config(
                RuntimeConfig::from_json(&config.to_json())
                    .map_err(|e| format!("fixture_schema_invalid: {e}"))?,
            );
        }
        if let Some(retry) = call.get("retry") {
            request = request.with_retry(retry_config(retry)?);
        }
        if let Some(tools) = call.get("tools").and_then(Node::as_seq) {
            let mut parsed = Vec::new();
            for tool in tools {
                let function = tool.get("function").unwrap_or(tool);
                let name = function
                    .get("name")
                    .and_then(Node::as_str)
                    .ok_or("fixture_schema_invalid: tool name")?;
                let description = function
                    .get("description")
                    .and_then(Node::as_str)
                    .unwrap_or_default();
                let parameters = function
                    .get("parameters")
                    .map(Node::to_json)
                    .unwrap_or(Value::Null);
                parsed.push(Tool::new(name, description, parameters));
            }
            request = request.with_tools(parsed);
        } else if !implied_tools.is_empty() {
            request = request.with_tools(implied_tools.to_vec());
        }
        if call.get("stream").and_then(Node::as_bool) == Some(true) {
            request = request.with_stream(true);
        }
        Ok(Self {
            provider,
            request,
            stores_response_in: call
                .get("stores_response_in")
                .and_then(Node::as_str)
                .map(str::to_owned),
            responses,
        })
    }

    async fn run(&self) -> Result<Value, NodeError> {
        let response = oa_events::complete(&self.provider, self.request.clone()).await?;
        if let Ok(mut responses) = self.responses.lock() {
            responses.push(response.clone());
        }
        let mut update = Map::new();
        if let Some(field) = &self.stores_response_in {
            let value = response
                .parsed
                .clone()
                .or_else(|| response.message.text().map(Value::from))
                .unwrap_or(Value::Null);
            update.insert(field.clone(), value);
        }
        Ok(Value::Object(update))
    }
}

/// The model a `calls_llm` binds when it names none (0126 notes no fixture defines it): the first mocked body's
/// `model` with a trailing `-YYYY-MM-DD` release date removed (fixtures 019 and 040 mock a dated response model
/// for a bound undated one), else the fallbacks above.
fn default_model(body: &Node) -> String {
    let mocked = body.get("mock_llm").and_then(|mock| {
        let entries = match mock {
            Node::Seq(entries) => entries.as_slice(),
            _ => mock.get("responses").and_then(Node::as_seq)?,
        };
        entries.iter().find_map(|entry| {
            entry
                .get("body")
                .and_then(|b| b.get("model"))
                .and_then(Node::as_str)
        })
    });
    match mocked {
        Some(model) => strip_release_date(model).to_owned(),
        None if body.get("mock_llm_stream").is_some() => DEFAULT_STREAM_MODEL.to_owned(),
        None => DEFAULT_MODEL.to_owned(),
    }
}

fn strip_release_date(model: &str) -> &str {
    let bytes = model.as_bytes();
    if bytes.len() > 11 {
        let (head, tail) = model.split_at(model.len() - 11);
        let t = tail.as_bytes();
        let dated = t[0] == b'-'
            && t[5] == b'-'
            && t[8] == b'-'
            && [1, 2, 3, 4, 6, 7, 9, 10].iter().all(|&i| t[i].is_ascii_digit());
        if dated {
            return head;
        }
    }
    model
}

/// `source.base64_data_synthetic: {bytes: N}` (015) expands to N bytes of base64 text in `base64_data`.
fn expand_synthetic_images(message: &mut Value) {
    let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    for block in blocks {
        let Some(source) = block.get_mut("source").and_then(Value::as_object_mut) else {
            continue;
        };
        if let Some(synthetic) = source.remove("base64_data_synthetic") {
            let n_bytes = usize::try_from(synthetic["bytes"].as_u64().unwrap_or(0))
                .unwrap_or(0)
                .min(16 << 20);
            source.insert("base64_data".into(), Value::from("A".repeat(n_bytes)));
        }
    }
}

fn retry_config(retry: &Node) -> Result<RetryConfig, String> {
    let max_attempts = retry
        .get("max_attempts")
        .and_then(Node::as_i64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or("fixture_schema_invalid: retry needs an integer max_attempts")?;
    let mut config = RetryConfig::new(max_attempts);
    if let Some(backoff) = retry.get("backoff") {
        match backoff.get("type").and_then(Node::as_str) {
            Some("deterministic") => {
                let seconds = backoff.get("seconds").and_then(Node::as_f64).unwrap_or(0.0);
                let wait = Duration::try_from_secs_f64(seconds)
                    .map_err(|_| "fixture_schema_invalid: backoff seconds".to_owned())?;
                config = config.with_backoff(Backoff::Fixed(wait));
            }
            other => return Err(format!("harness_primitive_missing: backoff type {other:?}")),
        }
    }
    if let Some(schedule) = retry.get("per_attempt_override").and_then(Node::as_seq) {
        let mut overrides = Vec::new();
        for entry in schedule {
            overrides.push(
                RuntimeConfig::from_json(&entry.to_json())
                    .map_err(|e| format!("fixture_schema_invalid: {e}"))?,
            );
        }
        config = config.with_per_attempt_override(overrides);
    }
    if let Some(template) = retry
        .get("reask")
        .and_then(|r| r.get("template"))
        .and_then(Node::as_str)
    {
        config = config.with_reask(Reask::template(template));
    }
    Ok(config)
}
