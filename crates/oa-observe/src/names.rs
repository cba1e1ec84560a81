//! Span, attribute, metric and diagnostic names, defined once with the spec's spelling (observability §4.5, §5,
//! §7, §11) and pinned by tests.

/// The invocation span's name (§4.5).
pub const INVOCATION_SPAN: &str = "openarmature.invocation";
/// The LLM provider span's name (§4.5).
pub const LLM_SPAN: &str = "openarmature.llm.complete";
/// The tool-execution span's name (§5.5.11); also the Langfuse Tool observation's (§8.4.6).
pub const TOOL_SPAN: &str = "openarmature.tool.call";

/// §5.1 / §5.6 identity attributes.
pub const INVOCATION_ID: &str = "openarmature.invocation_id";
/// The cross-backend correlation ID (§3, §5.6, §7).
pub const CORRELATION_ID: &str = "openarmature.correlation_id";
/// §5.6: the session a session-bound invocation belongs to, on every span and log record of it.
pub const SESSION_ID: &str = "openarmature.session_id";
/// §5.1: the outermost graph's entry node.
pub const GRAPH_ENTRY_NODE: &str = "openarmature.graph.entry_node";
/// §5.1: the spec version the implementation targets.
pub const GRAPH_SPEC_VERSION: &str = "openarmature.graph.spec_version";
/// §5.1: the implementation's name.
pub const IMPLEMENTATION_NAME: &str = "openarmature.implementation.name";
/// §5.1: the implementation's version.
pub const IMPLEMENTATION_VERSION: &str = "openarmature.implementation.version";
/// Prefix of caller-supplied invocation metadata attributes (§3.4, §7).
pub const USER_PREFIX: &str = "openarmature.user.";
/// §5.2 node attributes.
pub const NODE_NAME: &str = "openarmature.node.name";
/// §5.2.
pub const NODE_NAMESPACE: &str = "openarmature.node.namespace";
/// §5.2.
pub const NODE_STEP: &str = "openarmature.node.step";
/// §5.2.
pub const NODE_ATTEMPT_INDEX: &str = "openarmature.node.attempt_index";
/// The error category on a failed span.
pub const ERROR_CATEGORY: &str = "openarmature.error.category";
/// The standard OTel `error.type` (Stable core semconv): a failed tool span's error type (§5.5.11).
pub const ERROR_TYPE: &str = "error.type";

/// §5.5.11: the tool's name (mirrors the Development `gen_ai.tool.name`, which oa does not emit).
pub const TOOL_NAME: &str = "openarmature.tool.name";
/// §5.5.11: the model request's tool-call id the execution satisfies; omitted for a standalone execution.
pub const TOOL_CALL_ID: &str = "openarmature.tool.call.id";
/// §5.5.11 payload (gated by `disable_provider_payload`): the arguments, JSON-encoded.
pub const TOOL_CALL_ARGUMENTS: &str = "openarmature.tool.call.arguments";
/// §5.5.11 payload: the result, JSON-encoded.
pub const TOOL_CALL_RESULT: &str = "openarmature.tool.call.result";

/// §5.5 baseline.
pub const LLM_MODEL: &str = "openarmature.llm.model";
/// §5.5 baseline.
pub const LLM_FINISH_REASON: &str = "openarmature.llm.finish_reason";
/// §5.5 baseline.
pub const LLM_PROMPT_TOKENS: &str = "openarmature.llm.usage.prompt_tokens";
/// §5.5 baseline.
pub const LLM_COMPLETION_TOKENS: &str = "openarmature.llm.usage.completion_tokens";
/// §5.5 baseline.
pub const LLM_TOTAL_TOKENS: &str = "openarmature.llm.usage.total_tokens";
/// §5.5 baseline: the wire attempt's index.
pub const LLM_ATTEMPT_INDEX: &str = "openarmature.llm.attempt_index";
/// §5.5 baseline (0126): the structured-output path of the span's request.
pub const LLM_STRUCTURED_OUTPUT_PATH: &str = "openarmature.llm.structured_output.path";
/// Why the attempt was made (llm-provider §7.1).
pub const LLM_RETRY_REASON: &str = "openarmature.llm.retry_reason";
/// How the schema constrained the attempt (the enforcement chapter's marker: `enforced`, `unverified`,
/// `unenforced`, `coerced`, `prompted`, each optionally `_repaired`); on spans, log records and every metric sample.
pub const LLM_SCHEMA_MODE: &str = "openarmature.llm.schema_mode";
/// SHA-256 (hex) of the canonical schema the call sent; beside the schema_mode wherever it goes.
pub const LLM_SCHEMA_VERSION: &str = "openarmature.llm.schema_version";
/// The clauses of the caller's schema the provider was not asked to enforce, or not shown to enforce (issue 36): one
/// compact JSON list of `{"pointer", "keyword", "reason"}` on the attempt span (never on metrics: it is not a
/// dimension).
pub const LLM_SCHEMA_UNENFORCED: &str = "openarmature.llm.schema.unenforced";
/// The call's identifier, joining spans, records and typed events (0126).
pub const LLM_CALL_ID: &str = "openarmature.llm.call_id";
/// The provider identifier on diagnostics (0126).
pub const LLM_PROVIDER: &str = "openarmature.llm.provider";

/// §5.5.1 payload (gated by `disable_provider_payload`).
pub const LLM_INPUT_MESSAGES: &str = "openarmature.llm.input.messages";
/// §5.5.1 payload.
pub const LLM_OUTPUT_CONTENT: &str = "openarmature.llm.output.content";
/// §5.5.1 payload.
pub const LLM_OUTPUT_TOOL_CALLS: &str = "openarmature.llm.output.tool_calls";
/// §5.5.10 ungated identity: how many tool calls the model requested (only when at least one).
pub const LLM_OUTPUT_TOOL_CALLS_COUNT: &str = "openarmature.llm.output.tool_calls.count";
/// §5.5.10 ungated identity: the requested tool names, in request order.
pub const LLM_OUTPUT_TOOL_CALLS_NAMES: &str = "openarmature.llm.output.tool_calls.names";
/// §5.5.10 ungated identity: the requested tool-call ids, index-aligned with the names.
pub const LLM_OUTPUT_TOOL_CALLS_IDS: &str = "openarmature.llm.output.tool_calls.ids";
/// §5.5.1 payload.
pub const LLM_REQUEST_EXTRAS: &str = "openarmature.llm.request.extras";

/// §5.5.3.
pub const GEN_AI_SYSTEM: &str = "gen_ai.system";
/// §5.5.3.
pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
/// §5.5.3.
pub const GEN_AI_RESPONSE_MODEL: &str = "gen_ai.response.model";
/// §5.5.3.
pub const GEN_AI_RESPONSE_ID: &str = "gen_ai.response.id";
/// §5.5.3.
pub const GEN_AI_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// §5.5.3.
pub const GEN_AI_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// §5.5.3.
pub const GEN_AI_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// §5.5.3.1.
pub const CACHE_READ_TOKENS: &str = "openarmature.llm.cache_read.input_tokens";
/// §5.5.3.1.
pub const CACHE_CREATION_TOKENS: &str = "openarmature.llm.cache_creation.input_tokens";
/// §5.5.2: prefix of the request parameters (`gen_ai.request.temperature`, ...).
pub const GEN_AI_REQUEST_PREFIX: &str = "gen_ai.request.";

/// A streamed structured attempt stopped at its first certain violation (early stop asked; not a spec attribute):
/// the violation's JSON Pointer in the answer.
pub const LLM_EARLY_STOP_POINTER: &str = "openarmature.llm.structured_output.early_stop.pointer";
/// The early-stopping violation's keyword (`enum`, `type`, ...).
pub const LLM_EARLY_STOP_KEYWORD: &str = "openarmature.llm.structured_output.early_stop.keyword";
/// The answer's bytes received when the stream was stopped.
pub const LLM_EARLY_STOP_BYTES: &str = "openarmature.llm.structured_output.early_stop.bytes";
/// The content deltas received when the stream was stopped.
pub const LLM_EARLY_STOP_DELTAS: &str = "openarmature.llm.structured_output.early_stop.deltas";

/// §11.2 histogram of token counts.
pub const METRIC_TOKEN_USAGE: &str = "openarmature.gen_ai.client.token.usage";
/// §11.2 histogram of attempt durations.
pub const METRIC_OPERATION_DURATION: &str = "openarmature.gen_ai.client.operation.duration";
/// Counter of structured-output failures by class (issue 9 point 4; not a spec instrument).
pub const METRIC_STRUCTURED_OUTPUT_FAILURES: &str = "openarmature.structured_output.failures";
/// §11.3 dimension.
pub const DIM_OPERATION: &str = "openarmature.gen_ai.operation";
/// §11.3 dimension.
pub const DIM_TOKEN_TYPE: &str = "openarmature.gen_ai.token.type";
/// §11.3 dimension.
pub const DIM_ERROR_TYPE: &str = "error.type";
/// Dimension of the failure counter: the failure class.
pub const DIM_FAILURE_CLASS: &str = "openarmature.structured_output.failure_class";

/// The schema_not_honored diagnostic (0126 on §5.5.7 and §7), re-exported from the provider that emits it.
pub const SCHEMA_NOT_HONORED: &str = oa_provider::hook::SCHEMA_NOT_HONORED;

/// §11.2 bucket advisory for token usage.
pub const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];
/// §11.2 bucket advisory for durations, in seconds.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
