//! The canary probe and per-keyword probes: requests whose correct answer and whose schema disagree, so only a
//! decoder bound by the schema's grammar can answer them validly. They travel through the caller's own
//! [`Provider`] (same base URL, headers and gateway as production traffic), because enforcement is a property of
//! the whole route, not of a vendor.

use serde::Serialize;
use serde_json::{Value, json};

use crate::call::{CompletionRequest, Provider};
use crate::model::{Category, ProviderError};
use crate::model::{FinishReason, Message, Response, RuntimeConfig, StructuredOutputPath};

/// The canary question: every model knows the answer, and the answer is not the one the schema allows.
pub const CANARY_QUESTION: &str = "What is two plus two? Answer with the number.";

/// The only string the canary schema allows.
pub const CANARY_ANSWER: &str = "seventeen";

/// The output budget of a probe: enough for the few tokens a bound decoder needs, small enough that a chatty
/// non-enforcing answer costs little.
pub const PROBE_MAX_TOKENS: u64 = 48;

/// The canary schema: one required string whose single legal value is [`CANARY_ANSWER`]; strict-compatible, so it
/// goes on the `native` path.
pub fn canary_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": [CANARY_ANSWER]}},
        "required": ["answer"],
        "additionalProperties": false
    })
}

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum ProbeOutcome {
    /// The answer obeyed the clause only a bound decoder obeys, on the `native` (strict) path.
    Enforced,
    /// The route did not enforce: the answer broke the schema, or the request could not go strict.
    NotEnforced {
        /// What the model answered.
        content: String,
        /// The path the request went on; anything but `native` never asked for enforcement.
        path: Option<StructuredOutputPath>,
    },
    /// The probe could not run (unreachable, authentication, a rejected request, ...).
    Error {
        /// The §7 category of the failure.
        #[serde(serialize_with = "category_name")]
        category: Category,
        /// The provider's message (secrets already scrubbed by the provider).
        message: String,
    },
}

impl ProbeOutcome {
    /// The verdict word: `"enforced"`, `"not_enforced"` or `"error"`.
    pub fn verdict(&self) -> &'static str {
        match self {
            Self::Enforced => "enforced",
            Self::NotEnforced { .. } => "not_enforced",
            Self::Error { .. } => "error",
        }
    }

    /// Whether the probe showed enforcement.
    pub fn is_enforced(&self) -> bool {
        matches!(self, Self::Enforced)
    }

    /// Reads a call's result as a verdict.
    fn from_result(result: Result<Response, ProviderError>) -> Self {
        match result {
            Ok(response) if response.structured_output_path == Some(StructuredOutputPath::Native) => {
                Self::Enforced
            }
            Ok(response) => Self::NotEnforced {
                content: response.message.text().unwrap_or_default(),
                path: response.structured_output_path,
            },
            Err(error) => match error.structured_output() {
                // An object cut off by the token budget may be a bound decoder that had not finished: no verdict.
                Some(failure)
                    if failure.finish_reason == FinishReason::Length
                        && failure.output_content.trim_start().starts_with('{') =>
                {
                    Self::Error {
                        category: error.category(),
                        message: format!(
                            "inconclusive: the answer was cut off at max_tokens ({PROBE_MAX_TOKENS}) before it completed"
                        ),
                    }
                }
                // A refusal says nothing about the decoder: the model declined before any grammar applied.
                Some(failure) if failure.finish_reason == FinishReason::ContentFilter => Self::Error {
                    category: error.category(),
                    message: format!("inconclusive: the model refused: {}", failure.output_content),
                },
                Some(failure) => Self::NotEnforced {
                    content: failure.output_content.clone(),
                    path: error.structured_output_path(),
                },
                None => Self::Error {
                    category: error.category(),
                    message: error.message().to_owned(),
                },
            },
        }
    }
}

fn category_name<S: serde::Serializer>(category: &Category, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(category.as_str())
}

/// One probe request: a question whose natural answer breaks one clause of a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The keyword the probe tests (`"enum"` for the canary; `"format:email"` and the like for a format).
    pub keyword: &'static str,
    /// The schema sent; strict-compatible, so a capable route enforces it.
    pub schema: Value,
    /// The user message.
    pub question: &'static str,
    /// Whether the answer is also checked with `format` asserted (format is an annotation by default, so a format
    /// probe's answer must be judged with it on).
    pub format_assertion: bool,
}

impl Probe {
    /// The canary: the single-member enum against "two plus two".
    pub fn canary() -> Self {
        Self {
            keyword: "enum",
            schema: canary_schema(),
            question: CANARY_QUESTION,
            format_assertion: false,
        }
    }

    /// The request this probe sends: one user message, the schema, `max_tokens` [`PROBE_MAX_TOKENS`],
    /// temperature 0, no retry (a reask would hide the very failure the probe looks for).
    pub fn request(&self) -> CompletionRequest {
        let config = RuntimeConfig {
            max_tokens: Some(PROBE_MAX_TOKENS),
            temperature: Some(0.0),
            ..RuntimeConfig::default()
        };
        CompletionRequest::new(vec![Message::user(self.question)])
            .with_response_schema(self.schema.clone())
            .with_config(config)
    }

    /// Sends the probe through `provider` and reads the verdict.
    pub async fn run(&self, provider: &dyn Provider) -> ProbeOutcome {
        let result = provider.complete(&self.request()).await;
        // A format probe's answer passed the call's validation, where `format` is an annotation; it must also
        // meet the format itself.
        if let (true, Ok(response)) = (self.format_assertion, &result)
            && let Some(parsed) = &response.parsed
            && !self.meets_format(parsed)
        {
            return ProbeOutcome::NotEnforced {
                content: response.message.text().unwrap_or_default(),
                path: response.structured_output_path,
            };
        }
        ProbeOutcome::from_result(result)
    }

    /// Whether `value` meets the probe's schema with `format` asserted.
    fn meets_format(&self, value: &Value) -> bool {
        oa_schema::Validator::options()
            .format_assertion(true)
            .build(&self.schema)
            .is_ok_and(|validator| validator.is_valid(value))
    }
}

/// Runs the canary through `provider`: enforced, not enforced with what the model said, or error.
pub async fn probe_canary(provider: &dyn Provider) -> ProbeOutcome {
    Probe::canary().run(provider).await
}

/// The keywords a per-keyword probe exists for, in the order the matrix lists them. A format is named
/// `format:NAME`; `anyOf`/`oneOf` stand for a union's branches.
pub const PROBED_KEYWORDS: [&str; 25] = [
    "enum",
    "const",
    "maxLength",
    "minLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "minItems",
    "maxItems",
    "uniqueItems",
    "prefixItems",
    "type",
    "anyOf",
    "oneOf",
    "format:date",
    "format:date-time",
    "format:email",
    "format:uuid",
];

/// Every assertion or applicator keyword the matrix accounts for: one the schema uses that has no probe is listed
/// as not probed (a format by its name, `format:NAME`).
pub(crate) const ACCOUNTED_KEYWORDS: [&str; 33] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "dependentSchemas",
    "prefixItems",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// The probe engineered for `keyword` (one of [`PROBED_KEYWORDS`]), or `None` for any other keyword.
pub fn keyword_probe(keyword: &str) -> Option<Probe> {
    let answer = |property: Value| {
        json!({
            "type": "object",
            "properties": {"answer": property},
            "required": ["answer"],
            "additionalProperties": false
        })
    };
    let (keyword, schema, question) = match keyword {
        "enum" => return Some(Probe::canary()),
        "const" => (
            "const",
            answer(json!({"type": "string", "const": CANARY_ANSWER})),
            CANARY_QUESTION,
        ),
        "maxLength" => (
            "maxLength",
            answer(json!({"type": "string", "maxLength": 2})),
            "What is the capital of France? Answer with the name.",
        ),
        "minLength" => (
            "minLength",
            // The upper bound only lets a bound decoder finish within the budget; "4" breaks the lower one.
            answer(json!({"type": "string", "minLength": 8, "maxLength": 12})),
            "What is two plus two? Answer with the digit only.",
        ),
        "pattern" => (
            "pattern",
            answer(json!({"type": "string", "pattern": "^z{5}$"})),
            "What is the capital of France? Answer with the name.",
        ),
        "minimum" => (
            "minimum",
            answer(json!({"type": "integer", "minimum": 100})),
            CANARY_QUESTION,
        ),
        "maximum" => (
            "maximum",
            answer(json!({"type": "integer", "maximum": 3})),
            CANARY_QUESTION,
        ),
        "required" => (
            "required",
            json!({
                "type": "object",
                "properties": {"answer": {"type": "integer"}, "zebra": {"type": "string"}},
                "required": ["answer", "zebra"],
                "additionalProperties": false
            }),
            "Reply with a JSON object whose only key is \"answer\", set to two plus two.",
        ),
        "additionalProperties" => (
            "additionalProperties",
            answer(json!({"type": "integer"})),
            "Reply with a JSON object with two keys: \"answer\", set to two plus two, and \"explanation\".",
        ),
        "minItems" => (
            "minItems",
            // As above: `maxItems` closes the array for a bound decoder; `[4]` breaks `minItems`.
            answer(json!({"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3})),
            "What is two plus two? Answer with a list holding that one number.",
        ),
        "maxItems" => (
            "maxItems",
            answer(json!({"type": "array", "items": {"type": "integer"}, "maxItems": 1})),
            "List the numbers from one to six.",
        ),
        "type" => (
            "type",
            answer(json!({"type": "integer"})),
            "What is the capital of France? Answer with the name.",
        ),
        "exclusiveMinimum" => (
            "exclusiveMinimum",
            // The true answer sits exactly on the excluded bound.
            answer(json!({"type": "integer", "exclusiveMinimum": 4})),
            CANARY_QUESTION,
        ),
        "exclusiveMaximum" => (
            "exclusiveMaximum",
            answer(json!({"type": "integer", "exclusiveMaximum": 4})),
            CANARY_QUESTION,
        ),
        "multipleOf" => (
            "multipleOf",
            answer(json!({"type": "integer", "multipleOf": 5})),
            CANARY_QUESTION,
        ),
        "minProperties" => (
            "minProperties",
            answer(
                json!({"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2,
                          "maxProperties": 2}),
            ),
            "Reply with an empty JSON object as the answer.",
        ),
        "maxProperties" => (
            "maxProperties",
            answer(
                json!({"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 1}),
            ),
            "Give the ages of Ada (36), Alan (41) and Grace (85) as an object from name to age.",
        ),
        "uniqueItems" => (
            "uniqueItems",
            answer(
                json!({"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3,
                          "uniqueItems": true}),
            ),
            "Answer with a list holding the number four three times.",
        ),
        "prefixItems" => (
            "prefixItems",
            answer(
                json!({"type": "array", "prefixItems": [{"type": "string", "const": CANARY_ANSWER}],
                          "items": false}),
            ),
            "What is two plus two? Answer with a list holding that one number.",
        ),
        "anyOf" | "oneOf" => (
            if keyword == "anyOf" { "anyOf" } else { "oneOf" },
            // Neither branch admits the true answer, in either of its usual shapes.
            answer(
                json!({keyword: [{"type": "integer", "minimum": 100}, {"type": "string", "enum": [CANARY_ANSWER]}]}),
            ),
            CANARY_QUESTION,
        ),
        "format:date" | "format:date-time" | "format:email" | "format:uuid" => {
            let name = keyword.trim_start_matches("format:");
            let keyword = PROBED_KEYWORDS.iter().copied().find(|known| *known == keyword)?;
            return Some(Probe {
                keyword,
                schema: answer(json!({"type": "string", "format": name})),
                question: "What is the capital of France? Answer with the name.",
                format_assertion: true,
            });
        }
        _ => return None,
    };
    Some(Probe {
        keyword,
        schema,
        question,
        format_assertion: false,
    })
}

/// The probed keywords `schema` uses anywhere (in [`PROBED_KEYWORDS`] order); `additionalProperties` counts only
/// as `false`. Walks at most 64 levels deep, so a hostile schema cannot recurse without bound.
pub fn keywords_used(schema: &Value) -> Vec<&'static str> {
    let used = all_keywords_used(schema);
    PROBED_KEYWORDS
        .iter()
        .copied()
        .filter(|keyword| used.iter().any(|name| name == keyword))
        .collect()
}

/// The keywords `schema` uses that no probe exists for, each once, in the order first met (`format:NAME` for a
/// format without a probe).
pub fn keywords_not_probed(schema: &Value) -> Vec<String> {
    all_keywords_used(schema)
        .into_iter()
        .filter(|keyword| !PROBED_KEYWORDS.contains(&keyword.as_str()))
        .collect()
}

/// Every accounted keyword (and `format:NAME`) `schema` uses, each once, in the order first met.
fn all_keywords_used(schema: &Value) -> Vec<String> {
    let mut used = Vec::new();
    collect_keywords(schema, 0, &mut used);
    used
}

const MAX_KEYWORD_DEPTH: usize = 64;

fn collect_keywords(schema: &Value, depth: usize, used: &mut Vec<String>) {
    if depth > MAX_KEYWORD_DEPTH {
        return;
    }
    let mut note = |name: String| {
        if !used.contains(&name) {
            used.push(name);
        }
    };
    match schema {
        Value::Object(map) => {
            for keyword in ACCOUNTED_KEYWORDS {
                match map.get(keyword) {
                    // `additionalProperties: true` (or a schema for free keys) asks nothing of a decoder's grammar
                    // that a probe could test; only `false` is a clause.
                    Some(value) if keyword == "additionalProperties" && *value != Value::Bool(false) => {}
                    Some(_) => note(keyword.to_owned()),
                    None => {}
                }
            }
            if let Some(Value::String(format)) = map.get("format") {
                note(format!("format:{format}"));
            }
            // Values under `properties`, `$defs` and the like are schemas; `enum`/`const` hold data, not schemas.
            for (key, value) in map {
                if key != "enum" && key != "const" && key != "default" && key != "examples" {
                    collect_keywords(value, depth + 1, used);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_keywords(item, depth + 1, used);
            }
        }
        _ => {}
    }
}

/// The enforcement matrix: one probe verdict per keyword a schema uses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnforcementMatrix {
    /// `(keyword, verdict)` rows, in [`PROBED_KEYWORDS`] order.
    pub rows: Vec<(String, ProbeOutcome)>,
    /// The keywords the schema uses that no probe exists for: their enforcement is unknown, never assumed.
    pub not_probed: Vec<String>,
}

impl EnforcementMatrix {
    /// Whether every probed keyword was enforced (and at least one was probed).
    pub fn is_all_enforced(&self) -> bool {
        !self.rows.is_empty() && self.rows.iter().all(|(_, outcome)| outcome.is_enforced())
    }

    /// Whether every keyword the schema uses was probed.
    pub fn is_complete(&self) -> bool {
        self.not_probed.is_empty()
    }

    /// The keywords whose probe showed enforcement: what a verdict recorded from this matrix covers.
    pub fn enforced_keywords(&self) -> crate::enforcement::KeywordSet {
        crate::enforcement::KeywordSet::of(
            self.rows
                .iter()
                .filter(|(_, outcome)| outcome.is_enforced())
                .map(|(keyword, _)| keyword.as_str()),
        )
    }

    /// Whether any probe ended in an error rather than a verdict.
    pub fn has_error(&self) -> bool {
        self.rows
            .iter()
            .any(|(_, outcome)| matches!(outcome, ProbeOutcome::Error { .. }))
    }
}

/// Probes every keyword of [`PROBED_KEYWORDS`] that `schema` uses, one request each, in order, through `provider`;
/// an authentication failure or an unreachable route ends the run at that row (every later probe would fail alike).
pub async fn probe_keywords(provider: &dyn Provider, schema: &Value) -> EnforcementMatrix {
    let mut rows = Vec::new();
    for keyword in keywords_used(schema) {
        if let Some(probe) = keyword_probe(keyword) {
            let outcome = probe.run(provider).await;
            // A route that rejects the key or cannot be reached answers every later probe the same way: stop.
            let stop = matches!(
                &outcome,
                ProbeOutcome::Error {
                    category: Category::Authentication | Category::Unavailable,
                    ..
                }
            );
            rows.push((keyword.to_owned(), outcome));
            if stop {
                break;
            }
        }
    }
    EnforcementMatrix {
        rows,
        not_probed: keywords_not_probed(schema),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openai::is_strict_compatible;

    #[test]
    fn every_probe_schema_is_strict_compatible_and_compiles() {
        for keyword in PROBED_KEYWORDS {
            let probe = keyword_probe(keyword).unwrap();
            assert_eq!(probe.keyword, keyword);
            // OpenAI strict mode rejects minProperties and maxProperties (and free keys): their probes go
            // native_unenforced there, which reads as not enforced, the truth for a strict route.
            let strict_rejects = matches!(keyword, "minProperties" | "maxProperties");
            assert_eq!(
                is_strict_compatible(&probe.schema),
                !strict_rejects,
                "{keyword} probe strictness"
            );
            assert!(oa_schema::Validator::new(&probe.schema).is_ok(), "{keyword}");
            assert!(
                keywords_used(&probe.schema).contains(&keyword),
                "{keyword} probe uses its keyword"
            );
        }
        assert!(keyword_probe("format").is_none());
        assert!(keyword_probe("format:ipv4").is_none());
        assert!(keyword_probe("oneOf").unwrap().schema["properties"]["answer"]["oneOf"].is_array());
    }

    #[test]
    fn every_keyword_the_schema_uses_is_probed_or_named_as_not_probed() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "ip": {"type": "string", "format": "ipv4"},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "contains": {"const": "x"}},
                "kind": {"anyOf": [{"type": "null"}, {"enum": ["a", "b"]}]}
            },
            "required": ["email"],
            "additionalProperties": false,
            "propertyNames": {"maxLength": 8}
        });
        assert_eq!(
            keywords_used(&schema),
            [
                "enum",
                "const",
                "maxLength",
                "required",
                "additionalProperties",
                "uniqueItems",
                "type",
                "anyOf",
                "format:email"
            ]
        );
        assert_eq!(
            keywords_not_probed(&schema),
            ["propertyNames", "format:ipv4", "contains"]
        );
    }

    #[test]
    fn keywords_used_walks_subschemas_but_not_data() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "maxItems": 3, "items": {"type": "string", "pattern": "^[a-z]+$"}},
                "kind": {"enum": [{"minimum": 1}]}
            },
            "$defs": {"n": {"type": "integer", "maximum": 9}},
            "additionalProperties": true
        });
        assert_eq!(
            keywords_used(&schema),
            ["enum", "pattern", "maximum", "maxItems", "type"]
        );
    }

    #[test]
    fn keywords_used_stops_at_the_depth_bound() {
        let mut schema = json!({"minimum": 1});
        for _ in 0..200 {
            schema = json!({"items": schema});
        }
        assert!(keywords_used(&schema).is_empty());
    }
}
