//! The report's lines and the verdict: the issue's closing line (`soak: N calls, P panics, L lost, R rss_start_mib,
//! S rss_end_mib, T seconds`), the memory bound against the checkpoint, the outcome and telemetry totals, the
//! memory per call in flight, and any mismatch in words.

use crate::rss::mib;
use crate::run::Report;

/// How far resident memory at the end may rise above its figure after the checkpoint, in percent.
pub const RSS_BOUND_PERCENT: f64 = 20.0;

/// The rise of resident memory from the checkpoint to the end, in percent; `None` without a checkpoint.
pub fn rss_rise_percent(report: &Report) -> Option<f64> {
    let checkpoint = report.rss_checkpoint_kib.filter(|kib| *kib > 0)?;
    Some((report.rss_end_kib as f64 - checkpoint as f64) / checkpoint as f64 * 100.0)
}

/// Resident memory per call in flight, KiB: the rise above the start while the most calls were in flight, over
/// that many; `None` when none were sampled in flight.
pub fn kib_per_in_flight_call(report: &Report) -> Option<f64> {
    if report.peak_in_flight == 0 {
        return None;
    }
    let rise = report
        .rss_at_peak_in_flight_kib
        .saturating_sub(report.rss_start_kib);
    Some(rise as f64 / report.peak_in_flight as f64)
}

/// Every line the run prints; the first is the issue's.
pub fn lines(report: &Report, panics: u64) -> Vec<String> {
    let mut lines = vec![format!(
        "soak: {} calls, {panics} panics, {} lost, {} rss_start_mib, {} rss_end_mib, {:.1} seconds",
        report.calls,
        report.lost,
        mib(report.rss_start_kib),
        mib(report.rss_end_kib),
        report.seconds
    )];
    lines.push(match (report.rss_checkpoint_kib, rss_rise_percent(report)) {
        (Some(kib), Some(rise)) => format!(
            "soak: {} rss_checkpoint_mib after the first {} calls; the end is {rise:+.1}% of it (bound +{RSS_BOUND_PERCENT}%)",
            mib(kib),
            report.checkpoint
        ),
        _ => format!(
            "soak: fewer than {} calls, so no checkpoint: the memory bound is not judged",
            report.checkpoint
        ),
    });
    lines.push(format!(
        "soak: {} returned a value, {} a typed error, {} panicked; {} mismatches with the server's choice; the server saw {} requests",
        report.ok, report.failed, report.panicked, report.mismatches, report.attempts
    ));
    lines.push(format!(
        "soak: the bus delivered {} attempt, {} completion, {} failure and {} token events; {} spans and {} log records exported",
        report.events.attempts,
        report.events.completions,
        report.events.failures,
        report.events.tokens,
        report.spans,
        report.log_records
    ));
    lines.push(format!(
        "soak: {} attempts stopped early at their first certain violation (expected {}); {} partial values delivered",
        report.events.early_stops, report.early_stops, report.events.partial_values
    ));
    let per_call = kib_per_in_flight_call(report).map_or_else(|| "n/a".to_owned(), |kib| format!("{kib:.1}"));
    lines.push(format!(
        "soak: at most {} calls in flight, with {} rss_mib: {per_call} kib per in-flight call above the start; rss peaked at {} mib",
        report.peak_in_flight,
        mib(report.rss_at_peak_in_flight_kib),
        mib(report.rss_peak_kib)
    ));
    if !report.rss_trace_kib.is_empty() {
        let trace: Vec<String> = report
            .rss_trace_kib
            .iter()
            .map(|kib| mib(*kib).to_string())
            .collect();
        lines.push(format!(
            "soak: rss_mib after every {} calls: {}",
            report.checkpoint,
            trace.join(" ")
        ));
    }
    lines.extend(
        report
            .mismatch_notes
            .iter()
            .map(|note| format!("soak: MISMATCH {note}")),
    );
    lines
}

/// Why the run fails, if it does: a panic, a lost call, a mismatch, or memory past the bound.
///
/// # Errors
///
/// The reasons, one each.
pub fn verdict(report: &Report, panics: u64) -> Result<(), Vec<String>> {
    let mut reasons = Vec::new();
    if panics + report.panicked > 0 {
        reasons.push(format!("{panics} panics"));
    }
    if report.lost > 0 {
        reasons.push(format!("{} calls lost", report.lost));
    }
    if report.mismatches > 0 {
        reasons.push(format!("{} mismatches", report.mismatches));
    }
    if let Some(rise) = rss_rise_percent(report).filter(|rise| *rise > RSS_BOUND_PERCENT) {
        reasons.push(format!("resident memory rose {rise:.1}% after the checkpoint"));
    }
    if reasons.is_empty() { Ok(()) } else { Err(reasons) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            calls: 2000,
            ok: 1500,
            failed: 500,
            checkpoint: 1000,
            rss_start_kib: 40 * 1024,
            rss_checkpoint_kib: Some(50 * 1024),
            rss_end_kib: 55 * 1024,
            rss_peak_kib: 61 * 1024,
            rss_at_peak_in_flight_kib: 60 * 1024,
            peak_in_flight: 64,
            seconds: 12.34,
            ..Report::default()
        }
    }

    #[test]
    fn the_first_line_is_the_issues_and_the_bound_is_judged_from_the_checkpoint() {
        let report = report();
        let lines = lines(&report, 0);
        assert_eq!(
            lines[0],
            "soak: 2000 calls, 0 panics, 0 lost, 40 rss_start_mib, 55 rss_end_mib, 12.3 seconds"
        );
        assert!(lines[1].contains("the end is +10.0% of it"), "{}", lines[1]);
        assert_eq!(kib_per_in_flight_call(&report), Some(320.0));
        assert_eq!(verdict(&report, 0), Ok(()));
        let grown = Report {
            rss_end_kib: 61 * 1024,
            ..report.clone()
        };
        assert_eq!(verdict(&grown, 0).unwrap_err().len(), 1);
        let bad = Report {
            lost: 1,
            mismatches: 2,
            ..report
        };
        assert_eq!(verdict(&bad, 3).unwrap_err().len(), 3);
    }

    #[test]
    fn a_short_run_says_the_bound_is_not_judged() {
        let short = Report {
            rss_checkpoint_kib: None,
            ..report()
        };
        assert_eq!(rss_rise_percent(&short), None);
        assert!(lines(&short, 0)[1].contains("not judged"));
        assert_eq!(verdict(&short, 0), Ok(()));
    }
}
