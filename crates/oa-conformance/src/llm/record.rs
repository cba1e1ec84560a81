//! What an llm-provider case run produced: per call, the result, the wire requests, the attempt
//! records and token events the provider's observer hook delivered.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use oa_provider::hook::TokenDelta;
use oa_provider::{AttemptHook, AttemptRecord, Mapping};
use oa_testkit::Request;
use serde_json::Value;

use crate::node::Node;

/// One token delta as the observer received it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TokenView {
    pub(crate) attempt_index: u32,
    /// `"content"` or `"reasoning"`.
    pub(crate) kind: &'static str,
    pub(crate) text: String,
}

/// One attempt record, reduced to what the assertions read.
#[derive(Debug, Clone)]
pub(crate) struct AttemptView {
    pub(crate) attempt_index: u32,
    /// `"transient"` / `"reask"`; `None` on attempt 0.
    pub(crate) retry_reason: Option<&'static str>,
    /// `Ok(response JSON view)` or `Err(error JSON view)`.
    pub(crate) outcome: Result<Value, Value>,
    /// Whether a body was sent (`false`: rejected before sending).
    pub(crate) sent: bool,
}

/// The observer handed to every call: it records, it never alters.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    tokens: Mutex<Vec<TokenView>>,
    attempts: Mutex<Vec<AttemptView>>,
    retries: Mutex<Vec<(u32, Duration)>>,
}

impl Recorder {
    pub(crate) fn tokens(&self) -> Vec<TokenView> {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub(crate) fn attempts(&self) -> Vec<AttemptView> {
        self.attempts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Every `on_retry` the retry loop announced: (attempt index that failed, backoff slept).
    pub(crate) fn retries(&self) -> Vec<(u32, Duration)> {
        self.retries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn record_retry(&self, attempt_index: u32, delay: Duration) {
        self.retries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((attempt_index, delay));
    }
}

impl AttemptHook for Recorder {
    fn on_token(&self, delta: &TokenDelta<'_>) {
        let view = TokenView {
            attempt_index: delta.attempt_index,
            kind: delta.kind.as_str(),
            text: delta.text.to_owned(),
        };
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(view);
    }

    fn on_attempt(&self, record: &AttemptRecord<'_>) {
        let view = AttemptView {
            attempt_index: record.attempt_index,
            retry_reason: record.retry_reason.map(|reason| reason.as_str()),
            outcome: match record.outcome {
                Ok(response) => Ok(super::view::response_json(response)),
                Err(error) => Err(super::view::error_json(error)),
            },
            sent: record.request.body.is_some(),
        };
        self.attempts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(view);
    }
}

/// One call of a case, as run.
#[derive(Debug, Clone)]
pub(crate) struct CallRun {
    /// The call's directives (`call:` or a `calls:` entry).
    pub(crate) input: Node,
    /// The wire mapping the case ran under.
    pub(crate) mapping: Mapping,
    /// `Ok(response view)` / `Err(error view)`; `ready()` success is `Ok(null)`.
    pub(crate) result: Result<Value, Value>,
    /// The non-health requests the mock received during this call, in order.
    pub(crate) requests: Vec<Request>,
    /// Attempt records, token events and retry announcements from the observer.
    pub(crate) attempts: Vec<AttemptView>,
    /// The attributes of each LLM span the call's OTel observer rendered, in attempt order.
    pub(crate) spans: Vec<serde_json::Map<String, Value>>,
    pub(crate) tokens: Vec<TokenView>,
    pub(crate) retries: Vec<(u32, Duration)>,
    /// The caller's messages and config (JSON) before and after the call, to prove no mutation.
    pub(crate) caller_before: (Value, Value),
    pub(crate) caller_after: (Value, Value),
    /// For a successful streamed call: the same call run atomically against the non-streamed
    /// equivalent of its stream (see `stream_equivalent`).
    pub(crate) non_streamed_equivalent: Option<Value>,
    /// Which `mock_provider.responses` entry answered this call's first request.
    pub(crate) first_reply_idx: usize,
}

impl CallRun {
    /// Request `idx` of this call as JSON. Under §8.3 the bound model travels in the URL path, not the body; the
    /// fixtures carry it as `model` in the expected wire request (044 header), so it is put there from the path.
    pub(crate) fn wire(&self, idx: usize) -> Option<Value> {
        let request = self.requests.get(idx)?;
        let mut wire = request.json()?;
        if self.mapping == Mapping::Gemini
            && let (Some(model), Value::Object(body)) = (gemini_model(&request.path), &mut wire)
        {
            body.insert("model".to_owned(), Value::from(model));
        }
        Some(wire)
    }

    /// The error view when the call failed.
    pub(crate) fn error(&self) -> Option<&Value> {
        self.result.as_ref().err()
    }

    /// The error's category when the call failed.
    pub(crate) fn error_category(&self) -> Option<&str> {
        self.error().and_then(|error| error["category"].as_str())
    }

    /// The caller's config (JSON) as given.
    pub(crate) fn caller_config(&self) -> &Value {
        &self.caller_before.1
    }
}

/// Everything a case run produced.
#[derive(Debug, Clone)]
pub(crate) struct CaseRun {
    /// The case's directives.
    pub(crate) case: Node,
    /// Its calls in order.
    pub(crate) calls: Vec<CallRun>,
    /// Canned replies never consumed.
    pub(crate) n_unconsumed: usize,
    /// Requests that arrived after the canned replies ran out.
    pub(crate) n_unanswered: usize,
}

impl CaseRun {
    /// The `mock_provider.responses` entries (as fixture nodes).
    pub(crate) fn mock_responses(&self) -> Vec<&Node> {
        self.case
            .get("mock_provider")
            .and_then(|m| m.get("responses"))
            .and_then(Node::as_seq)
            .map(|s| s.iter().collect())
            .unwrap_or_default()
    }
}

/// The model of a Gemini request path, `…/models/{model}:generateContent`, percent-decoded.
fn gemini_model(path: &str) -> Option<String> {
    let (_, rest) = path.rsplit_once("/models/")?;
    let segment = rest.strip_suffix(":generateContent")?;
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut idx = 0;
    while idx < bytes.len() {
        let hex = bytes
            .get(idx + 1..idx + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[idx], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                idx += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                idx += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_gemini_model_is_read_from_the_path() {
        assert_eq!(
            super::gemini_model("/v1/models/gemini-test:generateContent").as_deref(),
            Some("gemini-test")
        );
        assert_eq!(
            super::gemini_model("/v1beta/models/a%2Fb:generateContent").as_deref(),
            Some("a/b")
        );
        assert_eq!(super::gemini_model("/v1/chat/completions"), None);
    }
}
