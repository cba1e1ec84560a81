//! `mock_llm`'s `raises: {error_type, message | message_repeat}` form (conformance-adapter §5.5, §5.15; fixtures
//! 159, 160): the call fails with exactly that error. The exchange stays real: the mock answers the entry's status
//! with the message in an OpenAI error envelope, and oa classifies the status as it always does. The error the call
//! then raises is the one the entry names: oa's category for that status, `error_type` as its vendor code and the
//! message itself, as the reference harness raises it from its transport (oa's own message for an HTTP error reads
//! `http status N: <the vendor's message, cut at 300 characters>`).

use std::sync::Arc;

use async_trait::async_trait;
use oa_provider::{CallExtras, CompletionRequest, OpenAiProvider, Provider, ProviderError, Response};
use oa_testkit::Server;
use serde_json::{Value, json};

use crate::node::Node;

/// The most bytes `message_repeat` synthesizes.
const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// One `raises` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Raised {
    error_type: String,
    message: String,
}

impl Raised {
    /// Reads `raises: {error_type, message}` or `{error_type, message_repeat: {char, bytes}}` (§5.15: the largest
    /// whole number of `char` that fits in `bytes`).
    pub(super) fn from_node(raises: &Node) -> Result<Self, String> {
        let error_type = raises
            .get("error_type")
            .and_then(Node::as_str)
            .ok_or("fixture_schema_invalid: raises needs a string error_type")?
            .to_owned();
        let message = match (raises.get("message"), raises.get("message_repeat")) {
            (Some(message), None) => message
                .as_str()
                .ok_or("fixture_schema_invalid: raises.message is not a string")?
                .to_owned(),
            (None, Some(repeat)) => {
                let unit = repeat
                    .get("char")
                    .and_then(Node::as_str)
                    .filter(|unit| !unit.is_empty())
                    .ok_or("fixture_schema_invalid: message_repeat needs a non-empty char")?;
                let n_bytes = repeat
                    .get("bytes")
                    .and_then(Node::as_i64)
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|n| *n <= MAX_MESSAGE_BYTES)
                    .ok_or("fixture_schema_invalid: message_repeat needs bytes from 0 to 16 MiB")?;
                unit.repeat(n_bytes / unit.len())
            }
            _ => {
                return Err(
                    "fixture_schema_invalid: raises needs exactly one of message and message_repeat"
                        .to_owned(),
                );
            }
        };
        Ok(Self { error_type, message })
    }

    /// The body the mock answers with: the message in the OpenAI error envelope.
    pub(super) fn body(&self) -> Value {
        json!({"error": {"type": self.error_type, "message": self.message}})
    }
}

/// The mock and its `raises` entries.
#[derive(Debug, Clone)]
pub(super) struct Raising {
    /// The mock, whose request count says which reply a call got last.
    pub(super) server: Arc<Server>,
    /// Per mocked reply, in order: the error its entry raises, if it is a `raises` entry.
    pub(super) raised: Arc<Vec<Option<Raised>>>,
}

/// A `calls_llm` provider over the case's mock that raises, for a call whose last reply was a `raises` entry, the
/// error that entry names (the attempts, spans and hook records stay those of the real exchange).
#[derive(Debug)]
pub(super) struct RaisingProvider {
    pub(super) inner: OpenAiProvider,
    pub(super) raising: Raising,
}

impl RaisingProvider {
    fn raise(&self, error: ProviderError) -> ProviderError {
        let Raising { server, raised } = &self.raising;
        let last = server.n_requests().checked_sub(1);
        match last.and_then(|idx| raised.get(idx)).and_then(Option::as_ref) {
            Some(raised) => ProviderError::new(error.category(), raised.message.clone())
                .with_vendor_code(Some(raised.error_type.clone())),
            None => error,
        }
    }
}

#[async_trait]
impl Provider for RaisingProvider {
    async fn ready(&self) -> Result<(), ProviderError> {
        self.inner.ready().await
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Response, ProviderError> {
        self.inner
            .complete(request)
            .await
            .map_err(|error| self.raise(error))
    }

    async fn complete_with(
        &self,
        request: &CompletionRequest,
        extras: &CallExtras,
    ) -> Result<Response, ProviderError> {
        self.inner
            .complete_with(request, extras)
            .await
            .map_err(|error| self.raise(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raised(yaml: &str) -> Result<Raised, String> {
        Raised::from_node(&Node::from_yaml_str(yaml).unwrap())
    }

    #[test]
    fn message_repeat_rounds_down_to_whole_characters() {
        let emoji = raised("{error_type: server_error, message_repeat: {char: \"😀\", bytes: 10}}").unwrap();
        assert_eq!(emoji.message, "😀😀");
        let exact = raised("{error_type: e, message_repeat: {char: \"😀\", bytes: 102400}}").unwrap();
        assert_eq!(exact.message.len(), 102_400);
        assert_eq!(raised("{error_type: e, message: hi}").unwrap().message, "hi");
        for bad in [
            "{message: hi}",
            "{error_type: e}",
            "{error_type: e, message: hi, message_repeat: {char: x, bytes: 1}}",
            "{error_type: e, message_repeat: {char: \"\", bytes: 1}}",
            "{error_type: e, message_repeat: {char: x, bytes: 99999999999}}",
        ] {
            assert!(
                raised(bad).unwrap_err().starts_with("fixture_schema_invalid"),
                "{bad}"
            );
        }
    }
}
