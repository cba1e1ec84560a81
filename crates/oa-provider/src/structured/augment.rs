//! The prompt-augmentation path (§8.1.5.1): the schema goes into the prompt as a system directive, for routes
//! without a native constraint (or whose native constraint was rejected).

use serde_json::Value;

use oa_schema::Draft;

use crate::canonical;
use crate::model::{Content, Message, Role};

/// The messages sent on the prompt-augmentation path (§8.1.5.1): the caller's list, copied, with a system
/// directive carrying the schema prepended, or appended to the caller's leading system message.
///
/// The directive text is the one prompt oa writes; it only states the format the schema already demands, naming
/// the draft the schema is written in (`None`: a `$schema` of its own, which the schema itself states).
pub(crate) fn augment_messages(messages: &[Message], schema: &Value, draft: Option<Draft>) -> Vec<Message> {
    let draft = match draft {
        Some(Draft::Draft202012) => " (draft 2020-12)".to_owned(),
        Some(Draft::Draft201909) => " (draft 2019-09)".to_owned(),
        Some(draft) => format!(" (draft-0{})", draft.name()),
        None => String::new(),
    };
    let directive = format!(
        "Respond with only a JSON value that conforms to the following JSON Schema{draft}. \
         Do not add any other text.\nJSON Schema: {}",
        canonical::to_string(schema)
    );
    let mut augmented = messages.to_vec();
    match augmented.first_mut() {
        Some(Message {
            role: Role::System,
            content: Some(Content::Text(text)),
            ..
        }) => {
            text.push_str("\n\n");
            text.push_str(&directive);
        }
        _ => augmented.insert(0, Message::system(directive)),
    }
    augmented
}
