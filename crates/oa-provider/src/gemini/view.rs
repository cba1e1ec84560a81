//! The reading of a `generateContent` body ([`WireFormat::map_bytes`](crate::call::wire::WireFormat) and
//! [`map_body`](crate::call::wire::WireFormat::map_body)): the member tables of the body, `candidates[0]`, its
//! content, a part, a `functionCall`, `usageMetadata` and `promptFeedback`, each member read from the bytes or
//! from a parsed `Value` by one rule (see [`view!`]). A `functionCall`'s `args` is the one member read into a
//! `Value` (the mapping writes it out canonically). What is read goes through [`assemble`] (or, for a prompt
//! blocked before any candidate, [`blocked`]).

use std::borrow::Cow;

use serde_json::Value;

use crate::call::view::{AsBool, AsStr, Counter, First, NullOr, Refusal, routes, view};
use crate::call::wire::{BlocksRead, Mapped};
use crate::canonical;
use crate::gemini::response::{assemble, blocked};
use crate::model::ProviderError;
use crate::model::{ContentBlock, Usage};
use crate::structured::{CheckedTools, WireToolCall};

routes!(Body => map);

fn map(body: Body<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let Body {
        candidate,
        usage,
        model,
        id,
        block_reason,
    } = body;
    let model = model.map(Cow::into_owned);
    let mut mapped = match (candidate, block_reason) {
        (Some(candidate), _) => assemble(
            BlocksRead {
                blocks: candidate.blocks,
                raw_calls: candidate.raw_calls,
                wire_finish: candidate.finish_reason.as_deref(),
                usage,
                model,
            },
            tools,
        )?,
        // A prompt blocked before any candidate was generated says so, and why, in promptFeedback.
        (None, Some(reason)) => blocked(reason.as_str().unwrap_or_default(), usage, model),
        (None, None) => return Err(ProviderError::invalid_response("response has no candidates[0]")),
    };
    mapped.response_id = id.map(Cow::into_owned);
    Ok(mapped)
}

/// The body's members the mapping reads; `candidate` is `None` when `candidates` is empty or not an array.
struct Body<'de> {
    candidate: Option<Candidate<'de>>,
    usage: Usage,
    model: Option<Cow<'de, str>>,
    id: Option<Cow<'de, str>>,
    /// `promptFeedback.blockReason`, when present (of any type).
    block_reason: Option<AsStr<'de>>,
}

view! {
    Body<'de>: object else "response body is not a JSON object" {
        candidates: First<Candidate<'de>> = "candidates",
        usage: Counts = "usageMetadata",
        model: AsStr<'de> = "modelVersion",
        id: AsStr<'de> = "id",
        feedback: Feedback<'de> = "promptFeedback",
    } => Ok(Body {
        candidate: First::of(candidates),
        usage: usage.map(|Counts(usage)| usage).unwrap_or_default(),
        model: AsStr::of(model),
        id: AsStr::of(id),
        block_reason: feedback.and_then(|Feedback(reason)| reason),
    })
}

/// `promptFeedback`, of any type: its `blockReason` when an object has one.
struct Feedback<'de>(Option<AsStr<'de>>);

view! {
    Feedback<'de>: any {
        block_reason: AsStr<'de> = "blockReason",
    } => Ok(Feedback(block_reason))
}

/// `candidates[0]`, of any type: its parts' blocks and calls, and its finish reason.
struct Candidate<'de> {
    blocks: Vec<ContentBlock>,
    raw_calls: Vec<WireToolCall>,
    finish_reason: Option<Cow<'de, str>>,
}

view! {
    Candidate<'de>: any {
        content: Content = "content",
        finish_reason: AsStr<'de> = "finishReason",
    } => {
        let Content { blocks, raw_calls } = content.unwrap_or_default();
        Ok(Candidate {
            blocks,
            raw_calls,
            finish_reason: AsStr::of(finish_reason),
        })
    }
}

/// `content`, of any type: its `parts` when an object has them (`null` or absent is none).
#[derive(Default)]
struct Content {
    blocks: Vec<ContentBlock>,
    raw_calls: Vec<WireToolCall>,
}

view! {
    Content: any {
        parts: NullOr<Vec<Part>> = "parts" else "candidates[0].content.parts is not an array",
    } => {
        let mut content = Content::default();
        for part in NullOr::of(parts).unwrap_or_default() {
            match part {
                Part::Block(block) => content.blocks.push(block),
                Part::Call {
                    id,
                    name,
                    args,
                    signature,
                } => {
                    // Gemini does not always return an id; one is made from the call's position so the result
                    // can answer it.
                    let id = id.unwrap_or_else(|| format!("gemini_call_{}", content.raw_calls.len()));
                    content.raw_calls.push(WireToolCall {
                        id,
                        name,
                        arguments: args.as_ref().map(canonical::to_string).unwrap_or_default(),
                        signature,
                    });
                }
                Part::Nothing => {}
            }
        }
        Ok(content)
    }
}

/// One of `parts`, of any type, read.
enum Part {
    /// A text block (a thought summary when `thought: true`).
    Block(ContentBlock),
    /// A function call; `id` when it came non-empty.
    Call {
        id: Option<String>,
        name: String,
        args: Option<Value>,
        signature: Option<String>,
    },
    /// A part of any other type (inline data, executable code: they stay on `raw` only) or not an object.
    Nothing,
}

view! {
    Part: any {
        text: AsStr<'de> = "text",
        thought: AsBool = "thought",
        signature: AsStr<'de> = "thoughtSignature",
        call: FunctionCall = "functionCall",
    } => {
        let signature = AsStr::of(signature)
            .filter(|signature| !signature.is_empty())
            .map(Cow::into_owned);
        // A call first (its part's text is not read).
        if let Some(FunctionCall { id, name, args }) = call {
            return Ok(Part::Call {
                id,
                name,
                args,
                signature,
            });
        }
        Ok(match text {
            None => Part::Nothing,
            Some(AsStr(None)) => return Err(Refusal::says("a text part is not a string")),
            Some(AsStr(Some(text))) => {
                let text = text.into_owned();
                Part::Block(if thought == Some(AsBool(Some(true))) {
                    ContentBlock::Thinking { text, signature }
                } else {
                    ContentBlock::Text { text, signature }
                })
            }
        })
    }
}

/// A part's `functionCall`: an object with a string `name`.
struct FunctionCall {
    /// The `id`, when a non-empty string.
    id: Option<String>,
    name: String,
    args: Option<Value>,
}

view! {
    FunctionCall: object else "a functionCall part has no name" {
        id: AsStr<'de> = "id",
        name: AsStr<'de> = "name",
        args: Value = "args",
    } => Ok(FunctionCall {
        id: AsStr::of(id).filter(|id| !id.is_empty()).map(Cow::into_owned),
        name: AsStr::of(name).ok_or(Refusal::Mismatch)?.into_owned(),
        args,
    })
}

/// `usageMetadata`: its counters when an object.
struct Counts(Usage);

view! {
    Counts: any {
        prompt: Counter = "promptTokenCount",
        candidates: Counter = "candidatesTokenCount",
        total: Counter = "totalTokenCount",
        cached: Counter = "cachedContentTokenCount",
    } => Ok(Counts(Usage {
        prompt_tokens: Counter::of(prompt),
        completion_tokens: Counter::of(candidates),
        total_tokens: Counter::of(total),
        cached_tokens: Counter::of(cached),
        cache_creation_tokens: None,
    }))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::call::view_check::{
        agrees, agrees_on_generated, any_json, counter, members, or_any, refuses, text,
    };
    use crate::gemini::provider::WIRE;

    const PLAIN: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true,"thoughtSignature":"sig"},{"text":"hi \"there\""}]},"finishReason":"STOP","index":0,"safetyRatings":[]}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5},"modelVersion":"gemini-2.5","responseId":"r1"}"#;

    #[test]
    fn reads_what_the_reference_reads() {
        assert!(agrees(WIRE, PLAIN));
        // Values of other types where the reference looks inside objects only. (A number there is declined: under
        // serde_json's arbitrary_precision it arrives as its token map, which the view does not read as a value.)
        assert!(agrees(WIRE, r#"{"candidates":["x",{}]}"#));
        assert!(agrees(
            WIRE,
            r#"{"candidates":[{"content":[1],"finishReason":"MAX_TOKENS"}],"usageMetadata":"x"}"#
        ));
        assert!(agrees(
            WIRE,
            r#"{"candidates":[{"content":{"parts":null}}],"id":"x"}"#
        ));
        // No candidate: a prompt blocked (promptFeedback names the reason, of any type), else an error.
        assert!(agrees(
            WIRE,
            r#"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":4}}"#
        ));
        assert!(agrees(
            WIRE,
            r#"{"candidates":{},"promptFeedback":{"blockReason":null}}"#
        ));
        assert!(agrees(WIRE, r#"{"candidates":[]}"#));
        assert!(agrees(
            WIRE,
            r#"{"candidates":[{"content":{"parts":[true,"a",{"thought":true}]}}]}"#
        ));
        // Function calls (ids made from the position when absent or empty; a call's text is not read), checked
        // against the declared tool as the reference checks them: valid, then invalid.
        assert!(agrees(
            WIRE,
            r#"{"candidates":[{"content":{"parts":[{"text":"x"},{"text":5,"functionCall":{"name":"lookup","args":{"q":1,"z":[{"b":1,"a":2}]}},"thoughtSignature":"s"},{"functionCall":{"id":"","name":"lookup","args":{"q":2}}}]},"finishReason":"STOP"}]}"#
        ));
        assert!(agrees(
            WIRE,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c9","name":"lookup","args":{"q":"x"}}}]}}]}"#
        ));
    }

    #[test]
    fn refuses_in_the_mappings_words() {
        let no_name = "a functionCall part has no name";
        refuses(
            WIRE,
            &[
                ("null", "response body is not a JSON object"),
                ("{}", "response has no candidates[0]"),
                (
                    r#"{"candidates":"x","promptFeedback":7}"#,
                    "response has no candidates[0]",
                ),
                (
                    r#"{"candidates":[{"content":{"parts":{}}}]}"#,
                    "candidates[0].content.parts is not an array",
                ),
                (
                    r#"{"candidates":[{"content":{"parts":[{"text":5}]}}]}"#,
                    "a text part is not a string",
                ),
                (
                    r#"{"candidates":[{"content":{"parts":[{"functionCall":null}]}}]}"#,
                    no_name,
                ),
                (
                    r#"{"candidates":[{"content":{"parts":[{"text":5,"functionCall":{"name":1}}]}}]}"#,
                    no_name,
                ),
            ],
        );
    }

    #[test]
    fn declines_what_it_might_read_differently() {
        for body in [
            r#"{"candidates":[{"content":{"parts":{}}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":5}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":null}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"args":{}}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":null}]}}]}"#,
            r#"{"candidates":[{"finishReason":"STOP","finishReason":"SAFETY"}]}"#,
        ] {
            assert!(!agrees(WIRE, body), "the view read {body}");
        }
    }

    fn body() -> BoxedStrategy<String> {
        let part = or_any(members(vec![
            ("text", text(&["hello", "", "line\nbreak"])),
            (
                "thought",
                or_any(prop_oneof![Just("true".to_owned()), Just("false".to_owned())].boxed()),
            ),
            ("thoughtSignature", text(&["sig", ""])),
            (
                "functionCall",
                or_any(members(vec![
                    ("id", text(&["c1", ""])),
                    ("name", text(&["lookup", "other"])),
                    (
                        "args",
                        or_any(
                            prop_oneof![
                                Just(r#"{"q":1}"#.to_owned()),
                                Just(r#"{"q":"x"}"#.to_owned()),
                                Just("{}".to_owned())
                            ]
                            .boxed(),
                        ),
                    ),
                ])),
            ),
        ]));
        let parts = prop_oneof![
            8 => prop::collection::vec(part, 0..4).prop_map(|parts| format!("[{}]", parts.join(","))),
            1 => Just("null".to_owned()),
            1 => any_json(),
        ]
        .boxed();
        let content = or_any(members(vec![("role", text(&["model"])), ("parts", parts)]));
        let candidate = or_any(members(vec![
            ("content", content),
            (
                "finishReason",
                text(&["STOP", "MAX_TOKENS", "SAFETY", "SPII", "OTHER"]),
            ),
            ("index", counter()),
        ]));
        let candidates = or_any(
            prop::collection::vec(candidate, 1..3)
                .prop_map(|candidates| format!("[{}]", candidates.join(",")))
                .boxed(),
        );
        let usage = or_any(members(vec![
            ("promptTokenCount", counter()),
            ("candidatesTokenCount", counter()),
            ("totalTokenCount", counter()),
            ("cachedContentTokenCount", counter()),
        ]));
        or_any(members(vec![
            ("id", text(&["r1", ""])),
            ("modelVersion", text(&["gemini"])),
            ("candidates", candidates),
            ("usageMetadata", usage),
        ]))
    }

    #[test]
    fn agrees_with_the_reference_on_generated_bodies() {
        agrees_on_generated(WIRE, body(), 400, 400);
    }
}
