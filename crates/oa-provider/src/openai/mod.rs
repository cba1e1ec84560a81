//! The §8.1 OpenAI-compatible Chat Completions wire format: [`OpenAiProvider`], its builder, and every rule that is
//! OpenAI's own (request and response mapping, streaming chunks, status mapping, strict mode, schema names).

mod lm_studio;
mod ready;
mod request;
mod response;
mod status;
mod stream;
mod strict;
mod view;

use std::borrow::Cow;

use serde_json::Value;

pub use strict::{StrictObstacle, StrictRule, is_strict_compatible, strict_mode_obstacle};

use crate::BuildError;
use crate::call::status::{ErrorBody, status_error};
use crate::call::wire::{Mapped, StreamFold, WireBody, WireFormat, WireRequest};
use crate::endpoint::{Endpoint, Settings, provider_impls, shared_builder_setters};
use crate::error::{Category, ProviderError};
use crate::http::KeyHeader;
use crate::model::{Mapping, StructuredOutputPath};
use crate::structured::{CheckedTools, ResponseSchema};

/// The environment variable the API key is read from unless the builder says otherwise.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";

/// The base URL used unless the builder sets one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The default provider identifier on attempt records (graph-engine §6 `provider`); see
/// [`OpenAiProviderBuilder::system`].
pub const PROVIDER_NAME: &str = "openai";

/// Builds an [`OpenAiProvider`]; every setting has a documented default.
#[derive(Debug)]
pub struct OpenAiProviderBuilder {
    settings: Settings,
}

impl OpenAiProviderBuilder {
    shared_builder_setters!(
        "`\"openai\"`",
        "`https://api.openai.com/v1`",
        "`OPENAI_API_KEY`",
        "Requests go to `{base}/chat/completions` and the `ready()` probe to `{base}/models`; a local server's \
         base URL ends in `/v1`, e.g. `http://127.0.0.1:8080/v1`."
    );

    /// Builds the provider.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a malformed base URL or header, or when the HTTP client cannot start.
    pub fn build(self) -> Result<OpenAiProvider, BuildError> {
        OpenAiProvider::from_settings(self.settings)
    }
}

/// An OpenAI-compatible Chat Completions provider bound to one model (§8.1).
///
/// Structured output takes the native path (`response_format` with `strict: true` when the schema meets
/// strict mode, else `strict: false`) unless [`Capabilities::native_response_format`](crate::Capabilities::native_response_format) is `false` or the server
/// rejected a native request earlier; then it takes prompt augmentation. The path is on every response and
/// error ([`Response::structured_output_path`](crate::Response::structured_output_path)).
pub struct OpenAiProvider {
    endpoint: Endpoint,
}

impl OpenAiProvider {
    /// A builder for a provider bound to `model`.
    pub fn builder(model: impl Into<String>) -> OpenAiProviderBuilder {
        OpenAiProviderBuilder {
            settings: settings(model.into()),
        }
    }

    async fn probe_ready(&self) -> Result<(), ProviderError> {
        ready::probe(&self.endpoint).await
    }
}

provider_impls!(OpenAiProvider, ChatCompletions, KeyHeader::Bearer, &[]);

/// The Chat Completions wire format.
pub(crate) struct ChatCompletions;

impl WireFormat for ChatCompletions {
    fn mapping(&self) -> Mapping {
        Mapping::OpenAi
    }

    fn native_path(&self, schema: &ResponseSchema) -> StructuredOutputPath {
        if *schema
            .strict_compatible
            .get_or_init(|| is_strict_compatible(&schema.schema))
        {
            StructuredOutputPath::Native
        } else {
            StructuredOutputPath::NativeUnenforced
        }
    }

    fn completion_path(&self, _model: &str, _stream: bool) -> Cow<'static, str> {
        Cow::Borrowed("/chat/completions")
    }

    fn body(&self, request: &WireRequest<'_>) -> Result<WireBody, ProviderError> {
        request::build_body(request)
    }

    fn map_body(&self, raw: &Value, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
        view::map_body(raw, tools)
    }

    fn map_bytes(&self, body: &[u8], tools: &CheckedTools<'_>) -> Option<Result<Mapped, ProviderError>> {
        view::map_bytes(body, tools)
    }

    fn stream_fold(&self) -> Option<Box<dyn StreamFold>> {
        Some(Box::new(stream::StreamAssembler::default()))
    }

    fn error_code_fields(&self) -> &'static [&'static str] {
        &["code", "type"]
    }

    fn category(&self, status: u16, body: &ErrorBody) -> Category {
        status::category(status, body)
    }

    /// The shared mapping, and LM Studio's two envelopes (an OpenAI-compatible server's) classed exactly.
    fn error_for_status(
        &self,
        status: u16,
        body: &[u8],
        retry_after: Option<&str>,
        scrub: &dyn Fn(&str) -> String,
    ) -> ProviderError {
        let read = ErrorBody::read(body, self.error_code_fields());
        let error = status_error(status, self.category(status, &read), &read, retry_after, scrub);
        let parsed: Option<Value> = serde_json::from_slice(body).ok();
        match lm_studio::recognize(status, parsed.as_ref()) {
            Some(class) => error.with_failure_class(class),
            None => error,
        }
    }

    fn native_fields(&self) -> &'static [&'static str] {
        &["response_format", "json_schema"]
    }

    /// OpenAI words a schema it refuses "Invalid schema for response_format 'NAME': In context=(...), DETAIL".
    fn schema_rejection<'e>(&self, error: &'e ProviderError) -> Option<&'e str> {
        let detail = crate::call::wire::schema_detail(error.message(), "invalid schema for response_format")?;
        Some(detail.split_once("), ").map_or(detail, |(_, detail)| detail))
    }
}
