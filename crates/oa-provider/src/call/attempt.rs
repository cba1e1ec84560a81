//! One wire attempt: the messages and body it sends, the exchange, the content check, the schema_mode it earns,
//! its diagnostics, and the record handed to the hook.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use tokio::time::Instant;

use crate::call::CompletionRequest;
use crate::call::diagnose;
use crate::call::exchange::Exchange;
use crate::call::hook::{AttemptHook, AttemptRecord, AttemptRequest};
use crate::call::retry::AttemptPlan;
use crate::call::wire::{Mapped, WireFormat, WireRequest};
use crate::endpoint::Endpoint;
use crate::enforcement::KeywordSet;
use crate::model::ProviderError;
use crate::model::SchemaMode;
use crate::model::Surface;
use crate::model::{AttemptSummary, Content, FinishReason, Message, RawJson, Response, StructuredOutputPath};
use crate::structured::fit::Fallback;
use crate::structured::{CallSchema, CheckedTools, ResponseSchema, TypedDecoder, augment_messages, coercion};

/// What every attempt of one call shares.
pub(crate) struct CallPlan<'a> {
    pub(crate) endpoint: &'a Endpoint,
    pub(crate) wire: &'a dyn WireFormat,
    pub(crate) request: &'a CompletionRequest,
    pub(crate) schema: Option<&'a CallSchema>,
    pub(crate) tools: &'a CheckedTools<'a>,
    pub(crate) call_id: &'a str,
    /// Where the call's records and deltas go: the request's hook, or the one passed beside it.
    pub(crate) hook: Option<&'a dyn AttemptHook>,
    /// The typed content decoder the check tries first: the request's, or the one passed beside it.
    pub(crate) typed_decoder: Option<&'a TypedDecoder>,
    /// The keywords a fresh enforcing verdict for the route covered when the call began (`None`: no such verdict).
    pub(crate) coverage: Option<KeywordSet>,
    /// Every attempt's summary so far, for the call's result or error (the usage over all attempts).
    pub(crate) attempts: Mutex<Vec<AttemptSummary>>,
}

impl CallPlan<'_> {
    /// Takes the attempts' summaries, for the result or error the call returns.
    pub(crate) fn take_attempts(&self) -> Vec<AttemptSummary> {
        std::mem::take(&mut *self.attempts.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Where a structured call's attempts go: the path, the schema sent on it, and why a fallback path was taken.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    pub(crate) path: StructuredOutputPath,
    pub(crate) sent: ResponseSchema,
    pub(crate) fallback: Option<Fallback>,
}

impl Route {
    /// The native path for `sent` (`native`, or `native_unenforced` where the mapping cannot bind it).
    pub(crate) fn native(wire: &dyn WireFormat, sent: ResponseSchema) -> Self {
        Self {
            path: wire.native_path(&sent),
            sent,
            fallback: None,
        }
    }

    /// The mapping's fallback path, carrying the schema unfitted.
    pub(crate) fn fallback(
        wire: &dyn WireFormat,
        request: &CompletionRequest,
        schema: &CallSchema,
        fallback: Option<Fallback>,
    ) -> Self {
        Self {
            path: wire.fallback_path(request),
            sent: schema.plain().clone(),
            fallback,
        }
    }
}

/// One attempt of a call on a given route.
#[derive(Clone, Copy)]
pub(crate) struct Attempt<'a> {
    pub(crate) call: &'a CallPlan<'a>,
    pub(crate) route: Option<&'a Route>,
}

impl Attempt<'_> {
    pub(crate) async fn run(self, plan: AttemptPlan<'_>) -> Result<Response, ProviderError> {
        let call = self.call;
        let started_at = SystemTime::now();
        let clock = Instant::now();
        let path = self.route.map(|route| route.path);
        let structured = self.route.map(|route| (route.path, &route.sent));
        let messages = match structured {
            Some((StructuredOutputPath::PromptAugmentation, schema)) => {
                Cow::Owned(augment_messages(&plan.messages, &schema.schema, schema.draft))
            }
            _ => plan.messages,
        };
        // What the provider is not asked to enforce (or not shown to), and the marker it earns: `enforced` only with
        // nothing in the account and a fresh verdict covering every keyword sent.
        let account = self
            .route
            .zip(call.schema)
            .map(|(route, schema)| schema.account(&route.sent, route.path, call.coverage, route.fallback));
        let schema_mode = self.route.zip(account.as_ref()).map(|(route, account)| {
            let verified = account.unenforced.is_empty()
                && call
                    .coverage
                    .is_some_and(|coverage| crate::structured::covers_all(coverage, &route.sent));
            SchemaMode::of(route.path, verified, plan.repair)
        });
        // On the tool-coercion path the synthetic tool and its forced choice replace the caller's (none), and its
        // call is read unchecked: it is the answer the content check validates.
        let coerced = match structured {
            Some((StructuredOutputPath::ToolCoercion, schema)) => Some((
                vec![coercion::synthetic_tool(&schema.schema)],
                coercion::forced_choice(),
            )),
            _ => None,
        };
        let coerced_tools = coerced.as_ref().map(|(tools, _)| CheckedTools::unchecked(tools));
        let checked_tools = coerced_tools.as_ref().unwrap_or(call.tools);
        let (tools, tool_choice) = match &coerced {
            Some((tools, choice)) => (tools.as_slice(), Some(choice)),
            None => (call.request.tools.as_slice(), call.request.tool_choice.as_ref()),
        };
        let wire_request = WireRequest {
            model: &call.endpoint.model,
            messages: &messages,
            tools,
            tool_choice,
            config: &plan.config,
            structured,
            stream: call.request.stream,
        };
        let (outcome, body_text) = match call.wire.body(&wire_request) {
            Err(error) => (Err(error), None),
            Ok(body) => {
                // One text for the wire and the record: the bytes sent share it, nothing is copied per attempt.
                let body_text = SharedBody(Arc::new(body.into_canonical_text()));
                let exchange = Exchange {
                    endpoint: call.endpoint,
                    wire: call.wire,
                    request: call.request,
                    tools: checked_tools,
                    call_id: call.call_id,
                    hook: call.hook,
                    attempt_index: plan.index,
                    stream_schema: self.stream_schema(),
                };
                let outcome = exchange
                    .run(bytes::Bytes::from_owner(body_text.clone()))
                    .await
                    .and_then(|(mapped, raw)| {
                        let mapped = if coerced.is_some() {
                            coercion::read_back(mapped)?
                        } else {
                            mapped
                        };
                        self.finish(mapped, raw, schema_mode)
                    });
                (outcome, Some(body_text))
            }
        };
        let sent = body_text.is_some();
        let schema_version = self.route.map(|route| route.sent.version.as_str());
        let outcome = outcome.map_err(|error| {
            error
                .with_path(path)
                .with_marker(schema_mode.filter(|_| sent), schema_version.map(str::to_owned))
        });
        let mut record = AttemptRecord {
            mapping: call.wire.mapping(),
            attempt_index: plan.index,
            retry_reason: plan.retry_reason,
            repair: plan.repair,
            provider: &call.endpoint.system,
            model: &call.endpoint.model,
            call_id: call.call_id,
            structured_output_path: path.filter(|_| sent),
            schema_mode: schema_mode.filter(|_| sent),
            schema_version,
            schema_account: account.filter(|_| sent),
            request: AttemptRequest {
                messages: &messages,
                config: &plan.config,
                body: body_text.as_ref().map(|text| text.0.as_str()),
                stream: call.request.stream,
            },
            outcome: outcome.as_ref(),
            started_at,
            duration: clock.elapsed(),
            diagnostics: &[],
        };
        // Where the call is made, once per attempt, whatever is attached (0126 on observability §5.5.7).
        let diagnostics = diagnose::raise(&record);
        record.diagnostics = &diagnostics;
        call.attempts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record.summary());
        if let Some(hook) = call.hook {
            hook.on_attempt(&record);
        }
        outcome
    }

    /// The schema a streamed answer is checked against as it arrives: the caller's, when the answer is read from
    /// content as it is (not on tool coercion, whose answer streams as tool-call arguments; not when a fitted
    /// schema's answer is mapped back before it is checked).
    fn stream_schema(&self) -> Option<&CallSchema> {
        let route = self.route?;
        let read_as_is = route.path != StructuredOutputPath::ToolCoercion && route.sent.map_back.is_none();
        self.call
            .schema
            .filter(|_| self.call.request.stream && read_as_is)
    }

    /// The §6 response from the mapped parts: the content checked against the schema unless the model called
    /// tools.
    fn finish(
        self,
        mapped: Mapped,
        raw: RawJson,
        schema_mode: Option<SchemaMode>,
    ) -> Result<Response, ProviderError> {
        let Mapped {
            message,
            finish_reason,
            usage,
            model,
            response_id,
            blocked,
        } = mapped;
        let schema = self.call.schema;
        let sent = self.route.map(|route| &route.sent);
        let parsed = match schema {
            Some(schema) if finish_reason != FinishReason::ToolCalls => {
                let surface = Surface {
                    finish_reason,
                    usage,
                    model: model.as_deref(),
                    response_id: response_id.as_deref(),
                    raw: &raw,
                    blocked: blocked.as_ref(),
                };
                let map_back = sent.and_then(|sent| sent.map_back.as_ref());
                schema.check_content_typed(
                    &content_text(&message),
                    surface,
                    self.call.typed_decoder,
                    map_back,
                )?
            }
            _ => None,
        };
        Ok(Response {
            message,
            finish_reason,
            usage,
            parsed,
            raw,
            model,
            response_id,
            blocked,
            structured_output_path: self.route.map(|route| route.path),
            schema_mode,
            schema_version: sent.map(|sent| sent.version.clone()),
            // The call's account replaces these when it returns (`complete`); alone, this attempt is the call.
            usage_total: usage,
            attempts: Vec::new(),
        })
    }
}

/// The request body as sent: the record reads it as text, the transport sends it as bytes, from one allocation.
#[derive(Clone)]
struct SharedBody(Arc<String>);

impl AsRef<[u8]> for SharedBody {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// The text a structured-output response is validated from: the string content, or the text blocks joined
/// (reasoning blocks are not output).
fn content_text(message: &Message) -> Cow<'_, str> {
    match &message.content {
        Some(Content::Text(text)) => Cow::Borrowed(text),
        Some(Content::Blocks(blocks)) => Cow::Owned(Content::text_of(blocks)),
        None => Cow::Borrowed(""),
    }
}
