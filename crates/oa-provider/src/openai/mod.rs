//! The §8.1 OpenAI-compatible Chat Completions wire format: [`OpenAiProvider`](crate::OpenAiProvider), its builder, and every rule that is
//! OpenAI's own (request and response mapping, streaming chunks, status mapping, strict mode, schema names).

mod lm_studio;
pub(crate) mod provider;
mod ready;
mod request;
mod response;
mod status;
mod stream;
pub(crate) mod strict;
mod view;

use std::borrow::Cow;

use serde_json::Value;

pub(crate) use strict::is_strict_compatible;
pub use strict::{StrictObstacle, StrictRule, strict_mode_obstacle};

use crate::call::wire::{StreamFold, WireFormat};
use crate::model::{FailureClass, ProviderError};
use crate::model::{Mapping, StructuredOutputPath};
use crate::structured::ResponseSchema;

crate::endpoint::mapping_defaults!(
    "OPENAI_API_KEY",
    "https://api.openai.com/v1",
    "The base URL used unless the builder sets one.",
    "openai",
    OpenAiProviderBuilder
);

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

    crate::call::wire::delegate_to_mapping!();

    fn stream_fold(&self) -> Option<Box<dyn StreamFold>> {
        Some(Box::new(stream::StreamAssembler::default()))
    }

    fn error_code_fields(&self) -> &'static [&'static str] {
        &["code", "type"]
    }

    /// LM Studio's two envelopes (an OpenAI-compatible server's) classed exactly.
    fn failure_class(&self, status: u16, body: &[u8]) -> Option<FailureClass> {
        let parsed: Option<Value> = serde_json::from_slice(body).ok();
        lm_studio::recognize(status, parsed.as_ref())
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
