//! The invariants of the Langfuse fixtures (022-036, 059, 117, 123, 148) and of the small graph features
//! (009, 011, 034, 043, 046, 047, 049, 135): predicates over the recorded Langfuse traces, the spans grouped by
//! invocation, the final states, and the queryable observers.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Context;
use crate::matcher::{Keys, Matcher};
use crate::node::Node;

impl Context<'_> {
    /// The one recorded Langfuse trace.
    pub(super) fn trace(&self) -> Option<&Value> {
        match self.run.langfuse.as_deref() {
            Some([trace]) => Some(trace),
            _ => None,
        }
    }

    /// Every observation of the trace, depth first.
    pub(super) fn observations(&self) -> Vec<&Value> {
        fn walk<'v>(level: &'v Value, into: &mut Vec<&'v Value>) {
            for observation in level.as_array().into_iter().flatten() {
                into.push(observation);
                walk(&observation["children"], into);
            }
        }
        let mut all = Vec::new();
        if let Some(trace) = self.trace() {
            walk(&trace["observations"], &mut all);
        }
        all
    }

    /// The trace's one generation.
    pub(super) fn generation(&self) -> Option<&Value> {
        let generations: Vec<&Value> = self
            .observations()
            .into_iter()
            .filter(|o| o["type"] == "generation")
            .collect();
        match generations.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    pub(super) fn caller_metadata(&self) -> serde_json::Map<String, Value> {
        self.body
            .get("caller_metadata")
            .map(Node::to_json)
            .and_then(|m| m.as_object().cloned())
            .unwrap_or_default()
    }

    /// Every `augment_metadata` entry of the case's nodes.
    fn augmented(&self) -> serde_json::Map<String, Value> {
        let mut entries = serde_json::Map::new();
        for (_, node) in self.body.get("nodes").and_then(Node::as_map).unwrap_or_default() {
            if let Some(Value::Object(more)) = node.get("augment_metadata").map(Node::to_json) {
                entries.extend(more);
            }
        }
        entries
    }

    /// The first invocation's final state.
    fn final_state(&self) -> Option<&Value> {
        self.invocations.first().and_then(|run| run.result.as_ref().ok())
    }

    /// The field a node's `capture_invocation_metadata_into` wrote, in the first invocation's final state.
    fn captured_metadata(&self) -> Option<&serde_json::Map<String, Value>> {
        let field = self
            .body
            .get("nodes")
            .and_then(Node::as_map)
            .unwrap_or_default()
            .iter()
            .find_map(|(_, node)| {
                node.get("capture_invocation_metadata_into")
                    .and_then(Node::as_str)
            })?;
        self.final_state()?.get(field)?.as_object()
    }

    fn caller_invocation_id(&self) -> Option<&str> {
        self.body.get("caller_invocation_id").and_then(Node::as_str)
    }

    /// The spans of each invocation (one trace each), in invocation order.
    fn traces(&self) -> Vec<Vec<&super::super::capture::SpanView>> {
        super::super::outcome::invocation_spans(&self.run.spans)
            .into_iter()
            .map(|root| {
                self.run
                    .spans
                    .iter()
                    .filter(|span| span.trace_id == root.trace_id)
                    .collect()
            })
            .collect()
    }

    fn content_tokens(&self) -> String {
        self.token_text()
    }

    /// Whether the case's Langfuse observer emits provider payload (`langfuse_observer.disable_provider_payload`,
    /// default true: withheld).
    pub(super) fn langfuse_payload_on(&self) -> bool {
        self.body
            .get("langfuse_observer")
            .and_then(|block| block.get("disable_provider_payload"))
            .and_then(Node::as_bool)
            == Some(false)
    }
}

fn non_empty(value: &Value) -> bool {
    value.as_str().is_some_and(|text| !text.is_empty())
}

fn is_uuid_v4(value: &Value) -> bool {
    let mut matcher = Matcher::default();
    matcher
        .check(&Node::Str("<uuid>".into()), Some(value), "", Keys::Exact)
        .is_ok()
}

fn covers(metadata: &Value, entries: &serde_json::Map<String, Value>) -> bool {
    !entries.is_empty()
        && entries
            .iter()
            .all(|(key, value)| metadata.get(key) == Some(value))
}

/// Invariants whose value is `true`.
pub(super) fn holds(name: &str, c: &Context<'_>) -> Option<bool> {
    let trace = c.trace();
    let generation = c.generation();
    let failed = c.of_type("LlmFailedEvent");
    let completed = c.of_type("LlmCompletionEvent");
    Some(match name {
        // 022, 001: one correlation id on the trace, every observation and every span.
        "correlation_id_consistency" => {
            let mut ids: Vec<&Value> = c
                .run
                .spans
                .iter()
                .filter_map(|s| s.attributes.get("openarmature.correlation_id"))
                .collect();
            if let Some(trace) = trace {
                ids.push(&trace["metadata"]["correlation_id"]);
                ids.extend(c.observations().iter().map(|o| &o["metadata"]["correlation_id"]));
            }
            let expected = c.run.spans.len() + trace.map_or(0, |_| 1 + c.observations().len());
            ids.len() == expected
                && ids
                    .first()
                    .is_some_and(|first| non_empty(first) && ids.iter().all(|id| id == first))
        }
        "trace_id_equals_invocation_id_dashes_stripped" => {
            let invocation_id = c
                .events()
                .iter()
                .find(|e| e["kind"] == "invocation_started")
                .map(|e| &e["invocation_id"]);
            match (trace, invocation_id.and_then(Value::as_str)) {
                (Some(trace), Some(id)) => trace["id"] == id.replace('-', "").as_str(),
                _ => false,
            }
        }
        "caller_metadata_top_level_on_trace" => {
            trace.is_some_and(|t| covers(&t["metadata"], &c.caller_metadata()))
        }
        "caller_metadata_top_level_on_every_observation" => {
            let observations = c.observations();
            !observations.is_empty()
                && observations
                    .iter()
                    .all(|o| covers(&o["metadata"], &c.caller_metadata()))
        }
        "caller_invocation_id_verbatim_on_attribute" => {
            let id = c.caller_invocation_id();
            let spans = super::super::outcome::invocation_spans(&c.run.spans);
            id.is_some()
                && !spans.is_empty()
                && spans.iter().all(|s| {
                    s.attributes
                        .get("openarmature.invocation_id")
                        .and_then(Value::as_str)
                        == id
                })
        }
        "langfuse_trace_id_is_uuid_hex_dashes_stripped" => match (trace, c.caller_invocation_id()) {
            (Some(trace), Some(id)) => {
                let hex = id.replace('-', "").to_ascii_lowercase();
                hex.len() == 32 && trace["id"] == hex.as_str()
            }
            _ => false,
        },
        "langfuse_trace_id_is_sha256_first16_hex" => match (trace, c.caller_invocation_id()) {
            (Some(trace), Some(id)) => {
                let digest = Sha256::digest(id.as_bytes());
                let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
                trace["id"] == hex.as_str()
            }
            _ => false,
        },
        "raw_invocation_id_in_trace_metadata" => trace.is_some_and(|t| {
            t["metadata"]["invocation_id"].as_str() == c.caller_invocation_id()
                && c.caller_invocation_id().is_some()
        }),
        // 059: the runtime-identity rows, whatever the state-payload setting.
        "implementation_name_present_on_trace" => {
            trace.is_some_and(|t| non_empty(&t["metadata"]["implementation_name"]))
        }
        "implementation_version_present_on_trace" => {
            trace.is_some_and(|t| non_empty(&t["metadata"]["implementation_version"]))
        }
        "rows_emit_with_default_privacy_config" | "rows_emit_with_state_payload_enabled" => {
            let want_disabled = name == "rows_emit_with_default_privacy_config";
            let disabled = c
                .body
                .get("langfuse_observer_config")
                .and_then(|config| config.get("disable_state_payload"))
                .and_then(Node::as_bool)
                .unwrap_or(true);
            // The stub (state payload off) carries entry_node; the state itself (on) carries the state's fields.
            let input_is_stub = trace.is_some_and(|t| t["input"].get("entry_node").is_some());
            disabled == want_disabled
                && input_is_stub == want_disabled
                && trace.is_some_and(|t| {
                    non_empty(&t["metadata"]["implementation_name"])
                        && non_empty(&t["metadata"]["implementation_version"])
                })
        }
        "always_emit_invariant_inherited_from_spec_5_1" => {
            let spans = super::super::outcome::invocation_spans(&c.run.spans);
            !spans.is_empty()
                && spans.iter().all(|s| {
                    s.attributes
                        .get("openarmature.implementation.name")
                        .is_some_and(non_empty)
                        && s.attributes
                            .get("openarmature.implementation.version")
                            .is_some_and(non_empty)
                })
                && trace.is_some_and(|t| non_empty(&t["metadata"]["implementation_name"]))
        }
        // 058: the §5.1 runtime-identity attributes, on the invocation span only.
        "implementation_name_non_empty"
        | "implementation_version_non_empty"
        | "implementation_name_matches_canonical_value" => {
            let key = if name == "implementation_version_non_empty" {
                "openarmature.implementation.version"
            } else {
                "openarmature.implementation.name"
            };
            let spans = super::super::outcome::invocation_spans(&c.run.spans);
            !spans.is_empty()
                && spans.iter().all(|s| {
                    let value = s.attributes.get(key);
                    value.is_some_and(non_empty)
                        && (name != "implementation_name_matches_canonical_value"
                            || value
                                .and_then(Value::as_str)
                                .is_some_and(|v| v.starts_with("openarmature-")))
                })
        }
        "attributes_on_invocation_span_only" | "attributes_absent_on_inner_spans" => {
            let carries = |s: &&super::super::capture::SpanView| {
                s.attributes
                    .keys()
                    .any(|k| k.starts_with("openarmature.implementation."))
            };
            let (roots, inner): (Vec<_>, Vec<_>) = c
                .run
                .spans
                .iter()
                .partition(|s| s.name == "openarmature.invocation");
            !inner.is_empty() && roots.iter().all(carries) && !inner.iter().any(carries)
        }
        // 084: the user promotion.
        "trace_session_id_unset" => trace.is_some_and(|t| t["sessionId"].is_null()),
        "trace_user_id_unset" => {
            trace.is_some_and(|t| t["userId"].is_null() && t["metadata"].get("userId").is_none())
        }
        "trace_user_id_equals_metadata_userid" | "user_id_promotion_is_additive" => trace.is_some_and(|t| {
            non_empty(&t["userId"])
                && t["userId"] == t["metadata"]["userId"]
                && c.caller_metadata().get("userId") == Some(&t["userId"])
        }),
        "other_metadata_unaffected" => trace.is_some_and(|t| covers(&t["metadata"], &c.caller_metadata())),
        // 123: a failed generation keeps the response side, its level and category.
        "failed_generation_renders_error_level_and_category" => match (generation, failed.first()) {
            (Some(g), Some(event)) => g["level"] == "ERROR" && g["statusMessage"] == event["error_category"],
            _ => false,
        },
        "failed_generation_carries_output_usage_finish_reason" => match (generation, failed.first()) {
            (Some(g), Some(event)) => {
                non_empty(&g["output"])
                    && g["output"] == event["output_content"]
                    && usage_matches(&g["usage"], &event["usage"])
                    && g["metadata"]["finish_reason"] == event["finish_reason"]
            }
            _ => false,
        },
        "output_redacted_under_payload_disabled" => match (generation, failed.first()) {
            (Some(g), Some(event)) => {
                g["output"].is_null() && g["input"].is_null() && non_empty(&event["output_content"])
            }
            _ => false,
        },
        "usage_finish_reason_and_error_level_unchanged_under_payload_disabled" => {
            match (generation, failed.first()) {
                (Some(g), Some(event)) => {
                    g["level"] == "ERROR"
                        && usage_matches(&g["usage"], &event["usage"])
                        && g["metadata"]["finish_reason"] == event["finish_reason"]
                }
                _ => false,
            }
        }
        // 123, 159 (0118): a failed generation's error message is payload, withheld with the output when the flag is
        // on; its error type and category are classifications, kept under either posture. Each needs a non-empty
        // message on the typed event, so none holds vacuously.
        "error_message_withheld_with_output_under_payload_disabled" => match (generation, failed.first()) {
            (Some(g), Some(event)) => {
                !c.langfuse_payload_on()
                    && g["output"].is_null()
                    && g["metadata"].get("error_message").is_none()
                    && non_empty(&event["error_message"])
                    && non_empty(&event["output_content"])
            }
            _ => false,
        },
        // 098 as well: the failed observation is a Generation or a Tool, with its typed failure event.
        "error_message_gated_by_provider_payload_flag" => match c.failed_pair() {
            Some((g, event)) => {
                non_empty(&event["error_message"])
                    && g["metadata"].get("error_message").is_some() == c.langfuse_payload_on()
            }
            None => false,
        },
        "error_category_retained_when_message_omitted" => match (generation, failed.first()) {
            (Some(g), Some(event)) => {
                g["metadata"].get("error_message").is_none()
                    && g["level"] == "ERROR"
                    && non_empty(&g["statusMessage"])
                    && g["statusMessage"] == event["error_category"]
                    && non_empty(&g["metadata"]["error_type"])
            }
            _ => false,
        },
        "error_type_and_message_in_metadata" => match c.failed_pair() {
            Some((g, event)) => {
                non_empty(&g["metadata"]["error_type"])
                    && g["metadata"]["error_type"] == event["error_type"]
                    && non_empty(&g["metadata"]["error_message"])
                    && g["metadata"]["error_message"] == event["error_message"]
            }
            None => false,
        },
        "no_output_even_with_payload_flag_off" => match (generation, failed.first()) {
            (Some(g), Some(event)) => {
                c.langfuse_payload_on()
                    && g["output"].is_null()
                    && event["output_content"].is_null()
                    && g["input"].is_array()
            }
            _ => false,
        },
        "error_level_and_status_message_unchanged_by_payload_flag" => match (generation, failed.first()) {
            (Some(g), Some(event)) => {
                c.langfuse_payload_on()
                    && g["level"] == "ERROR"
                    && non_empty(&g["statusMessage"])
                    && g["statusMessage"] == event["error_category"]
            }
            _ => false,
        },
        // 148: an unreported counter is omitted, the sound ones kept.
        "generation_usage_input_omitted_when_prompt_tokens_null" => match (generation, completed.first()) {
            (Some(g), Some(event)) => {
                g["usage"].is_object()
                    && g["usage"].get("input").is_none()
                    && event["usage"]["prompt_tokens"].is_null()
            }
            _ => false,
        },
        "generation_usage_output_and_total_present_when_sound" => match (generation, completed.first()) {
            (Some(g), Some(event)) => {
                g["usage"]["output"] == event["usage"]["completion_tokens"]
                    && g["usage"]["total"] == event["usage"]["total_tokens"]
                    && !g["usage"]["output"].is_null()
            }
            _ => false,
        },
        // 117: one span or generation per streamed call, carrying the assembled content.
        "exactly_one_llm_complete_span_under_stream" => {
            c.llm_spans().len() == 1 && c.of_type("LlmTokenEvent").len() > 1
        }
        "no_per_token_child_spans" => {
            let llm: Vec<&str> = c
                .run
                .spans
                .iter()
                .filter(|s| s.name == "openarmature.llm.complete")
                .map(|s| s.span_id.as_str())
                .collect();
            !llm.is_empty() && !c.run.spans.iter().any(|s| llm.contains(&s.parent_id.as_str()))
        }
        "span_output_is_full_assembled_content" => {
            let content = c.content_tokens();
            let spans = c.llm_spans();
            spans.len() == 1
                && !content.is_empty()
                && spans[0]
                    .get("openarmature.llm.output.content")
                    .and_then(Value::as_str)
                    == Some(content.as_str())
        }
        "exactly_one_generation_observation_under_stream" => {
            generation.is_some() && c.of_type("LlmTokenEvent").len() > 1
        }
        "no_per_token_child_observations" => {
            generation.is_some_and(|g| g["children"].as_array().is_some_and(Vec::is_empty))
                && c.observations().len() == 2
        }
        "generation_output_is_full_assembled_content" => {
            let content = c.content_tokens();
            !content.is_empty() && generation.is_some_and(|g| g["output"] == content.as_str())
        }
        // 009: correlation ids per invocation.
        "correlation_id_is_uuidv4" | "all_correlation_ids_uuidv4" => {
            let traces = c.traces();
            !traces.is_empty()
                && traces.iter().flatten().all(|span| {
                    span.attributes
                        .get("openarmature.correlation_id")
                        .is_some_and(is_uuid_v4)
                })
        }
        "each_invocation_correlation_id_uniform" => {
            let traces = c.traces();
            traces.len() == c.invocations.len()
                && traces.iter().all(|spans| {
                    let first = spans
                        .first()
                        .and_then(|s| s.attributes.get("openarmature.correlation_id"));
                    first.is_some()
                        && spans
                            .iter()
                            .all(|s| s.attributes.get("openarmature.correlation_id") == first)
                })
        }
        "correlation_ids_differ_across_invocations" => {
            let ids: Vec<&Value> = c
                .traces()
                .iter()
                .filter_map(|spans| {
                    spans
                        .first()
                        .and_then(|s| s.attributes.get("openarmature.correlation_id"))
                })
                .collect();
            ids.len() >= 2 && ids.iter().enumerate().all(|(i, id)| !ids[..i].contains(id))
        }
        // 011: the two runs took the same path and produced as many spans.
        "same_execution_path" => {
            let paths: Vec<Vec<&str>> = c
                .traces()
                .iter()
                .map(|spans| {
                    let mut nodes: Vec<&&super::super::capture::SpanView> = spans
                        .iter()
                        .filter(|s| s.attributes.contains_key("openarmature.node.name"))
                        .collect();
                    nodes.sort_by_key(|s| s.start);
                    nodes.iter().map(|s| s.name.as_str()).collect()
                })
                .collect();
            paths.len() >= 2 && !paths[0].is_empty() && paths.windows(2).all(|pair| pair[0] == pair[1])
        }
        "span_count_equal_across_runs" => {
            let counts: Vec<usize> = c.traces().iter().map(Vec::len).collect();
            counts.len() >= 2 && counts.windows(2).all(|pair| pair[0] == pair[1])
        }
        // 034: the augmentation reached the open trace and node span, and the later generation.
        "open_span_update_reaches_invocation_and_node_spans" => {
            let added = c.augmented();
            let augmenting: Vec<&str> = c
                .body
                .get("nodes")
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .filter(|(_, node)| node.get("augment_metadata").is_some())
                .map(|(name, _)| name.as_str())
                .collect();
            let spans_ok = c
                .run
                .spans
                .iter()
                .filter(|s| s.name == "openarmature.invocation" || augmenting.contains(&s.name.as_str()))
                .all(|s| {
                    added.iter().all(|(key, value)| {
                        s.attributes.get(&format!("openarmature.user.{key}")) == Some(value)
                    })
                });
            trace.is_some_and(|t| covers(&t["metadata"], &added))
                && c.observations()
                    .iter()
                    .filter(|o| augmenting.contains(&o["name"].as_str().unwrap_or_default()))
                    .all(|o| covers(&o["metadata"], &added))
                && spans_ok
        }
        "baseline_caller_metadata_universal" => {
            let baseline = c.caller_metadata();
            trace.is_some_and(|t| covers(&t["metadata"], &baseline))
                && c.observations().iter().all(|o| covers(&o["metadata"], &baseline))
                && c.run.spans.iter().all(|s| {
                    baseline.iter().all(|(key, value)| {
                        s.attributes.get(&format!("openarmature.user.{key}")) == Some(value)
                    })
                })
        }
        // 043, 135: the point-in-time read.
        "read_returns_caller_baseline" => c
            .captured_metadata()
            .is_some_and(|m| covers(&Value::Object(m.clone()), &c.caller_metadata())),
        "read_returns_in_node_write" | "capture_after_augment_sees_write" => c
            .captured_metadata()
            .is_some_and(|m| covers(&Value::Object(m.clone()), &c.augmented())),
        "capture_before_augment_misses_write" => {
            let augmented = c.augmented();
            let wrote = c.events().iter().any(|e| e["kind"] == "metadata_augmented");
            wrote
                && c.captured_metadata()
                    .is_some_and(|m| augmented.keys().all(|key| !m.contains_key(key)))
        }
        // `MetadataSnapshot` derefs to `&Map` and offers no mutation, so the read is immutable by type; the
        // captured copy is the exact mapping in scope.
        "read_returns_immutable_mapping" => {
            let mut expected = c.caller_metadata();
            expected.extend(c.augmented());
            c.captured_metadata() == Some(&expected)
        }
        // 046: the read outside an invocation.
        "outside_invocation_returns_empty_mapping" => {
            c.direct_call.is_some_and(|r| r["value"] == serde_json::json!({}))
        }
        "outside_invocation_does_not_raise" => c.direct_call.is_some_and(|r| r["exception"].is_null()),
        "outside_invocation_return_is_immutable" => {
            c.direct_call.is_some_and(|r| r["type"] == "immutable_mapping")
        }
        // 047: the node read a count the queue had delivered, within what was emitted before the read.
        "observer_attach_emit_consume_cycle_works"
        | "read_returns_non_negative_integer"
        | "read_is_consistent_no_torn_view" => {
            let count = c.final_state().and_then(|s| s["observed_count"].as_u64());
            count.is_some_and(|n| n <= 5)
                && c.queryable
                    .is_some_and(|q| q.final_count() >= count.unwrap_or(u64::MAX))
        }
        "observer_does_not_mutate_state_or_influence_routing" => {
            let declared: Vec<&str> = c
                .body
                .get("state")
                .and_then(|s| s.get("fields"))
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .map(|(k, _)| k.as_str())
                .collect();
            let ran: Vec<&str> = c
                .run
                .spans
                .iter()
                .filter(|s| s.attributes.contains_key("openarmature.node.name"))
                .map(|s| s.name.as_str())
                .collect();
            let nodes = c
                .body
                .get("nodes")
                .and_then(Node::as_map)
                .unwrap_or_default()
                .len();
            c.final_state()
                .and_then(Value::as_object)
                .is_some_and(|s| s.keys().all(|k| declared.contains(&k.as_str())))
                && ran.len() == nodes
        }
        // 049: buckets survive completion until dropped, and stay per invocation.
        "no_auto_drop_on_completion_signal" => {
            // Each invocation's completed node event after the drop re-filled its bucket, and no completion
            // signal removed it.
            let ids: Vec<String> = c
                .invocations
                .iter()
                .filter_map(|run| run.result.as_ref().ok())
                .filter_map(|s| s["captured_bucket"]["invocation_id"].as_str().map(str::to_owned))
                .collect();
            ids.len() == c.invocations.len()
                && c.queryable.is_some_and(|q| ids.iter().all(|id| q.has_bucket(id)))
        }
        "explicit_drop_removes_bucket" | "accumulator_exposes_drop_method" => {
            !c.invocations.is_empty()
                && c.invocations.iter().all(|run| {
                    run.result.as_ref().is_ok_and(|s| {
                        s["bucket_after_drop_is_absent"] == true
                            && s["captured_bucket"]["events"]
                                .as_array()
                                .is_some_and(|e| !e.is_empty())
                    })
                })
        }
        "per_invocation_id_bucket_isolation" => {
            c.invocations.len() >= 2
                && c.invocations.iter().all(|run| {
                    run.result.as_ref().is_ok_and(|s| {
                        let own = &s["captured_bucket"]["invocation_id"];
                        s["captured_bucket"]["events"]
                            .as_array()
                            .is_some_and(|events| events.iter().all(|e| &e["invocation_id"] == own))
                    })
                })
        }
        _ => return None,
    })
}

/// A Langfuse usage record against a typed event's usage: each reported counter equal, each unreported omitted.
fn usage_matches(usage: &Value, event: &Value) -> bool {
    usage.is_object()
        && [
            ("input", "prompt_tokens"),
            ("output", "completion_tokens"),
            ("total", "total_tokens"),
        ]
        .iter()
        .all(|(langfuse, typed)| usage.get(*langfuse).unwrap_or(&Value::Null) == &event[*typed])
}

/// Invariants whose value is not `true`: 009's `correlation_id_uniform_across_tree: <value or token>`.
pub(super) fn holds_valued(name: &str, value: &Node, c: &Context<'_>) -> Option<bool> {
    Some(match name {
        "correlation_id_uniform_across_tree" => {
            let mut matcher = Matcher::default();
            !c.run.spans.is_empty()
                && c.run.spans.iter().all(|span| {
                    matcher
                        .check(
                            value,
                            span.attributes.get("openarmature.correlation_id"),
                            "",
                            Keys::Exact,
                        )
                        .is_ok()
                })
                && {
                    let first = c.run.spans[0].attributes.get("openarmature.correlation_id");
                    c.run
                        .spans
                        .iter()
                        .all(|span| span.attributes.get("openarmature.correlation_id") == first)
                }
        }
        _ => return None,
    })
}
