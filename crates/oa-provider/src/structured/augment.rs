//! The prompt-augmentation path (§8.1.5.1): the schema goes into the prompt as a system directive, for routes
//! without a native constraint (or whose native constraint was rejected).

use serde_json::Value;

use crate::canonical;
use crate::model::{Content, Message, Role};

/// The messages sent on the prompt-augmentation path (§8.1.5.1): the caller's list, copied, with a system
/// directive carrying the schema prepended, or appended to the caller's leading system message.
///
/// The directive text is the one prompt oa writes; it only states the format the schema already demands.
pub(crate) fn augment_messages(messages: &[Message], schema: &Value) -> Vec<Message> {
    let directive = format!(
        "Respond with only a JSON value that conforms to the following JSON Schema (draft 2020-12). \
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
