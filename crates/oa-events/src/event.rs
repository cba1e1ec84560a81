//! The events an invocation puts on its delivery queue: node lifecycle, the graph-engine §6 typed LLM events
//! (`LlmCompletionEvent`, `LlmFailedEvent`, `LlmTokenEvent`), the typed tool events (`ToolCallEvent`,
//! `ToolCallFailedEvent`) and the per-attempt record observability draws spans and metrics from.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use oa_provider::fit::SchemaAccount;
use oa_provider::hook::{DeltaKind, Diagnostic};
use oa_provider::model::{EarlyStop, FailureClass, RetryReason};
use oa_provider::{Category, FinishReason, SchemaMode, StructuredOutputPath, Usage};
use serde::Serialize;
use serde_json::{Map, Value};

/// One item on the observer delivery queue.
///
/// The `Llm*Event` variants are the graph-engine §6 typed events (one terminal event per `complete()` call);
/// [`Event::LlmAttempt`] is the implementation's record of one wire attempt (0126 on observability §11), which is
/// not a §6 typed event: a caught attempt has no typed event of its own.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// An invocation began.
    InvocationStarted(InvocationEvent),
    /// An invocation ended (successfully or not).
    InvocationCompleted(InvocationEvent),
    /// A node began (phase `started`).
    NodeStarted(NodeEvent),
    /// A node ended (phase `completed`), with its error when it raised one.
    NodeCompleted(NodeEvent),
    /// One wire attempt of an LLM call finished (not a §6 typed event).
    LlmAttempt(LlmAttempt),
    /// A streamed delta of an LLM call.
    LlmToken(LlmTokenEvent),
    /// A value of a streamed structured answer completed, at its pointer (not a §6 typed event: oa's own, delivered
    /// as token events are, to observers that read them).
    LlmPartialValue(LlmPartialValueEvent),
    /// An LLM call returned a response.
    LlmCompletion(LlmCompletionEvent),
    /// An LLM call raised a §7 error.
    LlmFailed(LlmFailedEvent),
    /// A node body added entries to the invocation metadata (observability §3.4, §6's metadata-augmentation
    /// event): observers update the spans still open in the augmenting context.
    MetadataAugmented(MetadataEvent),
    /// An instrumented tool execution returned a result (graph-engine §6 `ToolCallEvent`).
    ToolCall(ToolCallEvent),
    /// An instrumented tool execution raised (graph-engine §6 `ToolCallFailedEvent`).
    ToolCallFailed(ToolCallFailedEvent),
}

impl Event {
    /// The invocation the event belongs to.
    pub fn invocation_id(&self) -> &str {
        match self {
            Self::InvocationStarted(event) | Self::InvocationCompleted(event) => &event.invocation_id,
            Self::NodeStarted(event) | Self::NodeCompleted(event) => &event.scope.invocation_id,
            Self::LlmAttempt(event) => &event.scope.invocation_id,
            Self::LlmToken(event) => &event.scope.invocation_id,
            Self::LlmPartialValue(event) => &event.scope.invocation_id,
            Self::LlmCompletion(event) => &event.scope.invocation_id,
            Self::LlmFailed(event) => &event.scope.invocation_id,
            Self::MetadataAugmented(event) => &event.scope.invocation_id,
            Self::ToolCall(event) => &event.scope.invocation_id,
            Self::ToolCallFailed(event) => &event.scope.invocation_id,
        }
    }
}

/// The identity and scoping fields every node-scoped event carries (graph-engine §6 *Node event shape*).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scope {
    /// The outer invocation's identifier.
    pub invocation_id: String,
    /// The cross-backend correlation ID (observability §3.1).
    pub correlation_id: Option<String>,
    /// The session the invocation is bound to (`openarmature.session_id`, observability §5.6), when the caller
    /// supplied one at `invoke()`; like the correlation ID it is the same on every event of the invocation.
    /// Serialised only when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The node that is running.
    pub node_name: String,
    /// The node's namespace: its name under the graph root (no subgraphs in this runtime).
    pub namespace: Vec<String>,
    /// The node-level retry-attempt index (0 on the first attempt; this runtime does not retry nodes).
    pub attempt_index: u32,
    /// The fan-out instance index; always `None` here (no fan-out in this runtime).
    pub fan_out_index: Option<u32>,
    /// The parallel branch name; always `None` here.
    pub branch_name: Option<String>,
    /// Fan-out lineage, aligned to `namespace`; empty for a top-level event.
    pub fan_out_index_chain: Vec<Option<u32>>,
    /// Parallel-branch lineage, aligned to `namespace`; empty for a top-level event.
    pub branch_name_chain: Vec<Option<String>>,
    /// Caller-supplied invocation metadata (observability §3.4); `None` unless the caller supplied some.
    pub caller_invocation_metadata: Option<Map<String, Value>>,
}

/// An invocation's start or end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvocationEvent {
    /// The invocation's identifier (caller-supplied and used verbatim, or a minted UUIDv4; observability §5.1).
    pub invocation_id: String,
    /// The cross-backend correlation ID.
    pub correlation_id: Option<String>,
    /// The session the invocation is bound to, when the caller supplied one (observability §5.6, §8.4.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The graph's entry node (`openarmature.graph.entry_node`).
    pub entry_node: String,
    /// The caller-supplied invocation label (observability §8.6), when one was given.
    pub label: Option<String>,
    /// The invocation metadata in scope: the caller's on start; on completion, with every augmentation applied.
    pub metadata: Map<String, Value>,
    /// On start, the initial state; on completion, the final state (or the state at the point of failure).
    pub state: Value,
    /// On completion: the node whose execution preceded END, or that failed; `None` on start.
    pub final_node: Option<String>,
    /// On completion: the error that ended the invocation, rendered as text; `None` on success and on start.
    pub error: Option<String>,
    /// On completion with an error: its graph-engine §4 category.
    pub error_category: Option<GraphErrorCategory>,
    /// When this happened.
    #[serde(skip)]
    pub at: SystemTime,
}

/// The graph-engine §4 category of a runtime error, as node and invocation events and spans report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphErrorCategory {
    /// A node raised.
    NodeException,
    /// A conditional edge's function raised.
    EdgeException,
    /// A state update could not be merged.
    ReducerError,
    /// A conditional edge returned a destination that is neither a declared node nor END.
    RoutingError,
    /// State failed validation at a boundary (here: a node returned an update that is not a JSON object).
    StateValidationError,
}

impl GraphErrorCategory {
    /// The spec's identifier (`node_exception`, `routing_error`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NodeException => "node_exception",
            Self::EdgeException => "edge_exception",
            Self::ReducerError => "reducer_error",
            Self::RoutingError => "routing_error",
            Self::StateValidationError => "state_validation_error",
        }
    }
}

/// Entries a node body added to the invocation metadata (observability §3.4), with the augmenting context's
/// scope; its `caller_invocation_metadata` is the whole mapping after the merge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetadataEvent {
    /// The augmenting context.
    pub scope: Scope,
    /// The entries added (validated), as given.
    pub entries: Map<String, Value>,
}

/// A node's start or completion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeEvent {
    /// Who is running.
    pub scope: Scope,
    /// The node's 0-based position in the linear graph.
    pub step: usize,
    /// On completion with an error: its text; `None` otherwise.
    pub error: Option<String>,
    /// On completion with an error: its graph-engine §4 category (`node_exception`, `routing_error`, ...).
    pub graph_error: Option<GraphErrorCategory>,
    /// On completion with an error: the §7 category of the provider error that caused it, when one did.
    pub error_category: Option<Category>,
    /// When this happened.
    #[serde(skip)]
    pub at: SystemTime,
}

/// The request-side fields the typed LLM events and attempt records share (graph-engine §6), describing the request
/// one attempt sent (0126: under call-level retry, the request of the attempt whose outcome is reported).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmRequest {
    /// The provider identifier (e.g. `"openai"`). Shared: the same string for every record of a queue that names
    /// this provider (serialised as a string).
    pub provider: Arc<str>,
    /// The model the provider is bound to; shared as `provider` is.
    pub model: Arc<str>,
    /// The per-call identifier; the same on every event and attempt record of one `complete()` call.
    pub call_id: String,
    /// The messages as sent, in typed-event-native JSON form, inline image bytes redacted (observability
    /// §5.5.5); includes a prompt-augmentation directive when the path added one.
    pub input_messages: Vec<Value>,
    /// The §5.5.2 request parameters that were set, keyed without the `gen_ai.request.` prefix.
    pub request_params: Map<String, Value>,
    /// The config's extras bag, verbatim.
    pub request_extras: Map<String, Value>,
    /// The structured-output path of the request (0126); `None` without a schema or when nothing was sent.
    pub structured_output_path: Option<StructuredOutputPath>,
    /// How the schema constrained the attempt (the enforcement chapter's marker); `None` without a schema or when
    /// nothing was sent.
    pub schema_mode: Option<SchemaMode>,
    /// SHA-256 (hex) of the canonical schema sent; `None` without a schema.
    pub schema_version: Option<String>,
    /// How the schema sent came from the caller's (verbatim, bundled, fitted) and every clause of the caller's
    /// schema the provider was not asked to enforce or not shown to enforce, `{pointer, keyword, reason}` (issue 36);
    /// `None` without a schema or when nothing was sent. Shared with the attempt record it came from.
    pub schema_account: Option<Arc<SchemaAccount>>,
    /// The active prompt's identity; always `None` (oa has no prompt-management layer yet).
    pub active_prompt: Option<Value>,
    /// The active prompt group; always `None`.
    pub active_prompt_group: Option<Value>,
    /// The active prompt's token budget; always `None`.
    pub token_budget: Option<Value>,
}

/// The response-side fields (graph-engine §6), present on a completion and a `structured_output_invalid` failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmResponseFields {
    /// The model the provider said answered.
    pub response_model: Option<String>,
    /// The provider's response identifier.
    pub response_id: Option<String>,
    /// Token usage.
    pub usage: Option<Usage>,
    /// The normalized finish reason.
    pub finish_reason: Option<FinishReason>,
    /// The assistant content verbatim; `None` for a tool-call-only message.
    pub output_content: Option<String>,
    /// The output tool calls as `{id, name, arguments}`; `None` when there were none.
    pub output_tool_calls: Option<Vec<Value>>,
}

/// graph-engine §6 `LlmCompletionEvent`: an LLM call returned a response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmCompletionEvent {
    /// Identity and scope; `attempt_index` is node-level. Shared with the call's other events.
    #[serde(flatten)]
    pub scope: Arc<Scope>,
    /// The request of the attempt that produced the response (shared with that attempt's record).
    #[serde(flatten)]
    pub request: Arc<LlmRequest>,
    /// The response (shared with the record of the attempt that produced it).
    #[serde(flatten)]
    pub response: Arc<LlmResponseFields>,
    /// Wall-clock latency of the attempt that produced the response, in milliseconds.
    pub latency_ms: Option<f64>,
}

/// graph-engine §6 `LlmFailedEvent`: an LLM call raised a §7 error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmFailedEvent {
    /// Identity and scope; `attempt_index` is node-level. Shared with the call's other events.
    #[serde(flatten)]
    pub scope: Arc<Scope>,
    /// The request of the attempt whose failure is reported (the caller's messages if nothing was sent); shared
    /// with that attempt's record.
    #[serde(flatten)]
    pub request: Arc<LlmRequest>,
    /// The response-side surface; every field `None` except for `structured_output_invalid`.
    #[serde(flatten)]
    pub response: Arc<LlmResponseFields>,
    /// The §7 category (serialised as the spec's name, e.g. `"structured_output_invalid"`).
    pub error_category: Category,
    /// The vendor's error code or type ([`oa_provider::ProviderError::vendor_code`]); `None` when the provider
    /// named none (the category is then the only classification).
    pub error_type: Option<String>,
    /// The error's message; for `structured_output_invalid`, the failure description naming every violation.
    pub error_message: String,
    /// Latency of the failed attempt, in milliseconds; `None` when the call was rejected before any attempt.
    pub latency_ms: Option<f64>,
}

/// graph-engine §6 `LlmTokenEvent`: one streamed delta.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmTokenEvent {
    /// Identity and scope; `attempt_index` is node-level (it does not advance across wire attempts). Shared with
    /// the call's other events.
    #[serde(flatten)]
    pub scope: Arc<Scope>,
    /// The provider identifier.
    pub provider: String,
    /// The bound model.
    pub model: String,
    /// Matches the terminal event's `call_id`.
    pub call_id: String,
    /// Monotonic per call, from 0.
    pub chunk_index: u64,
    /// Content or reasoning (serialised `"content"` / `"reasoning"`).
    pub delta_kind: DeltaKind,
    /// The delta text.
    pub delta: String,
}

/// A value a streamed structured answer completed (oa-provider's `PartialValue`): whole and final, at its JSON
/// Pointer in the answer, right after the token event whose delta completed it; a container after its members.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmPartialValueEvent {
    /// Identity and scope, shared with the call's other events.
    #[serde(flatten)]
    pub scope: Arc<Scope>,
    /// The provider identifier.
    pub provider: String,
    /// The bound model.
    pub model: String,
    /// Matches the terminal event's `call_id`.
    pub call_id: String,
    /// The wire attempt whose answer this is (a reask's answer starts again from the root).
    pub wire_attempt_index: u32,
    /// Where the value sits in the answer (JSON Pointer; the root is `""`).
    pub pointer: String,
    /// The value.
    pub value: Value,
    /// Certain violations found so far at or below `pointer`.
    pub certain_violations: usize,
}

/// The implementation's record of one wire attempt: what a §5.5 span and the §11 per-attempt samples render.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmAttempt {
    /// Identity and scope of the calling node, shared with the call's other events.
    pub scope: Arc<Scope>,
    /// The request this attempt sent, after its per-attempt override (the terminal event reporting this attempt
    /// shares it).
    pub request: Arc<LlmRequest>,
    /// The wire attempt's index (0 for the first), as on its span.
    pub wire_attempt_index: u32,
    /// Why the attempt was made (`None` on attempt 0).
    pub retry_reason: Option<RetryReason>,
    /// Whether an earlier attempt of the call failed validation and was reasked.
    pub repair: bool,
    /// Whether a request body was built and sent (false when rejected before sending).
    pub sent: bool,
    /// Whether the attempt streamed.
    pub stream: bool,
    /// The response-side fields when a response was received (success or `structured_output_invalid`); the
    /// terminal event reporting this attempt shares them.
    pub response: Option<Arc<LlmResponseFields>>,
    /// The §7 category when the attempt failed.
    pub error_category: Option<Category>,
    /// The error message when the attempt failed.
    pub error_message: Option<String>,
    /// The attempt's failure class, as the provider computed it: a `structured_output_invalid` attempt's
    /// (`not_json`, `fenced_json`, `non_object`, `extra_key`, `enum_violation`, `type_mismatch`,
    /// `missing_required`, `other`), or a recognised server envelope's (`provider_output_parse_failed`,
    /// `structured_output_unsupported`).
    pub failure_class: Option<FailureClass>,
    /// The diagnostics the provider raised about this attempt (e.g. `schema_not_honored`).
    pub diagnostics: Vec<Diagnostic>,
    /// Where the attempt's stream was stopped at its first certain violation, when it was (early stop asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub early_stop: Option<EarlyStop>,
    /// When the attempt started.
    #[serde(skip)]
    pub started_at: SystemTime,
    /// How long it took.
    #[serde(skip)]
    pub duration: Duration,
}

/// What the caller tells the tool-call instrumentation scope about one tool execution (graph-engine §6): the
/// tool's name, the arguments it is invoked with, and the id of the model's tool call it satisfies, if any.
///
/// ```
/// use oa_events::ToolInvocation;
/// use serde_json::json;
///
/// let standalone = ToolInvocation::new("local_compute").with_arguments(json!({"n": 3}));
/// assert_eq!(standalone.tool_call_id, None);
/// let requested = oa_provider::ToolCall {
///     id: "call_xyz789".into(),
///     name: "get_weather".into(),
///     arguments: json!({"city": "Paris"}),
///     signature: None,
/// };
/// let linked = ToolInvocation::from_tool_call(&requested);
/// assert_eq!(linked.tool_call_id.as_deref(), Some("call_xyz789"));
/// assert_eq!(linked.arguments.unwrap()["city"], "Paris");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolInvocation {
    /// The name of the tool executed (`Tool.name` when it satisfies a model request).
    pub tool_name: String,
    /// The `ToolCall.id` of the `LlmCompletionEvent.output_tool_calls` entry this execution satisfies; `None` for
    /// a standalone instrumented function (never fabricated).
    pub tool_call_id: Option<String>,
    /// The arguments the tool is invoked with; `None` when it takes none. Payload: observers gate it.
    pub arguments: Option<Map<String, Value>>,
}

impl ToolInvocation {
    /// A standalone execution of `tool_name`, with no arguments and no model request behind it.
    pub fn new(tool_name: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            tool_call_id: None,
            arguments: None,
        }
    }

    /// The execution of the tool call the model requested: its name, its id (the linkage back to the requesting
    /// call) and its parsed arguments (`None` when they did not parse).
    pub fn from_tool_call(call: &oa_provider::ToolCall) -> Self {
        Self {
            tool_name: call.name.clone(),
            tool_call_id: Some(call.id.clone()),
            arguments: call.arguments.as_object().cloned(),
        }
    }

    /// The id of the model's tool call this execution satisfies.
    pub fn with_tool_call_id(mut self, id: impl Into<String>) -> Self {
        self.tool_call_id = Some(id.into());
        self
    }

    /// The arguments, a JSON object; any other value (null included) means no arguments.
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        self.arguments = match arguments {
            Value::Object(map) => Some(map),
            _ => None,
        };
        self
    }
}

/// graph-engine §6 `ToolCallEvent`: an instrumented tool execution returned a result. It carries the identity of
/// the node that entered the scope, the caller's description of the execution and the result as the tool
/// produced it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallEvent {
    /// Identity and scope, captured when the scope was entered.
    #[serde(flatten)]
    pub scope: Scope,
    /// oa's own correlation token for this execution, minted when the scope was entered (distinct from
    /// `tool_call_id`, the provider's).
    pub call_id: String,
    /// The tool, its arguments and the model request it satisfies.
    #[serde(flatten)]
    pub tool: ToolInvocation,
    /// The tool's return value, serialised to JSON (opaque to oa; payload).
    pub result: Value,
    /// Wall-clock latency of the execution measured at the scope boundary, in milliseconds.
    pub latency_ms: Option<f64>,
    /// When the outcome was known (the tool span's end).
    #[serde(skip)]
    pub at: SystemTime,
}

/// graph-engine §6 `ToolCallFailedEvent`: an instrumented tool execution raised. Deliberately no
/// `error_category`: arbitrary tool code has no closed §7 taxonomy, so `error_type` is the only classification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallFailedEvent {
    /// Identity and scope, captured when the scope was entered.
    #[serde(flatten)]
    pub scope: Scope,
    /// oa's own correlation token for this execution.
    pub call_id: String,
    /// The tool, its arguments and the model request it satisfies.
    #[serde(flatten)]
    pub tool: ToolInvocation,
    /// Wall-clock latency of the execution measured at the scope boundary, in milliseconds.
    pub latency_ms: Option<f64>,
    /// The error's type (a class or code name, e.g. `TimeoutError`); `None` when none is available.
    pub error_type: Option<String>,
    /// The error's message (empty when it had none). Harvested text: observers treat it as payload.
    pub error_message: String,
    /// When the outcome was known.
    #[serde(skip)]
    pub at: SystemTime,
}
