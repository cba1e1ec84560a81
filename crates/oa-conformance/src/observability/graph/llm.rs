//! A `calls_llm` directive: its provider on the case's mock and its request (messages with 014's and 015's
//! synthesized payloads, schema, config, retry, tools, stream).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::raises::{Raising, RaisingProvider};
use crate::observability::support::CALLS_LLM_KEYS;
use oa_events::NodeError;
use oa_provider::{
    Capabilities, CompletionRequest, Message, OpenAiProvider, Provider, Response, RuntimeConfig, Tool,
};
use serde_json::{Map, Value};

use crate::node::Node;

/// A `calls_llm` node: its provider and request.
pub(super) struct LlmCall {
    provider: Box<dyn Provider>,
    request: CompletionRequest,
    stores_response_in: Option<String>,
    responses: Arc<Mutex<Vec<Response>>>,
}

/// What every `calls_llm` of a case shares: the mock it calls and what the case says about it.
pub(super) struct CallSite {
    pub(super) base_url: String,
    pub(super) capabilities: Capabilities,
    /// The model a call binds when it names none.
    pub(super) default_model: String,
    /// The `provider` block's `gen_ai.system` override.
    pub(super) system: Option<String>,
    /// Every response the case's calls returned, in order.
    pub(super) responses: Arc<Mutex<Vec<Response>>>,
    /// The tools a call without its own `tools` declares (see `mock::implied_tools`).
    pub(super) implied_tools: Vec<Tool>,
    /// The mock's `raises` entries, when it has any.
    pub(super) raising: Option<Raising>,
}

impl LlmCall {
    pub(super) fn from_node(call: &Node, site: &CallSite) -> Result<Self, String> {
        let CallSite {
            base_url,
            capabilities,
            default_model,
            system,
            responses,
            implied_tools,
            raising,
        } = site;
        for (key, _) in call.as_map().unwrap_or_default() {
            if !CALLS_LLM_KEYS.contains(&key.as_str()) {
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
            .capabilities(*capabilities)
            .total_timeout(Duration::from_secs(20))
            .build()
            .map_err(|error| format!("harness: {error}"))?;
        let provider: Box<dyn Provider> = match raising {
            Some(raising) => Box::new(RaisingProvider {
                inner: provider,
                raising: raising.clone(),
            }),
            None => Box::new(provider),
        };
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
            request = request.with_retry(
                crate::retry::retry_config(retry)?.map_err(|e| format!("fixture_schema_invalid: {e}"))?,
            );
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
            responses: Arc::clone(responses),
        })
    }

    pub(super) async fn run(&self) -> Result<Value, NodeError> {
        let response = oa_events::complete(&*self.provider, self.request.clone()).await?;
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
