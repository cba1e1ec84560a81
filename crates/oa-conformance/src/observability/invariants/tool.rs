//! The invariants of the tool-execution fixtures (092-098, 160's Tool case): predicates over the typed tool events,
//! the `openarmature.tool.call` spans and the Langfuse Tool observations, each read against the events it renders so
//! none holds on an empty run.

use serde_json::Value;

use super::{Context, non_empty_string, payload_disabled};
use crate::node::Node;

const TOOL_SPAN: &str = "openarmature.tool.call";
const TOOL_NAME: &str = "openarmature.tool.name";
const TOOL_CALL_ID: &str = "openarmature.tool.call.id";
const TOOL_ARGUMENTS: &str = "openarmature.tool.call.arguments";
const TOOL_RESULT: &str = "openarmature.tool.call.result";

impl Context<'_> {
    /// Every typed tool event, success or failure, in arrival order.
    fn tool_events(&self) -> Vec<&Value> {
        self.events()
            .iter()
            .filter(|e| e["event_type"] == "ToolCallEvent" || e["event_type"] == "ToolCallFailedEvent")
            .collect()
    }

    /// The tool spans, each with its parent span's name.
    fn tool_spans(&self) -> Vec<(&serde_json::Map<String, Value>, Option<&str>)> {
        let spans = &self.run.spans;
        spans
            .iter()
            .filter(|span| span.name == TOOL_SPAN)
            .map(|span| {
                let parent = spans
                    .iter()
                    .find(|other| other.span_id == span.parent_id)
                    .map(|other| other.name.as_str());
                (&span.attributes, parent)
            })
            .collect()
    }

    /// The Langfuse observations of type `tool`.
    pub(super) fn tool_observations(&self) -> Vec<&Value> {
        self.observations()
            .into_iter()
            .filter(|o| o["type"] == "tool")
            .collect()
    }

    /// The case's one failed provider or tool observation with the typed failure event it renders: a Generation
    /// with its `LlmFailedEvent`, or a Tool with its `ToolCallFailedEvent`.
    pub(super) fn failed_pair(&self) -> Option<(&Value, &Value)> {
        if let (Some(generation), Some(event)) = (self.generation(), self.of_type("LlmFailedEvent").first()) {
            return Some((generation, event));
        }
        match (
            self.tool_observations().as_slice(),
            self.of_type("ToolCallFailedEvent").as_slice(),
        ) {
            ([observation], [event]) => Some((observation, event)),
            _ => None,
        }
    }

    /// The tool observation rendering `event` (matched by tool name and call id).
    fn observation_of(&self, event: &Value) -> Option<&Value> {
        self.tool_observations().into_iter().find(|o| {
            o["metadata"]["openarmature_tool_name"] == event["tool_name"]
                && o["metadata"]
                    .get("openarmature_tool_call_id")
                    .unwrap_or(&Value::Null)
                    == &event["tool_call_id"]
        })
    }

    /// The `error_type` each `calls_tool` mock of the case raises.
    fn mocked_error_types(&self) -> Vec<&str> {
        self.body
            .get("nodes")
            .and_then(Node::as_map)
            .unwrap_or_default()
            .iter()
            .filter_map(|(_, node)| {
                node.get("calls_tool")?
                    .get("mock_tool")?
                    .get("raises")?
                    .get("error_type")?
                    .as_str()
            })
            .collect()
    }
}

/// A JSON value as the OTel observer encodes a payload attribute: canonical JSON.
fn encoded(value: &Value) -> Value {
    Value::String(oa_provider::json::canonical_json(value))
}

/// Invariants whose value is `true`.
pub(super) fn holds(name: &str, c: &Context<'_>) -> Option<bool> {
    let succeeded = c.of_type("ToolCallEvent");
    let failed = c.of_type("ToolCallFailedEvent");
    let events = c.tool_events();
    let spans = c.tool_spans();
    let observations = c.tool_observations();
    let otel_payload_off = payload_disabled(c.body);
    Some(match name {
        // 092-094: one terminal event per execution, of the right kind.
        "exactly_one_tool_call_event_observed" => succeeded.len() == 1,
        "exactly_one_tool_call_failed_event_observed" => failed.len() == 1,
        "zero_tool_call_failed_events_on_success" | "success_one_tool_call_event_zero_failed" => {
            succeeded.len() == 1 && failed.is_empty() && c.error.is_none()
        }
        "zero_tool_call_events_on_failure" | "failure_one_tool_call_failed_event_zero_success" => {
            failed.len() == 1 && succeeded.is_empty() && c.error.is_some()
        }
        "tool_call_event_carries_full_field_set" => {
            succeeded.len() == 1 && {
                let event = succeeded[0];
                let present = |key: &str| event.get(key).is_some();
                non_empty_string(&event["tool_name"])
                    && non_empty_string(&event["call_id"])
                    && non_empty_string(&event["invocation_id"])
                    && non_empty_string(&event["correlation_id"])
                    && non_empty_string(&event["node_name"])
                    && event["namespace"].as_array().is_some_and(|ns| !ns.is_empty())
                    && event["attempt_index"].is_u64()
                    && event["arguments"].is_object()
                    && [
                        "tool_call_id",
                        "result",
                        "latency_ms",
                        "fan_out_index",
                        "branch_name",
                    ]
                    .iter()
                    .all(|key| present(key))
            }
        }
        "latency_ms_present" => {
            !events.is_empty()
                && events
                    .iter()
                    .all(|e| e["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0))
        }
        // 093: the deliberate departure from the provider failure events.
        "no_error_category_field_on_tool_failure_event" => {
            !failed.is_empty()
                && failed
                    .iter()
                    .all(|e| e.get("error_category").is_none() && e.get("error_type").is_some())
        }
        // 095: the execution links back to the model's request, or carries no id at all.
        "tool_call_id_matches_requesting_llm_output_tool_calls_id" => {
            let all = c.events();
            !events.is_empty()
                && events.iter().all(|tool| {
                    let at = all.iter().position(|e| std::ptr::eq(e, *tool));
                    non_empty_string(&tool["tool_call_id"])
                        && all.iter().enumerate().any(|(idx, e)| {
                            e["event_type"] == "LlmCompletionEvent"
                                && at.is_some_and(|at| idx < at)
                                && e["output_tool_calls"].as_array().is_some_and(|calls| {
                                    calls.iter().any(|call| call["id"] == tool["tool_call_id"])
                                })
                        })
                })
        }
        "standalone_tool_call_id_is_null" => {
            !events.is_empty()
                && events.iter().all(|e| e["tool_call_id"].is_null())
                && spans.iter().all(|(span, _)| !span.contains_key(TOOL_CALL_ID))
        }
        // 096, 097: the tool span's identity, payload gating and namespace.
        "payload_off_suppresses_tool_arguments_and_result" => {
            otel_payload_off
                && !spans.is_empty()
                && events.iter().any(|e| !e["arguments"].is_null())
                && spans
                    .iter()
                    .all(|(span, _)| !span.contains_key(TOOL_ARGUMENTS) && !span.contains_key(TOOL_RESULT))
        }
        "identity_attributes_present_with_payload_off" => {
            otel_payload_off && spans_render_identity(&spans, &events)
        }
        "payload_on_populates_tool_arguments_and_result" => {
            !otel_payload_off
                && spans.len() == succeeded.len()
                && !spans.is_empty()
                && spans.iter().zip(&succeeded).all(|((span, _), event)| {
                    span.get(TOOL_ARGUMENTS) == Some(&encoded(&event["arguments"]))
                        && span.get(TOOL_RESULT) == Some(&encoded(&event["result"]))
                })
        }
        "tool_span_name_is_openarmature_tool_call" => {
            spans.len() == events.len()
                && !spans.is_empty()
                && spans
                    .iter()
                    .zip(&events)
                    .all(|((_, parent), event)| *parent == event["node_name"].as_str())
        }
        "oa_namespace_tool_attributes_emitted" => {
            spans_render_identity(&spans, &events)
                && (otel_payload_off
                    || spans
                        .iter()
                        .all(|(span, _)| span.contains_key(TOOL_ARGUMENTS) && span.contains_key(TOOL_RESULT)))
        }
        "gen_ai_tool_attributes_not_emitted_in_v1" => {
            !spans.is_empty()
                && spans.iter().all(|(span, _)| {
                    !span
                        .keys()
                        .any(|key| key.starts_with("gen_ai.tool.") || key == "gen_ai.operation.name")
                })
        }
        "execute_tool_span_name_not_used" => {
            !spans.is_empty()
                && !c
                    .run
                    .spans
                    .iter()
                    .any(|span| span.name.starts_with("execute_tool"))
        }
        // 098: the dedicated Tool observation.
        "renders_as_dedicated_tool_observation_not_generation" => {
            !events.is_empty()
                && observations.len() == events.len()
                && c.observations()
                    .iter()
                    .filter(|o| o["name"] == TOOL_SPAN)
                    .all(|o| o["type"] == "tool")
                && events.iter().all(|e| {
                    c.observation_of(e).is_some_and(|o| {
                        c.observations().iter().any(|parent| {
                            parent["type"] == "span"
                                && parent["name"] == e["node_name"]
                                && parent["children"]
                                    .as_array()
                                    .is_some_and(|children| children.contains(o))
                        })
                    })
                })
        }
        "tool_name_and_call_id_in_metadata" => {
            !events.is_empty() && events.iter().all(|e| c.observation_of(e).is_some())
        }
        "input_output_populated_with_payload_on" => {
            c.langfuse_payload_on()
                && !succeeded.is_empty()
                && succeeded.iter().all(|e| {
                    c.observation_of(e)
                        .is_some_and(|o| o["input"] == e["arguments"] && o["output"] == e["result"])
                })
        }
        "caller_metadata_reaches_tool_observation" => {
            let caller = c.caller_metadata();
            !caller.is_empty()
                && !observations.is_empty()
                && observations.iter().all(|o| {
                    caller
                        .iter()
                        .all(|(key, value)| o["metadata"].get(key) == Some(value))
                })
        }
        "failed_tool_renders_error_level" => {
            !failed.is_empty()
                && failed
                    .iter()
                    .all(|e| c.observation_of(e).is_some_and(|o| o["level"] == "ERROR"))
        }
        "error_type_retained_under_default_posture" => {
            !c.langfuse_payload_on()
                && !failed.is_empty()
                && failed.iter().all(|e| {
                    non_empty_string(&e["error_type"])
                        && c.observation_of(e)
                            .is_some_and(|o| o["metadata"]["error_type"] == e["error_type"])
                })
        }
        // §6's anti-smuggling clause: with the message withheld, nothing of it reaches the observation; with it
        // permitted, the status message is the (capped) message itself.
        "tool_failure_message_not_smuggled_into_status_message" => {
            !failed.is_empty()
                && failed.iter().all(|e| {
                    let message = e["error_message"].as_str().unwrap_or_default();
                    !message.is_empty()
                        && c.observation_of(e).is_some_and(|o| {
                            if c.langfuse_payload_on() {
                                o["statusMessage"] == o["metadata"]["error_message"]
                            } else {
                                o["statusMessage"].is_null()
                                    && o["metadata"].get("error_message").is_none()
                                    && !o.to_string().contains(message)
                            }
                        })
                })
        }
        // 160: the observation's error type is the one the mock raised, as the typed event carried it.
        "error_type_asserted_literally_from_raises" => {
            let mocked = c.mocked_error_types();
            !failed.is_empty()
                && failed.len() == mocked.len()
                && failed.iter().zip(&mocked).all(|(e, mocked)| {
                    e["error_type"] == *mocked
                        && c.observation_of(e)
                            .is_some_and(|o| o["metadata"]["error_type"] == *mocked)
                })
        }
        _ => return None,
    })
}

/// Every tool span carries its event's tool name and, exactly when the event has one, its call id.
fn spans_render_identity(
    spans: &[(&serde_json::Map<String, Value>, Option<&str>)],
    events: &[&Value],
) -> bool {
    !spans.is_empty()
        && spans.len() == events.len()
        && spans.iter().zip(events).all(|((span, _), event)| {
            span.get(TOOL_NAME) == Some(&event["tool_name"])
                && match event["tool_call_id"].as_str() {
                    Some(id) => span.get(TOOL_CALL_ID).and_then(Value::as_str) == Some(id),
                    None => !span.contains_key(TOOL_CALL_ID),
                }
        })
}
