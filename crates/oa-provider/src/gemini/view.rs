//! The typed view of a `generateContent` body ([`WireFormat::map_bytes`](crate::call::wire::WireFormat)): the
//! members the reference reading (`response.rs`) reads, taken straight from the bytes, every other member walked as
//! strictly as a `Value` parse walks it ([`Skip`]), no `Value` built. It declines (the driver then takes the
//! reference route) whatever the reference might read differently: a repeated member, a member of another type
//! where the reference fails, a body without `candidates[0]` (the blocked-prompt path). A `functionCall`'s `args`
//! is the one member read into a `Value` (the reference re-serializes it canonically from one, and so does the
//! view). What it reads goes through the same [`assemble`].

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use serde_json::Value;

use crate::call::view::{AsBool, AsStr, Counters, First, Skip, next_member, once, scalars_answer};
use crate::call::wire::Mapped;
use crate::canonical;
use crate::error::ProviderError;
use crate::gemini::response::{Read, assemble};
use crate::model::{ContentBlock, Usage};
use crate::structured::{CheckedTools, WireToolCall};

/// The `usageMetadata` counters the mapping reads, in `Usage`'s order.
const USAGE: Counters<4> = Counters([
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
]);

/// Maps a body through the view; `None` when the view declines it (see the module doc).
pub(crate) fn map_bytes(body: &[u8], tools: &CheckedTools<'_>) -> Option<Result<Mapped, ProviderError>> {
    let BodyView {
        candidate,
        usage,
        model,
        id,
    } = serde_json::from_slice::<BodyView<'_>>(body).ok()?;
    let CandidateView {
        blocks,
        raw_calls,
        finish_reason,
    } = candidate?;
    let [prompt_tokens, completion_tokens, total_tokens, cached_tokens] = usage.unwrap_or([None; 4]);
    let read = Read {
        blocks,
        raw_calls,
        finish_reason: finish_reason.0.as_ref().map(|text| text.0.as_ref()),
        usage: Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens,
            cached_tokens,
            cache_creation_tokens: None,
        },
        model: model.into_owned(),
    };
    Some(assemble(read, tools).map(|mut mapped| {
        mapped.response_id = id.into_owned();
        mapped
    }))
}

/// The body's members the mapping reads; `candidate` is `None` when `candidates` is empty.
struct BodyView<'de> {
    candidate: Option<CandidateView<'de>>,
    usage: Option<[Option<u64>; 4]>,
    model: AsStr<'de>,
    id: AsStr<'de>,
}

impl<'de> Deserialize<'de> for BodyView<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BodyVisitor)
    }
}

struct BodyVisitor;

impl<'de> Visitor<'de> for BodyVisitor {
    type Value = BodyView<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a generateContent response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut candidates, mut usage, mut model, mut id) = (None, None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "candidates" => once(
                    &mut candidates,
                    map.next_value::<First<CandidateView<'de>>>()?,
                    "candidates",
                )?,
                "usageMetadata" => once(&mut usage, map.next_value_seed(USAGE)?, "usageMetadata")?,
                "modelVersion" => once(&mut model, map.next_value::<AsStr<'de>>()?, "modelVersion")?,
                "id" => once(&mut id, map.next_value::<AsStr<'de>>()?, "id")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let First(candidate) = candidates.ok_or_else(|| de::Error::missing_field("candidates"))?;
        Ok(BodyView {
            candidate,
            usage,
            model: model.unwrap_or(AsStr(None)),
            id: id.unwrap_or(AsStr(None)),
        })
    }
}

/// `candidates[0]`, of any type (the reference looks inside objects only): its parts' blocks and calls, and its
/// finish reason.
struct CandidateView<'de> {
    blocks: Vec<ContentBlock>,
    raw_calls: Vec<WireToolCall>,
    finish_reason: AsStr<'de>,
}

impl<'de> Deserialize<'de> for CandidateView<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CandidateVisitor)
    }
}

struct CandidateVisitor;

impl<'de> Visitor<'de> for CandidateVisitor {
    type Value = CandidateView<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    scalars_answer!(CandidateView {
        blocks: Vec::new(),
        raw_calls: Vec::new(),
        finish_reason: AsStr(None),
    });

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut content, mut finish_reason) = (None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "content" => once(&mut content, map.next_value::<ContentView>()?, "content")?,
                "finishReason" => once(
                    &mut finish_reason,
                    map.next_value::<AsStr<'de>>()?,
                    "finishReason",
                )?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let (blocks, raw_calls) = content
            .map(|ContentView(blocks, calls)| (blocks, calls))
            .unwrap_or_default();
        Ok(CandidateView {
            blocks,
            raw_calls,
            finish_reason: finish_reason.unwrap_or(AsStr(None)),
        })
    }
}

/// `content`, of any type: its `parts` when an object (`null` or absent is none; any other non-array fails the
/// reference, so the view declines).
struct ContentView(Vec<ContentBlock>, Vec<WireToolCall>);

impl<'de> Deserialize<'de> for ContentView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = ContentView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    scalars_answer!(ContentView(Vec::new(), Vec::new()));

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut parts = None;
        while let Some(key) = next_member(&mut map)? {
            if key.0 == "parts" {
                once(&mut parts, map.next_value::<Option<Vec<PartView>>>()?, "parts")?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        let (mut blocks, mut calls) = (Vec::new(), Vec::new());
        for PartView(part) in parts.flatten().unwrap_or_default() {
            match part {
                Part::Block(block) => blocks.push(block),
                Part::Call {
                    id,
                    name,
                    args,
                    signature,
                } => {
                    // Gemini does not always return an id; the reference makes one from the call's position.
                    let id = id.unwrap_or_else(|| format!("gemini_call_{}", calls.len()));
                    calls.push(WireToolCall {
                        id,
                        name,
                        arguments: args.as_ref().map(canonical::to_string).unwrap_or_default(),
                        signature,
                    });
                }
                Part::Nothing => {}
            }
        }
        Ok(ContentView(blocks, calls))
    }
}

/// One of `parts` (an array of them), read.
struct PartView(Part);

/// What a part maps to.
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
    /// A part of any other type (inline data, executable code) or not an object.
    Nothing,
}

impl<'de> Deserialize<'de> for PartView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PartVisitor)
    }
}

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = PartView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    scalars_answer!(PartView(Part::Nothing));

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut text, mut thought, mut signature, mut call) = (None, None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "text" => once(&mut text, map.next_value::<AsStr<'de>>()?, "text")?,
                "thought" => once(&mut thought, map.next_value::<AsBool>()?, "thought")?,
                "thoughtSignature" => once(
                    &mut signature,
                    map.next_value::<AsStr<'de>>()?,
                    "thoughtSignature",
                )?,
                "functionCall" => once(&mut call, map.next_value::<FunctionCallView>()?, "functionCall")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let signature = signature
            .and_then(AsStr::into_owned)
            .filter(|signature| !signature.is_empty());
        // A call first (its part's text is not read), as the reference reads a part.
        if let Some(FunctionCallView { id, name, args }) = call {
            return Ok(PartView(Part::Call {
                id,
                name,
                args,
                signature,
            }));
        }
        Ok(PartView(match text {
            None => Part::Nothing,
            // Not a string: the reference fails ("a text part is not a string"), so the view declines.
            Some(AsStr(None)) => return Err(de::Error::custom("a text part is not a string")),
            Some(AsStr(Some(text))) => {
                let text = text.into_owned();
                Part::Block(if thought == Some(AsBool(Some(true))) {
                    ContentBlock::Thinking { text, signature }
                } else {
                    ContentBlock::Text { text, signature }
                })
            }
        }))
    }
}

/// A part's `functionCall`: an object with a string `name` (else the reference fails, and the view declines).
struct FunctionCallView {
    /// The `id`, when a non-empty string.
    id: Option<String>,
    name: String,
    args: Option<Value>,
}

impl<'de> Deserialize<'de> for FunctionCallView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FunctionCallVisitor)
    }
}

struct FunctionCallVisitor;

impl<'de> Visitor<'de> for FunctionCallVisitor {
    type Value = FunctionCallView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a functionCall object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut id, mut name, mut args) = (None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "id" => once(&mut id, map.next_value::<AsStr<'de>>()?, "id")?,
                "name" => once(&mut name, map.next_value::<AsStr<'de>>()?, "name")?,
                // Read as the reference reads it (the same parser into a `Value`), then written canonically.
                "args" => once(&mut args, map.next_value::<Value>()?, "args")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(FunctionCallView {
            id: id.and_then(AsStr::into_owned).filter(|id| !id.is_empty()),
            name: name
                .and_then(AsStr::into_owned)
                .ok_or_else(|| de::Error::missing_field("name"))?,
            args,
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::call::view_check::{agrees, agrees_on_generated, any_json, counter, members, or_any, text};
    use crate::gemini::WIRE;

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
    fn declines_what_it_might_read_differently() {
        for body in [
            r#"{"candidates":[]}"#,
            r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
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
