//! The Langfuse entities this mapping writes (observability §8.2): a trace and its observations (span,
//! generation, tool, event), as typed records, and their JSON in Langfuse's public ingestion shape (camelCase field
//! names, absent fields omitted).

use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::time::rfc3339;

/// The kind of an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObservationType {
    /// Timed work: a node.
    Span,
    /// An LLM call.
    Generation,
    /// A tool execution (§8.4.6: Langfuse's dedicated `Tool` type, not a Generation with a discriminator).
    Tool,
    /// A point in time (not used by this mapping yet).
    Event,
}

impl ObservationType {
    /// Langfuse's lowercase name (`span`, `generation`, `tool`, `event`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Span => "span",
            Self::Generation => "generation",
            Self::Tool => "tool",
            Self::Event => "event",
        }
    }
}

/// An observation's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Verbose detail.
    Debug,
    /// The normal case.
    Default,
    /// A soft error (a cut-off or filtered generation).
    Warning,
    /// A failure.
    Error,
}

impl Level {
    /// Langfuse's name (`DEBUG`, `DEFAULT`, `WARNING`, `ERROR`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "DEBUG",
            Self::Default => "DEFAULT",
            Self::Warning => "WARNING",
            Self::Error => "ERROR",
        }
    }
}

/// A generation's token usage; a counter the provider did not report is `None` and omitted (§8.4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Prompt tokens.
    pub input: Option<u64>,
    /// Completion tokens.
    pub output: Option<u64>,
    /// Total tokens.
    pub total: Option<u64>,
}

impl Usage {
    /// `{input?, output?, total?}` with only the reported counters.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        for (key, count) in [
            ("input", self.input),
            ("output", self.output),
            ("total", self.total),
        ] {
            if let Some(count) = count {
                object.insert(key.into(), Value::from(count));
            }
        }
        Value::Object(object)
    }
}

/// A Langfuse trace: the container an invocation maps to (§8.3).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRecord {
    /// 32 lowercase hex characters (§8.4.1's derivation from the invocation id).
    pub id: String,
    /// The caller's label or the entry node's name (§8.6).
    pub name: String,
    /// When the invocation began.
    pub timestamp: SystemTime,
    /// Top-level metadata: OA's keys and the caller's.
    pub metadata: Map<String, Value>,
    /// The trace input (the privacy-safe stub unless state payload is enabled).
    pub input: Option<Value>,
    /// The trace output, set when the invocation ends.
    pub output: Option<Value>,
    /// The promoted `userId` caller key.
    pub user_id: Option<String>,
    /// The session a session-bound invocation belongs to (§8.4.1: groups its traces into one Langfuse Session).
    pub session_id: Option<String>,
}

impl TraceRecord {
    /// The body of a `trace-create` ingestion event.
    pub fn to_json(&self) -> Value {
        let mut body = Map::new();
        body.insert("id".into(), json!(self.id));
        body.insert("name".into(), json!(self.name));
        body.insert("timestamp".into(), json!(rfc3339(self.timestamp)));
        body.insert("metadata".into(), Value::Object(self.metadata.clone()));
        insert_some(&mut body, "input", self.input.clone());
        insert_some(&mut body, "output", self.output.clone());
        insert_some(&mut body, "userId", self.user_id.clone().map(Value::from));
        insert_some(&mut body, "sessionId", self.session_id.clone().map(Value::from));
        Value::Object(body)
    }
}

/// A Langfuse observation, complete (it is recorded once, when it ends).
#[derive(Debug, Clone, PartialEq)]
pub struct ObservationRecord {
    /// 16 lowercase hex characters, unique per observation.
    pub id: String,
    /// The trace it belongs to.
    pub trace_id: String,
    /// The parent observation; `None` for a direct child of the trace.
    pub parent_observation_id: Option<String>,
    /// Span, generation or event.
    pub kind: ObservationType,
    /// The node's name, `openarmature.llm.complete` for a generation, `openarmature.tool.call` for a tool.
    pub name: String,
    /// When it began.
    pub start_time: SystemTime,
    /// When it ended.
    pub end_time: Option<SystemTime>,
    /// Top-level metadata: OA's keys and the caller's.
    pub metadata: Map<String, Value>,
    /// DEFAULT, WARNING or ERROR.
    pub level: Level,
    /// The error category on ERROR, the reason on WARNING.
    pub status_message: Option<String>,
    /// A generation's input messages or a tool's arguments (payload; only when enabled).
    pub input: Option<Value>,
    /// A generation's output content or a tool's result (payload; only when enabled).
    pub output: Option<Value>,
    /// A generation's model.
    pub model: Option<String>,
    /// A generation's request parameters (`temperature`, `max_tokens`, ...).
    pub model_parameters: Map<String, Value>,
    /// A generation's token usage.
    pub usage: Option<Usage>,
}

impl ObservationRecord {
    /// The body of a `span-create` / `generation-create` / `tool-create` / `event-create` ingestion event.
    pub fn to_json(&self) -> Value {
        let mut body = Map::new();
        body.insert("id".into(), json!(self.id));
        body.insert("traceId".into(), json!(self.trace_id));
        insert_some(
            &mut body,
            "parentObservationId",
            self.parent_observation_id.clone().map(Value::from),
        );
        body.insert("type".into(), json!(self.kind.as_str()));
        body.insert("name".into(), json!(self.name));
        body.insert("startTime".into(), json!(rfc3339(self.start_time)));
        insert_some(&mut body, "endTime", self.end_time.map(|t| json!(rfc3339(t))));
        body.insert("metadata".into(), Value::Object(self.metadata.clone()));
        body.insert("level".into(), json!(self.level.as_str()));
        insert_some(
            &mut body,
            "statusMessage",
            self.status_message.clone().map(Value::from),
        );
        insert_some(&mut body, "input", self.input.clone());
        insert_some(&mut body, "output", self.output.clone());
        insert_some(&mut body, "model", self.model.clone().map(Value::from));
        if !self.model_parameters.is_empty() {
            body.insert(
                "modelParameters".into(),
                Value::Object(self.model_parameters.clone()),
            );
        }
        if let Some(usage) = &self.usage {
            body.insert("usageDetails".into(), usage.to_json());
        }
        Value::Object(body)
    }

    /// The ingestion event type that creates it.
    pub fn ingestion_type(&self) -> &'static str {
        match self.kind {
            ObservationType::Span => "span-create",
            ObservationType::Generation => "generation-create",
            // Langfuse's ingestion maps `tool-create` to its TOOL observation type.
            ObservationType::Tool => "tool-create",
            ObservationType::Event => "event-create",
        }
    }
}

fn insert_some(body: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        body.insert(key.into(), value);
    }
}
