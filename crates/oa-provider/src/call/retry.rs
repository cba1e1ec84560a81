//! Call-level retry (§7.1): transient failures retried with backoff, Retry-After honoured up to a cap, the
//! opt-in `per_attempt_override` schedule and structured-output `reask`, all inside one `complete()`.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::Duration;

use crate::model::FailureClass;
use crate::model::RetryReason;
use crate::model::{Message, RuntimeConfig};
use crate::model::{ProviderError, StructuredOutputFailure};

/// How long to wait before retry number `attempt_index + 1` (the §6.1 `backoff(attempt_index) -> seconds`).
#[derive(Clone)]
pub enum Backoff {
    /// The same wait every time; deterministic, for tests and fixtures.
    Fixed(Duration),
    /// `min(cap, base * 2^attempt_index)`, with full jitter (a uniform wait in `[0, that]`) when `jitter` is set.
    Exponential {
        /// The first wait.
        base: Duration,
        /// The largest wait.
        cap: Duration,
        /// Whether to draw the wait uniformly below the exponential value.
        jitter: bool,
    },
    /// A caller's function of the attempt index.
    Custom(Arc<dyn Fn(u32) -> Duration + Send + Sync>),
}

impl Default for Backoff {
    /// The §6.1 default: exponential with full jitter, base 1 s, cap 30 s.
    fn default() -> Self {
        Self::Exponential {
            base: Duration::from_secs(1),
            cap: Duration::from_secs(30),
            jitter: true,
        }
    }
}

impl fmt::Debug for Backoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed(wait) => f.debug_tuple("Fixed").field(wait).finish(),
            Self::Exponential { base, cap, jitter } => f
                .debug_struct("Exponential")
                .field("base", base)
                .field("cap", cap)
                .field("jitter", jitter)
                .finish(),
            Self::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl Backoff {
    /// The wait before the retry that follows attempt `attempt_index`.
    pub fn delay(&self, attempt_index: u32) -> Duration {
        match self {
            Self::Fixed(wait) => *wait,
            Self::Exponential { base, cap, jitter } => {
                let factor = 2u32.saturating_pow(attempt_index.min(31));
                let ceiling = base.saturating_mul(factor).min(*cap);
                if *jitter {
                    ceiling.mul_f64(unit_random())
                } else {
                    ceiling
                }
            }
            Self::Custom(function) => function(attempt_index),
        }
    }
}

// A uniform draw in [0, 1) from the standard library's per-process random hasher keys; no global state of ours
// and no extra dependency. Jitter needs spread, not cryptographic quality.
fn unit_random() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0x9e37_79b9_7f4a_7c15);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Builds the corrective user message of a reask from the failed attempt's surface (§7.1). The caller owns every
/// word: oa appends the model's own output and exactly what this returns.
#[derive(Clone)]
pub struct Reask(Arc<dyn Fn(&StructuredOutputFailure) -> String + Send + Sync>);

impl Reask {
    /// A builder from a function of the failure (read `output_content` and `error_message`).
    pub fn from_fn(builder: impl Fn(&StructuredOutputFailure) -> String + Send + Sync + 'static) -> Self {
        Self(Arc::new(builder))
    }

    /// A builder from a caller's template, replacing `{output_content}` and `{error_message}`.
    pub fn template(template: impl Into<String>) -> Self {
        let template = template.into();
        Self::from_fn(move |failure| {
            template
                .replace("{output_content}", &failure.output_content)
                .replace("{error_message}", &failure.error_message)
        })
    }

    /// The correction for `failure`.
    pub fn build(&self, failure: &StructuredOutputFailure) -> String {
        (self.0)(failure)
    }
}

impl fmt::Debug for Reask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reask(..)")
    }
}

/// Decides whether an error is worth another attempt (the §6.1 `classifier`).
pub type Classifier = Arc<dyn Fn(&ProviderError) -> bool + Send + Sync>;

/// Observes a scheduled retry: `(attempt index that failed, its error, wait)`. Observe-only.
pub type OnRetry = Arc<dyn Fn(u32, &ProviderError, Duration) + Send + Sync>;

/// The llm-provider retry configuration (§7.1): the §6.1 four fields plus `per_attempt_override` and `reask`.
#[derive(Clone)]
pub struct RetryConfig {
    /// Total attempts including the first; at least 1 (0 is read as 1).
    pub max_attempts: u32,
    /// The wait between attempts.
    pub backoff: Backoff,
    /// Which errors to retry; `None` is the §6.1 default (the transient categories).
    pub classifier: Option<Classifier>,
    /// Called before each retry's wait; cannot change the request.
    pub on_retry: Option<OnRetry>,
    /// Config overrides for retries: retry `i` (attempt `i + 1`) merges entry `i`; the last entry carries on.
    pub per_attempt_override: Vec<RuntimeConfig>,
    /// When set, `structured_output_invalid` is retried with this correction appended.
    pub reask: Option<Reask>,
    /// The longest Retry-After honoured (default 60 s); a longer one waits this long.
    pub retry_after_cap: Duration,
}

impl RetryConfig {
    /// `max_attempts` attempts with the default backoff and classifier, no adaptive extensions.
    pub fn new(max_attempts: u32) -> Self {
        Self {
            max_attempts,
            backoff: Backoff::default(),
            classifier: None,
            on_retry: None,
            per_attempt_override: Vec::new(),
            reask: None,
            retry_after_cap: Duration::from_secs(60),
        }
    }

    /// Sets the backoff (default: exponential, full jitter, 1 s base, 30 s cap).
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Sets a custom classifier (default: the §7 transient categories).
    pub fn with_classifier(
        mut self,
        classifier: impl Fn(&ProviderError) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.classifier = Some(Arc::new(classifier));
        self
    }

    /// Sets the observe-only retry callback (default: none).
    pub fn with_on_retry(
        mut self,
        on_retry: impl Fn(u32, &ProviderError, Duration) + Send + Sync + 'static,
    ) -> Self {
        self.on_retry = Some(Arc::new(on_retry));
        self
    }

    /// Sets the per-attempt override schedule (default: empty).
    pub fn with_per_attempt_override(mut self, schedule: Vec<RuntimeConfig>) -> Self {
        self.per_attempt_override = schedule;
        self
    }

    /// Enables reask with `reask` (default: off).
    pub fn with_reask(mut self, reask: Reask) -> Self {
        self.reask = Some(reask);
        self
    }

    /// Sets the Retry-After cap (default: 60 s).
    pub fn with_retry_after_cap(mut self, cap: Duration) -> Self {
        self.retry_after_cap = cap;
        self
    }

    fn is_retryable(&self, error: &ProviderError) -> bool {
        match &self.classifier {
            Some(classifier) => classifier(error),
            None => error.is_transient(),
        }
    }

    /// The config of attempt `attempt_index`: the caller's itself unless an override applies.
    fn config_for<'a>(&self, base: &'a RuntimeConfig, attempt_index: u32) -> Cow<'a, RuntimeConfig> {
        if attempt_index == 0 || self.per_attempt_override.is_empty() {
            return Cow::Borrowed(base);
        }
        let entry_idx = (attempt_index as usize - 1).min(self.per_attempt_override.len() - 1);
        Cow::Owned(base.merged_with(&self.per_attempt_override[entry_idx]))
    }

    fn wait_after(&self, attempt_index: u32, error: &ProviderError) -> Duration {
        let backoff = self.backoff.delay(attempt_index);
        match error.retry_after() {
            Some(retry_after) => backoff.max(retry_after.min(self.retry_after_cap)),
            None => backoff,
        }
    }
}

impl fmt::Debug for RetryConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryConfig")
            .field("max_attempts", &self.max_attempts)
            .field("backoff", &self.backoff)
            .field("classifier", &self.classifier.as_ref().map(|_| ".."))
            .field("n_overrides", &self.per_attempt_override.len())
            .field("reask", &self.reask.is_some())
            .field("retry_after_cap", &self.retry_after_cap)
            .finish()
    }
}

/// What one attempt is to send: its index, why it was scheduled, whether it is a repair, the working transcript,
/// and its merged config. Both borrow the caller's until a reask or an override changes them, so a call copies
/// neither its messages nor its config.
#[derive(Debug, Clone)]
pub(crate) struct AttemptPlan<'a> {
    pub(crate) index: u32,
    pub(crate) retry_reason: Option<RetryReason>,
    /// An earlier attempt of this call failed validation and was reasked (a success now is `*_repaired`).
    pub(crate) repair: bool,
    pub(crate) messages: Cow<'a, [Message]>,
    pub(crate) config: Cow<'a, RuntimeConfig>,
}

/// Runs `attempt` under `retry` (or once without it). Waits use `tokio::time::sleep`, so tests may pause time.
/// Cancellation is dropping the future: nothing here catches it.
///
/// With `retry_parse_failure`, an attempt the server failed with `provider_output_parse_failed` (its engine could
/// not parse the model's output) is sent once more with the same transcript and config, so with identical bytes,
/// immediately and outside the `max_attempts` budget; at most once per call.
pub(crate) async fn run<'a, T, F, Fut>(
    retry: Option<&RetryConfig>,
    retry_parse_failure: bool,
    messages: &'a [Message],
    config: &'a RuntimeConfig,
    mut attempt: F,
) -> Result<T, ProviderError>
where
    F: FnMut(AttemptPlan<'a>) -> Fut,
    Fut: Future<Output = Result<T, ProviderError>>,
{
    let once = RetryConfig::new(1);
    let retry = retry.unwrap_or(&once);
    let max_attempts = retry.max_attempts.max(1);
    let mut transcript = Cow::Borrowed(messages);
    let mut attempt_config = retry.config_for(config, 0);
    let mut retry_reason = None;
    let mut repair = false;
    let mut parse_retry_left = retry_parse_failure;
    // Wire attempts made, and the ones counted against `max_attempts` (a parse-failure resend is not).
    let mut n_sent: u32 = 0;
    let mut n_counted: u32 = 0;
    loop {
        let plan = AttemptPlan {
            index: n_sent,
            retry_reason,
            repair,
            messages: transcript.clone(),
            config: attempt_config.clone(),
        };
        let error = match attempt(plan).await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        let failed_index = n_sent;
        n_sent += 1;
        if parse_retry_left && error.failure_class() == Some(FailureClass::ProviderOutputParseFailed) {
            parse_retry_left = false;
            retry_reason = Some(RetryReason::ParseFailure);
            continue;
        }
        n_counted += 1;
        if n_counted >= max_attempts {
            return Err(error);
        }
        match (&retry.reask, error.structured_output()) {
            (Some(reask), Some(failure)) => {
                let correction = reask.build(failure);
                let transcript = transcript.to_mut();
                transcript.push(Message::assistant(failure.output_content.clone()));
                transcript.push(Message::user(correction));
                retry_reason = Some(RetryReason::Reask);
                repair = true;
            }
            _ if retry.is_retryable(&error) => retry_reason = Some(RetryReason::Transient),
            _ => return Err(error),
        }
        // An attempt stopped early failed on its answer, not on the server's load: its reask starts at once.
        let stopped_early = error
            .structured_output()
            .is_some_and(|failure| failure.early_stop().is_some());
        let wait = if stopped_early {
            Duration::ZERO
        } else {
            retry.wait_after(n_counted - 1, &error)
        };
        if let Some(on_retry) = &retry.on_retry {
            on_retry(failed_index, &error, wait);
        }
        tokio::time::sleep(wait).await;
        attempt_config = retry.config_for(config, n_counted);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use tokio::time::Instant;

    use super::*;
    use crate::model::Category;

    fn transient() -> ProviderError {
        ProviderError::new(Category::Unavailable, "down")
    }

    /// Found by cargo-mutants (a Debug that wrote nothing went unnoticed): a reask prints as a fixed mark, never
    /// its template, and a retry configuration says only whether it has one.
    #[test]
    fn a_reask_prints_as_a_mark_not_its_template() {
        let reask = Reask::template("secret template {error_message}");
        assert_eq!(format!("{reask:?}"), "Reask(..)");
        let config = format!("{:?}", RetryConfig::new(2).with_reask(reask));
        assert!(config.contains("reask: true"), "{config}");
        assert!(!config.contains("secret template"), "{config}");
    }

    #[test]
    fn exponential_backoff_doubles_to_the_cap_and_jitter_stays_below() {
        let plain = Backoff::Exponential {
            base: Duration::from_secs(1),
            cap: Duration::from_secs(30),
            jitter: false,
        };
        let waits: Vec<u64> = (0..7).map(|attempt| plain.delay(attempt).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(
            plain.delay(u32::MAX),
            Duration::from_secs(30),
            "no overflow on huge indices"
        );
        let jittered = Backoff::default();
        for attempt in 0..50 {
            assert!(jittered.delay(attempt) <= plain.delay(attempt));
        }
    }

    /// Found by cargo-mutants (a draw of always 0 or always 1 went unnoticed): full jitter spreads the waits over
    /// the whole range below the ceiling, so clients that failed together do not retry together.
    #[test]
    fn full_jitter_spreads_below_the_ceiling() {
        let draws: Vec<f64> = (0..256).map(|_| unit_random()).collect();
        assert!(draws.iter().all(|draw| (0.0..1.0).contains(draw)), "{draws:?}");
        let low = draws.iter().filter(|draw| **draw < 0.5).count();
        // Binomial(256, 1/2): outside 64..=192 with probability below 1e-14.
        assert!((64..=192).contains(&low), "{low} of 256 draws below 0.5");
        let jittered = Backoff::Exponential {
            base: Duration::from_secs(1),
            cap: Duration::from_secs(30),
            jitter: true,
        };
        let waits: std::collections::BTreeSet<Duration> = (0..32).map(|_| jittered.delay(3)).collect();
        assert!(
            waits.len() > 16,
            "32 jittered waits took only {} values",
            waits.len()
        );
        assert!(
            waits.iter().all(|wait| *wait < Duration::from_secs(8)),
            "{waits:?}"
        );
    }

    /// Found by cargo-mutants (a Debug that wrote nothing went unnoticed): a backoff prints its shape and values.
    #[test]
    fn a_backoff_prints_its_shape() {
        let exponential = format!("{:?}", Backoff::default());
        assert_eq!(exponential, "Exponential { base: 1s, cap: 30s, jitter: true }");
        assert_eq!(
            format!("{:?}", Backoff::Fixed(Duration::from_millis(5))),
            "Fixed(5ms)"
        );
        let custom = Backoff::Custom(Arc::new(|_| Duration::ZERO));
        assert_eq!(format!("{custom:?}"), "Custom(..)");
    }

    #[tokio::test(start_paused = true)]
    async fn waits_follow_the_backoff_and_retry_after_up_to_the_cap() {
        let retry = RetryConfig::new(4)
            .with_backoff(Backoff::Exponential {
                base: Duration::from_secs(1),
                cap: Duration::from_secs(30),
                jitter: false,
            })
            .with_retry_after_cap(Duration::from_secs(10));
        let starts = Mutex::new(Vec::new());
        let clock = Instant::now();
        let outcome: Result<(), ProviderError> =
            run(Some(&retry), false, &[], &RuntimeConfig::default(), |plan| {
                starts.lock().unwrap().push(clock.elapsed());
                async move {
                    match plan.index {
                        // A huge Retry-After is honoured only up to the cap.
                        1 => Err(transient().with_retry_after(Some(Duration::from_secs(3600)))),
                        _ => Err(transient()),
                    }
                }
            })
            .await;
        assert!(outcome.is_err());
        let starts: Vec<u64> = starts.lock().unwrap().iter().map(Duration::as_secs).collect();
        // Attempt 0 at 0; wait 1 s; attempt 1 at 1; wait max(2, min(3600, 10)) = 10; attempt 2 at 11; wait 4.
        assert_eq!(starts, [0, 1, 11, 15]);
    }

    /// An engine's `provider_output_parse_failed`.
    fn parse_failed() -> ProviderError {
        ProviderError::new(Category::Unavailable, "engine could not parse")
            .with_failure_class(FailureClass::ProviderOutputParseFailed)
    }

    /// The reasons of the attempts `run` makes when attempt N answers `answers[N]` (then success), and the outcome.
    async fn reasons(
        retry_parse_failure: bool,
        max_attempts: u32,
        answers: Vec<ProviderError>,
    ) -> (Vec<Option<RetryReason>>, bool) {
        let retry = RetryConfig::new(max_attempts).with_backoff(Backoff::Fixed(Duration::ZERO));
        let answers = Mutex::new(answers.into_iter());
        let seen = Mutex::new(Vec::new());
        let outcome: Result<(), ProviderError> = run(
            Some(&retry),
            retry_parse_failure,
            &[],
            &RuntimeConfig::default(),
            |plan| {
                seen.lock().unwrap().push(plan.retry_reason);
                let answer = answers.lock().unwrap().next();
                async move { answer.map_or(Ok(()), Err) }
            },
        )
        .await;
        (seen.into_inner().unwrap(), outcome.is_ok())
    }

    /// Found by cargo-mutants (the resend's condition widened went unnoticed): only the engine's parse failure is
    /// resent outside the budget, once per call, and only when the endpoint asks for it.
    #[tokio::test(start_paused = true)]
    async fn a_parse_failure_is_resent_once_outside_the_budget_and_nothing_else_is() {
        let resent = Some(RetryReason::ParseFailure);
        assert_eq!(
            reasons(true, 1, vec![parse_failed()]).await,
            (vec![None, resent], true)
        );
        assert_eq!(
            reasons(true, 1, vec![parse_failed(), parse_failed()]).await,
            (vec![None, resent], false),
            "at most once per call"
        );
        assert_eq!(
            reasons(true, 2, vec![parse_failed(), parse_failed()]).await,
            (vec![None, resent, Some(RetryReason::Transient)], true),
            "a second parse failure is an ordinary, counted retry"
        );
        assert_eq!(reasons(true, 1, vec![transient()]).await, (vec![None], false));
        assert_eq!(reasons(false, 1, vec![parse_failed()]).await, (vec![None], false));
    }

    #[tokio::test(start_paused = true)]
    async fn zero_max_attempts_still_makes_one_attempt() {
        let retry = RetryConfig::new(0);
        let n_attempts = Mutex::new(0);
        let _: Result<(), ProviderError> = run(Some(&retry), false, &[], &RuntimeConfig::default(), |_| {
            *n_attempts.lock().unwrap() += 1;
            async { Err(transient()) }
        })
        .await;
        assert_eq!(*n_attempts.lock().unwrap(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_repair_stays_a_repair_through_a_later_transient_retry() {
        let retry = RetryConfig::new(4)
            .with_backoff(Backoff::Fixed(Duration::ZERO))
            .with_reask(Reask::template("fix: {error_message}"));
        let plans = Mutex::new(Vec::new());
        let outcome: Result<(), ProviderError> =
            run(Some(&retry), false, &[], &RuntimeConfig::default(), |plan| {
                plans
                    .lock()
                    .unwrap()
                    .push((plan.index, plan.retry_reason, plan.repair, plan.messages.len()));
                async move {
                    match plan.index {
                        0 => Err(transient()),
                        1 => Err(invalid_output()),
                        2 => Err(transient()),
                        _ => Ok(()),
                    }
                }
            })
            .await;
        assert!(outcome.is_ok());
        assert_eq!(
            *plans.lock().unwrap(),
            [
                (0, None, false, 0),
                (1, Some(RetryReason::Transient), false, 0),
                // The reask appends the model's output and the correction.
                (2, Some(RetryReason::Reask), true, 2),
                (3, Some(RetryReason::Transient), true, 2),
            ]
        );
    }

    /// A `structured_output_invalid` error as a content check makes it.
    fn invalid_output() -> ProviderError {
        let schema = crate::structured::CallSchema::check(&serde_json::json!({"type": "object"})).unwrap();
        let raw = crate::model::RawJson::default();
        let surface = crate::model::Surface::bare(crate::model::FinishReason::Stop, &raw);
        schema.check_content("not json", surface, None).unwrap_err()
    }
}
