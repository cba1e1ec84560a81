//! Scripted vendors that refuse what each vendor's documentation says it refuses: a checker for the JSON Schema a
//! request sends on a mapping's native structured path (OpenAI `response_format` with `strict: true`, Anthropic
//! `output_config.format`, Gemini `generationConfig.responseJsonSchema`), and a responder that answers a breaking
//! request with the vendor's kind of 400 and lets every other request through to its script.
//!
//! The rules are the vendors' documented 400s (checked 2026-12-07; see each module), written here on their own and
//! not taken from oa-provider's fitting table: a test comparing the two is what keeps either honest. Rules the
//! documentation leaves uncertain are not applied (a scripted vendor stricter than the documentation would test a
//! guess).

mod anthropic;
mod gemini;
mod openai;
mod walk;

use std::fmt;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::{Reply, Request, Responder, Script};

/// A vendor whose documented schema rules a scripted server applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vendor {
    /// OpenAI Chat Completions, `response_format` json_schema with `strict: true`.
    OpenAi,
    /// Anthropic Messages, `output_config.format` json_schema.
    Anthropic,
    /// Gemini `generateContent`, `generationConfig.responseJsonSchema`.
    Gemini,
}

/// A schema the vendor refuses: which documented rule, where in the schema, and the vendor's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The vendor.
    pub vendor: Vendor,
    /// The documented rule broken, as a short name (`additional_properties`, `keyword`, `limit`, ...).
    pub rule: &'static str,
    /// Where in the schema: the keys and indices from its root.
    pub context: Vec<String>,
    /// What the vendor says about it.
    pub detail: String,
}

impl Vendor {
    /// Every vendor.
    pub const ALL: [Vendor; 3] = [Self::OpenAi, Self::Anthropic, Self::Gemini];

    /// Checks a bare schema against the vendor's documented rules (for OpenAI, the strict-mode rules).
    ///
    /// ```
    /// use oa_testkit::vendor::Vendor;
    /// use serde_json::json;
    ///
    /// let open = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    /// let rejection = Vendor::Anthropic.check_schema(&open).unwrap_err();
    /// assert_eq!(rejection.rule, "additional_properties");
    /// assert!(Vendor::Gemini.check_schema(&open).is_ok());
    /// ```
    ///
    /// # Errors
    ///
    /// The first rule the schema breaks, in document order.
    pub fn check_schema(self, schema: &Value) -> Result<(), Rejection> {
        match self {
            Self::OpenAi => openai::check(schema),
            Self::Anthropic => anthropic::check(schema),
            Self::Gemini => gemini::check(schema),
        }
    }

    /// Checks the schema a request body sends on the vendor's native structured path; a body with none (or an OpenAI
    /// `response_format` without `strict: true`, which the vendor takes as a hint) passes.
    ///
    /// # Errors
    ///
    /// The first rule the schema breaks.
    pub fn check_request(self, body: &Value) -> Result<(), Rejection> {
        match self.native_schema(body) {
            Some(schema) => self.check_schema(schema),
            None => Ok(()),
        }
    }

    /// The schema a body sends natively, if any.
    pub fn native_schema(self, body: &Value) -> Option<&Value> {
        match self {
            Self::OpenAi => {
                let format = body.pointer("/response_format/json_schema")?;
                (format.get("strict") == Some(&Value::Bool(true)))
                    .then(|| format.get("schema"))
                    .flatten()
            }
            Self::Anthropic => body.pointer("/output_config/format/schema"),
            Self::Gemini => body.pointer("/generationConfig/responseJsonSchema"),
        }
    }

    /// A responder that answers each request whose native schema breaks a rule with the vendor's 400 (consuming
    /// nothing from the script), and every other request from `script` as [`Responder::Script`] would.
    ///
    /// ```
    /// use oa_testkit::vendor::Vendor;
    /// use oa_testkit::{Reply, Script, Server};
    /// use serde_json::json;
    ///
    /// let server = Server::start(Vendor::OpenAi.enforcing(Script::new([Reply::json(200, json!({"ok": true}))])))?;
    /// let body = json!({"response_format": {"type": "json_schema", "json_schema": {
    ///     "name": "x", "strict": true, "schema": {"type": "object", "properties": {}}}}});
    /// let request = format!("POST /v1/chat/completions HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}", body.to_string().len());
    /// let answer = oa_testkit::exchange(server.address(), request.as_bytes())?;
    /// assert!(answer.starts_with(b"HTTP/1.1 400 "));
    /// assert_eq!(server.n_unconsumed(), 0); // a function responder; the script is inside it
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn enforcing(self, script: Script) -> Responder {
        let script = Mutex::new(script);
        Responder::function(move |request: &Request| {
            if let Some(body) = request.json()
                && let Err(rejection) = self.check_request(&body)
            {
                return rejection.reply_for(&body);
            }
            let mut script = script.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let path = request.path.split('?').next().unwrap_or_default();
            if let Some((_, reply)) = script.routes.iter().find(|(route, _)| route == path) {
                return reply.clone();
            }
            let next = script.replies.pop_front();
            next.unwrap_or_else(|| script.default.clone())
        })
    }
}

impl Rejection {
    pub(crate) fn new(
        vendor: Vendor,
        rule: &'static str,
        context: &[String],
        detail: impl Into<String>,
    ) -> Self {
        Self {
            vendor,
            rule,
            context: context.to_vec(),
            detail: detail.into(),
        }
    }

    /// The vendor's error message, as its API words it.
    pub fn message(&self) -> String {
        self.message_named("response")
    }

    fn message_named(&self, name: &str) -> String {
        match self.vendor {
            Vendor::OpenAi => {
                let context: Vec<String> = self.context.iter().map(|token| format!("'{token}'")).collect();
                let context = match context.len() {
                    1 => format!("({},)", context[0]),
                    _ => format!("({})", context.join(", ")),
                };
                format!(
                    "Invalid schema for response_format '{name}': In context={context}, {}",
                    self.detail
                )
            }
            Vendor::Anthropic => format!("output_config.format.schema: {}", self.detail),
            Vendor::Gemini => format!(
                "Invalid JSON payload: generation_config.response_json_schema{}: {}",
                self.context
                    .iter()
                    .map(|token| format!(".{token}"))
                    .collect::<String>(),
                self.detail
            ),
        }
    }

    /// The vendor's 400 reply for this rejection.
    pub fn reply(&self) -> Reply {
        self.reply_for(&Value::Null)
    }

    /// The 400 reply, naming OpenAI's schema as the request named it.
    fn reply_for(&self, body: &Value) -> Reply {
        let name = body
            .pointer("/response_format/json_schema/name")
            .and_then(Value::as_str)
            .unwrap_or("response");
        let message = self.message_named(name);
        let body = match self.vendor {
            Vendor::OpenAi => json!({"error": {
                "message": message, "type": "invalid_request_error", "param": "response_format",
                "code": "invalid_json_schema"
            }}),
            Vendor::Anthropic => {
                json!({"type": "error", "error": {"type": "invalid_request_error", "message": message},
                                        "request_id": "req_schema"})
            }
            Vendor::Gemini => {
                json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})
            }
        };
        Reply::json(400, body)
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}
