//! Paired (interleaved) ratio measurement: the ratio of record of both comparative benchmarks (oa-schema's
//! `compare`, which includes this file, and oa-provider's `speed`, which includes it by `#[path]`).
//!
//! Why: criterion times one tool for a second or so, then the next, and the report divides their medians. On a
//! shared machine the outside load differs between those two windows, so the quotient measures the load as much as
//! the code (rows swung 2–3x between runs whose instruction counts did not move). Here every contender is timed in
//! many short rounds, back to back on the same work, so a burst of load lands on all of them alike; each round gives
//! its own ratio, and the median of the round ratios is reported with its interquartile range.
//!
//! How: every contender gets a batch size (iterations per timed batch) calibrated during the warm-up on its fastest
//! batch so that one batch lasts about [`Settings::batch`] (a millisecond: well above the timer's resolution, and
//! short enough that most batches are not preempted by another process; one iteration when a single one is
//! longer). A round times one batch of each contender in turn; the order rotates from round to round (and runs
//! backwards every other cycle), so that no contender always goes first or always follows the same one. Rounds go on
//! until the time budget is spent (at least [`Settings::min_rounds`], at most [`Settings::max_rounds`]).
//!
//! Limits: a round's two batches are not simultaneous, so load that changes within a round still lands on one of
//! them; the median of many rounds discounts such rounds but does not remove them. Each batch starts after the other
//! contender's, with caches and branch predictors left by the other's work; a contender that needs warm state pays a
//! little more than in criterion's long single-tool loops (batches of milliseconds keep this small). A row whose
//! single iteration outlasts a batch gets one iteration per batch and few rounds: under heavy load nearly every such
//! batch is preempted, and the interquartile range (printed beside the ratio) is wide. The median, not the minimum:
//! the minimum would time an idle machine, not the row as criterion times it.

use std::time::{Duration, Instant};

/// How a paired measurement runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// Untimed rounds before the measured ones: the batch sizes are calibrated here (at least one round).
    pub(crate) warm_up: Duration,
    /// Time for the measured rounds, all contenders together.
    pub(crate) budget: Duration,
    /// Target length of one contender's batch.
    pub(crate) batch: Duration,
    /// Rounds measured even when the budget is spent sooner (slow rows).
    pub(crate) min_rounds: usize,
    /// Rounds after which measuring stops even with budget left (very fast rows).
    pub(crate) max_rounds: usize,
}

impl Settings {
    /// These settings with the batch target and the budget taken from `OA_PAIRED_BATCH_US` and
    /// `OA_PAIRED_BUDGET_MS` when set (to study the method; the runs of record use the defaults).
    pub(crate) fn with_env_overrides(self) -> Self {
        let read = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|value| value.parse::<u64>().ok())
        };
        Self {
            batch: read("OA_PAIRED_BATCH_US").map_or(self.batch, Duration::from_micros),
            budget: read("OA_PAIRED_BUDGET_MS").map_or(self.budget, Duration::from_millis),
            ..self
        }
    }
}

/// The settings of record of the comparative benchmarks (oa-schema's `compare` and `bytes`): rounds of batches of
/// about 1 ms, for 1.5 s a row after 0.2 s of calibration.
#[allow(
    dead_code,
    reason = "oa-provider's speed bench, which includes this file too, has settings of its own"
)]
pub(crate) const OF_RECORD: Settings = Settings {
    warm_up: Duration::from_millis(200),
    budget: Duration::from_millis(1500),
    batch: Duration::from_millis(1),
    min_rounds: 10,
    max_rounds: 5_000,
};

/// One contender's timed batch: runs the work `iterations` times and returns the time it took. The closure times
/// itself, so that setup and drops stay outside the timed region.
pub(crate) type Batch<'a> = Box<dyn FnMut(u64) -> Duration + 'a>;

/// The measured rounds: per round, per contender, nanoseconds per iteration.
#[derive(Debug, Clone)]
pub(crate) struct Rounds {
    per_iteration: Vec<Vec<f64>>,
    /// Iterations per batch, per contender (after calibration).
    pub(crate) iterations: Vec<u64>,
}

/// The median of per-round ratios and the quartiles around it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spread {
    pub(crate) median: f64,
    pub(crate) q1: f64,
    pub(crate) q3: f64,
    pub(crate) rounds: usize,
}

impl Rounds {
    /// Contender `a` ÷ contender `b`, round by round: median and quartiles.
    pub(crate) fn ratio(&self, a: usize, b: usize) -> Spread {
        quartiles(
            self.per_iteration
                .iter()
                .map(|round| round[a] / round[b])
                .collect(),
        )
    }

    /// Contender `a`'s nanoseconds per iteration: median over the rounds (for scale only; the ratio is the figure).
    pub(crate) fn median_ns(&self, a: usize) -> f64 {
        quartiles(self.per_iteration.iter().map(|round| round[a]).collect()).median
    }
}

/// Times every contender of `batches` in interleaved rounds (see the module docs).
pub(crate) fn measure(settings: &Settings, batches: &mut [Batch<'_>]) -> Rounds {
    let n = batches.len();
    let mut iterations = vec![1u64; n];
    // The fastest time per iteration seen so far, per contender: calibrating on the least disturbed batch keeps a
    // batch that an outside process preempted (tens of milliseconds lost) from shrinking the batch size.
    let mut fastest = vec![f64::INFINITY; n];
    let target = settings.batch.as_secs_f64();
    let warm_up_start = Instant::now();
    let mut warm_up_rounds = 0usize;
    while warm_up_rounds < 1 || warm_up_start.elapsed() < settings.warm_up {
        for ((batch, iters), fastest) in batches.iter_mut().zip(&mut iterations).zip(&mut fastest) {
            let took = batch(*iters).as_secs_f64().max(1e-9);
            *fastest = fastest.min(took / *iters as f64);
            // Towards the target, at most tenfold per round, so that one slow first call does not mislead.
            let wanted = (target / *fastest).clamp(1.0, *iters as f64 * 10.0);
            *iters = wanted.round().max(1.0) as u64;
        }
        warm_up_rounds += 1;
    }

    let mut per_iteration = Vec::new();
    let started = Instant::now();
    while per_iteration.len() < settings.max_rounds
        && (per_iteration.len() < settings.min_rounds || started.elapsed() < settings.budget)
    {
        let round = per_iteration.len();
        let mut times = vec![0.0; n];
        for position in 0..n {
            let index = order(round, position, n);
            let took = batches[index](iterations[index]);
            times[index] = took.as_nanos() as f64 / iterations[index] as f64;
        }
        per_iteration.push(times);
    }
    Rounds {
        per_iteration,
        iterations,
    }
}

/// Which contender runs at `position` of `round`: rotated by one each round, backwards every other cycle of `n`
/// rounds (for two contenders: A-B, B-A, B-A, A-B, ...), so each contender takes every position equally often.
fn order(round: usize, position: usize, n: usize) -> usize {
    let rotated = (position + round) % n;
    if (round / n) % 2 == 1 {
        n - 1 - rotated
    } else {
        rotated
    }
}

/// Median and quartiles (linear interpolation between the order statistics).
fn quartiles(mut values: Vec<f64>) -> Spread {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        if values.is_empty() {
            return f64::NAN;
        }
        let position = q * (values.len() - 1) as f64;
        let (low, high) = (position.floor() as usize, position.ceil() as usize);
        values[low] + (values[high] - values[low]) * (position - low as f64)
    };
    Spread {
        median: at(0.5),
        q1: at(0.25),
        q3: at(0.75),
        rounds: values.len(),
    }
}
