//! Entry points for the fuzz targets (`fuzz/` at the workspace root), behind the `fuzzing` feature: the response
//! decoding a wire exchange runs, reached through the same crate-internal code (the body decoder, the stream reader
//! and the tool-coercion read-back), so the fuzzers try what production runs instead of a copy. Not part of the
//! supported API. The crate's own tests and benches turn the feature on (a dev-dependency on the crate itself) to
//! reach the helpers below that have no caller outside them.

use serde_json::Value;

/// The `Retry-After` reader (target `retry_after`, the property tests).
pub use crate::http::retry_after::{parse_retry_after, parse_retry_after_at};
/// The Server-Sent Events decoder the streaming route reads with (target `sse`, the speed bench's decoder rows).
pub use crate::http::sse;
/// OpenAI's strict-mode predicate, [`strict_mode_obstacle`](crate::openai::strict_mode_obstacle) found nothing
/// (the crate's tests).
pub use crate::openai::strict::is_strict_compatible;

use crate::call::DeltaKind;
use crate::call::exchange::{StreamReader, decode_body, decode_value};
use crate::call::wire::{Mapped, WireFormat};
use crate::model::ProviderError;
use crate::model::{FinishReason, Mapping, Message, RawJson, Tool, Usage};
use crate::structured::{CheckedTools, coercion};

/// What a response decoded to: the §6 parts and the `raw` JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The assistant message.
    pub message: Message,
    /// The normalized finish reason.
    pub finish_reason: FinishReason,
    /// Token usage.
    pub usage: Usage,
    /// The model the response named.
    pub model: Option<String>,
    /// The body's `id` string.
    pub response_id: Option<String>,
    /// The parsed body, or the stream's assembled form.
    pub raw: Value,
}

/// How the call that receives the response was made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Calling<'a> {
    /// With these declared tools, whose calls are checked against them.
    Tools(&'a [Tool]),
    /// On the tool-coercion path with a synthetic tool of this schema: the tool call is read back as content.
    Coerced(&'a Value),
}

fn wire(mapping: Mapping) -> &'static dyn WireFormat {
    match mapping {
        Mapping::OpenAi => crate::openai::provider::WIRE,
        Mapping::Anthropic => crate::anthropic::provider::WIRE,
        Mapping::Gemini => crate::gemini::provider::WIRE,
    }
}

fn finish(
    calling: Calling<'_>,
    decode: impl FnOnce(&CheckedTools<'_>) -> Result<(Mapped, RawJson), ProviderError>,
) -> Result<Decoded, ProviderError> {
    let synthetic;
    let (tools, coerced) = match calling {
        Calling::Tools(tools) => (CheckedTools::new(tools), false),
        Calling::Coerced(schema) => {
            synthetic = [coercion::synthetic_tool(schema)];
            (CheckedTools::unchecked(&synthetic), true)
        }
    };
    let (mapped, raw) = decode(&tools)?;
    let mapped = if coerced {
        coercion::read_back(mapped)?
    } else {
        mapped
    };
    Ok(Decoded {
        message: mapped.message,
        finish_reason: mapped.finish_reason,
        usage: mapped.usage,
        model: mapped.model,
        response_id: mapped.response_id,
        raw: raw.into_value(),
    })
}

/// Decodes an atomic response body as `mapping` does after a 2xx.
///
/// # Errors
///
/// The error the call would return; `scrub` is applied to its message as the transport's scrubber is.
pub fn decode(
    mapping: Mapping,
    body: &[u8],
    calling: Calling<'_>,
    scrub: &dyn Fn(&str) -> String,
) -> Result<Decoded, ProviderError> {
    finish(calling, |tools| {
        decode_body(wire(mapping), bytes::Bytes::copy_from_slice(body), tools, scrub)
    })
}

/// Decodes an atomic body as [`decode`] does, but always by the reference route (the body parsed into a `Value`
/// and mapped from that), never the mapping's typed view: the two must agree wherever the view reads a body.
///
/// # Errors
///
/// The error the reference route returns.
pub fn decode_reference(
    mapping: Mapping,
    body: &[u8],
    calling: Calling<'_>,
    scrub: &dyn Fn(&str) -> String,
) -> Result<Decoded, ProviderError> {
    finish(calling, |tools| decode_value(wire(mapping), body, tools, scrub))
}

/// A stream's outcome and the deltas it reported, in order.
pub type StreamDecoded = (Result<Decoded, ProviderError>, Vec<(DeltaKind, String)>);

/// Decodes a streamed response delivered in `pieces` (then the end of the stream) as `mapping` does, with SSE
/// lines capped at `max_line_bytes`; the content and reasoning deltas reported, in order. `None` when the mapping
/// does not stream.
///
/// # Errors
///
/// The error the call would return; `scrub` is applied to provider text kept in one.
pub fn decode_stream<'p>(
    mapping: Mapping,
    pieces: impl IntoIterator<Item = &'p [u8]>,
    max_line_bytes: usize,
    calling: Calling<'_>,
    scrub: &dyn Fn(&str) -> String,
) -> Option<StreamDecoded> {
    let mut reader = StreamReader::new(wire(mapping), max_line_bytes)?;
    let mut deltas = Vec::new();
    let mut emit = |kind: DeltaKind, text: &str| deltas.push((kind, text.to_owned()));
    let mut pieces = pieces.into_iter();
    let outcome = finish(calling, |tools| {
        loop {
            let piece = pieces.next();
            if reader.feed(piece, &mut emit, scrub)? {
                break;
            }
        }
        reader.finish(tools, scrub)
    });
    Some((outcome, deltas))
}
