//! One wire exchange: POST the body, map a non-success status, then read the response atomically or as a stream
//! (token deltas handed to the hook as they are decoded), ending with the wire format's mapped parts.

use serde_json::Value;

use crate::call::hook::{DeltaKind, TokenDelta};
use crate::call::wire::{Mapped, WireFormat};
use crate::endpoint::Endpoint;
use crate::error::{Category, ProviderError};
use crate::http::Reply;
use crate::http::sse::SseDecoder;
use crate::model::CompletionRequest;
use crate::structured::CheckedTools;

pub(crate) struct Exchange<'a> {
    pub(crate) endpoint: &'a Endpoint,
    pub(crate) wire: &'a dyn WireFormat,
    pub(crate) request: &'a CompletionRequest,
    pub(crate) tools: &'a CheckedTools<'a>,
    pub(crate) call_id: &'a str,
    pub(crate) attempt_index: u32,
}

impl Exchange<'_> {
    pub(crate) async fn run(&self, body: Vec<u8>) -> Result<(Mapped, Value), ProviderError> {
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
        let raw: Value = serde_json::from_slice(&body)
            .map_err(|_| ProviderError::invalid_response("response body is not JSON"))?;
        Ok((self.wire.map_body(&raw, self.tools)?, raw))
    }

    async fn read_stream(&self, reply: &mut Reply) -> Result<(Mapped, Value), ProviderError> {
        let transport = &self.endpoint.transport;
        let mut decoder = SseDecoder::new(transport.limits.max_sse_line_bytes);
        let Some(mut fold) = self.wire.stream_fold() else {
            return Err(ProviderError::invalid_request(format!(
                "the {} mapping does not support streaming",
                self.wire.mapping()
            )));
        };
        let hook = self.request.hook.as_deref();
        let mut emit = |kind: DeltaKind, text: &str| {
            if let Some(hook) = hook {
                hook.on_token(&TokenDelta {
                    provider: &self.endpoint.system,
                    model: &self.endpoint.model,
                    call_id: self.call_id,
                    attempt_index: self.attempt_index,
                    kind,
                    text,
                });
            }
        };
        let scrub = |text: &str| transport.scrub(text);
        while !fold.is_done() {
            let chunk = match transport.next_chunk(reply).await {
                Ok(chunk) => chunk,
                Err(error) => return Err(error.with_partial(fold.partial())),
            };
            let mut events = Vec::new();
            let decoded = match &chunk {
                Some(bytes) => decoder.push(bytes, &mut events),
                None => decoder.finish(&mut events),
            };
            // Events completed before a bad line are folded in first, so the error carries what arrived.
            for event in events {
                fold.on_data(&event.data, &mut emit, &scrub)?;
                if fold.is_done() {
                    break;
                }
            }
            if !fold.is_done() {
                decoded.map_err(|error| {
                    ProviderError::invalid_response(format!("malformed event stream: {error}"))
                        .with_partial(fold.partial())
                })?;
            }
            if chunk.is_none() {
                break;
            }
        }
        if !fold.is_done() && !fold.is_complete() {
            return Err(
                ProviderError::new(Category::Unavailable, "stream ended before it completed")
                    .with_partial(fold.partial()),
            );
        }
        fold.finish(self.tools)
    }
}
