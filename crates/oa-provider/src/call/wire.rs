//! What a wire format contributes to a call. Everything else — pre-checks, the structured-output path, retry and
//! reask, validation, schema_mode, attempt records and diagnostics — is the vendor-neutral driver's, so a new wire
//! format is one folder implementing [`WireFormat`] and [`StreamFold`].

use std::borrow::Cow;

use serde_json::Value;

use crate::call::CompletionRequest;
use crate::call::hook::DeltaKind;
use crate::call::status::{ErrorBody, status_error};
use crate::model::{
    Blocked, Content, ContentBlock, FinishReason, Mapping, Message, RuntimeConfig, Tool, ToolChoice, Usage,
};
use crate::model::{Category, PartialStream, ProviderError};
use crate::structured::{CheckedTools, ResponseSchema, StructuredOutputPath, WireToolCall};

/// One attempt's request, as the driver hands it to the wire format to encode.
#[derive(Debug)]
pub(crate) struct WireRequest<'a> {
    /// The bound model.
    pub(crate) model: &'a str,
    /// The messages to send: the caller's, as reask extended them, with a prompt-augmentation directive if any.
    pub(crate) messages: &'a [Message],
    /// The caller's tools; on the `tool_coercion` path, the synthetic tool alone.
    pub(crate) tools: &'a [Tool],
    /// The caller's tool choice; on the `tool_coercion` path, the one forcing the synthetic tool.
    pub(crate) tool_choice: Option<&'a ToolChoice>,
    /// The attempt's config, after its `per_attempt_override`.
    pub(crate) config: &'a RuntimeConfig,
    /// The schema and the path it takes, when the call is structured. On the native paths the wire format puts
    /// the schema in its native constraint; on the fallback paths the driver has already done its part.
    pub(crate) structured: Option<(StructuredOutputPath, &'a ResponseSchema)>,
    /// Whether to ask for a streamed response.
    pub(crate) stream: bool,
}

/// One attempt's encoded body. The response schema's canonical text, made once per compiled schema, goes in as it
/// is, so a structured call neither copies the schema tree nor serializes it again.
#[derive(Debug)]
pub(crate) enum WireBody {
    /// The body as a JSON value, with the response schema's place in it when the native constraint carries one
    /// (the value holds `null` there; its canonical text is written in).
    Value {
        value: Value,
        /// Where the schema goes (a path of object keys from the root), and the schema.
        schema: Option<(&'static [&'static str], ResponseSchema)>,
    },
    /// The body's canonical text, written directly (Chat Completions: the hot path builds no `Value` tree).
    Text(String),
}

impl WireBody {
    /// The body's canonical text: the bytes sent and the attempt record's `body`.
    pub(crate) fn into_canonical_text(self) -> String {
        match self {
            Self::Value { value, schema } => {
                let splice = schema.as_ref().map(|(at, schema)| crate::canonical::Splice {
                    at,
                    text: &schema.canonical,
                });
                crate::canonical::to_string_spliced(&value, splice)
            }
            Self::Text(text) => text,
        }
    }
}

/// The §6 parts a wire format reads from a response, before structured-output validation.
#[derive(Debug, PartialEq)]
pub(crate) struct Mapped {
    pub(crate) message: Message,
    pub(crate) finish_reason: FinishReason,
    pub(crate) usage: Usage,
    pub(crate) model: Option<String>,
    /// The body's `id` string: read by the mapping's view, or set by the driver from a stream's assembled body.
    pub(crate) response_id: Option<String>,
    /// The provider's statement that it blocked the prompt or the answer.
    pub(crate) blocked: Option<Blocked>,
}

/// What a mapping whose answer is content blocks (Anthropic, Gemini) reads from a body (its `view`: from the
/// bytes, or from the parsed `Value`).
pub(crate) struct BlocksRead<'a> {
    pub(crate) blocks: Vec<ContentBlock>,
    pub(crate) raw_calls: Vec<WireToolCall>,
    /// The wire's own finish reason (`stop_reason`, `finishReason`), when a string.
    pub(crate) wire_finish: Option<&'a str>,
    pub(crate) usage: Usage,
    pub(crate) model: Option<String>,
}

impl Mapped {
    /// The parts of an answer read as content blocks and tool calls (Anthropic, Gemini): the tool calls checked
    /// against the declared tools, unless the finish reason is `error` (a degraded answer keeps them unchecked).
    pub(crate) fn from_blocks(
        read: BlocksRead<'_>,
        finish_reason: FinishReason,
        tools: &CheckedTools<'_>,
    ) -> Result<Self, ProviderError> {
        let degraded = finish_reason == FinishReason::Error;
        let tool_calls = read
            .raw_calls
            .into_iter()
            .map(|call| tools.check(call, degraded))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            message: Message::reply(Content::from_blocks(read.blocks), tool_calls),
            finish_reason,
            usage: read.usage,
            model: read.model,
            response_id: None,
            blocked: None,
        })
    }
}

/// One provider wire format: OpenAI Chat Completions, Anthropic Messages, Gemini `generateContent`.
pub(crate) trait WireFormat: Send + Sync {
    /// Which §8 mapping this is (carried on every attempt record).
    fn mapping(&self) -> Mapping;

    /// The native path `schema` takes on this wire format: `native` when the native constraint can bind decoding
    /// for this schema, else `native_unenforced`.
    fn native_path(&self, schema: &ResponseSchema) -> StructuredOutputPath;

    /// The path a structured call takes when the native one is unavailable or was rejected. On `tool_coercion`
    /// the driver sends the synthetic tool (and its forced choice) in place of the caller's (none) and reads the
    /// answer back from its call.
    fn fallback_path(&self, request: &CompletionRequest) -> StructuredOutputPath {
        let _ = request;
        StructuredOutputPath::PromptAugmentation
    }

    /// The request path under the base URL a completion for `model` is POSTed to.
    fn completion_path(&self, model: &str, stream: bool) -> Cow<'static, str>;

    /// Encodes one attempt's body.
    ///
    /// # Errors
    ///
    /// `provider_invalid_request` for a request the wire format cannot express (a managed-field collision).
    fn body(&self, request: &WireRequest<'_>) -> Result<WireBody, ProviderError>;

    /// Maps an atomic response body, parsed (the route a body [`map_bytes`](Self::map_bytes) declines takes).
    ///
    /// # Errors
    ///
    /// `provider_invalid_response` for a body that is not the wire format's shape.
    fn map_body(&self, raw: &Value, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError>;

    /// Maps an atomic response body straight from its bytes through a typed view of the wire format's shape,
    /// building no `Value` (the response's `raw` is then parsed only if someone reads it).
    ///
    /// `None` when the view does not read the body (a shape it does not expect, a member of another type, a
    /// repeated member): the driver then parses the body and calls [`map_body`](Self::map_body), which reads the
    /// same member tables from the `Value` (`call/view/`). `Some` promises two things: the result (mapped parts
    /// with `response_id`, or error) is exactly `map_body`'s on the parsed body, and the bytes parse as a `Value`
    /// (the view reads every member, unknown ones too, as strictly as a `Value` parse does). The default has no
    /// view.
    fn map_bytes(&self, body: &[u8], tools: &CheckedTools<'_>) -> Option<Result<Mapped, ProviderError>> {
        let _ = (body, tools);
        None
    }

    /// A fresh fold for one streamed response; `None` when the mapping does not stream (§5), so a `stream` call
    /// is rejected before anything is sent.
    fn stream_fold(&self) -> Option<Box<dyn StreamFold>>;

    /// The fields of the `{"error": {…}}` envelope that name the error, in the order its vendor code is chosen
    /// from.
    fn error_code_fields(&self) -> &'static [&'static str];

    /// The §7 category of a non-success `status` with this error body: the mapping's §8.x.3 table.
    fn category(&self, status: u16, body: &ErrorBody) -> Category;

    /// Maps a non-success status and its body to a §7 error. `scrub` removes secrets from echoed text.
    fn error_for_status(
        &self,
        status: u16,
        body: &[u8],
        retry_after: Option<&str>,
        scrub: &dyn Fn(&str) -> String,
    ) -> ProviderError {
        let read = ErrorBody::read(body, self.error_code_fields());
        let error = status_error(status, self.category(status, &read), &read, retry_after, scrub);
        match self.failure_class(status, body) {
            Some(class) => error.with_failure_class(class),
            None => error,
        }
    }

    /// The failure class of an error envelope the mapping recognises beyond its category table (an
    /// OpenAI-compatible server's own envelopes); none by default.
    fn failure_class(&self, status: u16, body: &[u8]) -> Option<crate::model::FailureClass> {
        let _ = (status, body);
        None
    }

    /// The request fields of the native constraint: a 400 naming one is the server rejecting it.
    fn native_fields(&self) -> &'static [&'static str];

    /// Whether `error` is the server rejecting the native structured-output constraint itself, so the call (and
    /// later calls on this provider) fall back (dynamic detection).
    fn is_native_rejection(&self, error: &ProviderError) -> bool {
        // A server envelope recognised as refusing the constraint (LM Studio's lazy-grammar rejection).
        if error.failure_class() == Some(crate::model::FailureClass::StructuredOutputUnsupported) {
            return true;
        }
        let message = error.message().to_ascii_lowercase();
        error.is_invalid_request()
            && error.status() == Some(400)
            && self.native_fields().iter().any(|field| message.contains(field))
    }

    /// When `error` (a native rejection) is about the schema sent rather than the constraint itself: the vendor's
    /// words about it (the clause it names), so only this schema falls back (or is refitted), not the route.
    fn schema_rejection<'e>(&self, error: &'e ProviderError) -> Option<&'e str> {
        let _ = error;
        None
    }
}

/// The [`WireFormat`] methods every mapping hands to its own modules, alike in each: `body` to
/// `request::build_body`, `map_body` and `map_bytes` to `view`, `category` to `status::category` (the paths resolve
/// in the mapping's module, where the macro is used inside its `impl WireFormat`). The same calls as written out.
macro_rules! delegate_to_mapping {
    () => {
        fn body(
            &self,
            request: &$crate::call::wire::WireRequest<'_>,
        ) -> Result<$crate::call::wire::WireBody, $crate::model::ProviderError> {
            request::build_body(request)
        }

        fn map_body(
            &self,
            raw: &serde_json::Value,
            tools: &$crate::structured::CheckedTools<'_>,
        ) -> Result<$crate::call::wire::Mapped, $crate::model::ProviderError> {
            view::map_body(raw, tools)
        }

        fn map_bytes(
            &self,
            body: &[u8],
            tools: &$crate::structured::CheckedTools<'_>,
        ) -> Option<Result<$crate::call::wire::Mapped, $crate::model::ProviderError>> {
            view::map_bytes(body, tools)
        }

        fn category(&self, status: u16, body: &$crate::call::status::ErrorBody) -> $crate::model::Category {
            status::category(status, body)
        }
    };
}
pub(crate) use delegate_to_mapping;

/// The vendor's words about the schema it rejected, when `message` (a 400's) names a place inside the sent schema
/// after `marker` (the mapping's path to its native schema, lowercase): what follows the marker's clause, for the
/// keyword a refit drops. `None` for a 400 about the native constraint itself.
pub(crate) fn schema_detail<'m>(message: &'m str, marker: &str) -> Option<&'m str> {
    let at = message.to_ascii_lowercase().find(marker)?;
    let rest = message.get(at + marker.len()..)?;
    Some(rest.split_once(": ").map_or(rest, |(_, detail)| detail))
}

/// Folds the events of one streamed response into the pieces of an atomic one.
pub(crate) trait StreamFold: Send {
    /// Folds one SSE `data` payload in; `emit` receives each content or reasoning delta as it arrives.
    ///
    /// # Errors
    ///
    /// A chunk that is not the wire format's shape, or an error the provider sent inside the stream.
    fn on_data(
        &mut self,
        data: &str,
        emit: &mut dyn FnMut(DeltaKind, &str),
        scrub: &dyn Fn(&str) -> String,
    ) -> Result<(), ProviderError>;

    /// Whether the stream's terminal marker arrived.
    fn is_done(&self) -> bool;

    /// Whether the stream is complete enough to map when the connection ends without the terminal marker.
    fn is_complete(&self) -> bool;

    /// What has arrived, for an error raised mid-stream.
    fn partial(&self) -> PartialStream;

    /// The assembled response and its `raw` form.
    ///
    /// # Errors
    ///
    /// As [`WireFormat::map_body`].
    fn finish(&self, tools: &CheckedTools<'_>) -> Result<(Mapped, Value), ProviderError>;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{Message, RuntimeConfig};

    /// Schemas whose canonical text differs from their text as written: keys out of order, nesting, escapes,
    /// non-ASCII, numbers, a title (OpenAI's name) and none (the name is a digest of the canonical bytes).
    fn schemas() -> Vec<Value> {
        vec![
            json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer", "minimum": 1.5}},
                   "required": ["b", "a"], "additionalProperties": false}),
            json!({"title": "Order ✓", "type": "object", "$defs": {"z": {"enum": ["é", "\u{1}", "\"q\""]}},
                   "properties": {"items": {"type": "array", "maxItems": 40,
                       "items": {"anyOf": [{"type": "null"}, {"type": "string", "pattern": "^[a-z]+\\$"}]}}}}),
            json!({"type": "object"}),
        ]
    }

    /// The three wire formats, with where each puts the native schema (the JSON Pointer the wire tests also read).
    fn wires() -> [(&'static dyn WireFormat, &'static str); 3] {
        [
            (
                &crate::openai::ChatCompletions,
                "/response_format/json_schema/schema",
            ),
            (&crate::anthropic::Messages, "/output_config/format/schema"),
            (
                &crate::gemini::GenerateContent,
                "/generationConfig/responseJsonSchema",
            ),
        ]
    }

    /// The body's text as sent, checked to be the canonical text of the value it reads back to (keys sorted, no
    /// whitespace, every string escaped as the canonical writer escapes it): so a schema spliced in as text, or a
    /// member that wrote itself, sends the bytes a value holding it would have been written as.
    fn as_sent(body: WireBody) -> (String, Value) {
        let text = body.into_canonical_text();
        let sent: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(crate::canonical::to_string(&sent), text);
        (text, sent)
    }

    fn request<'a>(
        config: &'a RuntimeConfig,
        messages: &'a [Message],
        structured: (StructuredOutputPath, &'a ResponseSchema),
    ) -> WireRequest<'a> {
        WireRequest {
            model: "m",
            messages,
            tools: &[],
            tool_choice: None,
            config,
            structured: Some(structured),
            stream: false,
        }
    }

    #[test]
    fn a_spliced_schema_sends_the_bytes_of_a_copied_one_on_every_mapping() {
        let config = RuntimeConfig {
            max_tokens: Some(64),
            ..RuntimeConfig::default()
        };
        let messages = [Message::user("hi")];
        for schema in schemas() {
            let compiled = ResponseSchema::check(&schema).unwrap();
            for (wire, pointer) in wires() {
                let native = wire.native_path(&compiled);
                for path in [native, StructuredOutputPath::PromptAugmentation] {
                    let body = wire
                        .body(&request(&config, &messages, (path, &compiled)))
                        .unwrap();
                    let (text, sent) = as_sent(body);
                    let native_sent = path == native;
                    assert_eq!(sent.pointer(pointer), native_sent.then_some(&schema));
                    assert_eq!(text.contains(&compiled.canonical), native_sent);
                }
            }
        }
    }

    /// Each scripted vendor's 400 for a schema (oa-testkit words them as the vendors do): the mapping takes it for a
    /// native rejection (so the call falls back, Anthropic's included), reads it as about this schema (not the
    /// route), and names the keyword a refit may drop; a 400 about the constraint itself is not about the schema.
    #[test]
    fn every_vendors_schema_400_is_a_native_rejection_naming_its_keyword() {
        use oa_testkit::vendor::Vendor;
        let object = |property: Value| {
            json!({"type": "object", "properties": {"a": property}, "required": ["a"],
                   "additionalProperties": false})
        };
        let cases: [(&dyn WireFormat, Vendor, Value, Option<&str>); 6] = [
            (
                &crate::openai::ChatCompletions,
                Vendor::OpenAi,
                object(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
                Some("uniqueItems"),
            ),
            (
                &crate::openai::ChatCompletions,
                Vendor::OpenAi,
                object(json!({"type": "string", "format": "uri"})),
                Some("format"),
            ),
            (
                &crate::anthropic::Messages,
                Vendor::Anthropic,
                object(json!({"type": "string", "maxLength": 3})),
                Some("maxLength"),
            ),
            (
                &crate::anthropic::Messages,
                Vendor::Anthropic,
                object(json!({"type": "string", "pattern": "^(?=a)"})),
                Some("pattern"),
            ),
            (
                &crate::anthropic::Messages,
                Vendor::Anthropic,
                json!({"type": "object"}),
                None,
            ),
            (
                &crate::gemini::GenerateContent,
                Vendor::Gemini,
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/b", "description": "d"}},
                    "$defs": {"b": {"type": "string"}}}),
                None,
            ),
        ];
        for (wire, vendor, schema, keyword) in cases {
            let rejection = vendor.check_schema(&schema).unwrap_err();
            let oa_testkit::Reply::Raw { status, body, .. } = rejection.reply() else {
                panic!("a vendor's 400 is a whole body");
            };
            let error = wire.error_for_status(status, &body, None, &|text| text.to_owned());
            assert!(wire.is_native_rejection(&error), "{vendor:?}: {error}");
            let detail = wire
                .schema_rejection(&error)
                .unwrap_or_else(|| panic!("{vendor:?}: {error}"));
            assert_eq!(
                crate::structured::rejected_keyword(detail),
                keyword,
                "{vendor:?}: {detail}"
            );
        }
        // The constraint itself refused: the route falls back, whatever the schema.
        for (wire, body) in [
            (
                &crate::openai::ChatCompletions as &dyn WireFormat,
                json!({"error": {"message": "unsupported parameter: response_format.json_schema", "type": "invalid_request_error"}}),
            ),
            (
                &crate::anthropic::Messages,
                json!({"type": "error", "error": {"type": "invalid_request_error", "message": "output_config: Extra inputs are not permitted"}}),
            ),
            (
                &crate::gemini::GenerateContent,
                json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "Invalid JSON payload received. Unknown name \"responseJsonSchema\" at 'generation_config': Cannot find field."}}),
            ),
        ] {
            let error =
                wire.error_for_status(400, body.to_string().as_bytes(), None, &|text| text.to_owned());
            assert!(wire.is_native_rejection(&error), "{error}");
            assert_eq!(wire.schema_rejection(&error), None, "{error}");
        }
    }

    #[test]
    fn extras_naming_the_native_constraint_are_compared_with_the_schema_in_place() {
        let compiled = ResponseSchema::check(&schemas()[0]).unwrap();
        let messages = [Message::user("hi")];
        let mut config = RuntimeConfig {
            max_tokens: Some(64),
            ..RuntimeConfig::default()
        };
        let wire = &crate::openai::ChatCompletions;
        let native = wire.native_path(&compiled);
        let (plain, sent) = as_sent(
            wire.body(&request(&config, &messages, (native, &compiled)))
                .unwrap(),
        );
        // The value as sent is a no-op in extras; a different schema is a conflict.
        config
            .extras
            .insert("response_format".to_owned(), sent["response_format"].clone());
        let same = wire
            .body(&request(&config, &messages, (native, &compiled)))
            .unwrap();
        assert_eq!(same.into_canonical_text(), plain);
        let mut other = sent["response_format"].clone();
        other["json_schema"]["schema"] = json!({"type": "object"});
        config.extras.insert("response_format".to_owned(), other);
        let error = wire
            .body(&request(&config, &messages, (native, &compiled)))
            .unwrap_err();
        assert!(error.is_invalid_request(), "{error}");
        // Gemini: the schema is the managed field itself.
        let gemini = &crate::gemini::GenerateContent;
        config.extras.clear();
        config
            .extras
            .insert("responseJsonSchema".to_owned(), schemas()[0].clone());
        let body = gemini
            .body(&request(
                &config,
                &messages,
                (StructuredOutputPath::Native, &compiled),
            ))
            .unwrap();
        let (_, gemini_sent) = as_sent(body);
        assert_eq!(
            gemini_sent.pointer("/generationConfig/responseJsonSchema"),
            Some(&schemas()[0])
        );
        config
            .extras
            .insert("responseJsonSchema".to_owned(), json!({"type": "object"}));
        assert!(
            gemini
                .body(&request(
                    &config,
                    &messages,
                    (StructuredOutputPath::Native, &compiled)
                ))
                .is_err()
        );
    }
}
