//! Structured output (§5, §8.1.5, §8.1.5.1, 0126) over a real socket: the schema checked before sending, the
//! native and prompt-augmentation paths, validation into `parsed`, and `structured_output_invalid` carries.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use oa_provider::json::json_equal;
use oa_provider::{
    Category, CompletionRequest, Content, FinishReason, Message, OpenAiProvider, Provider, ProviderError,
    Response, Role, RuntimeConfig, StructuredOutputPath,
};
use oa_testkit::openai::{completion, text_completion};
use oa_testkit::{Reply, Server};
use serde_json::{Value, json};
use support::value_schema;

fn provider_at(server: &Server, native: bool) -> OpenAiProvider {
    support::openai_builder(server, "test-model")
        .capabilities(support::native(native))
        .build()
        .unwrap()
}

/// A server answering `content` once, and the outcome of a native-path call for `schema` on it.
async fn native_call(content: &str, schema: Value) -> (Server, Result<Response, ProviderError>) {
    let server = Server::start(vec![Reply::json(200, text_completion(content))]).unwrap();
    let outcome = provider_at(&server, true).complete(&generate(schema)).await;
    (server, outcome)
}

fn generate(schema: Value) -> CompletionRequest {
    CompletionRequest::new(vec![Message::user("Generate.")]).with_response_schema(schema)
}

#[tokio::test]
async fn native_path_sends_strict_response_format_and_parses() {
    let (server, outcome) = native_call("{\"value\":42}", value_schema()).await;
    let response = outcome.unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 42})));
    assert_eq!(
        response.message.content,
        Some(Content::Text("{\"value\":42}".into())),
        "content stays verbatim"
    );
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::Native)
    );
    let body = server.requests()[0].json().unwrap();
    let format = &body["response_format"];
    assert_eq!(format["type"], json!("json_schema"));
    assert_eq!(format["json_schema"]["strict"], json!(true));
    assert!(json_equal(&format["json_schema"]["schema"], &value_schema()));
    assert!(
        format["json_schema"]["name"]
            .as_str()
            .is_some_and(|name| !name.is_empty())
    );
}

#[tokio::test]
async fn a_schema_outside_strict_mode_goes_native_unenforced() {
    let schema = json!({"type": "object", "properties": {"value": {"type": "integer"}, "note": {"type": "string"}}, "required": ["value"]});
    let (server, outcome) = native_call("{\"value\":1}", schema).await;
    let response = outcome.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::NativeUnenforced)
    );
    assert_eq!(
        server.requests()[0].json().unwrap()["response_format"]["json_schema"]["strict"],
        json!(false)
    );
}

#[tokio::test]
async fn without_native_support_the_schema_goes_in_a_system_directive() {
    let server = Server::start(vec![Reply::json(200, text_completion("{\"value\":42}"))]).unwrap();
    let request = generate(value_schema());
    let caller_messages = request.messages.clone();
    let response = provider_at(&server, false).complete(&request).await.unwrap();
    assert_eq!(response.parsed, Some(json!({"value": 42})));
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::PromptAugmentation)
    );
    assert_eq!(
        request.messages, caller_messages,
        "the caller's messages are untouched"
    );
    let body = server.requests()[0].json().unwrap();
    assert!(body.get("response_format").is_none());
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], json!("system"));
    assert!(
        messages[0]["content"].as_str().unwrap().contains("\"value\""),
        "the directive carries the schema"
    );
    assert_eq!(messages[1], json!({"role": "user", "content": "Generate."}));
}

#[tokio::test]
async fn an_existing_system_message_is_extended_not_duplicated() {
    let server = Server::start(vec![Reply::json(200, text_completion("{\"value\":1}"))]).unwrap();
    let request = CompletionRequest::new(vec![Message::system("Be terse."), Message::user("Go.")])
        .with_response_schema(value_schema());
    provider_at(&server, false).complete(&request).await.unwrap();
    let messages = server.requests()[0].json().unwrap()["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 2);
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Be terse.\n\n")
    );
}

#[tokio::test]
async fn a_rejected_native_request_falls_back_to_prompt_augmentation() {
    let rejection = json!({"error": {"type": "invalid_request_error", "message": "Unknown parameter: 'response_format'."}});
    let server = Server::start(vec![
        Reply::json(400, rejection),
        Reply::json(200, text_completion("{\"value\":7}")),
        Reply::json(200, text_completion("{\"value\":8}")),
    ])
    .unwrap();
    let provider = provider_at(&server, true);
    let response = provider.complete(&generate(value_schema())).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::PromptAugmentation)
    );
    assert_eq!(response.parsed, Some(json!({"value": 7})));
    // The provider remembers: the next call goes straight to augmentation.
    let response = provider.complete(&generate(value_schema())).await.unwrap();
    assert_eq!(
        response.structured_output_path,
        Some(StructuredOutputPath::PromptAugmentation)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0].json().unwrap().get("response_format").is_some());
    assert!(
        requests[1].json().unwrap().get("response_format").is_none()
            && requests[2].json().unwrap().get("response_format").is_none()
    );
}

#[tokio::test]
async fn schemas_are_checked_before_sending() {
    for schema in [
        json!({"type": "array", "items": {"type": "integer"}}),
        json!(true),
        json!({"properties": {"a": {"type": "string"}}}),
        // A `$schema` naming no draft oa reads (nor a registered meta-schema).
        json!({"$schema": "https://example.com/my-meta", "type": "object"}),
        json!({"type": "object", "properties": {"a": {"type": 12}}}),
    ] {
        let server = Server::start(vec![]).unwrap();
        let error = provider_at(&server, true)
            .complete(&generate(schema.clone()))
            .await
            .unwrap_err();
        assert_eq!(error.category(), Category::InvalidRequest, "{schema}: {error}");
        assert_eq!(error.structured_output_path(), None, "no request was sent");
        assert!(server.requests().is_empty());
    }
    // Declaring draft 2020-12, or any other draft oa-schema reads, is fine: it is sent as written.
    for draft in [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-04/schema#",
    ] {
        let server = Server::start(vec![Reply::json(200, text_completion("{\"value\":1}"))]).unwrap();
        let mut schema = value_schema();
        schema["$schema"] = json!(draft);
        provider_at(&server, true)
            .complete(&generate(schema.clone()))
            .await
            .unwrap();
        let sent = server.requests()[0].json().unwrap();
        assert_eq!(sent["response_format"]["json_schema"]["schema"], schema);
    }
}

#[tokio::test]
async fn invalid_content_reports_every_violation_with_its_carries() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "site": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]}},
        "required": ["name", "age", "site"],
        "additionalProperties": false
    });
    let content = "{\"age\":\"old\",\"site\":{},\"zulu\":1}";
    let body = completion(json!({"role": "assistant", "content": content}), "stop");
    let server = Server::start(vec![Reply::json(200, body.clone())]).unwrap();
    let error = provider_at(&server, true)
        .complete(&generate(schema.clone()))
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::StructuredOutputInvalid);
    assert_eq!(
        error.structured_output_path(),
        Some(StructuredOutputPath::NativeUnenforced)
    );
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.response_schema, schema);
    assert_eq!(failure.output_content, content);
    assert_eq!(failure.finish_reason, FinishReason::Stop);
    assert_eq!(failure.usage.total_tokens, Some(7));
    assert_eq!(failure.raw, body);
    for location in ["#/name", "#/age", "#/site/lat", "#/zulu"] {
        assert!(
            failure.error_message.contains(location),
            "{location} missing from {}",
            failure.error_message
        );
    }
    assert!(failure.error_message.contains("integer"));
}

#[tokio::test]
async fn unparseable_content_is_structured_output_invalid() {
    let (_server, outcome) = native_call("Sure! Here is JSON: {", value_schema()).await;
    let error = outcome.unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(failure.output_content, "Sure! Here is JSON: {");
    assert!(
        failure.error_message.contains("not valid JSON"),
        "{}",
        failure.error_message
    );
}

#[tokio::test]
async fn a_refusal_with_a_schema_fails_with_the_refusal_as_output() {
    let body = completion(
        json!({"role": "assistant", "content": null, "refusal": "I won't."}),
        "stop",
    );
    let server = Server::start(vec![Reply::json(200, body)]).unwrap();
    let error = provider_at(&server, true)
        .complete(&generate(value_schema()))
        .await
        .unwrap_err();
    let failure = error.structured_output().unwrap();
    assert_eq!(
        (failure.finish_reason, failure.output_content.as_str()),
        (FinishReason::ContentFilter, "I won't.")
    );
    assert!(!failure.error_message.is_empty());
}

#[tokio::test]
async fn tool_calls_leave_parsed_absent() {
    let body = completion(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}),
        "tool_calls",
    );
    let server = Server::start(vec![Reply::json(200, body)]).unwrap();
    let tool = oa_provider::Tool::new("lookup", "Look up.", json!({"type": "object", "properties": {}}));
    let request = generate(value_schema()).with_tools(vec![tool]);
    let response = provider_at(&server, true).complete(&request).await.unwrap();
    assert_eq!(
        (response.finish_reason, response.parsed),
        (FinishReason::ToolCalls, None)
    );
}

#[tokio::test]
async fn response_format_in_extras_conflicts_on_the_native_path_and_rides_on_augmentation() {
    let extras = RuntimeConfig {
        extras: [("response_format".to_owned(), json!({"type": "json_object"}))].into(),
        ..Default::default()
    };
    let server = Server::start(vec![]).unwrap();
    let error = provider_at(&server, true)
        .complete(&generate(value_schema()).with_config(extras.clone()))
        .await
        .unwrap_err();
    assert_eq!(error.category(), Category::InvalidRequest);
    assert!(server.requests().is_empty());
    let server = Server::start(vec![Reply::json(200, text_completion("{\"value\":3}"))]).unwrap();
    provider_at(&server, false)
        .complete(&generate(value_schema()).with_config(extras))
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].json().unwrap()["response_format"],
        json!({"type": "json_object"})
    );
}

#[test]
fn strict_predicate_follows_openai_rules() {
    use oa_provider::fuzzing::is_strict_compatible;
    assert!(is_strict_compatible(&value_schema()));
    let nested = json!({"type": "object", "properties": {"site": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"], "additionalProperties": false}}, "required": ["site"], "additionalProperties": false});
    assert!(is_strict_compatible(&nested));
    let mut open_nested = nested.clone();
    open_nested["properties"]["site"]["additionalProperties"] = json!(true);
    assert!(!is_strict_compatible(&open_nested));
    let not_all_required = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
    assert!(!is_strict_compatible(&not_all_required));
    let unsupported = json!({"type": "object", "properties": {}, "additionalProperties": false, "patternProperties": {"^x": {}}});
    assert!(!is_strict_compatible(&unsupported));
    let mut deep = json!({"type": "string"});
    for _ in 0..200 {
        deep = json!({"anyOf": [deep]});
    }
    assert!(
        !is_strict_compatible(&deep),
        "hostile depth answers false instead of recursing without bound"
    );
}

#[tokio::test]
async fn assistant_role_is_always_set() {
    let (_server, outcome) = native_call("{\"value\":1}", value_schema()).await;
    let response = outcome.unwrap();
    assert_eq!(response.message.role, Role::Assistant);
}
