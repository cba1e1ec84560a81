//! Progress on long runs: count, rate and elapsed time on stderr, only when stderr is a terminal and stdout is not
//! (results redirected to a file, progress watched on the terminal). When both are the terminal, results are the
//! progress; a progress line redrawn in place would land on the same rows as them.
//!
//! Piped or redirected output stays exactly what the subcommand prints: a script reading stdout or stderr never
//! sees a progress line.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often the line is redrawn at most, so a fast run does not spend its time writing to the terminal.
const REDRAW_EVERY: Duration = Duration::from_millis(100);

/// A progress line for one run; does nothing when stderr is not a terminal.
#[derive(Debug)]
pub(crate) struct Progress {
    label: &'static str,
    enabled: bool,
    started: Instant,
    last_drawn: Option<Instant>,
    n_done: u64,
}

impl Progress {
    /// Starts a progress line labelled `label` (for example "validated").
    pub(crate) fn new(label: &'static str) -> Self {
        Self::with_enabled(
            label,
            std::io::stderr().is_terminal() && !std::io::stdout().is_terminal(),
        )
    }

    fn with_enabled(label: &'static str, enabled: bool) -> Self {
        Self {
            label,
            enabled,
            started: Instant::now(),
            last_drawn: None,
            n_done: 0,
        }
    }

    /// Counts one finished item and redraws the line if it is due.
    pub(crate) fn tick(&mut self) {
        self.n_done += 1;
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self
            .last_drawn
            .is_none_or(|last| now.duration_since(last) >= REDRAW_EVERY)
        {
            self.last_drawn = Some(now);
            let line = self.line(now.duration_since(self.started));
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r{line}\x1b[K");
            let _ = stderr.flush();
        }
    }

    /// Draws the final count and ends the line.
    pub(crate) fn finish(&mut self) {
        if self.enabled && self.n_done > 0 {
            let line = self.line(self.started.elapsed());
            let _ = writeln!(std::io::stderr().lock(), "\r{line}\x1b[K");
        }
    }

    fn line(&self, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64();
        let rate = if seconds > 0.0 {
            self.n_done as f64 / seconds
        } else {
            0.0
        };
        format!(
            "{} {} ({rate:.0}/s, {seconds:.1}s elapsed)",
            self.label, self.n_done
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_shows_count_rate_and_elapsed() {
        let mut progress = Progress::with_enabled("validated", false);
        for _ in 0..50 {
            progress.tick();
        }
        assert_eq!(
            progress.line(Duration::from_secs(2)),
            "validated 50 (25/s, 2.0s elapsed)"
        );
    }
}
