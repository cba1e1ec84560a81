//! The llm-provider model, vendor-neutral (§3–§6): messages and content blocks, tools, the runtime config, the
//! request `complete()` takes, the §5 [`Provider`] interface, and the response it returns.

mod attempts;
mod config;
mod extras;
mod mapping;
mod message;
mod raw;
mod request;
pub(crate) mod response;
mod tool;

pub use attempts::{AttemptOutcome, AttemptSummary};
pub use config::{DECLARED_FIELDS, RuntimeConfig};
pub use extras::CallExtras;
pub use mapping::{Mapping, UnknownMapping};
pub use message::{Content, ContentBlock, ImageDetail, ImageSource, Message, Role, ToolCall};
pub use raw::RawJson;
pub use request::{CompletionRequest, Provider};
pub use response::{Blocked, FinishReason, Response, StructuredOutputPath, Usage};
pub use tool::{Tool, ToolChoice};
