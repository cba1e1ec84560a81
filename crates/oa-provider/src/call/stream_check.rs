//! The check a streamed structured answer gets while its content arrives: oa-schema's incremental validator fed
//! each content delta, handing over each value it completes (for [`AttemptHook::on_partial`]) and, when the
//! request asked for early stop, the first violation no continuation can repair, with how much had arrived.
//!
//! The check only adds: the answer is still judged whole at the end by the content check as without it, unless
//! the stream was stopped. Content that does not read as JSON (a fenced or prose answer) ends the check quietly:
//! the content check names it at the end, as it does today.
//!
//! [`AttemptHook::on_partial`]: crate::AttemptHook::on_partial

use oa_schema::{CompletedValue, Incremental, Violations};
use serde_json::Value;

use crate::model::{EarlyStop, FailureClass, FinishReason, OutputProblem, RawJson};
use crate::model::{ProviderError, StructuredOutputFailure, Surface};
use crate::structured::CallSchema;

/// One attempt's incremental check (see the module's documentation).
pub(crate) struct StreamCheck<'a> {
    schema: &'a CallSchema,
    run: Incremental,
    /// `false` once the content was refused as JSON (or nested past the limit): nothing more is fed.
    live: bool,
    early_stop: bool,
    bytes: u64,
    deltas: u64,
    stop: Option<EarlyStop>,
}

impl<'a> StreamCheck<'a> {
    /// A check against `schema` (the caller's, as the content check applies it); `partials`: copy out each
    /// completed value (someone listens); `early_stop`: note the first certain violation.
    pub(crate) fn new(schema: &'a CallSchema, partials: bool, early_stop: bool) -> Self {
        let run = schema.validator().incremental();
        Self {
            schema,
            run: if partials {
                run.with_completed_values()
            } else {
                run
            },
            live: true,
            early_stop,
            bytes: 0,
            deltas: 0,
            stop: None,
        }
    }

    /// One content delta, as it arrived.
    pub(crate) fn content(&mut self, text: &str) {
        if !self.live || self.stop.is_some() {
            return;
        }
        self.bytes += text.len() as u64;
        self.deltas += 1;
        if self.run.feed(text.as_bytes()).is_err() {
            self.live = false;
            return;
        }
        if self.early_stop
            && let Some(first) = self.run.violations().first()
        {
            self.stop = Some(EarlyStop::new(
                first.instance_location().clone(),
                first.kind(),
                self.bytes,
                self.deltas,
            ));
        }
    }

    /// The values completed since the last call, each with how many certain violations lie at or below it.
    pub(crate) fn take_completed(&mut self) -> Vec<(CompletedValue, usize)> {
        let completed = self.run.take_completed();
        let violations = self.run.violations();
        completed
            .into_iter()
            .map(|done| {
                let prefix = done.pointer.as_str();
                let below = violations
                    .iter()
                    .filter(|violation| {
                        let at = violation.instance_location().as_str();
                        at.strip_prefix(prefix)
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                    })
                    .count();
                (done, below)
            })
            .collect()
    }

    /// Whether the stream is to be ended now: early stop was asked and a violation is certain.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.is_some()
    }

    /// The attempt's failure once [`stopped`](Self::stopped): `structured_output_invalid` with the violations
    /// certain so far and the content up to the delta that decided them (`received` is the content that had
    /// arrived, the deltas folded with it in the same read included: cut back, so that the failure does not depend
    /// on how the network split the stream). No finish reason arrived (`error`: the answer is not whole), nor usage
    /// (the provider sends it last), nor a response body (`raw` is null).
    pub(crate) fn failure(&self, mut received: String) -> Option<ProviderError> {
        let stop = self.stop.clone()?;
        let decided = usize::try_from(stop.bytes).unwrap_or(usize::MAX);
        if received.is_char_boundary(decided) {
            received.truncate(decided);
        }
        let violations: Violations = self.run.certain_report()?;
        let problem = OutputProblem::Violations(violations);
        let finish_reason = FinishReason::Error;
        let failure_class = FailureClass::of(&received, &problem, finish_reason);
        let raw = RawJson::from(Value::Null);
        let surface = Surface::bare(finish_reason, &raw);
        let failure = StructuredOutputFailure::new(
            self.schema.caller().clone(),
            received,
            problem,
            failure_class,
            surface,
        )
        .with_early_stop(stop);
        Some(ProviderError::structured_output_invalid(failure))
    }
}
