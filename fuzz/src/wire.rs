//! Checks shared by the response-decoder targets (`openai_response`, `anthropic_response`, `gemini_response`) and
//! the `sse` target: what any decoded response, error or event sequence must satisfy, and how an input is cut
//! into the pieces a network might deliver.
//!
//! A decoder input is one flags byte, then the response bytes. Bit 0 chooses how the call was made (declared
//! tools, or on Anthropic the tool-coercion path); bit 1 a streamed response (where the mapping streams); bit 2 a small SSE
//! line cap; the other bits seed where a stream is cut.

use std::sync::OnceLock;

use oa_provider::fuzzing::{Calling, Decoded, StreamDecoded, decode, decode_reference, decode_stream};
use oa_provider::{Category, Content, FinishReason, Mapping, ProviderError, Tool};
use oa_provider::model::ContentBlock;
use oa_provider::hook::DeltaKind;
use serde_json::{Value, json};

/// Text the scrubber replaces: an echoed key must never survive into an error.
pub const CANARY: &str = "sk-CANARY";

/// The scrubber the streams are decoded with, as the transport's replaces the key.
pub fn scrub(text: &str) -> String {
    text.replace(CANARY, "[redacted]")
}

/// The one declared tool calls are checked against.
fn declared_tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        vec![Tool::new(
            "lookup",
            "Looks a word up.",
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
        )]
    })
}

/// The response schema of the tool-coercion path.
fn coercion_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| json!({"type": "object", "properties": {"answer": {"type": "string"}}}))
}

/// An input read: how the call was made, whether to stream, the SSE line cap, the cut seed, the response bytes.
#[derive(Debug)]
pub struct Input<'a> {
    /// How the call was made: declared tools, or the tool-coercion path.
    pub calling: Calling<'static>,
    /// Whether the response is read as a stream.
    pub stream: bool,
    /// The SSE line cap.
    pub max_line_bytes: usize,
    /// Where a stream is cut (see [`cut`]).
    pub seed: u8,
    /// The response bytes.
    pub body: &'a [u8],
}

impl<'a> Input<'a> {
    /// Reads the flags byte; `None` for an empty input. Only Anthropic's mapping has a tool-coercion path.
    pub fn read(mapping: Mapping, data: &'a [u8]) -> Option<Self> {
        let (&flags, body) = data.split_first()?;
        Some(Self {
            calling: if flags & 1 == 1 && mapping == Mapping::Anthropic {
                Calling::Coerced(coercion_schema())
            } else {
                Calling::Tools(declared_tools())
            },
            stream: flags & 2 != 0,
            max_line_bytes: if flags & 4 != 0 { 64 } else { 1 << 20 },
            seed: flags >> 3,
            body,
        })
    }
}

/// `data` cut into pieces at points drawn from `seed` (a small xorshift), every piece non-empty.
pub fn cut(data: &[u8], seed: u8) -> Vec<&[u8]> {
    let mut state = u32::from(seed).wrapping_mul(0x9E37_79B9) | 1;
    let mut pieces = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let length = 1 + (state as usize % 24).min(rest.len() - 1);
        let (piece, tail) = rest.split_at(length);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// An error as comparable facts: category, message, and the content a stream had delivered.
pub fn facts(error: &ProviderError) -> (Category, String, Option<String>) {
    (
        error.category(),
        error.message().to_owned(),
        error.partial_stream().map(|partial| partial.content.clone()),
    )
}

/// Decodes one input as `mapping` would and checks the result; streams are decoded whole, byte by byte and cut
/// at random, and must agree.
pub fn check(mapping: Mapping, data: &[u8]) {
    let Some(input) = Input::read(mapping, data) else {
        return;
    };
    if input.stream {
        check_stream(mapping, &input);
        return;
    }
    let outcome = decode(mapping, input.body, input.calling, &scrub);
    match &outcome {
        Ok(decoded) => {
            let parsed: Value = serde_json::from_slice(input.body).expect("a decoded body is JSON");
            assert_eq!(decoded.raw, parsed, "raw is not the body verbatim");
            check_decoded(mapping, &input, decoded);
        }
        Err(error) => {
            assert_eq!(error.category(), Category::InvalidResponse, "{error}");
            check_error(error);
        }
    }
    // The mapping's typed view (where it has one) reads the body first; the reference route must agree.
    let reference = decode_reference(mapping, input.body, input.calling, &scrub);
    match (&outcome, &reference) {
        (Ok(first), Ok(second)) => assert_eq!(first, second, "the typed view and the reference route differ"),
        (Err(first), Err(second)) => assert_eq!(facts(first), facts(second)),
        _ => panic!("the typed view and the reference route differ: {outcome:?} vs {reference:?}"),
    }
}

fn check_stream(mapping: Mapping, input: &Input<'_>) {
    let run = |pieces: Vec<&[u8]>| -> Option<StreamDecoded> {
        decode_stream(mapping, pieces, input.max_line_bytes, input.calling, &scrub)
    };
    let Some(whole) = run(vec![input.body]) else {
        return;
    };
    let bytewise = run(input.body.chunks(1).collect()).expect("the mapping streams");
    let random = run(cut(input.body, input.seed)).expect("the mapping streams");
    for other in [&bytewise, &random] {
        assert_eq!(whole.1, other.1, "the deltas depend on how the stream was cut");
        match (&whole.0, &other.0) {
            (Ok(first), Ok(second)) => assert_eq!(first, second, "the response depends on the cuts"),
            (Err(first), Err(second)) => {
                assert_eq!(facts(first), facts(second), "the error depends on the cuts")
            }
            (first, second) => panic!("the outcome depends on the cuts: {first:?} / {second:?}"),
        }
    }
    let (outcome, deltas) = whole;
    let joined = |kind: DeltaKind| -> String {
        deltas
            .iter()
            .filter(|(delta_kind, _)| *delta_kind == kind)
            .map(|(_, text)| text.as_str())
            .collect()
    };
    match &outcome {
        Ok(decoded) => {
            check_decoded(mapping, input, decoded);
            if matches!(input.calling, Calling::Tools(_)) {
                let (text, thinking) = texts(decoded);
                assert_eq!(
                    joined(DeltaKind::Content),
                    text,
                    "content deltas are not the content"
                );
                assert_eq!(
                    joined(DeltaKind::Reasoning),
                    thinking,
                    "reasoning deltas are not the reasoning"
                );
            }
        }
        Err(error) => {
            assert!(
                matches!(
                    error.category(),
                    Category::InvalidResponse | Category::Unavailable
                ),
                "{error}"
            );
            check_error(error);
            if let Some(partial) = error.partial_stream() {
                assert_eq!(
                    partial.content,
                    joined(DeltaKind::Content),
                    "the partial content is not the deltas"
                );
            }
        }
    }
}

/// The text and the thinking of a decoded message.
fn texts(decoded: &Decoded) -> (String, String) {
    match &decoded.message.content {
        None => (String::new(), String::new()),
        Some(Content::Text(text)) => (text.clone(), String::new()),
        Some(Content::Blocks(blocks)) => {
            let (mut text, mut thinking) = (String::new(), String::new());
            for block in blocks {
                match block {
                    ContentBlock::Text { text: piece, .. } => text.push_str(piece),
                    ContentBlock::Thinking { text: piece, .. } => thinking.push_str(piece),
                    _ => {}
                }
            }
            (text, thinking)
        }
    }
}

/// No error carries the canary, in its message, its Display or its Debug.
fn check_error(error: &ProviderError) {
    for text in [
        error.message().to_owned(),
        error.to_string(),
        format!("{error:?}"),
    ] {
        assert!(
            !text.contains(CANARY),
            "an echoed secret survived into an error: {text}"
        );
    }
}

fn check_decoded(mapping: Mapping, input: &Input<'_>, decoded: &Decoded) {
    assert_eq!(decoded.message.role, oa_provider::Role::Assistant);
    let calls = decoded.message.tool_calls.as_deref().unwrap_or_default();
    match input.calling {
        Calling::Tools(tools) => {
            // A response that did not end in error has had every call checked against the declared tools.
            if decoded.finish_reason != FinishReason::Error {
                for call in calls {
                    assert!(
                        tools.iter().any(|tool| tool.name == call.name),
                        "{call:?} names no declared tool"
                    );
                    assert!(!call.id.is_empty(), "{call:?} has no id");
                    assert!(
                        call.arguments.is_object(),
                        "{call:?}: arguments are not an object"
                    );
                }
            }
            if mapping == Mapping::Gemini {
                assert_eq!(
                    !calls.is_empty(),
                    decoded.finish_reason == FinishReason::ToolCalls,
                    "a Gemini response finishes tool_calls exactly when it has calls"
                );
            }
        }
        Calling::Coerced(_) => {
            assert!(
                calls.is_empty(),
                "the synthetic tool's call was not read back: {calls:?}"
            );
            assert_ne!(decoded.finish_reason, FinishReason::ToolCalls);
        }
    }
    if mapping == Mapping::Anthropic {
        let usage = decoded.usage;
        assert_eq!(
            usage.total_tokens,
            usage
                .prompt_tokens
                .zip(usage.completion_tokens)
                .and_then(|(prompt, completion)| prompt.checked_add(completion)),
            "Anthropic's total is the sum of its two counters"
        );
    }
}
