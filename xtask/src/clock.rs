//! How long each phase of `cargo xtask ci` took: CI must stay well under 30 minutes, and the closing table says
//! where the time goes before anyone trims a step.

use std::time::{Duration, Instant};

/// Phases and their wall-clock durations, in the order they ran.
pub(crate) struct Clock {
    started: Instant,
    lap_started: Instant,
    laps: Vec<(&'static str, Duration)>,
}

impl Clock {
    pub(crate) fn start() -> Self {
        let now = Instant::now();
        Self {
            started: now,
            lap_started: now,
            laps: Vec::new(),
        }
    }

    /// Ends the phase running since the last lap and names it.
    pub(crate) fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.laps.push((phase, now - self.lap_started));
        self.lap_started = now;
    }

    /// One line per phase and the total, in seconds.
    pub(crate) fn table(&self) -> String {
        let mut out = String::from("phase times (wall clock):");
        for (phase, took) in &self.laps {
            out.push_str(&format!("\n  {:>6.0} s  {phase}", took.as_secs_f64()));
        }
        out.push_str(&format!(
            "\n  {:>6.0} s  total",
            self.started.elapsed().as_secs_f64()
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Clock;

    #[test]
    fn the_table_names_every_lap_in_order_and_the_total() {
        let mut clock = Clock::start();
        clock.lap("lint");
        clock.lap("tests");
        let table = clock.table();
        let lint = table.find("lint").expect("lint row");
        let tests = table.find("tests").expect("tests row");
        assert!(lint < tests, "{table}");
        assert!(table.ends_with("total"), "{table}");
        assert_eq!(table.lines().count(), 4, "{table}");
    }
}
