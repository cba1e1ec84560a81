//! The named invariants the observability fixtures assert (`expected.invariants`), each a predicate over what the
//! run captured. A name not in this registry fails the case (harness_primitive_missing), never passes it.

use oa_events::InvocationError;
use oa_provider::model::ContentBlock;
use oa_provider::{Content, Response};
use serde_json::Value;

use super::InvocationRun;
use super::capture::Run;
use crate::node::Node;

mod graph;
mod session;
mod tool;

/// What an invariant may look at.
pub(crate) struct Context<'a> {
    pub(crate) run: &'a Run,
    pub(crate) body: &'a Node,
    pub(crate) error: Option<&'a InvocationError>,
    /// The responses the graph's calls returned, in order.
    pub(crate) responses: &'a [Response],
    /// Every invocation the case ran, in order.
    pub(crate) invocations: &'a [InvocationRun],
    /// `direct_call`'s result.
    pub(crate) direct_call: Option<&'a Value>,
    /// The case's queryable observers, as they stand after the run.
    pub(crate) queryable: Option<&'a super::graph::Queryable>,
    /// The run of the counterpart case, when an invariant compares two runs (118).
    pub(crate) counterpart: Option<&'a Run>,
}

impl Context<'_> {
    /// The first typed collector's events (every fixture using invariants over events has one collector).
    fn events(&self) -> &[Value] {
        self.run
            .events
            .values()
            .next()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    fn of_type(&self, event_type: &str) -> Vec<&Value> {
        self.events()
            .iter()
            .filter(|e| e["event_type"] == event_type)
            .collect()
    }

    fn terminal(&self) -> Vec<&Value> {
        self.events()
            .iter()
            .filter(|e| e["event_type"] == "LlmCompletionEvent" || e["event_type"] == "LlmFailedEvent")
            .collect()
    }

    /// The events of the case's own first collector (not the harness's), of one type.
    fn declared(&self, event_type: &str) -> Vec<&Value> {
        self.run
            .events
            .iter()
            .find(|(name, _)| !name.is_empty())
            .map(|(_, events)| events.iter().filter(|e| e["event_type"] == event_type).collect())
            .unwrap_or_default()
    }

    fn llm_spans(&self) -> Vec<&serde_json::Map<String, Value>> {
        self.run
            .spans
            .iter()
            .filter(|span| span.name == "openarmature.llm.complete")
            .map(|span| &span.attributes)
            .collect()
    }

    fn raised_category(&self) -> Option<&'static str> {
        match self.error? {
            InvocationError::Node { source, .. } => source.provider_error().map(|e| e.category().as_str()),
            _ => None,
        }
    }

    /// The tool failure behind the invocation's error, when an instrumented tool's error ended it.
    fn raised_tool_failure(&self) -> Option<&oa_events::ToolFailure> {
        match self.error? {
            InvocationError::Node { source, .. } => source.tool_failure(),
            _ => None,
        }
    }

    fn token_text(&self) -> String {
        self.token_text_of("content")
    }

    fn token_text_of(&self, kind: &str) -> String {
        self.of_type("LlmTokenEvent")
            .iter()
            .filter(|e| e["delta_kind"] == kind)
            .filter_map(|e| e["delta"].as_str())
            .collect()
    }

    /// The terminal response's thinking blocks, concatenated; `None` without a response or without one.
    fn terminal_thinking(&self) -> Option<String> {
        let Some(Content::Blocks(blocks)) = self.responses.last()?.message.content.as_ref() else {
            return None;
        };
        let thinking: Vec<&str> = blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Thinking { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        (!thinking.is_empty()).then(|| thinking.concat())
    }
}

fn non_empty_string(value: &Value) -> bool {
    value.as_str().is_some_and(|text| !text.is_empty())
}

/// Checks every invariant of `invariants` (a mapping of name to `true`).
pub(crate) fn check(invariants: &Node, context: &Context<'_>) -> Result<(), String> {
    for (name, value) in invariants.as_map().unwrap_or_default() {
        let holds = if value.as_bool() == Some(true) {
            holds(name, context)
        } else {
            graph::holds_valued(name, value, context).or_else(|| session::holds_valued(name, value, context))
        }
        .ok_or_else(|| {
            format!(
                "harness_primitive_missing: invariant {name} with value {:?}",
                value.to_json()
            )
        })?;
        if !holds {
            return Err(format!("invariant {name} does not hold"));
        }
    }
    Ok(())
}

fn holds(name: &str, c: &Context<'_>) -> Option<bool> {
    let completions = c.of_type("LlmCompletionEvent");
    let failures = c.of_type("LlmFailedEvent");
    let tokens = c.of_type("LlmTokenEvent");
    let spans = c.llm_spans();
    Some(match name {
        "exactly_one_llm_completion_event_observed"
        | "exactly_one_llm_completion_event"
        | "exactly_one_terminal_llm_completion_event" => completions.len() == 1,
        "exactly_one_llm_failed_event_observed"
        | "exactly_one_terminal_llm_failed_event"
        | "exactly_one_llm_failed_event_per_failed_call" => failures.len() == 1,
        "zero_llm_completion_events_on_failed_call"
        | "zero_llm_completion_events_per_failed_call"
        | "zero_llm_completion_events_on_failed_stream" => completions.is_empty() && !failures.is_empty(),
        "exception_propagates_out_of_complete" | "error_category_matches_raised_exception_category" => {
            match c.raised_category() {
                Some(category) => failures.iter().any(|e| e["error_category"] == category),
                None => false,
            }
        }
        // The typed failure event was dispatched and the error still ended the invocation: a provider error of the
        // event's category, or (093) the tool failure the event reports, as the node's cause.
        "exception_propagates_alongside_typed_event" => {
            match (c.raised_category(), c.raised_tool_failure()) {
                (Some(category), _) => failures.iter().any(|e| e["error_category"] == category),
                (None, Some(tool)) => c.of_type("ToolCallFailedEvent").iter().any(|e| {
                    e["error_type"].as_str() == tool.error_type.as_deref()
                        && e["error_message"] == tool.message.as_str()
                }),
                (None, None) => false,
            }
        }
        "event_typed_fields_match_provider_response" => {
            let mocked = first_mock_body(c.body);
            completions.len() == 1
                && mocked.is_some_and(|body| {
                    let event = completions[0];
                    event["response_id"] == body["id"]
                        && event["finish_reason"] == body["choices"][0]["finish_reason"]
                        && event["output_content"] == body["choices"][0]["message"]["content"]
                        && event["usage"]["prompt_tokens"] == body["usage"]["prompt_tokens"]
                })
        }
        "identity_scoping_fields_populated" => {
            !c.terminal().is_empty()
                && c.terminal().iter().all(|e| {
                    non_empty_string(&e["invocation_id"])
                        && non_empty_string(&e["correlation_id"])
                        && non_empty_string(&e["node_name"])
                        && e["namespace"].as_array().is_some_and(|ns| !ns.is_empty())
                        && non_empty_string(&e["call_id"])
                })
        }
        "attempt_index_defaults_to_zero" => {
            !spans.is_empty()
                && spans
                    .iter()
                    .all(|s| s.get("openarmature.llm.attempt_index").and_then(Value::as_i64) == Some(0))
        }
        "baseline_attributes_still_emit_alongside_attempt_index" => {
            !spans.is_empty()
                && spans.iter().all(|s| {
                    s.contains_key("openarmature.llm.model")
                        && s.contains_key("openarmature.llm.finish_reason")
                })
        }
        "exactly_one_llm_span_when_retry_absent" => spans.len() == 1,
        "input_messages_populated_unconditionally" => {
            !c.terminal().is_empty() && c.terminal().iter().all(|e| e["input_messages"].is_array())
        }
        "input_messages_shape_matches_llm_provider_section_3" => c.terminal().iter().all(|e| {
            e["input_messages"].as_array().is_some_and(|messages| {
                messages.iter().all(|m| {
                    matches!(m["role"].as_str(), Some("system" | "user" | "assistant" | "tool"))
                        && m.get("content").is_some()
                })
            })
        }),
        "request_params_carries_only_caller_supplied_keys" | "absence_distinct_from_zero_value" => {
            let supplied = supplied_params(c.body);
            !c.terminal().is_empty()
                && c.terminal()
                    .iter()
                    .all(|e| e["request_params"].as_object() == Some(&supplied))
        }
        "request_extras_is_native_mapping_not_json_string" => {
            !c.terminal().is_empty() && c.terminal().iter().all(|e| e["request_extras"].is_object())
        }
        "all_call_ids_are_non_empty_strings" | "all_call_ids_present" => {
            !c.terminal().is_empty()
                && c.events()
                    .iter()
                    .filter(|e| e.get("call_id").is_some())
                    .all(|e| non_empty_string(&e["call_id"]))
        }
        "call_ids_pairwise_distinct" | "completion_and_failed_event_call_ids_distinct" => {
            let ids: Vec<&Value> = c.terminal().iter().map(|e| &e["call_id"]).collect();
            ids.len() >= 2
                && ids
                    .iter()
                    .enumerate()
                    .all(|(i, a)| ids[i + 1..].iter().all(|b| a != b))
        }
        "completion_event_call_id_present_and_non_empty" => {
            !completions.is_empty() && completions.iter().all(|e| non_empty_string(&e["call_id"]))
        }
        "failed_event_call_id_present_and_non_empty" => {
            !failures.is_empty() && failures.iter().all(|e| non_empty_string(&e["call_id"]))
        }
        "response_model_distinct_from_request_model" => completions
            .iter()
            .any(|e| non_empty_string(&e["response_model"]) && e["response_model"] != e["model"]),
        "response_model_null_when_absent_from_response" => {
            completions.iter().any(|e| e["response_model"].is_null())
        }
        "zero_token_events_on_non_streamed_call" => tokens.is_empty(),
        "atomic_path_unchanged_by_streaming_capability" => tokens.is_empty() && completions.len() == 1,
        "all_token_event_call_ids_match_terminal_completion_event"
        | "token_event_call_id_matches_terminal_completion_event"
        | "all_token_events_share_one_call_id" => {
            let terminal = c.terminal();
            !tokens.is_empty()
                && terminal.len() == 1
                && tokens.iter().all(|t| t["call_id"] == terminal[0]["call_id"])
        }
        "chunk_index_monotonic_from_zero" => {
            !tokens.is_empty()
                && tokens
                    .iter()
                    .enumerate()
                    .all(|(idx, t)| t["chunk_index"] == idx as u64)
        }
        "n_content_chunks_emit_n_token_events" => tokens.len() == n_stream_content_chunks(c.body),
        "ordered_deltas_concatenate_to_assembled_content"
        | "assembled_response_reflects_successful_attempt_only" => {
            completions.len() == 1 && completions[0]["output_content"] == c.token_text()
        }
        "no_llm_token_failed_event_variant_exists" => c.events().iter().all(|e| {
            e["event_type"]
                .as_str()
                .is_some_and(|t| !t.contains("TokenFailed"))
        }),
        "partial_token_events_fire_before_failure" => {
            let events = c.events();
            let failed_at = events.iter().position(|e| e["event_type"] == "LlmFailedEvent");
            let last_token = events.iter().rposition(|e| e["event_type"] == "LlmTokenEvent");
            matches!((last_token, failed_at), (Some(token), Some(failed)) if token < failed)
        }
        "all_token_events_node_level_attempt_index_zero"
        | "wire_retry_does_not_advance_node_level_attempt_index" => {
            !tokens.is_empty()
                && tokens
                    .iter()
                    .chain(c.terminal().iter())
                    .all(|e| e["attempt_index"] == 0)
        }
        "no_per_attempt_typed_event_for_caught_transient" => c.terminal().len() == 1,
        "finish_reason_is_stop_not_truncation" => {
            failures.len() == 1 && failures[0]["finish_reason"] == "stop"
        }
        "response_side_surface_null_for_non_structured_output_failure" => {
            !failures.is_empty()
                && failures.iter().all(|e| {
                    e["error_category"] != "structured_output_invalid"
                        && [
                            "usage",
                            "finish_reason",
                            "output_content",
                            "response_id",
                            "response_model",
                        ]
                        .iter()
                        .all(|field| e[*field].is_null())
                })
        }
        "gen_ai_input_tokens_never_sourced_from_null_counter"
        | "input_usage_attributes_omitted_when_prompt_tokens_null" => {
            !spans.is_empty()
                && spans.iter().all(|s| {
                    !s.contains_key("gen_ai.usage.input_tokens")
                        && !s.contains_key("openarmature.llm.usage.prompt_tokens")
                })
        }
        "output_and_total_usage_attributes_emitted_when_sound" => {
            !spans.is_empty()
                && spans.iter().all(|s| {
                    s.contains_key("gen_ai.usage.output_tokens")
                        && s.contains_key("openarmature.llm.usage.completion_tokens")
                        && s.contains_key("openarmature.llm.usage.total_tokens")
                })
        }
        "two_token_usage_observations_input_and_output" => {
            let usage: Vec<_> = c
                .run
                .points
                .iter()
                .filter(|p| p.instrument == TOKEN_USAGE)
                .collect();
            usage.len() == 2
                && ["input", "output"].iter().all(|kind| {
                    usage
                        .iter()
                        .any(|p| p.dimensions.get(TOKEN_TYPE) == Some(&Value::from(*kind)) && p.count == 1)
                })
        }
        "one_duration_observation_per_call" => {
            c.run
                .points
                .iter()
                .filter(|p| p.instrument == DURATION)
                .map(|p| p.count)
                .sum::<u64>()
                == 1
        }
        "duration_value_not_asserted" => c.run.points.iter().any(|p| p.instrument == DURATION),
        "errored_call_records_duration_with_error_type" => c
            .run
            .points
            .iter()
            .any(|p| p.instrument == DURATION && p.dimensions.contains_key("error.type")),
        "no_measurements_recorded_when_metrics_off" => c.run.points.is_empty(),
        "token_usage_recorded_on_structured_output_failure" => {
            !failures.is_empty()
                && failures
                    .iter()
                    .all(|e| e["error_category"] == "structured_output_invalid")
                && c.run.points.iter().any(|p| p.instrument == TOKEN_USAGE)
        }
        "no_input_token_usage_observation_when_prompt_tokens_null" => !c.run.points.iter().any(|p| {
            p.instrument == TOKEN_USAGE && p.dimensions.get(TOKEN_TYPE) == Some(&Value::from("input"))
        }),
        "cache_read_attribute_equals_usage_field" | "cache_read_attribute_emits_zero_when_reported" => {
            completions.len() == 1
                && spans.len() == 1
                && completions[0]["usage"]["cached_tokens"].is_u64()
                && spans[0]
                    .get("openarmature.llm.cache_read.input_tokens")
                    .and_then(Value::as_u64)
                    == completions[0]["usage"]["cached_tokens"].as_u64()
        }
        "cache_creation_attribute_absent_for_openai_compatible" => {
            !spans.is_empty()
                && spans
                    .iter()
                    .all(|s| !s.contains_key("openarmature.llm.cache_creation.input_tokens"))
        }
        "cache_attribute_absent_when_field_unpopulated" => {
            !spans.is_empty()
                && spans.iter().all(|s| {
                    !s.contains_key("openarmature.llm.cache_read.input_tokens")
                        && !s.contains_key("openarmature.llm.cache_creation.input_tokens")
                })
        }
        "absent_distinct_from_zero" => {
            completions.len() == 1
                && completions[0]["usage"]
                    .get("cached_tokens")
                    .is_none_or(Value::is_null)
                && spans
                    .iter()
                    .all(|s| !s.contains_key("openarmature.llm.cache_read.input_tokens"))
        }
        "reported_zero_distinct_from_absent" => {
            completions.len() == 1
                && completions[0]["usage"]["cached_tokens"] == 0
                && spans.len() == 1
                && spans[0].get("openarmature.llm.cache_read.input_tokens") == Some(&Value::from(0))
        }
        "no_token_usage_observation_on_failure" => {
            !failures.is_empty() && !c.run.points.iter().any(|p| p.instrument == TOKEN_USAGE)
        }
        "duration_records_error_type_on_failure" => c.run.points.iter().any(|p| {
            p.instrument == DURATION
                && failures
                    .iter()
                    .any(|e| p.dimensions.get("error.type") == Some(&e["error_category"]))
        }),
        "output_token_usage_observation_recorded_when_completion_sound" => c.run.points.iter().any(|p| {
            p.instrument == TOKEN_USAGE && p.dimensions.get(TOKEN_TYPE) == Some(&Value::from("output"))
        }),
        "output_content_null_when_tool_calls_present_with_empty_content" => {
            completions.len() == 1
                && completions[0]["output_content"].is_null()
                && completions[0]["output_tool_calls"]
                    .as_array()
                    .is_some_and(|calls| !calls.is_empty())
        }
        "tool_call_argument_deltas_emit_no_token_events" => {
            tokens.iter().all(|t| t["delta_kind"] == "content")
                && tokens.len() == n_stream_content_chunks(c.body)
                && completions.len() == 1
                && completions[0]["output_tool_calls"]
                    .as_array()
                    .is_some_and(|calls| !calls.is_empty())
        }
        // §5.5.10: a completion that requested no tools carries none of the family (absence, not count 0); a run
        // whose mock calls a tool emits the projections and fails this (the self-test's contrast).
        "tool_call_attributes_omitted_when_none_requested" => {
            !spans.is_empty()
                && spans.iter().all(|s| {
                    !s.keys()
                        .any(|key| key.starts_with("openarmature.llm.output.tool_calls"))
                })
        }
        // §5.5.10 identity projections against the mocked calls: names[i] and ids[i] are the i-th mocked call's.
        "tool_call_names_and_ids_index_aligned" | "tool_call_arrays_in_request_order" => {
            identity_matches_mock(c, &spans)
        }
        "count_equals_names_length" => {
            !spans.is_empty()
                && spans.iter().all(|s| {
                    let names = s.get(TOOL_CALL_NAMES).and_then(Value::as_array).map(Vec::len);
                    names.is_some_and(|n| n > 0)
                        && s.get(TOOL_CALL_COUNT).and_then(Value::as_u64)
                            == names.and_then(|n| u64::try_from(n).ok())
                })
        }
        "identity_projections_survive_payload_off" => {
            payload_disabled(c.body) && identity_matches_mock(c, &spans)
        }
        "gated_output_tool_calls_suppressed_when_payload_off" => {
            payload_disabled(c.body)
                && !spans.is_empty()
                && spans.iter().all(|s| !s.contains_key(TOOL_CALLS_PAYLOAD))
        }
        "identity_projections_present_regardless_of_flag" => {
            identity_matches_mock(c, &spans)
                && (payload_disabled(c.body) || spans.iter().all(|s| s.contains_key(TOOL_CALLS_PAYLOAD)))
        }
        "token_events_group_by_call_id_into_two_streams" => {
            let terminal = c.terminal();
            terminal.len() == 2
                && terminal[0]["call_id"] != terminal[1]["call_id"]
                && terminal
                    .iter()
                    .all(|t| tokens.iter().any(|token| token["call_id"] == t["call_id"]))
                && tokens
                    .iter()
                    .all(|token| terminal.iter().any(|t| t["call_id"] == token["call_id"]))
        }
        "caller_metadata_cross_cutting" => {
            let metadata = c
                .body
                .get("caller_metadata")
                .map(Node::to_json)
                .unwrap_or(Value::Null);
            let keys: Vec<&String> = metadata
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            !keys.is_empty()
                && !c.run.spans.is_empty()
                && c.run.spans.iter().all(|span| {
                    keys.iter().all(|key| {
                        span.attributes.get(&format!("openarmature.user.{key}")) == metadata.get(key.as_str())
                    })
                })
        }
        "active_prompt_null_parallels_prompt_attr_absence_on_span" => {
            !completions.is_empty()
                && completions.iter().all(|e| e["active_prompt"].is_null())
                && spans
                    .iter()
                    .all(|s| !s.keys().any(|key| key.starts_with("openarmature.prompt.")))
        }
        "call1_token_events_share_call1_completion_call_id"
        | "call2_token_events_share_call2_completion_call_id" => {
            let terminal = c.terminal();
            let idx = usize::from(name.starts_with("call2"));
            terminal.len() == 2 && {
                // The call's tokens carry its terminal event's call_id and all arrive before that event.
                let events = c.events();
                let call_id = &terminal[idx]["call_id"];
                let terminal_at = events.iter().position(|e| std::ptr::eq(e, terminal[idx]));
                let own: Vec<usize> = events
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e["event_type"] == "LlmTokenEvent" && &e["call_id"] == call_id)
                    .map(|(at, _)| at)
                    .collect();
                !own.is_empty() && terminal_at.is_some_and(|end| own.iter().all(|at| *at < end))
            }
        }
        "two_call_ids_distinct_and_non_null" => {
            let terminal = c.terminal();
            terminal.len() == 2
                && non_empty_string(&terminal[0]["call_id"])
                && non_empty_string(&terminal[1]["call_id"])
                && terminal[0]["call_id"] != terminal[1]["call_id"]
        }
        "chunk_index_restarts_at_zero_per_call" => {
            let terminal = c.terminal();
            !terminal.is_empty()
                && terminal.iter().all(|t| {
                    let own: Vec<&&Value> = tokens
                        .iter()
                        .filter(|tok| tok["call_id"] == t["call_id"])
                        .collect();
                    !own.is_empty()
                        && own
                            .iter()
                            .enumerate()
                            .all(|(idx, tok)| tok["chunk_index"] == idx as u64)
                })
        }
        "error_span_carries_output_usage_finish_reason"
        | "error_status_and_exception_event_unchanged"
        | "output_content_redacted_under_payload_disabled"
        | "finish_reason_usage_and_error_status_unchanged_under_payload_disabled" => {
            let errored: Vec<_> = c
                .run
                .spans
                .iter()
                .filter(|s| s.name == "openarmature.llm.complete" && s.status == "ERROR")
                .collect();
            !errored.is_empty()
                && errored.iter().all(|s| {
                    let a = &s.attributes;
                    let base = s.has_exception_event
                        && a.contains_key("openarmature.llm.finish_reason")
                        && a.contains_key("openarmature.llm.usage.prompt_tokens");
                    match name {
                        "error_span_carries_output_usage_finish_reason" => {
                            base && a.contains_key("openarmature.llm.output.content")
                        }
                        "output_content_redacted_under_payload_disabled" => {
                            base && !a.contains_key("openarmature.llm.output.content")
                        }
                        _ => base,
                    }
                })
        }
        "malformed_wire_prompt_tokens_nulled_before_event_and_span"
        | "event_usage_prompt_tokens_null_not_verbatim_wire_value"
        | "span_omits_both_input_usage_attributes_on_malformed_wire_counter" => {
            let terminal = c.terminal();
            !terminal.is_empty()
                && terminal
                    .iter()
                    .all(|e| e["usage"].is_object() && e["usage"]["prompt_tokens"].is_null())
                && !spans.is_empty()
                && spans.iter().all(|s| {
                    !s.contains_key("gen_ai.usage.input_tokens")
                        && !s.contains_key("openarmature.llm.usage.prompt_tokens")
                })
        }
        "all_three_malformed_wire_counters_nulled_before_event_and_span"
        | "event_usage_is_present_record_of_nulls_not_null_record"
        | "span_omits_all_usage_attributes_when_all_counters_malformed" => {
            let terminal = c.terminal();
            !terminal.is_empty()
                && terminal.iter().all(|e| {
                    e["usage"].is_object()
                        && ["prompt_tokens", "completion_tokens", "total_tokens"]
                            .iter()
                            .all(|counter| e["usage"][*counter].is_null())
                })
                && !spans.is_empty()
                && spans.iter().all(|s| {
                    !s.keys().any(|key| {
                        key.starts_with("openarmature.llm.usage.") || key.starts_with("gen_ai.usage.")
                    })
                })
        }
        "no_tool_call_kind_token_events" => {
            !tokens.is_empty() && tokens.iter().all(|t| t["delta_kind"] != "tool_call")
        }
        "terminal_output_tool_calls_reassembled_complete_and_parsed" => {
            completions.len() == 1
                && completions[0]["output_tool_calls"]
                    .as_array()
                    .is_some_and(|calls| {
                        !calls.is_empty()
                            && calls.iter().all(|call| {
                                non_empty_string(&call["id"])
                                    && non_empty_string(&call["name"])
                                    && call["arguments"].is_object()
                            })
                    })
        }
        // The streamed mock's tool-call fragments, concatenated per index and parsed, are what a non-streamed
        // response carrying the same calls would hold.
        "reassembled_tool_calls_identical_to_non_streamed" => {
            let expected = streamed_tool_calls(c.body);
            completions.len() == 1
                && !expected.is_empty()
                && completions[0]["output_tool_calls"] == Value::Array(expected)
        }
        "only_content_kind_token_events_emitted" => {
            !tokens.is_empty() && tokens.iter().all(|t| t["delta_kind"] == "content")
        }
        "failure_surfaces_via_exception_path" => c.raised_category().is_some(),
        "no_typed_event_on_failure" => completions.is_empty() && c.raised_category().is_some(),
        "type_discrimination_filter_works" | "type_filtered_count_independent_of_sentinel_emission" => {
            let filtered: Vec<&Vec<Value>> = c
                .run
                .events
                .iter()
                .filter(|(name, _)| !name.is_empty())
                .map(|(_, events)| events)
                .filter(|events| events.iter().all(|e| e["event_type"] == "LlmCompletionEvent"))
                .collect();
            !filtered.is_empty()
                && filtered
                    .iter()
                    .all(|events| events.len() == completions.len() && !events.is_empty())
        }
        "opt_in_disabled_yields_null_caller_metadata" => {
            let declared = c.declared("LlmCompletionEvent");
            !declared.is_empty() && declared.iter().all(|e| e["caller_invocation_metadata"].is_null())
        }
        "opt_in_enabled_yields_snapshot_caller_metadata" | "snapshot_is_immutable_mapping" => {
            let metadata = c.body.get("caller_metadata").map(Node::to_json);
            let declared = c.declared("LlmCompletionEvent");
            !declared.is_empty()
                && declared.iter().all(|e| {
                    e["caller_invocation_metadata"].is_object()
                        && Some(&e["caller_invocation_metadata"]) == metadata.as_ref()
                })
        }
        "typed_event_arrives_within_calling_node_span"
        | "typed_event_arrives_after_node_started"
        | "typed_event_arrives_before_node_completed" => {
            let events = c.events();
            let completion = events
                .iter()
                .position(|e| e["event_type"] == "LlmCompletionEvent");
            let node = completion.and_then(|idx| events[idx]["node_name"].as_str());
            let started = events
                .iter()
                .position(|e| e["kind"] == "node_started" && e["scope"]["node_name"].as_str() == node);
            let completed = events
                .iter()
                .position(|e| e["kind"] == "node_completed" && e["scope"]["node_name"].as_str() == node);
            matches!((started, completion, completed), (Some(s), Some(m), Some(e)) if s < m && m < e)
        }
        // 118: a streamed mock's reasoning field (`reasoning_content` or `reasoning`) surfaces as reasoning-kind
        // token events carrying exactly the mocked reasoning deltas, in order.
        "reasoning_content_field_recognized_as_reasoning_kind" => {
            reasoning_recognized(c, &tokens, "reasoning_content")
        }
        "reasoning_field_recognized_as_reasoning_kind" => reasoning_recognized(c, &tokens, "reasoning"),
        "reasoning_deltas_precede_content_deltas" | "ordered_reasoning_then_content_chunk_indices" => {
            let kinds: Vec<&Value> = tokens.iter().map(|t| &t["delta_kind"]).collect();
            let first_content = kinds.iter().position(|k| *k == "content");
            let indices_ordered = tokens
                .iter()
                .enumerate()
                .all(|(i, t)| t["chunk_index"].as_u64() == u64::try_from(i).ok());
            kinds.iter().any(|k| *k == "reasoning")
                && first_content.is_some_and(|first| kinds[first..].iter().all(|k| *k == "content"))
                && indices_ordered
        }
        "reasoning_assembles_into_terminal_thinking_block" => {
            let reasoning = c.token_text_of("reasoning");
            !reasoning.is_empty()
                && c.terminal_thinking().as_deref() == Some(reasoning.as_str())
                && completions.iter().all(|e| {
                    e["output_content"]
                        .as_str()
                        .is_none_or(|content| !content.contains(reasoning.as_str()))
                })
        }
        "content_assembles_into_message_content" => {
            let content = c.token_text();
            !content.is_empty()
                && c.responses.last().and_then(|r| r.message.text()).as_deref() == Some(content.as_str())
                && completions.len() == 1
                && completions[0]["output_content"].as_str() == Some(content.as_str())
        }
        // 118: this run and its counterpart (the same case with the reasoning under the other field name) give the
        // same token events, and those events carry the mocked reasoning as reasoning kind.
        BOTH_REASONING_FIELDS => {
            let this_field = if stream_delta_has(c.body, "reasoning") {
                "reasoning"
            } else {
                "reasoning_content"
            };
            let counterpart_tokens = c
                .counterpart
                .map(|run| token_projection(run.events.values().next()));
            reasoning_recognized(c, &tokens, this_field)
                && counterpart_tokens == Some(token_projection(c.run.events.values().next()))
        }
        _ => {
            return graph::holds(name, c)
                .or_else(|| tool::holds(name, c))
                .or_else(|| session::holds(name, c));
        }
    })
}

/// The invariant that compares a run with its counterpart (the harness runs the counterpart only when asked).
pub(crate) const BOTH_REASONING_FIELDS: &str = "both_reasoning_field_names_produce_identical_token_events";

/// Every chunk of every attempt of the case's streamed mock, in order.
fn stream_chunks(body: &Node) -> impl Iterator<Item = &Node> {
    body.get("mock_llm_stream")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_seq)
        .flatten()
}

/// Whether any streamed chunk's delta carries `field`.
fn stream_delta_has(body: &Node, field: &str) -> bool {
    stream_chunks(body).any(|chunk| chunk.to_json()["choices"][0]["delta"].get(field).is_some())
}

/// A collector's token events as `(chunk_index, delta_kind, delta)`, in arrival order.
fn token_projection(events: Option<&Vec<Value>>) -> Vec<(Value, Value, Value)> {
    events
        .into_iter()
        .flatten()
        .filter(|e| e["event_type"] == "LlmTokenEvent")
        .map(|e| {
            (
                e["chunk_index"].clone(),
                e["delta_kind"].clone(),
                e["delta"].clone(),
            )
        })
        .collect()
}

/// The case with every streamed delta's `reasoning` renamed `reasoning_content` and the reverse (118's two cases
/// differ only in that).
pub(crate) fn swap_reasoning_field(body: &Node) -> Result<Node, String> {
    let mut json = body.to_json();
    let attempts = json.get_mut("mock_llm_stream").and_then(Value::as_array_mut);
    for attempt in attempts.into_iter().flatten() {
        for chunk in attempt.as_array_mut().into_iter().flatten() {
            let Some(delta) = chunk
                .get_mut("choices")
                .and_then(|choices| choices.get_mut(0))
                .and_then(|choice| choice.get_mut("delta"))
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let reasoning = delta.remove("reasoning");
            let reasoning_content = delta.remove("reasoning_content");
            if let Some(text) = reasoning {
                delta.insert("reasoning_content".into(), text);
            }
            if let Some(text) = reasoning_content {
                delta.insert("reasoning".into(), text);
            }
        }
    }
    // JSON text is YAML: the case goes back through the fixture parser's own node type.
    Node::from_yaml_str(&json.to_string()).map_err(|error| format!("harness: {error}"))
}

/// The mock's reasoning deltas under `field` (none of them under the other name) are exactly the reasoning-kind
/// token events, in order, and every one precedes the content events.
fn reasoning_recognized(c: &Context<'_>, tokens: &[&Value], field: &str) -> bool {
    let other = if field == "reasoning" {
        "reasoning_content"
    } else {
        "reasoning"
    };
    let mut mocked = Vec::new();
    for chunk in stream_chunks(c.body) {
        let delta = &chunk.to_json()["choices"][0]["delta"];
        if delta.get(other).is_some() {
            return false;
        }
        if let Some(text) = delta[field].as_str().filter(|text| !text.is_empty()) {
            mocked.push(Value::from(text));
        }
    }
    let surfaced: Vec<Value> = tokens
        .iter()
        .filter(|t| t["delta_kind"] == "reasoning")
        .map(|t| t["delta"].clone())
        .collect();
    !mocked.is_empty() && surfaced == mocked
}

const TOOL_CALLS_PAYLOAD: &str = "openarmature.llm.output.tool_calls";
const TOOL_CALL_COUNT: &str = "openarmature.llm.output.tool_calls.count";
const TOOL_CALL_NAMES: &str = "openarmature.llm.output.tool_calls.names";
const TOOL_CALL_IDS: &str = "openarmature.llm.output.tool_calls.ids";

/// The case's effective `disable_provider_payload` (default `true`, §5.5.4).
/// Whether the case's OTel observer withholds payload: its `otel_observer:` block's flag first, else the bare
/// case-level key (the executor reads them in that order), default true.
fn payload_disabled(body: &Node) -> bool {
    body.get("otel_observer")
        .and_then(|block| block.get("disable_provider_payload"))
        .or_else(|| body.get("disable_provider_payload"))
        .and_then(Node::as_bool)
        .unwrap_or(true)
}

/// Every LLM span's `.names` and `.ids` are the first mocked body's tool calls, name and id, in order, and
/// `.count` is their number.
fn identity_matches_mock(c: &Context<'_>, spans: &[&serde_json::Map<String, Value>]) -> bool {
    let mocked = first_mock_body(c.body)
        .map(|body| body["choices"][0]["message"]["tool_calls"].clone())
        .and_then(|calls| calls.as_array().cloned())
        .unwrap_or_default();
    let names: Vec<Value> = mocked
        .iter()
        .map(|call| call["function"]["name"].clone())
        .collect();
    let ids: Vec<Value> = mocked.iter().map(|call| call["id"].clone()).collect();
    !mocked.is_empty()
        && !spans.is_empty()
        && spans.iter().all(|s| {
            s.get(TOOL_CALL_NAMES) == Some(&Value::Array(names.clone()))
                && s.get(TOOL_CALL_IDS) == Some(&Value::Array(ids.clone()))
                && s.get(TOOL_CALL_COUNT).and_then(Value::as_u64) == u64::try_from(mocked.len()).ok()
        })
}

const TOKEN_USAGE: &str = "openarmature.gen_ai.client.token.usage";
const DURATION: &str = "openarmature.gen_ai.client.operation.duration";
const TOKEN_TYPE: &str = "openarmature.gen_ai.token.type";

fn first_mock_body(body: &Node) -> Option<Value> {
    let mock = body.get("mock_llm")?;
    let entries = match mock {
        Node::Seq(entries) => entries.as_slice(),
        _ => mock.get("responses").and_then(Node::as_seq)?,
    };
    entries
        .first()
        .and_then(|entry| entry.get("body"))
        .map(Node::to_json)
}

/// The declared request parameters the case's (single) `calls_llm` config supplies.
fn supplied_params(body: &Node) -> serde_json::Map<String, Value> {
    let mut supplied = serde_json::Map::new();
    for (_, node) in body.get("nodes").and_then(Node::as_map).unwrap_or_default() {
        if let Some(config) = node.get("calls_llm").and_then(|call| call.get("config")) {
            for (key, value) in config.as_map().unwrap_or_default() {
                if key != "extras" {
                    supplied.insert(key.clone(), value.to_json());
                }
            }
        }
    }
    supplied
}

/// How many chunks of the case's streamed mock carry a non-empty content delta.
fn n_stream_content_chunks(body: &Node) -> usize {
    stream_chunks(body)
        .filter(|chunk| {
            chunk.to_json()["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|text| !text.is_empty())
        })
        .count()
}

/// The tool calls a streamed mock carries, reassembled: `[{id, name, arguments}]` with the argument fragments of
/// each index concatenated and parsed.
fn streamed_tool_calls(body: &Node) -> Vec<Value> {
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for chunk in stream_chunks(body) {
        let chunk = chunk.to_json();
        for delta in chunk["choices"][0]["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let idx = usize::try_from(delta["index"].as_u64().unwrap_or(0)).unwrap_or(0);
            while calls.len() <= idx {
                calls.push(Default::default());
            }
            if let Some(id) = delta["id"].as_str() {
                calls[idx].0 = id.to_owned();
            }
            if let Some(name) = delta["function"]["name"].as_str() {
                calls[idx].1 = name.to_owned();
            }
            if let Some(fragment) = delta["function"]["arguments"].as_str() {
                calls[idx].2.push_str(fragment);
            }
        }
    }
    calls
        .into_iter()
        .map(|(id, name, arguments)| {
            let arguments: Value = serde_json::from_str(&arguments).unwrap_or(Value::Null);
            serde_json::json!({"id": id, "name": name, "arguments": arguments})
        })
        .collect()
}
