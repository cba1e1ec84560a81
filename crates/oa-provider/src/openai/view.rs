//! The typed view of a Chat Completions body ([`WireFormat::map_bytes`](crate::call::wire::WireFormat)): the
//! members [`read_value`](super::response) reads, taken straight from the bytes (strings borrowed where they have
//! no escapes), every other member walked as strictly as a `Value` parse walks it ([`Skip`]), and no `Value` tree
//! built. Whatever the reference reading might read differently is an error here, so the view declines and the
//! driver takes the reference route: a repeated member (a `Value` keeps the last), a required member of another
//! type, a missing `choices[0]`. What the view reads goes through the same [`map_read`].

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use crate::call::view::{AsStr, Counter, First, Skip, Text, next_member, once, scalars_answer};
use crate::call::wire::Mapped;
use crate::error::ProviderError;
use crate::model::Usage;
use crate::openai::response::{Read, map_read};
use crate::structured::{CheckedTools, WireToolCall};

/// Maps a body through the view; `None` when the view declines it (see the module doc).
pub(crate) fn map_bytes(body: &[u8], tools: &CheckedTools<'_>) -> Option<Result<Mapped, ProviderError>> {
    let BodyView {
        choice,
        usage,
        model,
        id,
    } = serde_json::from_slice::<BodyView<'_>>(body).ok()?;
    let ChoiceView {
        message,
        finish_reason,
    } = choice?;
    let message = message?;
    let read = Read {
        content: message.content.map(|text| text.0),
        raw_calls: message.tool_calls,
        reasoning_content: message.reasoning_content.0.map(|text| text.0),
        reasoning: message.reasoning.0.map(|text| text.0),
        refusal: message.refusal.0.map(|text| text.0),
        wire_finish: finish_reason.0.map(|text| text.0),
        usage: usage.unwrap_or_default(),
        model: model.0.map(|text| text.0),
    };
    Some(map_read(read, tools).map(|mut mapped| {
        mapped.response_id = id.into_owned();
        mapped
    }))
}

/// The body's members the mapping reads. `choice` is `None` when `choices` is an empty array.
struct BodyView<'de> {
    choice: Option<ChoiceView<'de>>,
    usage: Option<Usage>,
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
        f.write_str("a Chat Completions response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut choices, mut usage, mut model, mut id) = (None, None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "choices" => once(
                    &mut choices,
                    map.next_value::<First<ChoiceView<'de>>>()?,
                    "choices",
                )?,
                "usage" => once(&mut usage, map.next_value::<UsageView>()?, "usage")?,
                "model" => once(&mut model, map.next_value::<AsStr<'de>>()?, "model")?,
                "id" => once(&mut id, map.next_value::<AsStr<'de>>()?, "id")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let Some(First(choice)) = choices else {
            return Err(de::Error::missing_field("choices"));
        };
        Ok(BodyView {
            choice,
            usage: usage.map(|UsageView(usage)| usage),
            model: model.unwrap_or(AsStr(None)),
            id: id.unwrap_or(AsStr(None)),
        })
    }
}

/// `choices[0]`: its message (`None` when absent) and finish reason.
struct ChoiceView<'de> {
    message: Option<MessageView<'de>>,
    finish_reason: AsStr<'de>,
}

impl<'de> Deserialize<'de> for ChoiceView<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ChoiceVisitor)
    }
}

struct ChoiceVisitor;

impl<'de> Visitor<'de> for ChoiceVisitor {
    type Value = ChoiceView<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a choice object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut message, mut finish_reason) = (None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "message" => once(&mut message, map.next_value::<MessageView<'de>>()?, "message")?,
                "finish_reason" => once(
                    &mut finish_reason,
                    map.next_value::<AsStr<'de>>()?,
                    "finish_reason",
                )?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(ChoiceView {
            message,
            finish_reason: finish_reason.unwrap_or(AsStr(None)),
        })
    }
}

/// `choices[0].message`.
struct MessageView<'de> {
    content: Option<Text<'de>>,
    tool_calls: Vec<WireToolCall>,
    reasoning_content: AsStr<'de>,
    reasoning: AsStr<'de>,
    refusal: AsStr<'de>,
}

impl<'de> Deserialize<'de> for MessageView<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = MessageView<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut content, mut tool_calls) = (None, None);
        let (mut reasoning_content, mut reasoning, mut refusal) = (None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "content" => once(&mut content, map.next_value::<NullOr<Text<'de>>>()?, "content")?,
                "tool_calls" => once(
                    &mut tool_calls,
                    map.next_value::<NullOr<Vec<ToolCallView>>>()?,
                    "tool_calls",
                )?,
                "reasoning_content" => once(
                    &mut reasoning_content,
                    map.next_value::<AsStr<'de>>()?,
                    "reasoning_content",
                )?,
                "reasoning" => once(&mut reasoning, map.next_value::<AsStr<'de>>()?, "reasoning")?,
                "refusal" => once(&mut refusal, map.next_value::<AsStr<'de>>()?, "refusal")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(MessageView {
            content: content.and_then(|NullOr(text)| text),
            tool_calls: tool_calls
                .and_then(|NullOr(calls)| calls)
                .unwrap_or_default()
                .into_iter()
                .map(|ToolCallView(call)| call)
                .collect(),
            reasoning_content: reasoning_content.unwrap_or(AsStr(None)),
            reasoning: reasoning.unwrap_or(AsStr(None)),
            refusal: refusal.unwrap_or(AsStr(None)),
        })
    }
}

/// `null`, or a `T`: anything else is an error (the reference mapping rejects it, so the view declines).
struct NullOr<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NullOr<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // serde_json's `deserialize_option` reads `null` as none and hands anything else to `T`.
        Option::<T>::deserialize(deserializer).map(NullOr)
    }
}

/// One of `tool_calls` (an array of them): `{id, function: {name, arguments}}`, as `read_wire_tool_call` reads it.
struct ToolCallView(WireToolCall);

impl<'de> Deserialize<'de> for ToolCallView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ToolCallVisitor)
    }
}

struct ToolCallVisitor;

impl<'de> Visitor<'de> for ToolCallVisitor {
    type Value = ToolCallView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool call object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut id, mut function) = (None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "id" => once(&mut id, map.next_value::<AsStr<'de>>()?, "id")?,
                "function" => once(&mut function, map.next_value::<FunctionView>()?, "function")?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let FunctionView { name, arguments } =
            function.ok_or_else(|| de::Error::missing_field("function"))?;
        Ok(ToolCallView(WireToolCall {
            id: id.and_then(AsStr::into_owned).unwrap_or_default(),
            name,
            arguments,
            signature: None,
        }))
    }
}

/// A tool call's `function`.
struct FunctionView {
    name: String,
    arguments: String,
}

impl<'de> Deserialize<'de> for FunctionView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FunctionVisitor)
    }
}

struct FunctionVisitor;

impl<'de> Visitor<'de> for FunctionVisitor {
    type Value = FunctionView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a function object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut name, mut arguments) = (None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "name" => once(&mut name, map.next_value::<AsStr<'de>>()?, "name")?,
                "arguments" => once(
                    &mut arguments,
                    map.next_value::<NullOr<Text<'de>>>()?,
                    "arguments",
                )?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(FunctionView {
            name: name.and_then(AsStr::into_owned).unwrap_or_default(),
            arguments: arguments
                .and_then(|NullOr(text)| text)
                .map(Text::into_owned)
                .unwrap_or_default(),
        })
    }
}

/// `usage`: its counters when an object, else no usage (as `read_usage` reads a `Value`).
struct UsageView(Usage);

impl<'de> Deserialize<'de> for UsageView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UsageVisitor)
    }
}

struct UsageVisitor;

impl<'de> Visitor<'de> for UsageVisitor {
    type Value = UsageView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut prompt, mut completion, mut total, mut details) = (None, None, None, None);
        while let Some(key) = next_member(&mut map)? {
            match key.0.as_ref() {
                "prompt_tokens" => once(&mut prompt, map.next_value::<Counter>()?, "prompt_tokens")?,
                "completion_tokens" => {
                    once(&mut completion, map.next_value::<Counter>()?, "completion_tokens")?
                }
                "total_tokens" => once(&mut total, map.next_value::<Counter>()?, "total_tokens")?,
                "prompt_tokens_details" => once(
                    &mut details,
                    map.next_value::<CachedView>()?,
                    "prompt_tokens_details",
                )?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let counter = |slot: Option<Counter>| slot.and_then(|Counter(value)| value);
        Ok(UsageView(Usage {
            prompt_tokens: counter(prompt),
            completion_tokens: counter(completion),
            total_tokens: counter(total),
            cached_tokens: details.and_then(|CachedView(cached)| cached),
            cache_creation_tokens: None,
        }))
    }

    scalars_answer!(UsageView(Usage::default()));
}

/// `usage.prompt_tokens_details`: its `cached_tokens` when an object (`Value::get` finds members of objects only).
struct CachedView(Option<u64>);

impl<'de> Deserialize<'de> for CachedView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CachedVisitor)
    }
}

struct CachedVisitor;

impl<'de> Visitor<'de> for CachedVisitor {
    type Value = CachedView;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut cached = None;
        while let Some(key) = next_member(&mut map)? {
            if key.0 == "cached_tokens" {
                once(&mut cached, map.next_value::<Counter>()?, "cached_tokens")?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(CachedView(cached.and_then(|Counter(value)| value)))
    }

    scalars_answer!(CachedView(None));
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::call::view_check::{agrees_on_generated, counter, members, or_any, text, tools};
    use crate::openai::WIRE;

    fn agrees(body: &str) -> bool {
        crate::call::view_check::agrees(WIRE, body)
    }

    const PLAIN: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi \"there\"","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1,"audio_tokens":0}},"system_fingerprint":null}"#;

    #[test]
    fn reads_what_the_reference_reads() {
        assert!(agrees(PLAIN));
        let declared = tools();
        let mapped = map_bytes(PLAIN.as_bytes(), &CheckedTools::new(&declared))
            .expect("read")
            .expect("mapped");
        assert_eq!(mapped.response_id.as_deref(), Some("chatcmpl-1"));
        assert_eq!(mapped.usage.cached_tokens, Some(1));
        let with_calls = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":1}"}}]},"finish_reason":"tool_calls"}]}"#;
        assert!(agrees(with_calls));
        let refused = r#"{"choices":[{"message":{"content":"x","refusal":"no"},"finish_reason":"stop"}]}"#;
        assert!(agrees(refused));
        // A tool call the declared tools reject: both routes give the same error.
        let bad_args = r#"{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}}]},"finish_reason":"tool_calls"}]}"#;
        assert!(agrees(bad_args));
        let escaped_keys =
            r#"{"\u0063hoices":[{"message":{"cont\u0065nt":"a"},"finish_reason":7}],"usage":[1,{"a":2}]}"#;
        assert!(agrees(escaped_keys));
    }

    #[test]
    fn declines_what_it_might_read_differently() {
        let deep = format!("{}{}", "[".repeat(140), "]".repeat(140));
        let declined = [
            // A repeated member: a Value keeps the last.
            r#"{"choices":[{"message":{"content":"a","content":"b"}}]}"#.to_owned(),
            r#"{"model":"a","model":"b","choices":[{"message":{}}]}"#.to_owned(),
            // Shapes the reference rejects.
            r#"{"choices":[]}"#.to_owned(),
            r#"{"choices":{}}"#.to_owned(),
            r#"[1]"#.to_owned(),
            r#"{"choices":[{"message":{"content":5}}]}"#.to_owned(),
            r#"{"choices":[{"message":{"tool_calls":{}}}]}"#.to_owned(),
            r#"{"choices":[{"finish_reason":"stop"}]}"#.to_owned(),
            // serde_json's number token as a member name.
            r#"{"choices":[{"message":{"$serde_json::private::Number":"1"}}]}"#.to_owned(),
            // Nested past a Value parse's limit in a member nobody reads.
            format!(r#"{{"x":{deep},"choices":[{{"message":{{}}}}]}}"#),
            // Not JSON after all.
            format!("{PLAIN} x"),
        ];
        for body in &declined {
            assert!(!agrees(body), "the view read {body}");
        }
    }

    fn body() -> BoxedStrategy<String> {
        let function = or_any(members(vec![
            ("name", text(&["lookup", "other", ""])),
            (
                "arguments",
                text(&["{\"q\":1}", "{}", "", "not json", "{\"q\":\"x\"}"]),
            ),
        ]));
        let call = or_any(members(vec![
            ("id", text(&["c1", "c2"])),
            ("type", text(&["function"])),
            ("function", function),
        ]));
        let calls = or_any(
            prop::collection::vec(call, 0..3)
                .prop_map(|calls| format!("[{}]", calls.join(",")))
                .boxed(),
        );
        let message = or_any(members(vec![
            ("role", text(&["assistant"])),
            ("content", text(&["hello", "", "{\"a\":1}", "line\nbreak"])),
            ("tool_calls", calls),
            ("reasoning_content", text(&["", "thinking"])),
            ("reasoning", text(&["", "pondering"])),
            ("refusal", text(&["", "I can't"])),
        ]));
        let choice = or_any(members(vec![
            ("index", counter()),
            ("message", message),
            (
                "finish_reason",
                text(&[
                    "stop",
                    "length",
                    "tool_calls",
                    "content_filter",
                    "function_call",
                    "odd",
                ]),
            ),
        ]));
        let choices = or_any(
            prop::collection::vec(choice, 1..3)
                .prop_map(|choices| format!("[{}]", choices.join(",")))
                .boxed(),
        );
        let details = or_any(members(vec![
            ("cached_tokens", counter()),
            ("audio_tokens", counter()),
        ]));
        let usage = or_any(members(vec![
            ("prompt_tokens", counter()),
            ("completion_tokens", counter()),
            ("total_tokens", counter()),
            ("prompt_tokens_details", details),
        ]));
        or_any(members(vec![
            ("id", text(&["chatcmpl-1", ""])),
            ("model", text(&["m", "gpt"])),
            ("choices", choices),
            ("usage", usage),
        ]))
    }

    #[test]
    fn agrees_with_the_reference_on_generated_bodies() {
        agrees_on_generated(WIRE, body(), 400, 400);
    }
}
