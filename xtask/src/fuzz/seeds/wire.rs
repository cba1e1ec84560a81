//! Seeds of the provider and fixture targets: the responses the spec's conformance fixtures script for each wire
//! mapping (bodies and event streams, read out of the YAML), the fixture files themselves, Retry-After values in
//! every form, and hostile inputs written here.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use yaml_rust2::{Yaml, YamlLoader};

use super::Shared;

/// The decoder targets' flags byte (see fuzz/src/wire.rs): bit 0 the tool-coercion path, bit 1 a stream.
const COERCED: u8 = 1;
const STREAM: u8 = 2;
/// The flags byte of a stream read with the 64-byte SSE line cap.
const SMALL_CAP: u8 = 4;

/// Every `.yaml` fixture of the spec (at v0.118.2, the fixtures oa implements) and of oa-conformance, in name
/// order.
fn fixture_files(shared: &Shared) -> Vec<PathBuf> {
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/oa-conformance/fixtures");
    super::files_named(&[shared.dir.join("openarmature-spec-0.118/spec"), own], "yaml")
}

/// The JSON a YAML value denotes (keys as strings; anything else YAML-only dropped).
fn to_json(yaml: &Yaml) -> Value {
    match yaml {
        Yaml::Real(_) => yaml
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Yaml::Integer(n) => json!(n),
        Yaml::String(text) => json!(text),
        Yaml::Boolean(flag) => json!(flag),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Hash(hash) => Value::Object(
            hash.iter()
                .filter_map(|(key, value)| Some((key.as_str()?.to_owned(), to_json(value))))
                .collect::<Map<String, Value>>(),
        ),
        _ => Value::Null,
    }
}

/// What the fixtures script for one mapping: atomic bodies and event streams (each a list of chunks).
#[derive(Default)]
struct Scripted {
    bodies: Vec<Value>,
    streams: Vec<Vec<Value>>,
}

/// Walks a fixture, attributing each `body` and `stream_body` to the nearest `mapping:` in scope (OpenAI unless
/// one says otherwise).
fn collect(value: &Value, mapping: &str, out: &mut [(&str, Scripted); 3]) {
    match value {
        Value::Object(members) => {
            let mapping = members.get("mapping").and_then(Value::as_str).unwrap_or(mapping);
            if let Some((_, scripted)) = out.iter_mut().find(|(name, _)| *name == mapping) {
                if let Some(body @ Value::Object(_)) = members.get("body") {
                    scripted.bodies.push(body.clone());
                }
                if let Some(Value::Array(chunks)) = members.get("stream_body") {
                    scripted.streams.push(chunks.clone());
                }
            }
            for member in members.values() {
                collect(member, mapping, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect(item, mapping, out)),
        _ => {}
    }
}

fn scripted(shared: &Shared) -> [(&'static str, Scripted); 3] {
    let mut out = [
        ("openai", Scripted::default()),
        ("anthropic", Scripted::default()),
        ("gemini", Scripted::default()),
    ];
    for file in fixture_files(shared) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for doc in YamlLoader::load_from_str(&text).unwrap_or_default() {
            collect(&to_json(&doc), "openai", &mut out);
        }
    }
    out
}

/// Event-stream bytes: one `data:` event per chunk, strings verbatim (`[DONE]`), with `\n` or `\r\n` endings.
fn sse(chunks: &[Value], crlf: bool) -> Vec<u8> {
    let end = if crlf { "\r\n" } else { "\n" };
    let mut bytes = Vec::new();
    for chunk in chunks {
        let data = match chunk {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        bytes.extend_from_slice(format!("data: {data}{end}{end}").as_bytes());
    }
    bytes
}

fn flagged(flags: u8, body: &[u8]) -> Vec<u8> {
    let mut seed = vec![flags];
    seed.extend_from_slice(body);
    seed
}

/// Responses no fixture scripts: the edges of each mapping's shape, and the canary the scrubber must catch.
const HOSTILE_BODIES: &[(&str, &str)] = &[
    (
        "openai",
        r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't."},"finish_reason":"stop"}]}"#,
    ),
    (
        "openai",
        r#"{"choices":[{"message":{"content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"sk-CANARY","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
    ),
    (
        "openai",
        r#"{"choices":[{"message":{"content":"{\"a\":1}","reasoning_content":"think"},"finish_reason":"stop"}],"usage":{"prompt_tokens":18446744073709551615,"completion_tokens":-1,"total_tokens":1e400}}"#,
    ),
    ("openai", r#"{"choices":[]}"#),
    (
        "anthropic",
        r#"{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"lookup","input":{"q":"x"}}],"stop_reason":"tool_use","usage":{"input_tokens":18446744073709551615,"output_tokens":1}}"#,
    ),
    (
        "anthropic",
        r#"{"content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"t1","name":"respond","input":{"answer":"x"}},{"type":"tool_use","id":"t2","name":"respond","input":{}}],"stop_reason":"tool_use"}"#,
    ),
    (
        "anthropic",
        r#"{"content":[{"type":"tool_use","id":"sk-CANARY","name":"sk-CANARY","input":[]}],"stop_reason":"tool_use"}"#,
    ),
    (
        "gemini",
        r#"{"candidates":[{"content":{"parts":[{"text":"a","thought":true,"thoughtSignature":"s"},{"functionCall":{"name":"lookup","args":{"q":"x"}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1}}"#,
    ),
    ("gemini", r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#),
    (
        "gemini",
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"sk-CANARY","id":"","args":null}}]}}]}"#,
    ),
];

/// Streams no fixture scripts: errors inside the stream, tool-call deltas out of order, a missing `[DONE]`, a
/// comment, an oversized line, invalid UTF-8.
const HOSTILE_STREAMS: &[&str] = &[
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"error\":{\"message\":\"sk-CANARY overloaded\"}}\n\n",
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"lookup\",\"arguments\":\"{\\\"q\\\"\"}},{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"lookup\",\"arguments\":\"{}\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":\\\"x\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
    "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"r\",\"refusal\":\"no\"},\"finish_reason\":\"stop\"}]}\n\n",
    ": keep-alive\r\n\r\nevent: message\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"é\"}}]}\r\n\r\ndata: [DONE]",
    "\u{FEFF}data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\r\rdata:[DONE]\r\r",
];

/// `openai_response`: see [`responses`].
pub(crate) fn openai_responses(shared: &Shared) -> Vec<Vec<u8>> {
    responses(shared, "openai")
}

/// `anthropic_response`: see [`responses`].
pub(crate) fn anthropic_responses(shared: &Shared) -> Vec<Vec<u8>> {
    responses(shared, "anthropic")
}

/// `gemini_response`: see [`responses`].
pub(crate) fn gemini_responses(shared: &Shared) -> Vec<Vec<u8>> {
    responses(shared, "gemini")
}

/// The decoder targets' seeds: the scripted responses of the mapping (streams for OpenAI only, also with CRLF
/// endings and the small line cap), each with either flag for the call, and the hostile ones.
fn responses(shared: &Shared, mapping: &str) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    let [openai, anthropic, gemini] = scripted(shared);
    let scripted = [openai, anthropic, gemini]
        .into_iter()
        .find(|(name, _)| *name == mapping)
        .map(|(_, scripted)| scripted)
        .unwrap_or_default();
    let bodies = scripted.bodies.iter().map(|body| body.to_string().into_bytes());
    let hostile = HOSTILE_BODIES
        .iter()
        .filter(|(name, _)| *name == mapping)
        .map(|(_, body)| body.as_bytes().to_vec());
    for body in bodies.chain(hostile) {
        seeds.push(flagged(0, &body));
        seeds.push(flagged(COERCED, &body));
    }
    if mapping == "openai" {
        for chunks in &scripted.streams {
            seeds.push(flagged(STREAM, &sse(chunks, false)));
            seeds.push(flagged(STREAM | SMALL_CAP | 0x28, &sse(chunks, true)));
        }
        seeds.extend(
            HOSTILE_STREAMS
                .iter()
                .map(|stream| flagged(STREAM | 0x18, stream.as_bytes())),
        );
        seeds.push(flagged(
            STREAM,
            format!(
                "data: {{\"choices\":[{{\"delta\":{{\"content\":\"{}\"}}}}]}}\n\n",
                "x".repeat(80)
            )
            .as_bytes(),
        ));
        seeds.push(flagged(
            STREAM,
            b"data: {\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}\n\n",
        ));
    }
    seeds
}

/// `sse`: the OpenAI streams the fixtures script, with both line endings and both caps, and the hostile streams.
pub(crate) fn event_streams(shared: &Shared) -> Vec<Vec<u8>> {
    let [(_, openai), _, _] = scripted(shared);
    let mut seeds = Vec::new();
    for chunks in &openai.streams {
        seeds.push(flagged(0, &sse(chunks, false)));
        seeds.push(flagged(0x11, &sse(chunks, true)));
    }
    seeds.extend(
        HOSTILE_STREAMS
            .iter()
            .map(|stream| flagged(0x06, stream.as_bytes())),
    );
    seeds.push(flagged(
        1,
        format!("data: {}\n\ndata: {}\n\n", "y".repeat(32), "z".repeat(33)).as_bytes(),
    ));
    seeds.push(flagged(1, b"\xEF\xBB\xBFdata: x\r\n\xEF\xBB\xBFdata: y\n\n"));
    seeds.push(flagged(
        0,
        b"data\ndata\n\ndata:\n:comment\nid: 1\nretry: 5\nevent\n\n",
    ));
    seeds
}

/// `retry_after`: a clock and a wait (6 bytes) before values in each form, at the edges of the cap and the
/// calendar, and garbage.
pub(crate) fn retry_after_values(_shared: &Shared) -> Vec<Vec<u8>> {
    const VALUES: &[&str] = &[
        "0",
        "120",
        "3600",
        "3601",
        "1.5",
        "1e300",
        "-1",
        "NaN",
        "inf",
        "+5",
        " 7 ",
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Thu, 29 Feb 2024 00:00:00 GMT",
        "Fri, 31 Dec 9999 23:59:60 GMT",
        "Thursday, 01-Jan-70 00:00:00 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 PST",
    ];
    let clocks: [[u8; 6]; 3] = [
        // 1994-11-06T08:49:37Z and a 30 s wait; 2038-01-19 and the cap's edge; the end of u32 and the largest wait.
        [0xA1, 0xB9, 0xBC, 0x2E, 30, 0],
        [0xFF, 0xFF, 0xFF, 0x7F, 0x10, 0x0E],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    ];
    let mut seeds = Vec::new();
    for (idx, value) in VALUES.iter().enumerate() {
        let mut seed = clocks[idx % clocks.len()].to_vec();
        seed.extend_from_slice(value.as_bytes());
        seeds.push(seed);
    }
    seeds
}

/// `fixture_yaml`: every fixture file of the spec and of oa-conformance, and hostile YAML: deep nesting, aliases,
/// tags, several documents, duplicate keys, non-scalar keys.
pub(crate) fn fixture_texts(shared: &Shared) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = fixture_files(shared)
        .iter()
        .filter_map(|file| std::fs::read(file).ok())
        .collect();
    seeds.extend(
        [
            "a: &x [1, 2]\nb: *x\n",
            "a: *missing\n",
            "--- {cases: []}\n--- {}\n",
            "cases:\n  - {name: a, call: {operation: complete}}\n  - name: b\n",
            "? [a, b]\n: 1\n",
            "a: !!binary aGk=\nb: !!float 1\nc: .inf\n",
            "conformance_version: \"9.0.0\"\n",
            "a: 1\na: 2\n",
        ]
        .iter()
        .map(|text| text.as_bytes().to_vec()),
    );
    seeds.push(format!("{}1{}", "[".repeat(130), "]".repeat(130)).into_bytes());
    seeds.push(format!("{}x", "- ".repeat(130)).into_bytes());
    seeds
}
