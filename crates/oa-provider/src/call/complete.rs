//! One `complete()` from the request to its result: the call id (minted here, once, when the request has none),
//! the pre-checks, the structured-output path and the registry verdict (read once, at call time), the retry loop,
//! and the fallback after a native rejection.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::call::attempt::{Attempt, CallPlan, Route};
use crate::call::hook::{AttemptHook, AttemptRecord, AttemptRequest, mint_call_id};
use crate::call::precheck;
use crate::call::retry;
use crate::call::wire::WireFormat;
use crate::call::{CallExtras, CompletionRequest};
use crate::endpoint::Endpoint;
use crate::model::ProviderError;
use crate::model::{AttemptSummary, Response, StructuredOutputPath, Usage};
use crate::structured::fit::{Fallback, SchemaForm};
use crate::structured::{CallSchema, CheckedTools};

/// Runs one call on `endpoint` through `wire` with the hook and typed decoder `extras` resolve to (theirs, else the
/// request's: a wrapper passes its own beside the borrowed request with `complete_with`).
pub(crate) async fn complete(
    endpoint: &Endpoint,
    wire: &dyn WireFormat,
    request: &CompletionRequest,
    extras: &CallExtras,
) -> Result<Response, ProviderError> {
    let hook = extras.hook_for(request).map(|hook| hook.as_ref());
    let call_id = request.call_id.clone().unwrap_or_else(mint_call_id);
    let schema = match check_request(endpoint, wire, request) {
        Ok(schema) => schema,
        Err(error) => {
            // Nothing was sent, so no schema_mode; the schema_version still says which schema the call had.
            let version = request
                .response_schema
                .as_deref()
                .map(crate::enforcement::schema_version);
            let error = error.with_marker(None, version);
            let summary = report_rejection(endpoint, wire, request, hook, &call_id, &error);
            return Err(error.with_attempts(vec![summary]));
        }
    };
    let tools = CheckedTools::new(&request.tools);
    let route = schema
        .as_ref()
        .map(|schema| first_route(endpoint, wire, request, schema));
    let plan = CallPlan {
        endpoint,
        wire,
        request,
        schema: schema.as_ref(),
        tools: &tools,
        call_id: &call_id,
        hook,
        typed_decoder: extras.typed_decoder_for(request),
        coverage: match &schema {
            Some(_) => endpoint.verdict_coverage().await,
            None => None,
        },
        attempts: Mutex::new(Vec::new()),
    };
    let mut outcome = run(&plan, route.as_ref()).await;
    if let (Some(schema), Some(route)) = (&schema, &route) {
        outcome = after_rejection(&plan, schema, route, outcome).await;
    }
    // The call's account of every attempt (the fallback run's too), beside the answering attempt's own usage.
    let attempts = plan.take_attempts();
    match outcome {
        Ok(mut response) => {
            response.usage_total = Usage::total_of(&attempts);
            response.attempts = attempts;
            Ok(response)
        }
        Err(error) => Err(error.with_attempts(attempts)),
    }
}

/// Where a structured call starts: the native path with the schema verbatim (or its bundle), or fitted when the
/// request asks; the mapping's fallback when the route has no native constraint, or the schema cannot be fitted.
fn first_route(
    endpoint: &Endpoint,
    wire: &dyn WireFormat,
    request: &CompletionRequest,
    schema: &CallSchema,
) -> Route {
    if !endpoint.native_available() {
        let fallback = endpoint.native_was_rejected().then_some(Fallback::Rejected);
        return Route::fallback(wire, request, schema, fallback);
    }
    if !request.fit {
        return Route::native(wire, schema.plain().clone());
    }
    match schema.fitted(wire.mapping()) {
        Ok(fitted) => Route::native(wire, fitted.clone()),
        Err(error) => {
            tracing::warn!(
                target: crate::call::DIAGNOSTIC_TARGET,
                mapping = %wire.mapping(),
                "the response schema cannot be fitted to the native path ({error}); the call takes the fallback"
            );
            Route::fallback(wire, request, schema, Some(Fallback::Unfittable))
        }
    }
}

/// Dynamic detection: the server rejected the native constraint itself. A fitted schema is fitted again without
/// the clause the 400 names (once); otherwise, or when that is rejected too, the call falls back (§8.1.5.1 and its
/// siblings), as a fresh run with its own attempt indices. A 400 about the constraint itself (not one schema's
/// clause) makes later calls on this provider go straight to the fallback.
async fn after_rejection(
    plan: &CallPlan<'_>,
    schema: &CallSchema,
    route: &Route,
    outcome: Result<Response, ProviderError>,
) -> Result<Response, ProviderError> {
    let wire = plan.wire;
    let error = match &outcome {
        Err(error) if is_native(route.path) && wire.is_native_rejection(error) => error,
        _ => return outcome,
    };
    let detail = wire.schema_rejection(error).map(str::to_owned);
    let refit = match (&detail, route.sent.form) {
        (Some(detail), SchemaForm::Fitted) => {
            crate::structured::rejected_keyword(detail).and_then(|keyword| schema.refit(&route.sent, keyword))
        }
        _ => None,
    };
    let mut schema_only = detail.is_some();
    if let Some(refitted) = refit {
        let outcome = run(plan, Some(&Route::native(wire, refitted))).await;
        match &outcome {
            Err(error) if wire.is_native_rejection(error) => {
                schema_only = wire.schema_rejection(error).is_some();
            }
            _ => return outcome,
        }
    }
    if !schema_only {
        plan.endpoint.reject_native();
    }
    let fallback = Route::fallback(wire, plan.request, schema, Some(Fallback::Rejected));
    run(plan, Some(&fallback)).await
}

/// The checks made before any attempt: messages, tools, image support, streaming, the response schema (checked
/// and compiled once for the whole call).
fn check_request(
    endpoint: &Endpoint,
    wire: &dyn WireFormat,
    request: &CompletionRequest,
) -> Result<Option<CallSchema>, ProviderError> {
    precheck::check_messages(&request.messages)?;
    precheck::check_tools(&request.tools, request.tool_choice.as_ref())?;
    precheck::check_image_support(&request.messages, endpoint.capabilities.image_input)?;
    if request.stream && wire.stream_fold().is_none() {
        return Err(ProviderError::invalid_request(format!(
            "the {} mapping does not support streaming (llm-provider §5): send the call without stream",
            wire.mapping()
        )));
    }
    if request.stream && !endpoint.capabilities.streaming {
        return Err(ProviderError::invalid_request(
            "this provider mapping does not support streaming",
        ));
    }
    request
        .response_schema
        .as_ref()
        .map(|schema| CallSchema::check_shared(schema, request.schema_options.as_ref()))
        .transpose()
}

fn is_native(path: StructuredOutputPath) -> bool {
    matches!(
        path,
        StructuredOutputPath::Native | StructuredOutputPath::NativeUnenforced
    )
}

async fn run(plan: &CallPlan<'_>, route: Option<&Route>) -> Result<Response, ProviderError> {
    retry::run(
        plan.request.retry.as_ref(),
        plan.endpoint.retry_parse_failure,
        &plan.request.messages,
        &plan.request.config,
        |attempt_plan| Attempt { call: plan, route }.run(attempt_plan),
    )
    .await
}

/// A call rejected before its first attempt still gets a record (no body, no path), so hooks see it, and the
/// error's account of attempts holds it (unsent).
fn report_rejection(
    endpoint: &Endpoint,
    wire: &dyn WireFormat,
    request: &CompletionRequest,
    hook: Option<&dyn AttemptHook>,
    call_id: &str,
    error: &ProviderError,
) -> AttemptSummary {
    let record = AttemptRecord {
        mapping: wire.mapping(),
        attempt_index: 0,
        retry_reason: None,
        repair: false,
        provider: &endpoint.system,
        model: &endpoint.model,
        call_id,
        structured_output_path: None,
        schema_mode: None,
        schema_version: error.schema_version(),
        schema_account: None,
        request: AttemptRequest {
            messages: &request.messages,
            config: &request.config,
            body: None,
            stream: request.stream,
        },
        outcome: Err(error),
        started_at: SystemTime::now(),
        duration: Duration::ZERO,
        diagnostics: &[],
    };
    if let Some(hook) = hook {
        hook.on_attempt(&record);
    }
    record.summary()
}

#[cfg(test)]
mod tests {
    use oa_testkit::Server;
    use oa_testkit::openai::text_reply;
    use serde_json::json;

    use crate::call::Backoff;
    use crate::structured::compilations;
    use crate::structured::output::validations;
    use crate::{CompletionRequest, Message, OpenAiProvider, Provider, Reask, RetryConfig};

    /// An OpenAI provider for `server`, with no key.
    fn provider_for(server: &Server) -> OpenAiProvider {
        OpenAiProvider::builder("test-model")
            .base_url(server.base_url())
            .no_api_key()
            .build()
            .unwrap()
    }

    /// Each attempt's content is checked exactly once, where it arrives, and nothing downstream checks it again:
    /// a call of two failed attempts runs two content checks, however many hooks, events and errors carry them.
    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_structured_attempt_validates_once() {
        let server = Server::start(vec![
            text_reply("prose", "stop"),
            text_reply(r#"{"a": "x"}"#, "stop"),
        ])
        .unwrap();
        let provider = provider_for(&server);
        let request = CompletionRequest::new(vec![Message::user("hi")])
            .with_response_schema(json!({"type": "object", "properties": {"a": {"type": "integer"}},
                                         "required": ["a"], "additionalProperties": false}))
            .with_retry(
                RetryConfig::new(2)
                    .with_backoff(Backoff::Fixed(std::time::Duration::ZERO))
                    .with_reask(Reask::template("{error_message}")),
            );
        let before = validations();
        let error = provider.complete(&request).await.unwrap_err();
        let failure = error.structured_output().unwrap();
        assert_eq!(failure.violations().map(oa_schema::Violations::len), Some(1));
        assert_eq!(validations() - before, 2, "two attempts, one content check each");
    }

    /// A request's schema is shared, and a call finds the compiled schema by its `Arc`; changed between calls
    /// (`Arc::make_mut` copies it, since the cache holds the `Arc` it knows), the next call checks the changed
    /// schema, never the one compiled for the old pointer.
    #[tokio::test(flavor = "current_thread")]
    async fn a_shared_schema_changed_between_calls_is_checked_as_changed() {
        let answer = r#"{"shared_schema_probe": 1}"#;
        let server = Server::start(vec![text_reply(answer, "stop"); 2]).unwrap();
        let provider = provider_for(&server);
        let mut request = CompletionRequest::new(vec![Message::user("hi")]).with_response_schema(
            json!({"type": "object", "properties": {"shared_schema_probe": {"type": "integer"}},
                   "required": ["shared_schema_probe"], "additionalProperties": false}),
        );
        let copy = request.clone();
        assert!(std::sync::Arc::ptr_eq(
            request.response_schema.as_ref().unwrap(),
            copy.response_schema.as_ref().unwrap()
        ));
        let first = provider.complete(&request).await.unwrap();
        assert_eq!(first.parsed, Some(json!({"shared_schema_probe": 1})));
        let schema = request.response_schema.as_mut().unwrap();
        std::sync::Arc::make_mut(schema)["properties"]["shared_schema_probe"]["type"] = json!("string");
        let error = provider.complete(&request).await.unwrap_err();
        let failure = error.structured_output().unwrap();
        assert_eq!(failure.violations().map(oa_schema::Violations::len), Some(1));
        assert_eq!(
            failure.response_schema["properties"]["shared_schema_probe"]["type"],
            json!("string")
        );
    }

    /// A response schema is compiled once per distinct schema, however many calls send it: repeated calls (and the
    /// same schema with its keys in another order, which has the same schema_version) reuse the compiled one.
    #[tokio::test(flavor = "current_thread")]
    async fn a_repeated_schema_is_compiled_once() {
        let answer = r#"{"compiled_once_probe": 1}"#;
        let server = Server::start(vec![text_reply(answer, "stop"); 4]).unwrap();
        let provider = provider_for(&server);
        // A property name no other test uses, so no other test can have compiled this schema first.
        let schema = json!({"type": "object", "properties": {"compiled_once_probe": {"type": "integer"}},
                            "required": ["compiled_once_probe"], "additionalProperties": false});
        let reordered = json!({"additionalProperties": false, "required": ["compiled_once_probe"],
                               "properties": {"compiled_once_probe": {"type": "integer"}}, "type": "object"});
        let before = compilations();
        for schema in [&schema, &schema, &reordered] {
            let request =
                CompletionRequest::new(vec![Message::user("hi")]).with_response_schema(schema.clone());
            let response = provider.complete(&request).await.unwrap();
            assert_eq!(response.parsed, Some(json!({"compiled_once_probe": 1})));
            assert_eq!(
                response.schema_version.as_deref(),
                Some(crate::enforcement::schema_version(schema).as_str())
            );
        }
        assert_eq!(
            compilations() - before,
            1,
            "three calls, one schema_version, one compilation"
        );
        let other = json!({"type": "object", "properties": {"compiled_once_probe": {"type": "number"}},
                           "required": ["compiled_once_probe"], "additionalProperties": false});
        let request = CompletionRequest::new(vec![Message::user("hi")]).with_response_schema(other);
        provider.complete(&request).await.unwrap();
        assert_eq!(
            compilations() - before,
            2,
            "a different schema compiles once more"
        );
    }
}
