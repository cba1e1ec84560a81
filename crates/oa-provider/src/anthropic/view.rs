//! The reading of a Messages body ([`WireFormat::map_bytes`](crate::call::wire::WireFormat) and
//! [`map_body`](crate::call::wire::WireFormat::map_body)): the member tables of the body, a content entry and
//! `usage`, each member read from the bytes or from a parsed `Value` by one rule (see [`view!`]). A `tool_use`
//! entry's `input` is the one member read into a `Value` (the mapping writes it out canonically). What is read
//! goes through [`assemble`].

use std::borrow::Cow;

use serde_json::Value;

use crate::anthropic::response::assemble;
use crate::call::view::{AsStr, Counter, Refusal, routes, view};
use crate::call::wire::{BlocksRead, Mapped};
use crate::canonical;
use crate::model::ProviderError;
use crate::model::{ContentBlock, Usage};
use crate::structured::{CheckedTools, WireToolCall};

routes!(Body => map);

fn map(body: Body<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let Body {
        blocks,
        raw_calls,
        stop_reason,
        usage,
        model,
        id,
    } = body;
    let read = BlocksRead {
        blocks,
        raw_calls,
        wire_finish: stop_reason.as_deref(),
        usage,
        model: model.map(Cow::into_owned),
    };
    let mut mapped = assemble(read, tools)?;
    mapped.response_id = id.map(Cow::into_owned);
    Ok(mapped)
}

const NO_CONTENT: &str = "response has no content array";

/// The body's members the mapping reads: the content entries split into blocks and tool calls.
struct Body<'de> {
    blocks: Vec<ContentBlock>,
    raw_calls: Vec<WireToolCall>,
    stop_reason: Option<Cow<'de, str>>,
    usage: Usage,
    model: Option<Cow<'de, str>>,
    id: Option<Cow<'de, str>>,
}

view! {
    Body<'de>: object else "response body is not a JSON object" {
        content: Vec<Entry> = "content" else NO_CONTENT,
        stop_reason: AsStr<'de> = "stop_reason",
        usage: Counts = "usage",
        model: AsStr<'de> = "model",
        id: AsStr<'de> = "id",
    } => {
        let (mut blocks, mut raw_calls) = (Vec::new(), Vec::new());
        for entry in content.ok_or_else(|| Refusal::says(NO_CONTENT))? {
            match entry {
                Entry::Block(block) => blocks.push(block),
                Entry::Call(call) => raw_calls.push(call),
                Entry::Other => {}
            }
        }
        Ok(Body {
            blocks,
            raw_calls,
            stop_reason: AsStr::of(stop_reason),
            usage: usage.map(|Counts(usage)| usage).unwrap_or_default(),
            model: AsStr::of(model),
            id: AsStr::of(id),
        })
    }
}

/// One entry of `content`, read by its `type`.
enum Entry {
    Block(ContentBlock),
    Call(WireToolCall),
    /// A type this mapping does not surface (server tools, citations' companions); it stays on `raw`.
    Other,
}

view! {
    Entry: object else "a content entry has no string type" {
        kind: AsStr<'de> = "type",
        text: AsStr<'de> = "text",
        thinking: AsStr<'de> = "thinking",
        signature: AsStr<'de> = "signature",
        data: AsStr<'de> = "data",
        id: AsStr<'de> = "id",
        name: AsStr<'de> = "name",
        input: Value = "input",
    } => {
        // Each string the entry's type requires: present and a string.
        let required = |slot: Option<AsStr<'_>>, key: &str| {
            AsStr::of(slot)
                .map(Cow::into_owned)
                .ok_or_else(|| Refusal::says(format!("a content entry lacks its string {key:?}")))
        };
        let kind = AsStr::of(kind).ok_or(Refusal::Mismatch)?;
        Ok(match kind.as_ref() {
            "text" => Entry::Block(ContentBlock::text(required(text, "text")?)),
            "thinking" => Entry::Block(ContentBlock::Thinking {
                text: required(thinking, "thinking")?,
                signature: AsStr::of(signature).map(Cow::into_owned),
            }),
            "redacted_thinking" => Entry::Block(ContentBlock::RedactedThinking {
                data: required(data, "data")?,
            }),
            "tool_use" => Entry::Call(WireToolCall {
                id: required(id, "id")?,
                name: required(name, "name")?,
                // `input` is an object on the wire; the shared check parses and validates it like any arguments.
                arguments: input.as_ref().map(canonical::to_string).unwrap_or_default(),
                signature: None,
            }),
            _ => Entry::Other,
        })
    }
}

/// `usage`: its two counters when an object, and their derived total.
struct Counts(Usage);

view! {
    Counts: any {
        input_tokens: Counter = "input_tokens",
        output_tokens: Counter = "output_tokens",
    } => Ok(Counts(Usage::derived(Counter::of(input_tokens), Counter::of(output_tokens))))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::anthropic::provider::WIRE;
    use crate::call::view_check::{agrees, agrees_on_generated, counter, members, or_any, refuses, text};

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
    fn refuses_in_the_mappings_words() {
        let no_type = "a content entry has no string type";
        refuses(
            WIRE,
            &[
                ("7", "response body is not a JSON object"),
                (r#"{"stop_reason":"end_turn"}"#, "response has no content array"),
                (r#"{"content":{}}"#, "response has no content array"),
                (r#"{"content":["x"]}"#, no_type),
                (r#"{"content":[{"text":"a"}]}"#, no_type),
                (r#"{"content":[{"type":1}]}"#, no_type),
                (
                    r#"{"content":[{"type":"text"}]}"#,
                    r#"a content entry lacks its string "text""#,
                ),
                (
                    r#"{"content":[{"type":"tool_use","id":"t","name":5,"input":{}}]}"#,
                    r#"a content entry lacks its string "name""#,
                ),
                (
                    r#"{"content":[{"type":"redacted_thinking"},{"type":"text"}]}"#,
                    r#"a content entry lacks its string "data""#,
                ),
            ],
        );
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
