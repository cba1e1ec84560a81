//! The case's mock provider: `mock_llm` / `mock_llm_stream` as the mock's replies, the tools the mocked calls
//! presuppose, the `provider` block's `gen_ai.system` override, and the model a `calls_llm` binds by default.

use oa_provider::{Capabilities, Tool};
use oa_testkit::Reply;
use serde_json::Value;

use super::raises::Raised;
use crate::mock_server;
use crate::node::Node;

/// The fallback models when a case names none and its mock names none: `test-model` (the llm-provider
/// executor's default), and `gpt-test` for the streamed-mock fixtures (111-116), whose expectations name it.
const DEFAULT_MODEL: &str = "test-model";
const DEFAULT_STREAM_MODEL: &str = "gpt-test";

/// The mock's replies in wire order, and per reply the error its `raises` entry names (if it is one).
pub(super) struct MockReplies {
    pub(super) replies: Vec<Reply>,
    pub(super) raised: Vec<Option<Raised>>,
    pub(super) capabilities: Capabilities,
}

/// `mock_llm` (list or 0126's mapping form, entries with a `body` or a §5.5 `raises`) or `mock_llm_stream`, as
/// the mock's replies in wire order.
pub(super) fn mock_replies(body: &Node) -> Result<MockReplies, String> {
    let mut capabilities = Capabilities::default();
    let mut replies = Vec::new();
    let mut raised = Vec::new();
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
            match entry.get("raises") {
                Some(raises) => {
                    let raises = Raised::from_node(raises)?;
                    let status = entry
                        .get("status")
                        .and_then(Node::as_i64)
                        .and_then(|status| u16::try_from(status).ok())
                        .ok_or("fixture_schema_invalid: a raises entry needs its status")?;
                    replies.push(Reply::json(status, raises.body()));
                    raised.push(Some(raises));
                }
                None => {
                    replies.push(mock_server::reply_from_node(entry)?);
                    raised.push(None);
                }
            }
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
            raised.push(None);
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
    Ok(MockReplies {
        replies,
        raised,
        capabilities,
    })
}

/// The tools a `calls_llm` without `tools` declares: each tool the case's mocked (non-streamed) responses call, in
/// first-call order, with an open object schema. llm-provider §3 makes a tool call naming an undeclared tool a
/// `provider_invalid_response`; the §5.5.10 fixtures (085, 087) mock a legitimate tool-calling completion without
/// spelling out the declaration it presupposes, so the harness supplies it. Calls with their own `tools` are
/// left as written, so a fixture can still exercise the undeclared-tool rejection.
pub(super) fn implied_tools(body: &Node) -> Vec<Tool> {
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
pub(super) fn provider_system(body: &Node) -> Result<Option<String>, String> {
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

/// The model a `calls_llm` binds when it names none (0126 notes no fixture defines it): the first mocked body's
/// `model` with a trailing `-YYYY-MM-DD` release date removed (fixtures 019 and 040 mock a dated response model
/// for a bound undated one), else the fallbacks above.
pub(super) fn default_model(body: &Node) -> String {
    let mocked = body.get("mock_llm").and_then(|mock| {
        let entries = match mock {
            Node::Seq(entries) => entries.as_slice(),
            _ => mock.get("responses").and_then(Node::as_seq)?,
        };
        mock_server::mocked_model(entries)
    });
    match mocked {
        Some(model) => model,
        None if body.get("mock_llm_stream").is_some() => DEFAULT_STREAM_MODEL.to_owned(),
        None => DEFAULT_MODEL.to_owned(),
    }
}
