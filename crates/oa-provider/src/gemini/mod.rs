//! The §8.3 Google Gemini `generateContent` wire format: [`GeminiProvider`](crate::GeminiProvider), its builder, and every rule that is
//! Gemini's own (the model in the URL path, request and response mapping with thought signatures, status mapping).

pub(crate) mod provider;
mod request;
mod response;
mod status;
mod view;

use std::borrow::Cow;

use crate::call::wire::{StreamFold, WireFormat};
use crate::http::path_segment;
use crate::model::ProviderError;
use crate::model::{Mapping, StructuredOutputPath};
use crate::structured::ResponseSchema;

crate::endpoint::mapping_defaults!(
    "GEMINI_API_KEY",
    "https://generativelanguage.googleapis.com/v1beta",
    "The base URL used unless the builder sets one: the API root ending in `/v1beta`.",
    "gemini",
    GeminiProviderBuilder
);

/// The `generateContent` wire format.
pub(crate) struct GenerateContent;

impl WireFormat for GenerateContent {
    fn mapping(&self) -> Mapping {
        Mapping::Gemini
    }

    /// Always `native` (0126 on §8.3.5), whatever part of the schema Gemini's decoder supports.
    fn native_path(&self, _schema: &ResponseSchema) -> StructuredOutputPath {
        StructuredOutputPath::Native
    }

    fn completion_path(&self, model: &str, _stream: bool) -> Cow<'static, str> {
        Cow::Owned(format!("/models/{}:generateContent", path_segment(model)))
    }

    crate::call::wire::delegate_to_mapping!();

    fn stream_fold(&self) -> Option<Box<dyn StreamFold>> {
        None
    }

    fn error_code_fields(&self) -> &'static [&'static str] {
        &["status"]
    }

    fn native_fields(&self) -> &'static [&'static str] {
        &[
            "responsejsonschema",
            "response_json_schema",
            "responsemimetype",
            "response_mime_type",
        ]
    }

    /// Gemini names the place in the schema as a field path: "generation_config.response_json_schema.properties.a:
    /// DETAIL"; "Unknown name \"responseJsonSchema\"" (the field itself refused) is not about the schema.
    fn schema_rejection<'e>(&self, error: &'e ProviderError) -> Option<&'e str> {
        let message = error.message();
        let lower = message.to_ascii_lowercase();
        let named = lower.contains("response_json_schema.") || lower.contains("response_json_schema:");
        named
            .then(|| crate::call::wire::schema_detail(message, "response_json_schema"))
            .flatten()
    }
}
