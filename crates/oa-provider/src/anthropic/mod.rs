//! The §8.2 Anthropic Messages wire format: [`AnthropicProvider`](crate::AnthropicProvider), its builder, and every rule that is Anthropic's
//! own (request and response mapping, status mapping, which structured-output paths it takes).

pub(crate) mod provider;
mod request;
mod response;
mod status;
mod view;

use std::borrow::Cow;

use crate::call::CompletionRequest;
use crate::call::wire::{StreamFold, WireFormat};
use crate::model::ProviderError;
use crate::model::{Mapping, StructuredOutputPath, ToolChoice};
use crate::structured::ResponseSchema;

crate::endpoint::mapping_defaults!(
    "ANTHROPIC_API_KEY",
    "https://api.anthropic.com/v1",
    "The base URL used unless the builder sets one: the API root ending in `/v1`.",
    "anthropic",
    AnthropicProviderBuilder
);

/// The `anthropic-version` header sent with every request (a caller's `header("anthropic-version", …)` replaces
/// it).
pub const API_VERSION: &str = "2023-06-01";

/// The Messages wire format.
pub(crate) struct Messages;

impl WireFormat for Messages {
    fn mapping(&self) -> Mapping {
        Mapping::Anthropic
    }

    /// Always `native`: the format has no non-binding form (0126 on §8.2.5).
    fn native_path(&self, _schema: &ResponseSchema) -> StructuredOutputPath {
        StructuredOutputPath::Native
    }

    /// §8.2.5.1: tool coercion when the caller supplied no tools (and did not forbid tool use), else the prompt.
    fn fallback_path(&self, request: &CompletionRequest) -> StructuredOutputPath {
        if request.tools.is_empty() && request.tool_choice != Some(ToolChoice::None) {
            StructuredOutputPath::ToolCoercion
        } else {
            StructuredOutputPath::PromptAugmentation
        }
    }

    fn completion_path(&self, _model: &str, _stream: bool) -> Cow<'static, str> {
        Cow::Borrowed("/messages")
    }

    crate::call::wire::delegate_to_mapping!();

    fn stream_fold(&self) -> Option<Box<dyn StreamFold>> {
        None
    }

    fn error_code_fields(&self) -> &'static [&'static str] {
        &["type"]
    }

    fn native_fields(&self) -> &'static [&'static str] {
        &["output_config", "output_format"]
    }

    /// Anthropic names the schema's field before its words: "output_config.format.schema: DETAIL" (the older beta
    /// field `output_format.schema` alike).
    fn schema_rejection<'e>(&self, error: &'e ProviderError) -> Option<&'e str> {
        crate::call::wire::schema_detail(error.message(), "format.schema")
    }
}
