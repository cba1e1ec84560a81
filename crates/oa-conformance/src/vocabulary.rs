//! The directive vocabulary the adapter knows, as closed shapes checked at load
//! (conformance-adapter §5, §8.2, §9: an unknown directive raises, it is never skipped).
//!
//! The llm-provider shapes come from a survey of every key in the corpus and from the header notes
//! of fixtures 001, 005, 007, 026, 032, 033, 059, 060 and 072, plus proposal 0126 (the list form of
//! `error_message_mentions`). Observability fixtures are checked at the top, case and `expected:`
//! levels (their header notes in fixtures 001, 014, 111 and 116); their deeper graph directives are
//! checked by the executor that runs them (`crate::observability`), which raises `harness_primitive_missing`
//! for any it does not know.

use crate::error::{FixtureError, FixtureErrorKind};
use crate::node::Node;

/// What a fixture value at some position may be.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// Free-form data handed to the implementation or compared as data (bodies, messages, wire requests).
    Any,
    /// A string scalar.
    Str,
    /// A boolean.
    Bool,
    /// An integer.
    Int,
    /// A number (integer or float).
    Number,
    /// A sequence of strings.
    StrList,
    /// A closed mapping: every key must be listed, with its value's shape.
    Map(&'static [(&'static str, Shape)]),
    /// A sequence whose items have the given shape.
    SeqOf(&'static Shape),
    /// A mapping with any keys, each value of the given shape.
    MapOf(&'static Shape),
    /// The value may have either shape.
    Either(&'static Shape, &'static Shape),
    /// A `carries` block: keys are error field names plus an optional `_present` / `_mentions` flavor.
    Carries,
    /// An observability span-tree node (or list of them), its `children` recursively the same.
    SpanTree,
    /// A list of Langfuse observation assertions, each one's `children` recursively the same.
    Observations,
}

// ---- llm-provider -------------------------------------------------------------------------

const RESPONSE_ENTRY: Shape = Shape::Map(&[
    ("status", Shape::Int),
    ("body", Shape::Any),
    ("headers", Shape::MapOf(&Shape::Any)),
    ("stream_body", Shape::SeqOf(&Shape::Any)),
    ("connection_failure", Shape::Bool),
]);

const HEALTH_ENDPOINT: Shape = Shape::Map(&[
    ("path", Shape::Str),
    ("status", Shape::Int),
    ("body", Shape::Any),
    ("connection_failure", Shape::Bool),
]);

const CAPABILITIES: Shape = Shape::Map(&[
    ("supports_native_structured_output", Shape::Bool),
    ("supports_native_response_format", Shape::Bool),
    ("supports_image_input", Shape::Bool),
]);

const MOCK_PROVIDER: Shape = Shape::Map(&[
    ("responses", Shape::SeqOf(&RESPONSE_ENTRY)),
    ("capabilities", CAPABILITIES),
    ("health_endpoint", HEALTH_ENDPOINT),
]);

const RETRY: Shape = Shape::Map(&[
    ("max_attempts", Shape::Int),
    (
        "backoff",
        Shape::Map(&[("type", Shape::Str), ("seconds", Shape::Number)]),
    ),
    ("per_attempt_override", Shape::SeqOf(&Shape::MapOf(&Shape::Any))),
    ("reask", Shape::Map(&[("template", Shape::Str)])),
]);

const RETRY_MIDDLEWARE: Shape = Shape::Map(&[("max_attempts", Shape::Int), ("classifier", Shape::Str)]);

const RAW_CHECK: Shape = Shape::Map(&[("required_keys", Shape::StrList)]);

const RESPONSE_EXPECTATION: Shape = Shape::Map(&[
    ("message", Shape::Any),
    ("finish_reason", Shape::Any),
    ("usage", Shape::Any),
    ("parsed", Shape::Any),
    ("model", Shape::Any),
    ("raw_check", RAW_CHECK),
]);

const RAISES: Shape = Shape::Map(&[
    ("category", Shape::Str),
    ("carries", Shape::Carries),
    ("message", Shape::Any),
    ("retry_after_seconds", Shape::Number),
]);

const LLM_SPAN: Shape = Shape::Map(&[
    ("attempt_index", Shape::Int),
    ("attributes", Shape::MapOf(&Shape::Any)),
    ("attributes_absent", Shape::StrList),
    ("error_category", Shape::Any),
]);

const APPENDED_MESSAGE: Shape = Shape::Map(&[
    ("role", Shape::Str),
    ("content", Shape::Any),
    ("content_contains", Shape::StrList),
]);

const WIRE_REQUEST: Shape = Shape::Map(&[
    ("sampling", Shape::MapOf(&Shape::Any)),
    ("appended_messages", Shape::SeqOf(&APPENDED_MESSAGE)),
]);

const EXPECTED: Shape = Shape::Map(&[
    ("response", RESPONSE_EXPECTATION),
    ("raises", RAISES),
    ("success", Shape::Bool),
    ("invariants", Shape::MapOf(&Shape::Any)),
    ("llm_spans", Shape::SeqOf(&LLM_SPAN)),
    ("wire_requests", Shape::SeqOf(&WIRE_REQUEST)),
    ("no_token_events_emitted", Shape::Bool),
    ("caller_messages_unmodified", Shape::Bool),
    ("provider_call_count", Shape::Int),
]);

const WIRE_CHECKS: Shape = Shape::MapOf(&Shape::Any);

/// Keys of a call (`call:` or a `calls:` entry): the operation and its inputs.
const CALL_KEYS: &[(&str, Shape)] = &[
    ("operation", Shape::Str),
    ("messages", Shape::Any),
    ("tools", Shape::Any),
    ("tool_choice", Shape::Any),
    ("config", Shape::MapOf(&Shape::Any)),
    ("response_schema", Shape::Any),
    ("stream", Shape::Bool),
    ("retry", RETRY),
    ("retry_middleware", RETRY_MIDDLEWARE),
];

const CALL: Shape = Shape::Map(CALL_KEYS);

/// A `calls:` entry: a call plus its own expectations.
const CALLS_ENTRY: Shape = Shape::Map(&[
    ("operation", Shape::Str),
    ("messages", Shape::Any),
    ("tools", Shape::Any),
    ("tool_choice", Shape::Any),
    ("config", Shape::MapOf(&Shape::Any)),
    ("response_schema", Shape::Any),
    ("stream", Shape::Bool),
    ("retry", RETRY),
    ("retry_middleware", RETRY_MIDDLEWARE),
    ("expected", EXPECTED),
    ("expected_wire_request", Shape::Any),
    ("expected_wire_request_checks", WIRE_CHECKS),
    ("expected_wire_request_absent_keys", Shape::StrList),
]);

/// The keys one llm-provider case (or single-case fixture) may carry.
const LLM_CASE_KEYS: &[(&str, Shape)] = &[
    ("name", Shape::Str),
    ("description", Shape::Str),
    ("mapping", Shape::Str),
    ("mock_provider", MOCK_PROVIDER),
    ("call", CALL),
    ("calls", Shape::SeqOf(&CALLS_ENTRY)),
    ("expected", EXPECTED),
    ("expected_wire_request", Shape::Any),
    ("expected_wire_request_checks", WIRE_CHECKS),
    ("expected_wire_request_absent_keys", Shape::StrList),
    (
        "expected_wire_bytes_identical",
        Shape::Map(&[("calls", Shape::SeqOf(&Shape::Int))]),
    ),
];

// ---- observability ------------------------------------------------------------------------

/// A node's `calls_llm` (conformance-adapter §5.5).
const CALLS_LLM: Shape = Shape::Map(&[
    ("model", Shape::Str),
    ("messages", Shape::Any),
    ("response_schema", Shape::Any),
    ("config", Shape::MapOf(&Shape::Any)),
    ("retry", RETRY),
    ("stream", Shape::Bool),
    ("stores_response_in", Shape::Str),
    ("tools", Shape::Any),
    // 038: a canned response inside a parallel branch's subgraph (a graph-engine fixture).
    ("response", Shape::Any),
]);

/// A node's `calls_tool` (092's header: the tool-call instrumentation scope around a mock tool; 093-098, 158, 160).
const CALLS_TOOL: Shape = Shape::Map(&[
    ("tool_name", Shape::Str),
    ("tool_call_id", Shape::Any),
    ("arguments", Shape::Any),
    (
        "mock_tool",
        Shape::Map(&[
            ("returns", Shape::Any),
            (
                "raises",
                Shape::Map(&[("error_type", Shape::Str), ("message", Shape::Str)]),
            ),
        ]),
    ),
    ("stores_result_in", Shape::Str),
]);

/// The node directives the observability fixtures use (conformance-adapter §5.1, §5.5; 0084, 0087).
const OBS_NODE: Shape = Shape::Map(&[
    ("update", Shape::Any),
    ("update_pure", Shape::Any),
    ("update_pure_from_state", Shape::Any),
    ("raises", Shape::Str),
    ("noop", Shape::Bool),
    ("flaky", Shape::Any),
    ("subgraph", Shape::Any),
    ("subgraph_call", Shape::Any),
    ("fan_out", Shape::Any),
    ("parallel_branches", Shape::Any),
    ("middleware", Shape::Any),
    ("retry_middleware", Shape::Any),
    ("per_attempt_behavior", Shape::Any),
    ("calls_llm", CALLS_LLM),
    ("calls_llm_from_wrapper", Shape::Any),
    ("calls_embed", Shape::Any),
    ("calls_rerank", Shape::Any),
    ("calls_tool", CALLS_TOOL),
    ("emits_log", Shape::Any),
    ("renders_prompt", Shape::Any),
    ("renders_prompt_group", Shape::Any),
    ("augment_metadata", Shape::MapOf(&Shape::Any)),
    ("capture_invocation_metadata_into", Shape::Str),
    (
        "capture_queryable_observer_read_into",
        Shape::Map(&[
            ("observer_name", Shape::Str),
            ("method", Shape::Str),
            ("state_field", Shape::Str),
        ]),
    ),
    (
        "then_drop_for_current_invocation",
        Shape::Map(&[("observer_name", Shape::Str)]),
    ),
    ("then_assert_bucket_absent_into", Shape::Str),
    (
        "also_emits_via_global_tracer",
        Shape::Map(&[("span_name", Shape::Str)]),
    ),
    ("outputs", Shape::Any),
]);

const OBS_SUBGRAPH: Shape = Shape::Map(&[
    ("state", Shape::Any),
    ("entry", Shape::Any),
    ("nodes", Shape::MapOf(&OBS_NODE)),
    ("edges", Shape::Any),
]);

/// The inline `subgraph:` declaration: a subgraph body with its `name`.
const OBS_INLINE_SUBGRAPH: Shape = Shape::Map(&[
    ("name", Shape::Str),
    ("state", Shape::Any),
    ("entry", Shape::Any),
    ("nodes", Shape::MapOf(&OBS_NODE)),
    ("edges", Shape::Any),
]);

/// A case's `graph:` container (conformance-adapter §4.2, 0123): the graph specification, its other keys staying
/// beside it.
const GRAPH_BLOCK: Shape = Shape::Map(&[
    ("state", Shape::Any),
    ("entry", Shape::Any),
    ("nodes", Shape::MapOf(&OBS_NODE)),
    ("edges", Shape::Any),
    ("subgraphs", Shape::MapOf(&OBS_SUBGRAPH)),
    ("subgraph", OBS_INLINE_SUBGRAPH),
]);

/// A `mock_llm` entry: a reply, or (§5.5, 0119) a `raises` naming the error the call raises.
const MOCK_LLM_ENTRY: Shape = Shape::Map(&[
    ("status", Shape::Int),
    ("body", Shape::Any),
    ("headers", Shape::MapOf(&Shape::Any)),
    ("connection_failure", Shape::Bool),
    (
        "raises",
        Shape::Map(&[
            ("error_type", Shape::Str),
            ("message", Shape::Str),
            (
                "message_repeat",
                Shape::Map(&[("char", Shape::Str), ("bytes", Shape::Int)]),
            ),
        ]),
    ),
]);

/// `mock_llm`: the list form, or 0126's mapping form carrying capabilities.
const MOCK_LLM: Shape = Shape::Either(
    &Shape::SeqOf(&MOCK_LLM_ENTRY),
    &Shape::Map(&[
        ("capabilities", CAPABILITIES),
        ("responses", Shape::SeqOf(&MOCK_LLM_ENTRY)),
    ]),
);

/// `mock_llm_stream` (111 header): one entry per call, each the list of SSE chunks (or a
/// `{error: {status}}` marker inside it), or a `{wire_attempts: ...}` entry (116).
const MOCK_LLM_STREAM: Shape = Shape::SeqOf(&Shape::Either(
    &Shape::SeqOf(&Shape::Any),
    &Shape::Map(&[("wire_attempts", Shape::Any)]),
));

const TYPED_OBSERVER: Shape = Shape::Map(&[
    ("name", Shape::Str),
    ("kind", Shape::Str),
    ("filter_event_type", Shape::Any),
    ("include_caller_metadata", Shape::Any),
    ("retains_arrival_order", Shape::Any),
]);

/// Observer-introspection assertions under `expected.observers.<name>` (050, 111 headers).
const OBSERVER_ASSERTIONS: Shape = Shape::Map(&[
    ("contains_event", Shape::Any),
    ("contains_event_of_type", Shape::Any),
    ("contains_exactly_one_event_of_type", Shape::Any),
    ("contains_exactly_n_events_of_type", Shape::Any),
    ("does_not_contain_event_of_type", Shape::Any),
    (
        "contains_events_in_order",
        Shape::Map(&[("event_type", Shape::Str), ("events", Shape::SeqOf(&Shape::Any))]),
    ),
    ("captured_event_field_values_cover", Shape::Any),
    ("every_captured_event_has", Shape::Any),
    ("relative_order_of_events_matching", Shape::Any),
    ("event_count", Shape::Any),
    ("event_counts", Shape::Any),
    ("sentinel_node_event_emission_is_impl_defined", Shape::Any),
]);

/// A captured log-record assertion (`count` and `event_name` per 0126 on §5.5, `level` per 0116).
const LOG_RECORD: Shape = Shape::Map(&[
    ("body", Shape::Any),
    ("attributes", Shape::Any),
    ("event_name", Shape::Any),
    ("count", Shape::Int),
    ("level", Shape::Str),
]);

const METRIC: Shape = Shape::Map(&[
    ("instrument", Shape::Str),
    ("dimensions", Shape::Any),
    ("value", Shape::Any),
]);

/// A case's `state:`: its fields, each with a type, a default and optionally a reducer.
const STATE: Shape = Shape::Map(&[(
    "fields",
    Shape::MapOf(&Shape::Map(&[
        ("type", Shape::Any),
        ("default", Shape::Any),
        ("reducer", Shape::Str),
    ])),
)]);

/// One of a case's `edges:` (004's `condition`, 011's `when`).
const EDGE: Shape = Shape::Map(&[
    ("from", Shape::Str),
    ("to", Shape::Any),
    (
        "condition",
        Shape::Map(&[
            ("if_field", Shape::Str),
            ("equals", Shape::Any),
            ("then", Shape::Any),
            ("else", Shape::Any),
        ]),
    ),
    ("when", Shape::Any),
]);

/// `otel_observer:` (0121 on conformance-adapter §5.5): the OTel observer's construction knobs.
const OTEL_OBSERVER: Shape = Shape::Map(&[
    ("attached", Shape::Bool),
    ("disable_provider_payload", Shape::Bool),
    ("disable_genai_semconv", Shape::Bool),
    ("disable_llm_spans", Shape::Bool),
    ("enable_metrics", Shape::Bool),
    ("payload_byte_cap", Shape::Int),
]);

/// `langfuse_observer:` and `langfuse_observer_config:`: the Langfuse observer's own knobs (§8.9) and §8.4.1's
/// trace hooks, by the harness's names.
const LANGFUSE_OBSERVER: Shape = Shape::Map(&[
    ("disable_provider_payload", Shape::Bool),
    ("disable_state_payload", Shape::Bool),
    ("disable_llm_spans", Shape::Bool),
    ("payload_byte_cap", Shape::Int),
    ("trace_input_from_state", Shape::Str),
    ("trace_output_from_state", Shape::Str),
]);

/// `langfuse_client:` (157, 158): how the Langfuse client is built.
const LANGFUSE_CLIENT: Shape = Shape::Map(&[
    ("mode", Shape::Str),
    ("provider", Shape::Str),
    ("preexisting_same_key_client", Shape::Bool),
    ("accept_shared_provider", Shape::Bool),
]);

/// An invocation's caller-supplied identity (`sequential_invocations` entries, `invocations:` entries).
const INVOCATION_ENTRY: Shape = Shape::Map(&[
    ("name", Shape::Str),
    ("caller_invocation_id", Shape::Str),
    ("caller_correlation_id", Shape::Str),
    ("caller_metadata", Shape::MapOf(&Shape::Any)),
    ("caller_invocation_label", Shape::Str),
    ("initial_state", Shape::Any),
    ("session_id", Shape::Any),
]);

/// One Langfuse observation assertion; `children` recursively the same (see [`Shape::Observations`]).
const OBSERVATION: Shape = Shape::Map(&[
    ("type", Shape::Any),
    ("name", Shape::Any),
    ("level", Shape::Any),
    ("statusMessage", Shape::Any),
    ("input", Shape::Any),
    ("output", Shape::Any),
    ("metadata", Shape::Any),
    ("metadata_absent", Shape::StrList),
    (
        "metadata_truncation",
        Shape::MapOf(&Shape::Map(&[
            ("max_bytes", Shape::Int),
            ("marker_pattern", Shape::Str),
            ("utf8_valid", Shape::Bool),
            ("prefix_of_full_serialization", Shape::Bool),
        ])),
    ),
    ("model", Shape::Any),
    ("modelParameters", Shape::Any),
    ("usage", Shape::Any),
    ("usageDetails", Shape::Any),
    ("input_parses_as_messages", Shape::Any),
    ("input_is_raw_string_with_marker", Shape::Bool),
    ("prompt_entity_link", Shape::Any),
    ("prompt_entity_link_absent", Shape::Any),
    ("children", Shape::Any),
]);

/// A Langfuse trace assertion.
const LANGFUSE_TRACE: Shape = Shape::Map(&[
    ("id", Shape::Any),
    ("name", Shape::Any),
    ("metadata", Shape::Any),
    ("input", Shape::Any),
    ("output", Shape::Any),
    ("userId", Shape::Any),
    ("sessionId", Shape::Any),
    ("observations", Shape::Observations),
]);

const OBS_EXPECTED: Shape = Shape::Map(&[
    ("augment_rejects_at_call_site", Shape::Any),
    ("detached_trace_count", Shape::Any),
    ("determinism_check", Shape::Any),
    ("direct_call_result", Shape::Any),
    ("final_state", Shape::MapOf(&Shape::Any)),
    ("final_state_bounds", Shape::Any),
    ("invariants", Shape::MapOf(&Shape::Any)),
    ("invocation_count", Shape::Any),
    ("invocation_id", Shape::Any),
    ("invoke_rejects_at_api_boundary", Shape::Any),
    ("langfuse_observations_on_global", Shape::Any),
    ("langfuse_trace", LANGFUSE_TRACE),
    ("langfuse_traces", Shape::SeqOf(&LANGFUSE_TRACE)),
    ("llm_span_attributes", Shape::MapOf(&Shape::Any)),
    ("llm_span_attributes_absent", Shape::StrList),
    ("llm_spans", Shape::SeqOf(&LLM_SPAN)),
    ("log_records", Shape::SeqOf(&LOG_RECORD)),
    ("log_records_absent", Shape::SeqOf(&LOG_RECORD)),
    ("metrics", Shape::SeqOf(&METRIC)),
    ("no_edge_spans", Shape::Any),
    ("no_langfuse_observations_emitted", Shape::Any),
    ("no_langfuse_observations_on_global", Shape::Any),
    ("no_langfuse_observations_on_private", Shape::Any),
    ("no_llm_provider_span", Shape::Any),
    ("no_openarmature_spans_on_global", Shape::Any),
    ("no_payload_bearing_langfuse_observations_on_global", Shape::Any),
    ("payload_bearing_langfuse_observations_on_global", Shape::Any),
    ("no_spans_emitted", Shape::Any),
    (
        "node_completed_event_carries_error",
        Shape::Map(&[("node_name", Shape::Str), ("error_category", Shape::Str)]),
    ),
    ("observer_event_invariants", Shape::MapOf(&Shape::Any)),
    ("observers", Shape::MapOf(&OBSERVER_ASSERTIONS)),
    ("parent_trace", Shape::Any),
    ("per_invocation", Shape::Any),
    ("response_usage", Shape::Any),
    ("span_tree", Shape::SpanTree),
    ("span_tree_global", Shape::SpanTree),
    ("span_tree_private", Shape::SpanTree),
    ("traces", Shape::Any),
]);

/// `expected_error:` (graph-engine §4 / llm-provider §7 category, and the node it came from).
const EXPECTED_ERROR: Shape = Shape::Map(&[("category", Shape::Str), ("raised_from", Shape::Str)]);

const OBS_CASE_KEYS: &[(&str, Shape)] = &[
    ("name", Shape::Str),
    ("description", Shape::Str),
    ("informative", Shape::Any),
    ("state", STATE),
    ("entry", Shape::Str),
    ("nodes", Shape::MapOf(&OBS_NODE)),
    ("edges", Shape::SeqOf(&EDGE)),
    ("initial_state", Shape::Any),
    ("subgraph", OBS_INLINE_SUBGRAPH),
    ("subgraphs", Shape::MapOf(&OBS_SUBGRAPH)),
    ("inner_subgraphs", Shape::MapOf(&OBS_SUBGRAPH)),
    ("graph", GRAPH_BLOCK),
    ("expected", OBS_EXPECTED),
    ("expected_error", EXPECTED_ERROR),
    (
        "expected_construction_error",
        Shape::Map(&[("category", Shape::Str)]),
    ),
    ("requires_capability", Shape::MapOf(&Shape::Bool)),
    ("first_run_expected", Shape::Any),
    ("first_run_expected_error", Shape::Any),
    ("invariants", Shape::MapOf(&Shape::Any)),
    ("caller_correlation_id", Shape::Str),
    ("caller_global_otel_active", Shape::Bool),
    ("caller_invocation_id", Shape::Str),
    ("caller_metadata", Shape::MapOf(&Shape::Any)),
    ("checkpointer", Shape::Any),
    ("detached_fan_outs", Shape::Any),
    ("detached_subgraphs", Shape::Any),
    ("direct_call", Shape::Map(&[("operation", Shape::Str)])),
    ("disable_genai_semconv", Shape::Bool),
    ("disable_llm_spans", Shape::Bool),
    ("disable_provider_payload", Shape::Bool),
    ("enable_metrics", Shape::Bool),
    (
        "invocations",
        Shape::Either(&Shape::Int, &Shape::SeqOf(&INVOCATION_ENTRY)),
    ),
    ("langfuse_client", LANGFUSE_CLIENT),
    ("langfuse_observer", LANGFUSE_OBSERVER),
    ("langfuse_observer_config", LANGFUSE_OBSERVER),
    ("mock_embedding", Shape::Any),
    ("mock_llm", MOCK_LLM),
    ("mock_llm_stream", MOCK_LLM_STREAM),
    ("mock_rerank", Shape::Any),
    ("observers", Shape::Any),
    ("otel_observer", OTEL_OBSERVER),
    ("prompt_backend", Shape::Any),
    (
        "provider",
        Shape::Map(&[("type", Shape::Str), ("genai_system", Shape::Str)]),
    ),
    (
        "queryable_observers",
        Shape::SeqOf(&Shape::Map(&[
            ("name", Shape::Str),
            ("kind", Shape::Str),
            ("persists_across_invocations", Shape::Bool),
        ])),
    ),
    ("render_variables", Shape::Any),
    ("resume", Shape::Any),
    (
        "sequential_invocations",
        Shape::Map(&[
            ("observer_persists_across", Shape::Bool),
            ("invocations", Shape::SeqOf(&INVOCATION_ENTRY)),
        ]),
    ),
    ("session_id", Shape::Any),
    ("typed_observers", Shape::SeqOf(&TYPED_OBSERVER)),
];

/// One span-tree node's keys (001 header, 0095 `attributes_absent`); `children` is checked recursively.
const SPAN_NODE: Shape = Shape::Map(&[
    ("name", Shape::Any),
    ("status", Shape::Any),
    ("status_description", Shape::Any),
    ("attributes", Shape::Any),
    ("attributes_absent", Shape::Any),
    ("attributes_present", Shape::Any),
    ("attribute_parses_as_messages", Shape::Any),
    ("attribute_parses_as_object", Shape::Any),
    ("attribute_truncation", Shape::Any),
    ("attribute_does_not_contain", Shape::Any),
    ("exception_recorded", Shape::Any),
    ("links", Shape::Any),
    ("children", Shape::Any),
]);

/// The vocabulary of one capability's fixtures: the keys a case may carry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vocabulary {
    case_keys: &'static [(&'static str, Shape)],
    graph_shaped: bool,
}

impl Vocabulary {
    /// The vocabulary for `capability`, or `None` when the adapter knows none for it. The conformance-adapter
    /// fixtures (whose subject is the fixture format itself, 0123) are graph cases in the observability
    /// vocabulary.
    pub(crate) fn for_capability(capability: &str) -> Option<Vocabulary> {
        match capability {
            "llm-provider" => Some(Vocabulary {
                case_keys: LLM_CASE_KEYS,
                graph_shaped: false,
            }),
            "observability" | "conformance-adapter" => Some(Vocabulary {
                case_keys: OBS_CASE_KEYS,
                graph_shaped: true,
            }),
            _ => None,
        }
    }

    /// Whether cases describe a graph (and may carry a `graph:` container).
    pub(crate) fn graph_shaped(self) -> bool {
        self.graph_shaped
    }

    /// Checks one case body (top-level shared keys merged with the case's own) against the vocabulary.
    pub(crate) fn check_case(&self, case: &Node, location: &str) -> Result<(), FixtureError> {
        check(case, Shape::Map(self.case_keys), location)
    }
}

/// The `carries` fields each raised-error category exposes (conformance-adapter §5.13: a key names a
/// field the error's capability spec defines). `None` means any field (categories outside llm-provider §7).
fn carries_fields() -> &'static [&'static str] {
    &[
        "response_schema",
        "output_content",
        "error_message",
        "finish_reason",
        "usage",
        "structured_output_path",
    ]
}

/// Splits a `carries` key into its error field and flavor (§5.13: the flavor set is closed).
pub(crate) fn split_carries_key(key: &str) -> (&str, CarriesFlavor) {
    if let Some(field) = key.strip_suffix("_present") {
        (field, CarriesFlavor::Present)
    } else if let Some(field) = key.strip_suffix("_mentions") {
        (field, CarriesFlavor::Mentions)
    } else {
        (key, CarriesFlavor::Exact)
    }
}

/// How a `carries` key asserts its field (conformance-adapter §5.13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CarriesFlavor {
    /// Bare field name: exact equality, subset match for a mapping.
    Exact,
    /// `_present`: `true` asserts non-null, `false` asserts null/absent.
    Present,
    /// `_mentions`: the value contains the substring, or every substring of a non-empty list (0126).
    Mentions,
}

fn check(node: &Node, shape: Shape, location: &str) -> Result<(), FixtureError> {
    let malformed = |want: &str| {
        Err(FixtureError::new(
            FixtureErrorKind::SchemaInvalid,
            location,
            format!("expected {want}, found {}", node.kind_name()),
        ))
    };
    match shape {
        Shape::Any => Ok(()),
        Shape::Str => node.as_str().map_or_else(|| malformed("a string"), |_| Ok(())),
        Shape::Bool => node.as_bool().map_or_else(|| malformed("a boolean"), |_| Ok(())),
        Shape::Int => node.as_i64().map_or_else(|| malformed("an integer"), |_| Ok(())),
        Shape::Number => node.as_f64().map_or_else(|| malformed("a number"), |_| Ok(())),
        Shape::StrList => match node.as_seq() {
            Some(items) if items.iter().all(|item| item.as_str().is_some()) => Ok(()),
            _ => malformed("a list of strings"),
        },
        Shape::SeqOf(item_shape) => {
            let Some(items) = node.as_seq() else {
                return malformed("a sequence");
            };
            for (idx, item) in items.iter().enumerate() {
                check(item, *item_shape, &format!("{location}/{idx}"))?;
            }
            Ok(())
        }
        Shape::MapOf(value_shape) => {
            let Some(entries) = node.as_map() else {
                return malformed("a mapping");
            };
            for (key, value) in entries {
                check(value, *value_shape, &format!("{location}/{key}"))?;
            }
            Ok(())
        }
        Shape::Map(known) => {
            let Some(entries) = node.as_map() else {
                return malformed("a mapping");
            };
            for (key, value) in entries {
                let child = format!("{location}/{key}");
                match known.iter().find(|(name, _)| name == key) {
                    Some((_, child_shape)) => check(value, *child_shape, &child)?,
                    None => {
                        return Err(FixtureError::new(
                            FixtureErrorKind::DirectiveUnknown,
                            &child,
                            format!("unknown directive `{key}`"),
                        ));
                    }
                }
            }
            Ok(())
        }
        // Neither fits: the error of the shape that got further into the value (a list of mock entries with one
        // misspelled key is named at that key, not as "not a mapping").
        Shape::Either(first, second) => check(node, *first, location).or_else(|one| {
            check(node, *second, location).map_err(|other| {
                if other.location().len() > one.location().len() {
                    other
                } else {
                    one
                }
            })
        }),
        Shape::SpanTree => match node {
            Node::Seq(items) => {
                for (idx, item) in items.iter().enumerate() {
                    check(item, Shape::SpanTree, &format!("{location}/{idx}"))?;
                }
                Ok(())
            }
            _ => {
                check(node, SPAN_NODE, location)?;
                match node.get("children") {
                    Some(children) => check(children, Shape::SpanTree, &format!("{location}/children")),
                    None => Ok(()),
                }
            }
        },
        Shape::Observations => {
            let Some(items) = node.as_seq() else {
                return malformed("a sequence");
            };
            for (idx, item) in items.iter().enumerate() {
                let at = format!("{location}/{idx}");
                check(item, OBSERVATION, &at)?;
                if let Some(children) = item.get("children") {
                    check(children, Shape::Observations, &format!("{at}/children"))?;
                }
            }
            Ok(())
        }
        Shape::Carries => {
            let Some(entries) = node.as_map() else {
                return malformed("a mapping");
            };
            for (key, value) in entries {
                let child = format!("{location}/{key}");
                let (field, flavor) = split_carries_key(key);
                if !carries_fields().contains(&field) {
                    return Err(FixtureError::new(
                        FixtureErrorKind::DirectiveUnknown,
                        &child,
                        format!("`{key}` names no field the error exposes"),
                    ));
                }
                match flavor {
                    CarriesFlavor::Present => check(value, Shape::Bool, &child)?,
                    CarriesFlavor::Mentions => {
                        check(value, Shape::Either(&Shape::Str, &Shape::StrList), &child)?;
                        if value.as_seq().is_some_and(<[Node]>::is_empty) {
                            return Err(FixtureError::new(
                                FixtureErrorKind::SchemaInvalid,
                                &child,
                                "a `_mentions` list must not be empty",
                            ));
                        }
                    }
                    CarriesFlavor::Exact => {}
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_llm(yaml: &str) -> Result<(), FixtureError> {
        let node = Node::from_yaml_str(yaml).unwrap();
        Vocabulary::for_capability("llm-provider")
            .unwrap()
            .check_case(&node, "")
    }

    #[test]
    fn unknown_directive_is_raised_with_its_location() {
        let error = check_llm("call: {operation: complete, frobnicate: 1}").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::DirectiveUnknown);
        assert_eq!(error.location(), "/call/frobnicate");
        let error = check_llm("expected: {responze: {}}").unwrap_err();
        assert_eq!(error.location(), "/expected/responze");
    }

    #[test]
    fn malformed_known_directive_is_schema_invalid() {
        let error = check_llm("call: {operation: complete, stream: maybe}").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid);
        assert_eq!(error.location(), "/call/stream");
    }

    #[test]
    fn free_form_data_is_not_checked() {
        check_llm("expected_wire_request: {anything: [1, {goes: here}]}").unwrap();
    }

    #[test]
    fn carries_keys_follow_the_field_and_flavor_rule() {
        check_llm("expected: {raises: {category: x, carries: {output_content: a, error_message_mentions: [a, b], usage: {}}}}")
            .unwrap();
        let error =
            check_llm("expected: {raises: {carries: {failure_description_present: true}}}").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::DirectiveUnknown);
        let error = check_llm("expected: {raises: {carries: {error_message_mentions: []}}}").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid);
        assert_eq!(split_carries_key("usage"), ("usage", CarriesFlavor::Exact));
        assert_eq!(
            split_carries_key("error_message_present"),
            ("error_message", CarriesFlavor::Present)
        );
    }

    fn check_obs(yaml: &str) -> Result<(), FixtureError> {
        let node = Node::from_yaml_str(yaml).unwrap();
        Vocabulary::for_capability("observability")
            .unwrap()
            .check_case(&node, "")
    }

    #[test]
    fn observability_depth_is_checked() {
        check_obs("nodes: {a: {calls_llm: {}}}\nmock_llm: [{status: 200, body: {}}]\nexpected: {observers: {c: {contains_events_in_order: {event_type: x, events: []}}}}").unwrap();
        check_obs("mock_llm: {capabilities: {supports_native_response_format: false}, responses: []}")
            .unwrap();
        check_obs("expected: {span_tree: {name: a, children: [{name: b, children: []}]}}").unwrap();
        let error = check_obs("nodes: {a: {calls_lm: {}}}").unwrap_err();
        assert_eq!(error.location(), "/nodes/a/calls_lm");
        let error =
            check_obs("expected: {span_tree: {name: a, children: [{name: b, colour: red}]}}").unwrap_err();
        assert_eq!(error.location(), "/expected/span_tree/children/0/colour");
        let error = check_obs("expected: {observers: {c: {contains_events: []}}}").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::DirectiveUnknown);
    }

    /// 0120: a misspelled key is refused at every level an observability case carries one, named at its own
    /// location (the root and `graph:` levels are exercised through `Fixture::parse`, in `fixture.rs`).
    #[test]
    fn an_unknown_key_is_refused_at_every_level() {
        for (yaml, location) in [
            ("expectd: {}", "/expectd"),
            ("mock_llm: [{status: 200, bodi: {}}]", "/mock_llm/0/bodi"),
            (
                "mock_llm: [{status: 503, raises: {error_type: e, messag: m}}]",
                "/mock_llm/0/raises/messag",
            ),
            (
                "mock_llm: [{status: 503, raises: {error_type: e, message_repeat: {char: x, byte: 1}}}]",
                "/mock_llm/0/raises/message_repeat/byte",
            ),
            (
                "mock_llm: {responses: [], capabilitiez: {}}",
                "/mock_llm/capabilitiez",
            ),
            ("nodes: {a: {calls_llm: {modle: m}}}", "/nodes/a/calls_llm/modle"),
            (
                "nodes: {a: {calls_tool: {tool_name: t, mock_tool: {retruns: 1}}}}",
                "/nodes/a/calls_tool/mock_tool/retruns",
            ),
            (
                "nodes: {a: {capture_queryable_observer_read_into: {observer: o}}}",
                "/nodes/a/capture_queryable_observer_read_into/observer",
            ),
            ("state: {fieldz: {}}", "/state/fieldz"),
            (
                "state: {fields: {v: {type: int, defualt: 0}}}",
                "/state/fields/v/defualt",
            ),
            ("edges: [{from: a, too: END}]", "/edges/0/too"),
            (
                "typed_observers: [{name: c, knd: typed_event_collector}]",
                "/typed_observers/0/knd",
            ),
            (
                "queryable_observers: [{name: q, knid: event_counter}]",
                "/queryable_observers/0/knid",
            ),
            (
                "otel_observer: {disable_payload: false}",
                "/otel_observer/disable_payload",
            ),
            (
                "langfuse_observer: {disable_payload: false}",
                "/langfuse_observer/disable_payload",
            ),
            (
                "langfuse_observer_config: {disable_stat_payload: false}",
                "/langfuse_observer_config/disable_stat_payload",
            ),
            ("langfuse_client: {moed: credentials}", "/langfuse_client/moed"),
            ("provider: {typ: openai_compatible}", "/provider/typ"),
            (
                "sequential_invocations: {invocations: [{nme: a}]}",
                "/sequential_invocations/invocations/0/nme",
            ),
            ("expected_error: {categry: x}", "/expected_error/categry"),
            (
                "expected_construction_error: {categori: x}",
                "/expected_construction_error/categori",
            ),
            ("expected: {span_tre: []}", "/expected/span_tre"),
            (
                "expected: {log_records: [{levle: WARNING}]}",
                "/expected/log_records/0/levle",
            ),
            (
                "expected: {langfuse_trace: {observations: [{type: span, children: [{levl: ERROR}]}]}}",
                "/expected/langfuse_trace/observations/0/children/0/levl",
            ),
            (
                "expected: {langfuse_trace: {observations: [{metadata_truncation: {error_message: {max_byte: 1}}}]}}",
                "/expected/langfuse_trace/observations/0/metadata_truncation/error_message/max_byte",
            ),
            (
                "expected: {langfuse_trace: {sesionId: s}}",
                "/expected/langfuse_trace/sesionId",
            ),
        ] {
            let error = check_obs(yaml).unwrap_err();
            assert_eq!(
                error.kind(),
                FixtureErrorKind::DirectiveUnknown,
                "{yaml}: {error}"
            );
            assert_eq!(error.location(), location, "{yaml}");
        }
        // A `requires_capability` name is any key (the adapter decides which it declares), a boolean each.
        check_obs("requires_capability: {anything: true}").unwrap();
        let error = check_obs("requires_capability: {langfuse_bound_provider_detection: maybe}").unwrap_err();
        assert_eq!(error.kind(), FixtureErrorKind::SchemaInvalid);
    }

    /// The executor's lists (what it reads, level by level) are all vocabulary: a read key the loader refused
    /// could never arrive.
    #[test]
    fn what_the_executor_reads_is_vocabulary() {
        use crate::observability::support;
        let keys = |shape: Shape| match shape {
            Shape::Map(entries) => entries.iter().map(|(key, _)| *key).collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        let case: Vec<&str> = OBS_CASE_KEYS.iter().map(|(key, _)| *key).collect();
        for (read, known) in [
            (support::CASE_KEYS, case),
            (support::NODE_DIRECTIVES, keys(OBS_NODE)),
            (support::CALLS_LLM_KEYS, keys(CALLS_LLM)),
            (support::EXPECTED_KEYS, keys(OBS_EXPECTED)),
            (support::OBSERVER_ASSERTIONS, keys(OBSERVER_ASSERTIONS)),
        ] {
            for key in read {
                // `caller_invocation_label` is read from `sequential_invocations` entries, where it is vocabulary.
                if *key != "caller_invocation_label" {
                    assert!(known.contains(key), "{key} is read but not vocabulary");
                }
            }
        }
    }

    /// 0120's second obligation for llm-provider, checked over the repository as the reference does: every key
    /// its vocabulary knows is a literal its executor reads (its readers refuse what they do not handle).
    #[test]
    fn every_llm_provider_key_is_read_by_its_executor() {
        let sources = [
            include_str!("llm/mod.rs"),
            include_str!("llm/expect.rs"),
            include_str!("llm/record.rs"),
            include_str!("llm/view.rs"),
            include_str!("llm/stream_equivalent.rs"),
            include_str!("llm/invariants/mod.rs"),
            include_str!("mock_server.rs"),
            include_str!("matcher.rs"),
            include_str!("retry.rs"),
        ]
        .concat();
        let vocabulary = include_str!("vocabulary.rs");
        let llm = &vocabulary[vocabulary.find("// ---- llm-provider").unwrap()
            ..vocabulary.find("// ---- observability").unwrap()];
        let mut n_keys = 0;
        for line in llm.lines() {
            let Some(rest) = line.trim_start().strip_prefix("(\"") else {
                continue;
            };
            let Some(key) = rest.split('"').next() else {
                continue;
            };
            n_keys += 1;
            assert!(
                key == "description" || sources.contains(&format!("\"{key}\"")),
                "llm-provider key `{key}` is vocabulary that no runner reads"
            );
        }
        assert!(n_keys > 40, "the vocabulary's keys were not found ({n_keys})");
    }

    #[test]
    fn unknown_capability_has_no_vocabulary() {
        assert!(Vocabulary::for_capability("graph-engine").is_none());
    }
}
