//! One wire exchange: POST the body, map a non-success status, then read the response atomically or as a stream
//! (token deltas handed to the hook as they are decoded), ending with the wire format's mapped parts.

use bytes::Bytes;
use serde_json::Value;

use crate::call::CompletionRequest;
use crate::call::hook::{AttemptHook, DeltaKind, PartialValue, TokenDelta};
use crate::call::stream_check::StreamCheck;
use crate::call::wire::{Mapped, StreamFold, WireFormat};
use crate::endpoint::Endpoint;
use crate::http::Reply;
use crate::http::sse::SseDecoder;
use crate::model::RawJson;
use crate::model::{Category, PartialStream, ProviderError};
use crate::structured::{CallSchema, CheckedTools};

pub(crate) struct Exchange<'a> {
    pub(crate) endpoint: &'a Endpoint,
    pub(crate) wire: &'a dyn WireFormat,
    pub(crate) request: &'a CompletionRequest,
    pub(crate) tools: &'a CheckedTools<'a>,
    pub(crate) call_id: &'a str,
    pub(crate) hook: Option<&'a dyn AttemptHook>,
    pub(crate) attempt_index: u32,
    /// The schema a streamed answer's content is checked against as it arrives (`stream_check.rs`); `None` when
    /// the answer is not read from content as is (no schema, tool coercion, a fitted schema mapped back).
    pub(crate) stream_schema: Option<&'a CallSchema>,
}

impl Exchange<'_> {
    pub(crate) async fn run(&self, body: Bytes) -> Result<(Mapped, RawJson), ProviderError> {
        let transport = &self.endpoint.transport;
        let stream = self.request.stream;
        let mut reply = transport
            .post(
                &self.wire.completion_path(&self.endpoint.model, stream),
                body,
                stream,
            )
            .await?;
        if !(200..300).contains(&reply.status) {
            let body = transport.read_body(&mut reply).await.unwrap_or_default();
            return Err(self.wire.error_for_status(
                reply.status,
                &body,
                reply.retry_after.as_deref(),
                &|text| transport.scrub(text),
            ));
        }
        if stream {
            return self.read_stream(&mut reply).await;
        }
        let body = transport.read_body(&mut reply).await?;
        decode_body(self.wire, body, self.tools, &|text| transport.scrub(text))
    }

    async fn read_stream(&self, reply: &mut Reply) -> Result<(Mapped, RawJson), ProviderError> {
        let transport = &self.endpoint.transport;
        let Some(mut reader) = StreamReader::new(self.wire, transport.limits.max_sse_line_bytes) else {
            return Err(ProviderError::invalid_request(format!(
                "the {} mapping does not support streaming",
                self.wire.mapping()
            )));
        };
        let partials = self.hook.is_some_and(|hook| hook.wants_partials());
        let mut check = self
            .stream_schema
            .filter(|_| partials || self.request.early_stop)
            .map(|schema| StreamCheck::new(schema, partials, self.request.early_stop));
        let scrub = |text: &str| transport.scrub(text);
        loop {
            let chunk = match transport.next_chunk(reply).await {
                Ok(chunk) => chunk,
                Err(error) => return Err(error.with_partial(reader.partial())),
            };
            let mut emit = |kind: DeltaKind, text: &str| self.emit(check.as_mut(), kind, text);
            let ended = reader.feed(chunk.as_deref(), &mut emit, &scrub)?;
            // Early stop: the reply is dropped with the stream unread, which closes the connection. Checked even when
            // this chunk ended the stream, so that where an answer stops does not depend on how the network cut it.
            if let Some(failure) = check
                .as_ref()
                .filter(|check| check.stopped())
                .and_then(|check| check.failure(reader.partial().content))
            {
                return Err(failure);
            }
            if ended {
                break;
            }
        }
        reader.finish(self.tools, &scrub)
    }
}

impl Exchange<'_> {
    /// A delta decoded: its token event, then (content) the incremental check and the values it completed.
    fn emit(&self, check: Option<&mut StreamCheck<'_>>, kind: DeltaKind, text: &str) {
        if let Some(hook) = self.hook {
            hook.on_token(&TokenDelta {
                provider: &self.endpoint.system,
                model: &self.endpoint.model,
                call_id: self.call_id,
                attempt_index: self.attempt_index,
                kind,
                text,
            });
        }
        let Some(check) = check.filter(|_| kind == DeltaKind::Content) else {
            return;
        };
        check.content(text);
        let Some(hook) = self.hook else {
            return;
        };
        for (done, certain_violations) in check.take_completed() {
            hook.on_partial(&PartialValue {
                provider: &self.endpoint.system,
                model: &self.endpoint.model,
                call_id: self.call_id,
                attempt_index: self.attempt_index,
                pointer: &done.pointer,
                value: &done.value,
                certain_violations,
            });
        }
    }
}

/// An atomic response body to the wire format's mapped parts and its `raw` JSON; `scrub` is applied to an error's
/// message, which may quote the body. The wire format's typed view reads it first, and `raw` keeps the bytes
/// unparsed; a body the view does not read is parsed into a `Value` and mapped from that.
pub(crate) fn decode_body(
    wire: &dyn WireFormat,
    body: Bytes,
    tools: &CheckedTools<'_>,
    scrub: &dyn Fn(&str) -> String,
) -> Result<(Mapped, RawJson), ProviderError> {
    if let Some(mapped) = wire.map_bytes(&body, tools) {
        let mapped = mapped.map_err(|error| error.scrubbed(scrub))?;
        return Ok((mapped, RawJson::unparsed(body)));
    }
    decode_value(wire, &body, tools, scrub)
}

/// The `Value` route of [`decode_body`]: the body parsed into a `Value` and mapped from that.
pub(crate) fn decode_value(
    wire: &dyn WireFormat,
    body: &[u8],
    tools: &CheckedTools<'_>,
    scrub: &dyn Fn(&str) -> String,
) -> Result<(Mapped, RawJson), ProviderError> {
    let raw: Value = serde_json::from_slice(body)
        .map_err(|_| ProviderError::invalid_response("response body is not JSON"))?;
    let mapped = wire
        .map_body(&raw, tools)
        .map_err(|error| error.scrubbed(scrub))?;
    Ok((mapped, RawJson::from(raw)))
}

/// A streamed response's `id` string, from its assembled `raw` (observability's `gen_ai.response.id`: "the `id`
/// field on the response body"; an atomic body's is read by the mapping's view).
fn response_id(raw: &Value) -> Option<String> {
    raw.get("id").and_then(Value::as_str).map(str::to_owned)
}

/// A streamed response read chunk by chunk, however the bytes are split: Server-Sent Events decoded, each event's
/// data folded by the wire format, and content deltas handed to `emit` as they are folded.
pub(crate) struct StreamReader {
    decoder: SseDecoder,
    fold: Box<dyn StreamFold>,
}

impl StreamReader {
    /// A reader for `wire`'s stream; `None` when the mapping does not stream.
    pub(crate) fn new(wire: &dyn WireFormat, max_sse_line_bytes: usize) -> Option<Self> {
        Some(Self {
            decoder: SseDecoder::new(max_sse_line_bytes),
            fold: wire.stream_fold()?,
        })
    }

    /// Feeds the next chunk, `None` at the end of the stream; `true` once nothing more is to be read (the terminal
    /// marker arrived, or the stream ended).
    ///
    /// # Errors
    ///
    /// A malformed event stream, a chunk the fold rejects, or an error the provider sent in the stream; each
    /// carries what had arrived. An event the end of the stream completed (no blank line closed it) that cannot be
    /// read is the connection cut mid-event: `provider_unavailable`, which a retry may cure, not a malformed answer.
    pub(crate) fn feed(
        &mut self,
        chunk: Option<&[u8]>,
        emit: &mut dyn FnMut(DeltaKind, &str),
        scrub: &dyn Fn(&str) -> String,
    ) -> Result<bool, ProviderError> {
        let mut events = Vec::new();
        let decoded = match chunk {
            Some(bytes) => self.decoder.push(bytes, &mut events),
            None => self.decoder.finish(&mut events),
        };
        let cut_mid_event = |error: ProviderError, partial: PartialStream| {
            if chunk.is_none() && error.is_invalid_response() {
                ProviderError::new(
                    Category::Unavailable,
                    format!("the stream ended mid-event: {}", error.message()),
                )
                .with_partial(partial)
            } else {
                error
            }
        };
        // Events completed before a bad line are folded in first, so the error carries what arrived.
        for event in events {
            if let Err(error) = self.fold.on_data(&event.data, emit, scrub) {
                return Err(cut_mid_event(error, self.fold.partial()));
            }
            if self.fold.is_done() {
                return Ok(true);
            }
        }
        if let Err(error) = decoded {
            let error = ProviderError::invalid_response(format!("malformed event stream: {error}"))
                .with_partial(self.fold.partial());
            return Err(cut_mid_event(error, self.fold.partial()));
        }
        Ok(chunk.is_none())
    }

    /// What has arrived, for an error raised mid-stream.
    pub(crate) fn partial(&self) -> PartialStream {
        self.fold.partial()
    }

    /// The assembled response once [`feed`](Self::feed) said the stream is over.
    ///
    /// # Errors
    ///
    /// `provider_unavailable` when the stream ended before its terminal marker or a finish reason; the wire
    /// format's mapping errors, with `scrub` applied to their messages (they may quote the stream).
    pub(crate) fn finish(
        &self,
        tools: &CheckedTools<'_>,
        scrub: &dyn Fn(&str) -> String,
    ) -> Result<(Mapped, RawJson), ProviderError> {
        if !self.fold.is_done() && !self.fold.is_complete() {
            return Err(
                ProviderError::new(Category::Unavailable, "stream ended before it completed")
                    .with_partial(self.fold.partial()),
            );
        }
        let (mut mapped, raw) = self.fold.finish(tools).map_err(|error| error.scrubbed(scrub))?;
        mapped.response_id = response_id(&raw);
        Ok((mapped, RawJson::from(raw)))
    }
}
