//! The reading of a Chat Completions body ([`WireFormat::map_bytes`](crate::call::wire::WireFormat) and
//! [`map_body`](crate::call::wire::WireFormat::map_body)): the member tables of the body, `choices[0]`, its
//! message, a tool call and `usage`, each member read from the bytes or from a parsed `Value` by one rule (see
//! [`view!`]). What is read goes through [`map_read`] (the refusal rule, reasoning, tool calls checked).

use std::borrow::Cow;

use serde_json::Value;

use crate::call::view::{AsStr, Counter, First, Member, NullOr, Refusal, Text, routes, view};
use crate::call::wire::Mapped;
use crate::model::ProviderError;
use crate::model::Usage;
use crate::openai::response::{Read, map_read};
use crate::structured::{CheckedTools, WireToolCall};

routes!(Body => map);

/// Reads a `usage` member (a stream's, which arrives in a chunk): its counters when an object, else no usage.
pub(crate) fn read_usage(usage: Option<&Value>) -> Usage {
    usage
        .and_then(|usage| UsageView::from_value(usage).ok())
        .map_or_else(Usage::default, |UsageView(usage)| usage)
}

fn map(body: Body<'_>, tools: &CheckedTools<'_>) -> Result<Mapped, ProviderError> {
    let Body {
        choice: Choice {
            message,
            finish_reason,
        },
        usage,
        model,
        id,
    } = body;
    let read = Read {
        content: message.content.map(|text| text.0),
        raw_calls: message.tool_calls,
        reasoning_content: message.reasoning_content,
        reasoning: message.reasoning,
        refusal: message.refusal,
        wire_finish: finish_reason,
        usage,
        model,
    };
    let mut mapped = map_read(read, tools)?;
    mapped.response_id = id.map(Cow::into_owned);
    Ok(mapped)
}

const NO_CHOICE: &str = "response has no choices[0]";
const NO_MESSAGE: &str = "choices[0] has no message object";

/// The body's members the mapping reads.
struct Body<'de> {
    choice: Choice<'de>,
    usage: Usage,
    model: Option<Cow<'de, str>>,
    id: Option<Cow<'de, str>>,
}

view! {
    Body<'de>: object else "response body is not a JSON object" {
        choices: First<Choice<'de>> = "choices" else NO_CHOICE,
        usage: UsageView = "usage",
        model: AsStr<'de> = "model",
        id: AsStr<'de> = "id",
    } => Ok(Body {
        choice: First::of(choices).ok_or_else(|| Refusal::says(NO_CHOICE))?,
        usage: usage.map(|UsageView(usage)| usage).unwrap_or_default(),
        model: AsStr::of(model),
        id: AsStr::of(id),
    })
}

/// `choices[0]`: its message and finish reason.
struct Choice<'de> {
    message: Message<'de>,
    finish_reason: Option<Cow<'de, str>>,
}

view! {
    Choice<'de>: object {
        message: Message<'de> = "message" else NO_MESSAGE,
        finish_reason: AsStr<'de> = "finish_reason",
    } => Ok(Choice {
        message: message.ok_or_else(|| Refusal::says(NO_MESSAGE))?,
        finish_reason: AsStr::of(finish_reason),
    })
}

/// `choices[0].message`: its content (`null` is none), tool calls, and the string values of the rest.
struct Message<'de> {
    content: Option<Text<'de>>,
    tool_calls: Vec<WireToolCall>,
    reasoning_content: Option<Cow<'de, str>>,
    reasoning: Option<Cow<'de, str>>,
    refusal: Option<Cow<'de, str>>,
}

view! {
    Message<'de>: object {
        content: NullOr<Text<'de>> = "content" else "choices[0].message.content is not a string",
        tool_calls: NullOr<Vec<ToolCall>> = "tool_calls" else "choices[0].message.tool_calls is not an array",
        reasoning_content: AsStr<'de> = "reasoning_content",
        reasoning: AsStr<'de> = "reasoning",
        refusal: AsStr<'de> = "refusal",
    } => Ok(Message {
        content: NullOr::of(content),
        tool_calls: NullOr::of(tool_calls)
            .unwrap_or_default()
            .into_iter()
            .map(|ToolCall(call)| call)
            .collect(),
        reasoning_content: AsStr::of(reasoning_content),
        reasoning: AsStr::of(reasoning),
        refusal: AsStr::of(refusal),
    })
}

/// One of `tool_calls`: `{id, function: {name, arguments}}`, the id and name read as strings (else empty), the
/// arguments a string, `null` or absent.
struct ToolCall(WireToolCall);

view! {
    ToolCall: object else "a tool call is not {id, type, function: {name, arguments}}" {
        id: AsStr<'de> = "id",
        function: Function = "function",
    } => {
        let Function { name, arguments } = function.ok_or(Refusal::Mismatch)?;
        Ok(ToolCall(WireToolCall {
            id: AsStr::of(id).map(Into::into).unwrap_or_default(),
            name,
            arguments,
            signature: None,
        }))
    }
}

/// A tool call's `function`.
struct Function {
    name: String,
    arguments: String,
}

view! {
    Function: object {
        name: AsStr<'de> = "name",
        arguments: NullOr<Text<'de>> = "arguments",
    } => Ok(Function {
        name: AsStr::of(name).map(Into::into).unwrap_or_default(),
        arguments: NullOr::of(arguments).map(Text::into_owned).unwrap_or_default(),
    })
}

/// `usage`: its counters when an object, else no usage.
struct UsageView(Usage);

view! {
    UsageView: any {
        prompt_tokens: Counter = "prompt_tokens",
        completion_tokens: Counter = "completion_tokens",
        total_tokens: Counter = "total_tokens",
        details: Cached = "prompt_tokens_details",
    } => Ok(UsageView(Usage {
        prompt_tokens: Counter::of(prompt_tokens),
        completion_tokens: Counter::of(completion_tokens),
        total_tokens: Counter::of(total_tokens),
        cached_tokens: details.and_then(|Cached(cached)| cached),
        cache_creation_tokens: None,
    }))
}

/// `usage.prompt_tokens_details`: its `cached_tokens` when an object.
struct Cached(Option<u64>);

view! {
    Cached: any {
        cached_tokens: Counter = "cached_tokens",
    } => Ok(Cached(Counter::of(cached_tokens)))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::call::view_check::{agrees_on_generated, counter, members, or_any, refuses, text, tools};
    use crate::openai::provider::WIRE;

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
    fn refuses_in_the_mappings_words() {
        let no_choice = "response has no choices[0]";
        let malformed_call = "a tool call is not {id, type, function: {name, arguments}}";
        refuses(
            WIRE,
            &[
                ("[1]", "response body is not a JSON object"),
                ("{}", no_choice),
                (r#"{"choices":"x"}"#, no_choice),
                (r#"{"choices":[]}"#, no_choice),
                (r#"{"choices":[5,{}]}"#, no_choice),
                (r#"{"choices":[{}]}"#, "choices[0] has no message object"),
                (
                    r#"{"choices":[{"message":[]}]}"#,
                    "choices[0] has no message object",
                ),
                (
                    r#"{"choices":[{"message":{"content":5,"tool_calls":{}}}]}"#,
                    "choices[0].message.content is not a string",
                ),
                (
                    r#"{"choices":[{"message":{"tool_calls":{}}}]}"#,
                    "choices[0].message.tool_calls is not an array",
                ),
                (r#"{"choices":[{"message":{"tool_calls":[5]}}]}"#, malformed_call),
                (
                    r#"{"choices":[{"message":{"tool_calls":[{"id":"c"}]}}]}"#,
                    malformed_call,
                ),
                (
                    r#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":{}}}]}}]}"#,
                    malformed_call,
                ),
            ],
        );
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
