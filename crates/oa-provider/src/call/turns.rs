//! The message list as the mappings without a system or tool role take it (§8.2.1, §8.2.1.2, §8.3.1, §8.3.1.2):
//! system messages lifted out, their text joined by a blank line in order, and each consecutive run of tool
//! messages collapsed into one turn of tool results. Pre-send validation has already made every system message a
//! non-empty string and matched every tool message to an earlier assistant tool call.

use crate::model::{Content, Message, Role};

/// One turn of the conversation as sent.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Turn<'a> {
    /// A user message.
    User(&'a Message),
    /// An assistant message (text, reasoning blocks, tool calls).
    Assistant(&'a Message),
    /// A maximal run of consecutive tool messages, in order.
    ToolResults(&'a [Message]),
}

/// The system text and the turns of a message list.
#[derive(Debug)]
pub(crate) struct Conversation<'a> {
    /// The system messages' text joined by `\n\n`, in order; `None` without one.
    pub(crate) system: Option<String>,
    pub(crate) turns: Vec<Turn<'a>>,
}

/// Splits `messages` into the system text and its turns.
pub(crate) fn split(messages: &[Message]) -> Conversation<'_> {
    let mut system: Vec<String> = Vec::new();
    let mut turns = Vec::new();
    let mut idx = 0;
    while idx < messages.len() {
        let message = &messages[idx];
        match message.role {
            Role::System => system.push(match &message.content {
                Some(Content::Text(text)) => text.clone(),
                _ => message.text().unwrap_or_default(),
            }),
            Role::User => turns.push(Turn::User(message)),
            Role::Assistant => turns.push(Turn::Assistant(message)),
            Role::Tool => {
                let run = messages[idx..]
                    .iter()
                    .take_while(|message| message.role == Role::Tool)
                    .count();
                turns.push(Turn::ToolResults(&messages[idx..idx + run]));
                idx += run;
                continue;
            }
        }
        idx += 1;
    }
    Conversation {
        system: if system.is_empty() {
            None
        } else {
            Some(system.join("\n\n"))
        },
        turns,
    }
}

/// The text of a tool message (§3: a string).
pub(crate) fn tool_result_text(message: &Message) -> String {
    message.text().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::ToolCall;

    #[test]
    fn systems_are_joined_and_tool_runs_collapse() {
        let call = |id: &str| ToolCall {
            id: id.to_owned(),
            name: "f".to_owned(),
            arguments: json!({}),
            signature: None,
        };
        let mut assistant = Message::assistant("");
        assistant.tool_calls = Some(vec![call("a"), call("b")]);
        let messages = vec![
            Message::system("one"),
            Message::user("hi"),
            assistant,
            Message::tool("a", "1"),
            Message::tool("b", "2"),
            Message::user("and?"),
        ];
        let conversation = split(&messages);
        assert_eq!(conversation.system.as_deref(), Some("one"));
        let shape: Vec<String> = conversation
            .turns
            .iter()
            .map(|turn| match turn {
                Turn::User(_) => "user".to_owned(),
                Turn::Assistant(_) => "assistant".to_owned(),
                Turn::ToolResults(run) => format!("tools:{}", run.len()),
            })
            .collect();
        assert_eq!(shape, ["user", "assistant", "tools:2", "user"]);
        assert!(split(&[Message::user("x")]).system.is_none());
    }
}
