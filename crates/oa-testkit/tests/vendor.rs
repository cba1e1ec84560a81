//! The scripted vendors over a real socket: a request whose native schema breaks a documented rule gets the vendor's
//! 400 (naming the native field, as the vendors do) and consumes nothing; every other request gets the script's next
//! reply.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use oa_testkit::vendor::Vendor;
use oa_testkit::{Reply, Script, Server};
use serde_json::{Value, json};

fn post(server: &Server, path: &str, body: &Value) -> (u16, Value) {
    let text = body.to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    );
    let answer = oa_testkit::exchange(server.address(), request.as_bytes()).unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    (status, serde_json::from_str(body).unwrap())
}

fn body(vendor: Vendor, schema: Value) -> Value {
    match vendor {
        Vendor::OpenAi => json!({"response_format": {"type": "json_schema",
                                 "json_schema": {"name": "Report", "strict": true, "schema": schema}}}),
        Vendor::Anthropic => json!({"output_config": {"format": {"type": "json_schema", "schema": schema}}}),
        Vendor::Gemini => json!({"generationConfig": {"responseMimeType": "application/json",
                                 "responseJsonSchema": schema}}),
    }
}

#[test]
fn a_broken_schema_is_refused_and_consumes_nothing() {
    let good = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                      "additionalProperties": false});
    let bad = [
        (
            Vendor::OpenAi,
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            "Invalid schema for response_format 'Report': In context=(), 'required' is required",
        ),
        (
            Vendor::Anthropic,
            json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 2}},
                                   "additionalProperties": false}),
            "output_config.format.schema: For 'string' type, property 'maxLength' is not supported",
        ),
        (
            Vendor::Gemini,
            json!({"properties": {"a": {"$ref": "#/$defs/s", "description": "d"}}, "$defs": {"s": {}}}),
            "generation_config.response_json_schema.properties.a: when $ref is set",
        ),
    ];
    for (vendor, schema, words) in bad {
        let script = Script::new([
            Reply::json(200, json!({"n": 1})),
            Reply::json(200, json!({"n": 2})),
        ]);
        let server = Server::start(vendor.enforcing(script)).unwrap();
        assert_eq!(
            post(&server, "/v1/x", &body(vendor, good.clone())),
            (200, json!({"n": 1}))
        );
        let (status, refusal) = post(&server, "/v1/x", &body(vendor, schema));
        assert_eq!(status, 400, "{vendor:?}");
        let message = refusal.pointer("/error/message").and_then(Value::as_str).unwrap();
        assert!(message.contains(words), "{vendor:?}: {message}");
        assert_eq!(
            post(&server, "/v1/x", &body(vendor, good.clone())),
            (200, json!({"n": 2}))
        );
        assert_eq!(server.n_requests(), 3);
    }
}

#[test]
fn openai_without_strict_and_bodies_without_a_schema_pass() {
    let server =
        Server::start(Vendor::OpenAi.enforcing(Script::new([Reply::json(200, json!({"ok": 1}))]))).unwrap();
    let loose = json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "strict": false,
                        "schema": {"type": "array"}}}});
    assert_eq!(post(&server, "/v1/x", &loose), (200, json!({"ok": 1})));
    assert_eq!(Vendor::Anthropic.check_request(&json!({"messages": []})), Ok(()));
    assert!(
        Vendor::Gemini
            .native_schema(&json!({"generationConfig": {}}))
            .is_none()
    );
}
