//! What each wire attempt of a call cost and how it ended, and what the call cost over all of them. The spec's
//! event and Langfuse generation carry the terminal attempt's usage (observability §8.4: one terminal generation per
//! call); this account is where the rest is, on the call's [`Response`](crate::Response) and
//! [`ProviderError`](crate::ProviderError).

use serde::Serialize;

use crate::model::{Category, FailureClass, SchemaMode};
use crate::model::{StructuredOutputPath, Usage};

/// One wire attempt of a call, as its record described it: why it was made, the path and marker it was sent with,
/// the usage its response reported, and how it ended.
///
/// ```
/// use oa_provider::Usage;
/// use oa_provider::model::{AttemptOutcome, AttemptSummary};
///
/// let reported = |prompt, completion| Usage {
///     prompt_tokens: Some(prompt),
///     completion_tokens: Some(completion),
///     total_tokens: Some(prompt + completion),
///     ..Usage::default()
/// };
/// let attempts = [
///     AttemptSummary { usage: Some(reported(100, 7)), ..AttemptSummary::default() },
///     AttemptSummary { attempt_index: 1, usage: Some(reported(160, 5)), ..AttemptSummary::default() },
/// ];
/// assert_eq!(Usage::total_of(&attempts).total_tokens, Some(272));
/// assert_eq!(attempts[0].outcome, AttemptOutcome::Ok);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct AttemptSummary {
    /// The attempt's index (0 for the first; a fallback run after a native rejection counts from 0 again).
    pub attempt_index: u32,
    /// Why the attempt was made; `None` for the first.
    pub retry_reason: Option<RetryReason>,
    /// Whether a request went on the wire (`false`: rejected before sending).
    pub sent: bool,
    /// The structured-output path it was sent on; `None` without a schema or when nothing was sent.
    pub structured_output_path: Option<StructuredOutputPath>,
    /// How the schema constrained it; `None` without a schema or when nothing was sent.
    pub schema_mode: Option<SchemaMode>,
    /// The usage its response reported (a failed content check's too); `None` when no response was read (a
    /// transport failure, an error status, a request rejected before sending), which adds nothing to a total.
    pub usage: Option<Usage>,
    /// How it ended.
    pub outcome: AttemptOutcome,
}

/// How one attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum AttemptOutcome {
    /// A response the call could return.
    #[default]
    Ok,
    /// An error of this §7 category, with its failure class when it has one.
    Failed {
        /// The error's category.
        category: Category,
        /// The error's failure class ([`ProviderError::failure_class`](crate::ProviderError::failure_class)).
        failure_class: Option<FailureClass>,
    },
}

/// Why an attempt after the first was made (the prior attempt's failure class, §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryReason {
    /// The prior attempt failed with a transient-classified error.
    Transient,
    /// The prior attempt's structured output was invalid and a reask correction was appended.
    Reask,
    /// The server's engine could not parse the prior attempt's model output; the same bytes were sent again (an
    /// opt-in, once per call).
    ParseFailure,
}

impl RetryReason {
    /// The `openarmature.llm.retry_reason` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Transient => "transient",
            Self::Reask => "reask",
            Self::ParseFailure => "parse_failure",
        }
    }
}

impl Usage {
    /// The usage of a call over its attempts: each counter summed over the attempts that reported a usage, and
    /// not reported (`None`) when any of them left it out, or when none reported a usage at all (never a partial
    /// sum that reads as the whole).
    pub fn total_of(attempts: &[AttemptSummary]) -> Usage {
        let reported: Vec<Usage> = attempts.iter().filter_map(|attempt| attempt.usage).collect();
        let sum = |counter: fn(&Usage) -> Option<u64>| {
            if reported.is_empty() {
                return None;
            }
            reported.iter().try_fold(0_u64, |sum, usage| {
                counter(usage).and_then(|n| sum.checked_add(n))
            })
        };
        Usage {
            prompt_tokens: sum(|usage| usage.prompt_tokens),
            completion_tokens: sum(|usage| usage.completion_tokens),
            total_tokens: sum(|usage| usage.total_tokens),
            cached_tokens: sum(|usage| usage.cached_tokens),
            cache_creation_tokens: sum(|usage| usage.cache_creation_tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(usage: Option<Usage>) -> AttemptSummary {
        AttemptSummary {
            usage,
            ..AttemptSummary::default()
        }
    }

    fn reported(prompt: Option<u64>, completion: Option<u64>) -> Option<Usage> {
        Some(Usage::derived(prompt, completion))
    }

    #[test]
    fn a_total_sums_every_reported_counter_and_skips_attempts_without_a_response() {
        let total = Usage::total_of(&[
            attempt(reported(Some(107), Some(0))),
            attempt(None),
            attempt(reported(Some(160), Some(5))),
        ]);
        assert_eq!(total, Usage::derived(Some(267), Some(5)));
    }

    #[test]
    fn a_counter_one_response_left_out_is_not_reported_in_the_total() {
        let total = Usage::total_of(&[
            attempt(reported(Some(10), None)),
            attempt(reported(Some(20), Some(3))),
        ]);
        assert_eq!(total.prompt_tokens, Some(30));
        assert_eq!(total.completion_tokens, None, "never the surviving addend");
        assert_eq!(total.total_tokens, None);
        assert_eq!(Usage::total_of(&[attempt(None)]), Usage::default());
        assert_eq!(Usage::total_of(&[]), Usage::default());
    }

    #[test]
    fn a_total_that_overflows_is_not_reported() {
        let total = Usage::total_of(&[
            attempt(reported(Some(u64::MAX), Some(1))),
            attempt(reported(Some(1), Some(1))),
        ]);
        assert_eq!(total.prompt_tokens, None);
        assert_eq!(total.completion_tokens, Some(2));
    }
}
