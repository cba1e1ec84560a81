//! oa-provider: OpenArmature LLM providers — `complete()`, streaming and structured output you can trust, over
//! the OpenAI-compatible Chat Completions wire format (llm-provider spec §3–§8.1, with proposal 0126).
//!
//! # Overview
//!
//! - [`Provider`] is the §5 interface: `ready()` and `complete()`. Callers and upper layers see only it.
//! - [`OpenAiProvider`] implements it for §8.1, built with [`OpenAiProvider::builder`] (model, base URL, API key,
//!   extra headers, [`Capabilities`], timeouts and size caps).
//! - A call takes a [`CompletionRequest`]: [`Message`]s, [`Tool`]s, a [`ToolChoice`], a [`RuntimeConfig`],
//!   an optional `response_schema` (JSON Schema draft 2020-12, object at the top), an optional
//!   [`RetryConfig`] (backoff, `per_attempt_override`, [`Reask`]), `stream`, and a [`CallObserver`].
//! - It returns a [`Response`] (message, finish reason, nullable [`Usage`], `parsed`, `raw`, model,
//!   [`StructuredOutputPath`]) or a [`ProviderError`] whose [`Category`] is one of the nine §7 categories;
//!   `structured_output_invalid` carries a [`StructuredOutputFailure`] whose `error_message` names every
//!   violation at its JSON Pointer.
//! - The [`CallObserver`] hook receives token deltas as they stream and an [`AttemptRecord`] per wire attempt
//!   (the request exactly as sent, outcome, timing, usage); the events and observability crates subscribe here.
//! - Verifying enforcement: every structured [`Response`] carries a [`SchemaMode`] and a [`schema_version`];
//!   [`probe_canary`] and [`probe_keywords`] test a route with requests only a schema-bound decoder answers
//!   validly; a [`CapabilityRegistry`] keyed by [`CapabilityKey`] holds the verdicts with a staleness window; a
//!   [`RoutedProvider`] routes on it when asked to and samples canaries; [`classify_failure`] gives the
//!   [`FailureClass`] a failure counter is dimensioned by.
//!
//! # Example
//!
//! ```no_run
//! use oa_provider::{CompletionRequest, Message, OpenAiProvider, Provider, RetryConfig};
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let provider = OpenAiProvider::builder("gpt-4o-mini").build()?; // key from OPENAI_API_KEY
//! let request = CompletionRequest::new(vec![Message::user("Name a prime above 10.")])
//!     .with_response_schema(json!({
//!         "type": "object",
//!         "properties": {"prime": {"type": "integer"}},
//!         "required": ["prime"],
//!         "additionalProperties": false
//!     }))
//!     .with_retry(RetryConfig::new(3));
//! let response = provider.complete(&request).await?;
//! println!("{:?}", response.parsed);
//! # Ok(())
//! # }
//! ```
//!
//! No optional features.

mod canonical;
mod config;
mod diagnostic;
mod error;
mod failure_class;
mod http_date;
mod message;
mod observe;
pub mod openai;
mod probe;
mod provider;
mod registry;
mod response;
mod retry;
mod routing;
mod schema_check;
mod schema_mode;
pub mod sse;
mod structured;
mod tool;
mod validate;

pub use canonical::{json_equal, to_string as canonical_json};
pub use config::{DECLARED_FIELDS, RuntimeConfig};
pub use diagnostic::{DIAGNOSTIC_TARGET, SCHEMA_NOT_HONORED, is_schema_not_honored};
pub use error::{Category, PartialStream, ProviderError, StructuredOutputFailure};
pub use failure_class::{FailureClass, classify, classify_failure};
pub use message::{Content, ContentBlock, ImageDetail, ImageSource, Message, Role, ToolCall};
pub use observe::{
    AttemptRecord, AttemptRequest, CallObserver, DeltaKind, RetryReason, TokenDelta, mint_call_id,
};
pub use openai::{ApiKey, BuildError, Capabilities, OpenAiProvider, OpenAiProviderBuilder};
pub use probe::{
    CANARY_ANSWER, CANARY_QUESTION, EnforcementMatrix, PROBE_MAX_TOKENS, PROBED_KEYWORDS, Probe,
    ProbeOutcome, canary_schema, keyword_probe, keywords_used, probe_canary, probe_keywords,
};
pub use provider::{CompletionRequest, Provider};
pub use registry::{
    Capability, CapabilityKey, CapabilityRegistry, DEFAULT_STALE_AFTER, ProbeKind, RegistryError,
};
pub use response::{FinishReason, Response, StructuredOutputPath, Usage};
pub use retry::{Backoff, Classifier, OnRetry, Reask, RetryConfig};
pub use routing::{CanarySampler, REPAIR_TEMPLATE, RoutedProvider};
pub use schema_mode::{SchemaMode, schema_version};
pub use structured::{DRAFT_2020_12, is_strict_compatible};
pub use tool::{Tool, ToolChoice};
pub use validate::SUPPORTED_MEDIA_TYPES;
