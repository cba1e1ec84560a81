//! The Langfuse mapping (observability §8): [`LangfuseObserver`] renders the event stream as Langfuse traces and
//! observations through a [`LangfuseClient`]: [`LangfuseRecorder`] keeps them in memory, [`HttpLangfuseClient`]
//! sends them to Langfuse's public ingestion API.

mod builder;
mod client;
mod config;
mod http;
mod isolation;
mod model;
mod observer;
mod render;
mod time;

pub use builder::LangfuseObserverBuilder;
pub use client::{FlushReport, LangfuseClient, LangfuseError, LangfuseRecorder};
pub use config::{LangfuseConfig, LangfuseConfigBuilder};
pub use http::{
    DEFAULT_HOST, HOST_ENV, HttpLangfuseClient, HttpLimits, LangfuseCredentials, PUBLIC_KEY_ENV,
    SECRET_KEY_ENV,
};
pub use isolation::{
    IsolatedProvider, IsolationToken, PAYLOAD_SUPPRESSED, ProviderBinding, SHARED_PROVIDER_ACCEPTED,
    SHARED_PROVIDER_NO_PAYLOAD, SUPPLIED_CLIENT_SHARED_PROVIDER,
};
pub use model::{Level, ObservationRecord, ObservationType, TraceRecord, Usage};
pub use observer::LangfuseObserver;
