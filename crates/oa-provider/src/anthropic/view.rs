//! The typed view of a Messages body ([`WireFormat::map_bytes`](crate::call::wire::WireFormat)): the members the
//! reference reading (`response.rs`) reads, taken straight from the bytes, every other member walked as strictly
//! as a `Value` parse walks it ([`Skip`]), no `Value` built. It declines (the driver then takes the reference
//! route) whatever the reference might read differently: a repeated member, a required member of another type, a
//! content entry without a string `type`. A `tool_use` entry's `input` is the one member read into a `Value` (the
//! reference re-serializes it canonically from one, and so does the view). What it reads goes through the same
//! [`assemble`].

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use serde_json::Value;

use crate::anthropic::response::{Read, assemble};
use crate::call::view::{AsStr, Counters, Skip, next_member, once};
use crate::call::wire::Mapped;
use crate::canonical;
use crate::error::ProviderError;
use crate::model::{ContentBlock, Usage};
use crate::structured::{CheckedTools, WireToolCall};

/// Maps a body through the view; `None` when the view declines it (see the module doc).
pub(crate) fn map_bytes(body: &[u8], tools: &CheckedTools<'_>) -> Option<Result<Mapped, ProviderError>> {
    let BodyView {
        blocks,
        raw_calls,
        stop_reason,
        usage,
        model,
        id,
    } = serde_json::from_slice::<BodyView<'_>>(body).ok()?;
    let [input_tokens, output_tokens] = usage.unwrap_or([None, None]);
    let read = Read {
        blocks,
        raw_calls,
        stop_reason: stop_reason.0.as_ref().map(|text| text.0.as_ref()),
        usage: Usage::derived(input_tokens, output_tokens),
        model: model.into_owned(),
    };
    Some(assemble(read, tools).map(|mut mapped| {
        mapped.response_id = id.into_owned();
        mapped
    }))
}

/// The body's members the mapping reads.
struct BodyView<'de> {
    blocks: Vec<ContentBlock>,
    raw_calls: Vec<WireToolCall>,
    stop_reason: AsStr<'de>,
    usage: Option<[Option<u64>; 2]>,
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
        f.write_str("a Messages response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut content, mut stop_reason, mut usage, mut model, mut id) = (None, None, None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "content" => once(&mut content, map.next_value::<Vec<EntryView>>()?, "content")?,
                "stop_reason" => once(&mut stop_reason, map.next_value::<AsStr<'de>>()?, "stop_reason")?,
                "usage" => once(
                    &mut usage,
                    map.next_value_seed(Counters(["input_tokens", "output_tokens"]))?,
                    "usage",
                )?,
                "model" => once(&mut model, map.next_value::<AsStr<'de>>()?, "model")?,
                "id" => once(&mut id, map.next_value::<AsStr<'de>>()?, "id")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let entries = content.ok_or_else(|| de::Error::missing_field("content"))?;
        let (mut blocks, mut raw_calls) = (Vec::new(), Vec::new());
        for EntryView(entry) in entries {
            match entry {
                Entry::Block(block) => blocks.push(block),
                Entry::Call(call) => raw_calls.push(call),
                Entry::Other => {}
            }
        }
        Ok(BodyView {
            blocks,
            raw_calls,
            stop_reason: stop_reason.unwrap_or(AsStr(None)),
            usage,
            model: model.unwrap_or(AsStr(None)),
            id: id.unwrap_or(AsStr(None)),
        })
    }
}

/// One entry of `content` (an array of them), read.
struct EntryView(Entry);

/// What an entry maps to.
enum Entry {
    Block(ContentBlock),
    Call(WireToolCall),
    /// A type this mapping does not surface.
    Other,
}

impl<'de> Deserialize<'de> for EntryView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = EntryView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content entry object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut kind, mut text, mut thinking, mut signature, mut data) = (None, None, None, None, None);
        let (mut id, mut name, mut input) = (None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "type" => once(&mut kind, map.next_value::<AsStr<'de>>()?, "type")?,
                "text" => once(&mut text, map.next_value::<AsStr<'de>>()?, "text")?,
                "thinking" => once(&mut thinking, map.next_value::<AsStr<'de>>()?, "thinking")?,
                "signature" => once(&mut signature, map.next_value::<AsStr<'de>>()?, "signature")?,
                "data" => once(&mut data, map.next_value::<AsStr<'de>>()?, "data")?,
                "id" => once(&mut id, map.next_value::<AsStr<'de>>()?, "id")?,
                "name" => once(&mut name, map.next_value::<AsStr<'de>>()?, "name")?,
                // Read as the reference reads it (the same parser into a `Value`), then written canonically.
                "input" => once(&mut input, map.next_value::<Value>()?, "input")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        // Each required string as `text_of` reads it: present and a string, or the reference fails (declined).
        let required = |slot: Option<AsStr<'de>>, name: &'static str| {
            slot.and_then(AsStr::into_owned)
                .ok_or_else(|| de::Error::missing_field(name))
        };
        let Some(AsStr(Some(kind))) = kind else {
            return Err(de::Error::missing_field("type"));
        };
        Ok(EntryView(match kind.0.as_ref() {
            "text" => Entry::Block(ContentBlock::text(required(text, "text")?)),
            "thinking" => Entry::Block(ContentBlock::Thinking {
                text: required(thinking, "thinking")?,
                signature: signature.and_then(AsStr::into_owned),
            }),
            "redacted_thinking" => Entry::Block(ContentBlock::RedactedThinking {
                data: required(data, "data")?,
            }),
            "tool_use" => Entry::Call(WireToolCall {
                id: required(id, "id")?,
                name: required(name, "name")?,
                arguments: input.as_ref().map(canonical::to_string).unwrap_or_default(),
                signature: None,
            }),
            _ => Entry::Other,
        }))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::anthropic::WIRE;
    use crate::call::view_check::{agrees, agrees_on_generated, counter, members, or_any, text};

    const PLAIN: &str = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"hi \"there\"","citations":null},{"type":"server_tool_use","id":"s1"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2,"cache_read_input_tokens":0}}"#;

    #[test]
    fn reads_what_the_reference_reads() {
        assert!(agrees(WIRE, PLAIN));
        assert!(agrees(
            WIRE,
            r#"{"content":[{"type":"redacted_thinking","data":"x"}],"usage":[1]}"#
        ));
        assert!(agrees(
            WIRE,
            r#"{"content":[],"stop_reason":5,"usage":{"input_tokens":-1,"output_tokens":2}}"#
        ));
        // Tool calls: the declared tool's arguments checked as the reference checks them (valid, then invalid).
        assert!(agrees(
            WIRE,
            r#"{"content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t","name":"lookup","input":{"q":1,"b":[2,{"z":1,"a":0}]}}],"stop_reason":"tool_use"}"#
        ));
        assert!(agrees(
            WIRE,
            r#"{"content":[{"type":"tool_use","id":"t","name":"lookup","input":{"q":"x"}}],"stop_reason":"tool_use"}"#
        ));
    }

    #[test]
    fn declines_what_it_might_read_differently() {
        for body in [
            r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
            r#"{"content":[{"type":"text"}]}"#,
            r#"{"content":[{"text":"a"}]}"#,
            r#"{"content":[{"type":"tool_use","name":"lookup","input":{}}],"stop_reason":"tool_use"}"#,
            r#"{"content":{}}"#,
            r#"{"stop_reason":"end_turn"}"#,
            r#"{"content":[],"usage":{"input_tokens":1,"input_tokens":2}}"#,
        ] {
            assert!(!agrees(WIRE, body), "the view read {body}");
        }
    }

    fn body() -> BoxedStrategy<String> {
        let entry = or_any(members(vec![
            (
                "type",
                text(&[
                    "text",
                    "thinking",
                    "redacted_thinking",
                    "tool_use",
                    "server_tool_use",
                ]),
            ),
            ("text", text(&["hello", "", "line\nbreak"])),
            ("thinking", text(&["pondering"])),
            ("signature", text(&["sig"])),
            ("data", text(&["opaque"])),
            ("id", text(&["t1"])),
            ("name", text(&["lookup", "other"])),
            (
                "input",
                or_any(
                    prop_oneof![
                        Just(r#"{"q":1}"#.to_owned()),
                        Just(r#"{"q":"x","a":[1]}"#.to_owned()),
                        Just("{}".to_owned())
                    ]
                    .boxed(),
                ),
            ),
        ]));
        let content = or_any(
            prop::collection::vec(entry, 0..4)
                .prop_map(|entries| format!("[{}]", entries.join(",")))
                .boxed(),
        );
        let usage = or_any(members(vec![
            ("input_tokens", counter()),
            ("output_tokens", counter()),
            ("cache_read_input_tokens", counter()),
        ]));
        or_any(members(vec![
            ("id", text(&["msg_1", ""])),
            ("model", text(&["claude"])),
            ("content", content),
            (
                "stop_reason",
                text(&["end_turn", "max_tokens", "tool_use", "refusal", "odd"]),
            ),
            ("usage", usage),
        ]))
    }

    #[test]
    fn agrees_with_the_reference_on_generated_bodies() {
        agrees_on_generated(WIRE, body(), 400, 400);
    }
}
