#![doc = include_str!("../README.md")]
//!
//! ## API map
//!
//! The crate root holds what a caller of `complete` names; every other public item has exactly one home, in a
//! module below (`tests/layers.rs` checks that no item is reachable at two paths).
//!
//! - [`Provider`] is the §5 interface: `ready()`, `complete()`, `complete_with()` (the same call with
//!   [`CallExtras`] beside the borrowed request) and `capability_key()`. Callers and upper layers see only it.
//! - [`OpenAiProvider`] (§8.1), [`AnthropicProvider`] (§8.2) and [`GeminiProvider`] (§8.3) implement it, each
//!   built with its `builder` (model, base URL, [`ApiKey`], extra headers, [`Capabilities`], timeouts and size
//!   caps; [`BuildError`]); [`ProviderBuilder`] builds the [`Mapping`] chosen at run time.
//! - A call takes a [`CompletionRequest`]: [`Message`]s, [`Tool`]s, a [`ToolChoice`], a [`RuntimeConfig`],
//!   an optional `response_schema` (JSON Schema of any draft oa-schema reads, object at the top; an `Arc<Value>`,
//!   shared rather than copied, and compiled once per distinct schema and `schema_options`: its resources,
//!   retriever, base URI, default draft), `fit` (send the schema fitted to the mapping's native path), an optional
//!   [`RetryConfig`] (backoff, `per_attempt_override`, [`Reask`]), `stream`, and an [`AttemptHook`].
//! - It returns a [`Response`] (message, [`FinishReason`], nullable [`Usage`], `parsed`, `raw`, model,
//!   [`StructuredOutputPath`], [`SchemaMode`]) or a [`ProviderError`] whose [`Category`] is one of the nine §7
//!   categories; `structured_output_invalid` carries a [`StructuredOutputFailure`]: every violation as typed
//!   [`oa_schema::Violations`] (or the parse error), its [`model::FailureClass`], and the `error_message` rendered
//!   from them. [`complete_as`] reads the content straight into a Rust type ([`Typed`], [`CompleteAsError`]).
//! - [`model`]: the rest of the vendor-neutral model (content blocks, the raw body, attempt summaries, the failure
//!   taxonomy). [`hook`]: token deltas, the request of each attempt, diagnostics. [`retry`]: backoff and
//!   classifiers. [`schema`]: the response schema's dialect and up-front check. [`json`]: canonical JSON.
//! - [`fit`] fits a response schema to what a mapping's native path enforces (the provider table in the README):
//!   the schema to send, the account of every clause the provider is not asked to enforce, and the plan that maps
//!   an answer back to the caller's spelling before validation; every attempt that sends a schema records its
//!   [`fit::SchemaAccount`], and [`fit::native_schema`] is the schema a request would send natively.
//! - [`enforcement`]: every structured [`Response`] carries a [`SchemaMode`] and a `schema_version`;
//!   probes test a route with requests only a schema-bound decoder answers validly; a capability registry keyed
//!   by route holds the verdicts with a staleness window, and a provider built with one marks a native strict call
//!   `enforced` only on a fresh enforcing verdict (`unverified` otherwise); a router routes on it when asked to.
//!
//! ## Layout
//!
//! [`model`] is the ground floor: plain data (the request's parts, the response, the §7 error, the failure
//! taxonomy) that imports nothing else of the crate. Above it, `structured` checks schemas and content; `call`
//! holds the request, the [`Provider`] trait and drives one call (pre-checks, retry and reask, attempts, records,
//! the hook); [`enforcement`] holds the probes, registry and routing; `http` the shared transport; and each wire
//! format is one folder ([`openai`], [`anthropic`], [`gemini`]) whose provider type is re-exported here. Those upper
//! modules use one another; `model` uses none of them.
//!
//! Feature `schemars` (default): [`CompletionRequest::with_output`] and [`output_schema`], a request's schema derived
//! from a Rust type; [`Response::parsed_as`] reads the validated value back as the type with or without it.
//! Feature `fuzzing` exposes the response decoders, the SSE decoder, the `Retry-After` reader and the strict-mode
//! predicate to the fuzz targets and the crate's own tests; it is not part of the supported API.

pub mod anthropic;
mod builder;
mod call;
mod canonical;
mod endpoint;
pub mod enforcement;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod gemini;
mod http;
pub mod model;
pub mod openai;
mod structured;

// The crate root: what a caller of `complete` names. Every other public item has one home, in a module below.
pub use anthropic::provider::{AnthropicProvider, AnthropicProviderBuilder};
pub use builder::ProviderBuilder;
pub use call::{AttemptHook, AttemptRecord, CallExtras, CompletionRequest, Provider, Reask, RetryConfig};
pub use endpoint::{ApiKey, BuildError, Capabilities};
pub use gemini::provider::{GeminiProvider, GeminiProviderBuilder};
pub use model::config::RuntimeConfig;
pub use model::error::{Category, ProviderError, StructuredOutputFailure};
pub use model::mapping::Mapping;
pub use model::message::{Content, Message, Role, ToolCall};
pub use model::response::{FinishReason, Response, StructuredOutputPath, Usage};
pub use model::schema_mode::SchemaMode;
pub use model::tool::{Tool, ToolChoice};
pub use openai::provider::{OpenAiProvider, OpenAiProviderBuilder};
pub use structured::fit;
#[cfg(feature = "schemars")]
pub use structured::output_schema;
pub use structured::typed_call::{CompleteAsError, Typed, complete_as};

/// What a call reports as it runs: the [`AttemptHook`]'s token deltas and per-attempt request, and the diagnostics
/// an [`AttemptRecord`] carries (observability §5.5.7).
pub mod hook {
    pub use crate::call::{
        AttemptRequest, DIAGNOSTIC_TARGET, DeltaKind, Diagnostic, PartialValue, SCHEMA_NOT_HONORED, Severity,
        TokenDelta, is_schema_not_honored,
    };
}

/// In-call retry (§7.1): how long to wait between attempts, which errors to retry, and a callback per retry; the
/// policy itself is [`RetryConfig`], the reask text [`Reask`].
pub mod retry {
    pub use crate::call::{Backoff, Classifier, OnRetry};
    pub use crate::http::MAX_RETRY_AFTER;
}

/// The response schema itself: its dialect, the checks `complete()` makes on it before sending, and (feature
/// `schemars`) a Rust type's schema made strict-compatible.
pub mod schema {
    #[cfg(feature = "schemars")]
    pub use crate::structured::StrictOutput;
    pub use crate::structured::{DRAFT_2020_12, check_response_schema};
}

/// Canonical JSON (keys sorted, no insignificant whitespace: the text `schema_version` hashes, and how records
/// print JSON values) and JSON Schema equality of values (numbers by value, objects regardless of key order).
pub mod json {
    pub use crate::canonical::{json_equal, to_string as canonical_json};
}
