#![doc = include_str!("../README.md")]
//!
//! ## API map
//!
//! - [`Provider`] is the §5 interface: `ready()` and `complete()`. Callers and upper layers see only it.
//! - [`OpenAiProvider`] (§8.1), [`AnthropicProvider`] (§8.2) and [`GeminiProvider`] (§8.3) implement it, each
//!   built with its `builder` (model, base URL, API key, extra headers, [`Capabilities`], timeouts and size caps);
//!   [`ProviderBuilder`] builds the [`Mapping`] chosen at run time.
//! - A call takes a [`CompletionRequest`]: [`Message`]s, [`Tool`]s, a [`ToolChoice`], a [`RuntimeConfig`],
//!   an optional `response_schema` (JSON Schema of any draft oa-schema reads, object at the top; an `Arc<Value>`,
//!   shared rather than copied, and compiled once per distinct schema and `schema_options`: its resources,
//!   retriever, base URI, default draft), `fit` (send the schema fitted to the mapping's native path), an optional
//!   [`RetryConfig`] (backoff, `per_attempt_override`, [`Reask`]), `stream`, and an [`AttemptHook`].
//! - It returns a [`Response`] (message, finish reason, nullable [`Usage`], `parsed`, `raw`, model,
//!   [`StructuredOutputPath`]) or a [`ProviderError`] whose [`Category`] is one of the nine §7 categories;
//!   `structured_output_invalid` carries a [`StructuredOutputFailure`]: every violation as typed
//!   [`oa_schema::Violations`] (or the parse error), its [`FailureClass`], and the `error_message` rendered from
//!   them.
//! - The [`AttemptHook`] receives token deltas as they stream and an [`AttemptRecord`] per wire attempt (the
//!   request exactly as sent, outcome, timing, usage, path, [`SchemaMode`], [`Diagnostic`]s); the events and
//!   observability crates subscribe here.
//! - [`fit`] fits a response schema to what a mapping's native path enforces (the provider table in the README):
//!   the schema to send, the account of every clause the provider is not asked to enforce, and the plan that maps
//!   an answer back to the caller's spelling before validation; every attempt that sends a schema records its
//!   [`fit::SchemaAccount`], and [`fit::native_schema`] is the schema a request would send natively.
//! - Verifying enforcement: every structured [`Response`] carries a [`SchemaMode`] and a [`schema_version`];
//!   [`probe_canary`] and [`probe_keywords`] test a route with requests only a schema-bound decoder answers
//!   validly; a [`CapabilityRegistry`] keyed by [`CapabilityKey`] holds the verdicts with a staleness window,
//!   and a provider built with one marks a native strict call `enforced` only on a fresh enforcing verdict
//!   (`unverified` otherwise); a [`RoutedProvider`] routes on it when asked to and samples canaries.
//!
//! ## Layout
//!
//! [`model`] holds the vendor-neutral request/response model; `call` drives one call (pre-checks,
//! retry and reask, attempts, records); `structured` checks schemas and content; [`enforcement`]
//! holds the marker, probes, registry and routing; `http` the shared transport; and each wire format is one
//! folder ([`openai`], [`anthropic`], [`gemini`]).
//!
//!
//! Feature `schemars` (default): [`CompletionRequest::with_output`] and [`output_schema`], a request's schema derived
//! from a Rust type; [`Response::parsed_as`] reads the validated value back as the type with or without it.
//! Feature `fuzzing` exposes the response decoders to the fuzz targets; it is not part of the supported API.

pub mod anthropic;
mod builder;
mod call;
mod canonical;
mod endpoint;
pub mod enforcement;
mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod gemini;
mod http;
pub mod model;
pub mod openai;
mod structured;

pub use anthropic::{AnthropicProvider, AnthropicProviderBuilder};
pub use builder::ProviderBuilder;
pub use call::{
    AttemptHook, AttemptRecord, AttemptRequest, Backoff, Classifier, DIAGNOSTIC_TARGET, DeltaKind,
    Diagnostic, OnRetry, Reask, RetryConfig, RetryReason, SCHEMA_NOT_HONORED, SUPPORTED_MEDIA_TYPES,
    Severity, TokenDelta, is_schema_not_honored,
};
pub use canonical::{json_equal, to_string as canonical_json};
pub use endpoint::{ApiKey, BuildError, Capabilities};
pub use enforcement::{
    CANARY_ANSWER, CANARY_QUESTION, CapabilityKey, CapabilityRegistry, EnforcementMatrix, ProbeOutcome,
    RoutedProvider, SchemaMode, probe_canary, probe_keywords, schema_version,
};
pub use error::{Category, PartialStream, ProviderError, StructuredOutputFailure, TransportCause};
pub use gemini::{GeminiProvider, GeminiProviderBuilder};
pub use http::sse;
pub use http::{MAX_RETRY_AFTER, parse_retry_after, parse_retry_after_at};
pub use model::{
    AttemptOutcome, AttemptSummary, Blocked, CallExtras, CompletionRequest, Content, ContentBlock,
    FinishReason, ImageDetail, ImageSource, Mapping, Message, Provider, RawJson, Response, Role,
    RuntimeConfig, StructuredOutputPath, Tool, ToolCall, ToolChoice, UnknownMapping, Usage,
};
pub use openai::{OpenAiProvider, OpenAiProviderBuilder, is_strict_compatible};
pub use structured::fit;
pub use structured::{
    CompleteAsError, DRAFT_2020_12, FailureClass, OutputProblem, ParsedAsError, Typed, TypedDecoder,
    check_response_schema, complete_as,
};
#[cfg(feature = "schemars")]
pub use structured::{StrictOutput, output_schema};
