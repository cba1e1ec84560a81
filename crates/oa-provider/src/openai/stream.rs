//! §8.1.6 streaming: Chat Completions chunks folded into the pieces of an atomic response, with content,
//! refusal and reasoning deltas reported as they arrive and tool-call deltas reassembled by index.

use serde_json::{Map, Value, json};

use crate::call::hook::DeltaKind;
use crate::call::wire::{Mapped, StreamFold};
use crate::model::{PartialStream, ProviderError};
use crate::openai::response::{Assembly, assemble};
use crate::openai::view::read_usage;
use crate::structured::{CheckedTools, WireToolCall};

/// The header fields of a stream's `raw`, each taken from the first chunk that has it.
const HEADER_KEYS: [&str; 4] = ["id", "object", "created", "model"];

/// What the chunks of one stream have added up to so far.
#[derive(Debug, Default)]
pub(crate) struct StreamAssembler {
    content: String,
    reasoning: String,
    refusal: String,
    /// Tool calls in order of first appearance, with the wire `index` each answers to.
    calls: Vec<(u64, WireToolCall)>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    /// The [`HEADER_KEYS`] of the first chunk that had them (only those keys are ever inserted).
    header: Map<String, Value>,
    done: bool,
    n_events: usize,
}

impl StreamFold for StreamAssembler {
    /// Folds one SSE `data` payload in; `emit` receives each content or reasoning delta, and `scrub` removes
    /// secrets from provider text kept in an error.
    fn on_data(
        &mut self,
        data: &str,
        emit: &mut dyn FnMut(DeltaKind, &str),
        scrub: &dyn Fn(&str) -> String,
    ) -> Result<(), ProviderError> {
        self.n_events += 1;
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|_| {
            ProviderError::invalid_response("a stream chunk is not JSON").with_partial(self.partial())
        })?;
        let Some(chunk) = chunk.as_object() else {
            return Err(
                ProviderError::invalid_response("a stream chunk is not a JSON object")
                    .with_partial(self.partial()),
            );
        };
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("provider reported an error");
            return Err(ProviderError::new(
                crate::model::Category::Unavailable,
                format!("stream error: {}", scrub(message)),
            )
            .with_partial(self.partial()));
        }
        // Usually all four arrive with the first chunk: from then on no chunk is searched for them.
        if self.header.len() < HEADER_KEYS.len() {
            for key in HEADER_KEYS {
                if let Some(value) = chunk.get(key)
                    && !self.header.contains_key(key)
                {
                    self.header.insert(key.to_owned(), value.clone());
                }
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| !usage.is_null()) {
            self.usage = Some(usage.clone());
        }
        let choice = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| {
                choices
                    .iter()
                    .find(|choice| choice.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            });
        let Some(choice) = choice else {
            return Ok(());
        };
        if let Some(finish_reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(finish_reason.to_owned());
        }
        let Some(delta) = choice.get("delta").and_then(Value::as_object) else {
            return Ok(());
        };
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
            {
                self.reasoning.push_str(text);
                emit(DeltaKind::Reasoning, text);
            }
        }
        if let Some(text) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
        {
            self.content.push_str(text);
            emit(DeltaKind::Content, text);
        }
        // A refusal's pieces are content deltas (0126 on §8.1.6).
        if let Some(text) = delta
            .get("refusal")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
        {
            self.refusal.push_str(text);
            self.content.push_str(text);
            emit(DeltaKind::Content, text);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.on_tool_call_delta(call, position)?;
            }
        }
        Ok(())
    }

    /// Whether the `[DONE]` sentinel arrived.
    fn is_done(&self) -> bool {
        self.done
    }

    /// Whether a finish reason arrived (a stream that ends after one is complete even without `[DONE]`).
    fn is_complete(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// What has arrived, for an error raised mid-stream.
    fn partial(&self) -> PartialStream {
        PartialStream {
            content: self.content.clone(),
            n_events: self.n_events,
        }
    }

    fn finish(&self, tools: &CheckedTools<'_>) -> Result<(Mapped, Value), ProviderError> {
        let raw = self.raw();
        let mut mapped = assemble(self.assembly(&raw), tools)?;
        mapped.model = self.model();
        Ok((mapped, raw))
    }
}

impl StreamAssembler {
    fn on_tool_call_delta(&mut self, call: &Value, position: usize) -> Result<(), ProviderError> {
        let Some(call) = call.as_object() else {
            return Err(
                ProviderError::invalid_response("a tool-call delta is not an object")
                    .with_partial(self.partial()),
            );
        };
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64);
        let slot = match self.calls.iter().position(|(known, _)| *known == index) {
            Some(slot) => slot,
            None => {
                self.calls.push((index, WireToolCall::default()));
                self.calls.len() - 1
            }
        };
        let target = &mut self.calls[slot].1;
        if let Some(id) = call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())
            && target.id.is_empty()
        {
            target.id = id.to_owned();
        }
        if let Some(function) = call.get("function").and_then(Value::as_object) {
            if let Some(name) = function
                .get("name")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                && target.name.is_empty()
            {
                target.name = name.to_owned();
            }
            if let Some(arguments) = function.get("arguments").and_then(Value::as_str) {
                target.arguments.push_str(arguments);
            }
        }
        Ok(())
    }

    /// The model the stream named.
    fn model(&self) -> Option<String> {
        self.header
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// The assembled `raw`: a `chat.completion`-shaped object with the terminal usage block verbatim.
    fn raw(&self) -> Value {
        let mut message = Map::new();
        message.insert("role".to_owned(), Value::from("assistant"));
        message.insert(
            "content".to_owned(),
            if self.content.is_empty() {
                Value::Null
            } else {
                Value::from(self.content.as_str())
            },
        );
        if !self.refusal.is_empty() {
            message.insert("refusal".to_owned(), Value::from(self.refusal.as_str()));
        }
        if !self.reasoning.is_empty() {
            message.insert(
                "reasoning_content".to_owned(),
                Value::from(self.reasoning.as_str()),
            );
        }
        if !self.calls.is_empty() {
            let calls = self
                .calls
                .iter()
                .map(|(_, call)| {
                    json!({"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}})
                })
                .collect();
            message.insert("tool_calls".to_owned(), Value::Array(calls));
        }
        let mut raw = self.header.clone();
        raw.insert("object".to_owned(), Value::from("chat.completion"));
        raw.insert(
            "choices".to_owned(),
            json!([{"index": 0, "message": Value::Object(message), "finish_reason": self.finish_reason}]),
        );
        raw.insert("usage".to_owned(), self.usage.clone().unwrap_or(Value::Null));
        Value::Object(raw)
    }

    /// The pieces for the shared response builder; `raw` must outlive them.
    fn assembly<'a>(&'a self, raw: &'a Value) -> Assembly<'a> {
        Assembly {
            content: if self.content.is_empty() {
                None
            } else {
                Some(self.content.clone())
            },
            reasoning: if self.reasoning.is_empty() {
                None
            } else {
                Some(self.reasoning.clone())
            },
            refusal: self.refusal.clone(),
            raw_calls: self.calls.iter().map(|(_, call)| call.clone()).collect(),
            wire_finish: self.finish_reason.as_deref(),
            usage: read_usage(raw.get("usage")),
        }
    }
}
