//! The four workloads: what is asked (the same model name, prompt and schema for every client), the prepared reply
//! the server sends, and the typed output async-openai's and rig's users would deserialise it into.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::server::{Replies, response};

/// The model name every client sends.
pub(crate) const MODEL: &str = "gpt-4o-mini";
/// The prompt every client sends.
pub(crate) const PROMPT: &str = "Extract the answer from the document.";
/// Tokens in the streamed workload.
pub(crate) const STREAM_TOKENS: usize = 2_000;
/// Items in the large structured answer.
const LARGE_ITEMS: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Workload {
    Plain,
    StructuredSmall,
    StructuredLarge,
    Stream,
}

impl Workload {
    pub(crate) const ALL: [Self; 4] = [
        Self::Plain,
        Self::StructuredSmall,
        Self::StructuredLarge,
        Self::Stream,
    ];

    /// The name in criterion's ids and the report (also the server's path segment).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::StructuredSmall => "structured-small",
            Self::StructuredLarge => "structured-large",
            Self::Stream => "stream-2000",
        }
    }

    /// The response schema, for the structured workloads.
    pub(crate) fn schema(self) -> Option<Value> {
        match self {
            Self::StructuredSmall => Some(small_schema()),
            Self::StructuredLarge => Some(large_schema()),
            Self::Plain | Self::Stream => None,
        }
    }

    /// The schema's name in `response_format.json_schema.name` (async-openai asks for one).
    pub(crate) fn schema_name(self) -> &'static str {
        match self {
            Self::StructuredLarge => "purchase_order",
            _ => "city_fact",
        }
    }

    /// The assistant's content in the reply (for the stream, the concatenation of its tokens).
    pub(crate) fn content(self) -> String {
        match self {
            Self::Plain => "Paris is the capital of France.".to_owned(),
            Self::StructuredSmall => small_answer().to_string(),
            Self::StructuredLarge => large_answer().to_string(),
            Self::Stream => (0..STREAM_TOKENS).map(token).collect(),
        }
    }
}

/// The `i`th streamed token.
fn token(i: usize) -> String {
    format!("tok{} ", i % 100)
}

fn small_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "population": {"type": "integer"},
            "capital": {"type": "boolean"}
        },
        "required": ["city", "population", "capital"],
        "additionalProperties": false
    })
}

fn small_answer() -> Value {
    json!({"city": "Paris", "population": 2_102_650, "capital": true})
}

/// What a structured-output user would deserialise the small answer into.
#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct CityFact {
    pub(crate) city: String,
    pub(crate) population: i64,
    pub(crate) capital: bool,
}

/// An extraction schema of the shape LLM applications send: nested strict objects, enums, patterns, numeric
/// bounds, a nullable field, and an array of strict objects. Kept as a file, which `tests/typed_call.rs` also reads
/// (the typed route must plan every container of it).
fn large_schema() -> Value {
    match serde_json::from_str(include_str!("large_schema.json")) {
        Ok(schema) => schema,
        Err(error) => panic!("large_schema.json: {error}"),
    }
}

fn large_answer() -> Value {
    let categories = ["hardware", "software", "service", "licence"];
    let items: Vec<Value> = (0..LARGE_ITEMS)
        .map(|i| {
            json!({
                "sku": format!("SKU-{:06}", 100_000 + i),
                "description": format!("Line item {i}: a rack-mounted widget with a three-year warranty"),
                "quantity": 1 + i % 7,
                "unit_price": 19.5 + i as f64,
                "category": categories[i % categories.len()],
                "tags": ["bulk", "q3", format!("batch-{}", i % 5)],
                "discount": if i % 3 == 0 { json!(0.1) } else { Value::Null }
            })
        })
        .collect();
    let address =
        json!({"street": "12 rue de Rivoli", "city": "Paris", "postcode": "75001", "country": "FR"});
    json!({
        "order_id": "PO-004217",
        "customer": {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "tier": "enterprise",
            "billing": address.clone(),
            "shipping": address
        },
        "items": items,
        "priority": "high",
        "notes": "Deliver to the loading dock.",
        "totals": {"subtotal": 12_345.5, "tax": 2_469.1, "total": 14_814.6, "currency": "EUR"}
    })
}

/// What a structured-output user would deserialise the large answer into.
#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct PurchaseOrder {
    pub(crate) order_id: String,
    pub(crate) customer: Customer,
    pub(crate) items: Vec<Item>,
    pub(crate) priority: Priority,
    pub(crate) notes: Option<String>,
    pub(crate) totals: Totals,
}

#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct Customer {
    pub(crate) name: String,
    pub(crate) email: String,
    pub(crate) tier: Tier,
    pub(crate) billing: Address,
    pub(crate) shipping: Address,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Tier {
    Free,
    Pro,
    Enterprise,
}

#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct Address {
    pub(crate) street: String,
    pub(crate) city: String,
    pub(crate) postcode: String,
    pub(crate) country: String,
}

#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct Item {
    pub(crate) sku: String,
    pub(crate) description: String,
    pub(crate) quantity: u32,
    pub(crate) unit_price: f64,
    pub(crate) category: Category,
    pub(crate) tags: Vec<String>,
    pub(crate) discount: Option<f64>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Category {
    Hardware,
    Software,
    Service,
    Licence,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Priority {
    Low,
    Normal,
    High,
    Urgent,
}

#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct Totals {
    pub(crate) subtotal: f64,
    pub(crate) tax: f64,
    pub(crate) total: f64,
    pub(crate) currency: String,
}

/// The prepared replies, one per workload, as full chat.completion objects (or the event stream of chunks) with
/// every field async-openai's and rig's types require.
pub(crate) fn replies() -> Replies {
    let mut replies = HashMap::new();
    for workload in Workload::ALL {
        let reply = match workload {
            Workload::Stream => response("200 OK", "text/event-stream", &stream_body()),
            _ => {
                let body = completion(&workload.content());
                response("200 OK", "application/json", body.to_string().as_bytes())
            }
        };
        replies.insert(workload.name().to_owned(), reply);
    }
    Replies(replies)
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": MODEL,
        "system_fingerprint": "fp_bench",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 42, "completion_tokens": 17, "total_tokens": 59}
    })
}

fn chunk(delta: &Value, finish_reason: Option<&str>) -> String {
    let chunk = json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1_767_225_600,
        "model": MODEL,
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]
    });
    format!("data: {chunk}\n\n")
}

/// The event stream: a role chunk, 2,000 one-token chunks, a finish chunk, `[DONE]`.
pub(crate) fn stream_body() -> Vec<u8> {
    let mut body = chunk(&json!({"role": "assistant", "content": ""}), None);
    for i in 0..STREAM_TOKENS {
        body.push_str(&chunk(&json!({"content": token(i)}), None));
    }
    body.push_str(&chunk(&json!({}), Some("stop")));
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}
