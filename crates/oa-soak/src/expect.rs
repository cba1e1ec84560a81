//! What a call must end in: each attempt's behaviour (drawn from the chaos seed) read as the §7 outcome the provider
//! must report for it, and the retry loop played out over them, so a call's result can be judged field by field.

use std::time::Duration;

use oa_provider::model::{FailureClass, TransportCause};
use oa_provider::retry::MAX_RETRY_AFTER;
use oa_provider::{Category, ProviderError, Response, SchemaMode};
use oa_testkit::{Behaviour, Chaos, RetryAfter};
use serde_json::Value;

/// What one attempt must end in.
#[derive(Debug, Clone, PartialEq)]
pub enum AttemptEnd {
    /// The answer, validated.
    Value(Value),
    /// A typed error.
    Failure(Failure),
}

/// The facts of a typed error that the chaos fixes.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The §7 category.
    pub category: Category,
    /// The structured-output failure class, for `structured_output_invalid`.
    pub class: Option<FailureClass>,
    /// The status, for an HTTP error.
    pub status: Option<u16>,
    /// The Retry-After the error carries.
    pub retry_after: Option<Duration>,
    /// Whether the error is a timeout (a stall).
    pub timeout: bool,
    /// The transport cause, where the chaos fixes it.
    pub cause: Option<TransportCause>,
    /// Where the attempt's stream was stopped early (`pointer keyword`), when it must have been.
    pub early_stop: Option<&'static str>,
}

impl Failure {
    fn of(category: Category) -> Self {
        Self {
            category,
            class: None,
            status: None,
            retry_after: None,
            timeout: false,
            cause: None,
            early_stop: None,
        }
    }

    fn with_class(self, class: FailureClass) -> Self {
        Self {
            class: Some(class),
            ..self
        }
    }

    /// Whether the call's retry loop tries again after it: the transient categories, and structured-output
    /// failures (the soak reasks).
    pub fn is_retried(&self) -> bool {
        self.category.is_transient() || self.category == Category::StructuredOutputInvalid
    }

    /// Differences between this expectation and an actual error, in words; empty when they agree.
    pub fn differences(&self, error: &ProviderError) -> Vec<String> {
        let mut differences = Vec::new();
        let mut differ = |what: &str, expected: String, actual: String| {
            if expected != actual {
                differences.push(format!("{what}: expected {expected}, got {actual}"));
            }
        };
        differ(
            "category",
            self.category.to_string(),
            error.category().to_string(),
        );
        differ(
            "failure class",
            format!("{:?}", self.class),
            format!("{:?}", error.failure_class()),
        );
        differ(
            "status",
            format!("{:?}", self.status),
            format!("{:?}", error.status()),
        );
        differ(
            "retry_after",
            format!("{:?}", self.retry_after),
            format!("{:?}", error.retry_after()),
        );
        differ(
            "timeout",
            self.timeout.to_string(),
            error.is_timeout().to_string(),
        );
        differ(
            "early stop",
            format!("{:?}", self.early_stop),
            format!(
                "{:?}",
                error
                    .structured_output()
                    .and_then(|failure| failure.early_stop())
                    .map(|stop| format!("{} {}", stop.pointer, stop.keyword()))
            ),
        );
        if self.cause.is_some() {
            differ(
                "cause",
                format!("{:?}", self.cause),
                format!("{:?}", error.transport_cause()),
            );
        }
        if !differences.is_empty() {
            differences.push(format!("the error: {error}"));
        }
        differences
    }
}

/// The Retry-After value a header written this way must be read as.
fn read_as(retry_after: RetryAfter) -> Option<Duration> {
    match retry_after {
        RetryAfter::Absent => None,
        RetryAfter::OneSecond => Some(Duration::from_secs(1)),
        RetryAfter::PastDate => Some(Duration::ZERO),
        RetryAfter::FarDate => Some(MAX_RETRY_AFTER),
    }
}

/// What attempt `attempt` of call `call` must end in when the server behaves as `behaviour`; `early_stop`: the call
/// streams with early stop on.
pub fn attempt_end(behaviour: Behaviour, call: u64, attempt: u32, early_stop: bool) -> AttemptEnd {
    let failure = match behaviour {
        Behaviour::Answer => return AttemptEnd::Value(Chaos::answer(call, attempt)),
        // Prose is not JSON; a refusal is its own class; the wrong shape misses `attempt` (required comes first).
        Behaviour::Prose => Failure::of(Category::StructuredOutputInvalid).with_class(FailureClass::NotJson),
        Behaviour::Refusal => {
            Failure::of(Category::StructuredOutputInvalid).with_class(FailureClass::Refusal)
        }
        // With early stop the stream ends at `call`'s first byte, a string where an integer must be: that type
        // violation alone is certain then (`attempt`'s absence only at the close, never reached).
        Behaviour::WrongShape if early_stop => Failure {
            early_stop: Some("/call type"),
            ..Failure::of(Category::StructuredOutputInvalid).with_class(FailureClass::TypeMismatch)
        },
        Behaviour::WrongShape => {
            Failure::of(Category::StructuredOutputInvalid).with_class(FailureClass::MissingRequired)
        }
        Behaviour::RateLimited(retry_after) => Failure {
            status: Some(429),
            retry_after: read_as(retry_after),
            ..Failure::of(Category::RateLimit)
        },
        Behaviour::ServerError(status, retry_after) => Failure {
            status: Some(status),
            retry_after: read_as(retry_after),
            ..Failure::of(Category::Unavailable)
        },
        Behaviour::Stall => Failure {
            timeout: true,
            cause: Some(TransportCause::IdleTimeout),
            ..Failure::of(Category::Unavailable)
        },
        Behaviour::Drop => Failure {
            cause: Some(TransportCause::ConnectionReset),
            ..Failure::of(Category::Unavailable)
        },
        Behaviour::CutOff => Failure::of(Category::Unavailable),
        Behaviour::Oversized | Behaviour::Malformed => Failure::of(Category::InvalidResponse),
    };
    AttemptEnd::Failure(failure)
}

/// What a whole call must end in, and after how many requests.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEnd {
    /// The last attempt's end: the call's result.
    pub end: AttemptEnd,
    /// How many requests the server must have seen.
    pub attempts: u32,
    /// Whether an earlier attempt failed validation, so a value is a repair.
    pub repaired: bool,
    /// The behaviour of each attempt, for messages.
    pub behaviours: Vec<Behaviour>,
    /// How many of its attempts must have been stopped early.
    pub early_stops: u32,
}

/// Plays the retry loop out: attempts until a value, an error that is not retried, or `max_attempts`;
/// `early_stop`: the call streams with early stop on.
pub fn call_end(chaos: &Chaos, call: u64, max_attempts: u32, early_stop: bool) -> CallEnd {
    let mut behaviours = Vec::new();
    let mut repaired = false;
    let mut attempt = 0;
    let mut early_stops = 0;
    loop {
        let behaviour = chaos.behaviour(call, attempt);
        behaviours.push(behaviour);
        let end = attempt_end(behaviour, call, attempt, early_stop);
        early_stops +=
            u32::from(matches!(&end, AttemptEnd::Failure(failure) if failure.early_stop.is_some()));
        let retried = matches!(&end, AttemptEnd::Failure(failure) if failure.is_retried());
        if !retried || attempt + 1 >= max_attempts {
            return CallEnd {
                end,
                attempts: attempt + 1,
                repaired,
                behaviours,
                early_stops,
            };
        }
        repaired |= matches!(&end, AttemptEnd::Failure(failure) if failure.category == Category::StructuredOutputInvalid);
        attempt += 1;
    }
}

/// Differences between what a call must end in and what it returned, in words; empty when they agree.
pub fn differences(expected: &CallEnd, actual: &Result<Response, ProviderError>) -> Vec<String> {
    match (&expected.end, actual) {
        (AttemptEnd::Value(value), Ok(response)) => {
            let mut differences = Vec::new();
            if response.parsed.as_ref() != Some(value) {
                differences.push(format!("parsed: expected {value}, got {:?}", response.parsed));
            }
            let mode = if expected.repaired {
                SchemaMode::UnverifiedRepaired
            } else {
                SchemaMode::Unverified
            };
            if response.schema_mode != Some(mode) {
                differences.push(format!(
                    "schema_mode: expected {mode:?}, got {:?}",
                    response.schema_mode
                ));
            }
            differences
        }
        (AttemptEnd::Failure(failure), Err(error)) => failure.differences(error),
        (AttemptEnd::Value(value), Err(error)) => {
            vec![format!("expected the value {value}, got the error {error}")]
        }
        (AttemptEnd::Failure(failure), Ok(response)) => vec![format!(
            "expected {}, got the value {:?}",
            failure.category, response.parsed
        )],
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use oa_testkit::ChaosSettings;

    use super::*;

    fn chaos() -> std::sync::Arc<Chaos> {
        Chaos::new(
            11,
            ChaosSettings {
                max_body_bytes: 1 << 16,
                max_sse_line_bytes: 1 << 14,
                stall: Duration::from_secs(3),
                hold: Duration::ZERO,
            },
        )
    }

    /// The first call whose first attempts behave as `prefix` says.
    fn call_where(chaos: &Chaos, prefix: &[fn(Behaviour) -> bool]) -> u64 {
        (0..100_000)
            .find(|call| {
                prefix
                    .iter()
                    .enumerate()
                    .all(|(attempt, test)| test(chaos.behaviour(*call, attempt as u32)))
            })
            .expect("a seed of 100,000 calls has every short prefix")
    }

    #[test]
    fn a_value_after_a_failed_validation_is_a_repair_on_the_attempt_that_answered() {
        let chaos = chaos();
        let call = call_where(&chaos, &[|b| b == Behaviour::Prose, |b| b == Behaviour::Answer]);
        let end = call_end(&chaos, call, 4, false);
        assert_eq!(end.attempts, 2);
        assert!(end.repaired);
        assert_eq!(end.end, AttemptEnd::Value(Chaos::answer(call, 1)));
    }

    #[test]
    fn an_invalid_response_ends_the_call_and_transient_errors_run_out_the_attempts() {
        let chaos = chaos();
        let call = call_where(
            &chaos,
            &[
                |b| matches!(b, Behaviour::RateLimited(_)),
                |b| b == Behaviour::Oversized,
            ],
        );
        let end = call_end(&chaos, call, 4, false);
        assert_eq!(end.attempts, 2);
        assert!(!end.repaired);
        assert!(
            matches!(&end.end, AttemptEnd::Failure(failure) if failure.category == Category::InvalidResponse)
        );
        let stalls = call_where(&chaos, &[|b| b == Behaviour::Stall, |b| b == Behaviour::Drop]);
        let end = call_end(&chaos, stalls, 2, false);
        assert_eq!(end.attempts, 2, "the last attempt's error is the call's");
        assert!(matches!(
            &end.end,
            AttemptEnd::Failure(Failure {
                cause: Some(TransportCause::ConnectionReset),
                ..
            })
        ));
    }

    #[test]
    fn a_wrong_shape_streamed_with_early_stop_stops_at_its_type_violation() {
        let chaos = chaos();
        let call = call_where(
            &chaos,
            &[|b| b == Behaviour::WrongShape, |b| b == Behaviour::Answer],
        );
        let stopped = call_end(&chaos, call, 4, true);
        assert_eq!(
            (stopped.attempts, stopped.early_stops, stopped.repaired),
            (2, 1, true)
        );
        let AttemptEnd::Failure(failure) = attempt_end(Behaviour::WrongShape, call, 0, true) else {
            panic!("a wrong shape fails");
        };
        assert_eq!(
            (failure.class, failure.early_stop),
            (Some(FailureClass::TypeMismatch), Some("/call type"))
        );
        let read_whole = call_end(&chaos, call, 4, false);
        assert_eq!(read_whole.early_stops, 0);
        let AttemptEnd::Failure(failure) = attempt_end(Behaviour::WrongShape, call, 0, false) else {
            panic!("a wrong shape fails");
        };
        assert_eq!(
            (failure.class, failure.early_stop),
            (Some(FailureClass::MissingRequired), None)
        );
    }

    #[test]
    fn retry_after_headers_are_read_as_the_provider_must() {
        for (written, read) in [
            (RetryAfter::Absent, None),
            (RetryAfter::OneSecond, Some(Duration::from_secs(1))),
            (RetryAfter::PastDate, Some(Duration::ZERO)),
            (RetryAfter::FarDate, Some(MAX_RETRY_AFTER)),
        ] {
            assert_eq!(read_as(written), read);
            assert_eq!(
                written.header().map(oa_provider::fuzzing::parse_retry_after),
                read.map(Some)
            );
        }
    }
}
