//! oa-soak: the chaos soak and load driver behind `cargo xtask soak`. It makes N structured calls, C at a time,
//! through the real provider stack (an `OpenAiProvider` inside an `ObservedProvider`, whose event bus carries the
//! OpenTelemetry observer of `Telemetry::in_memory()`) against oa-testkit's seeded chaos server on 127.0.0.1, and
//! judges every call against what the server chose for each of its attempts: the value, or a typed error of the
//! expected category with the expected failure class, status, Retry-After, timeout flag and transport cause, after
//! the expected number of requests. It reads resident memory at the start, after a checkpoint and at the end.
//!
//! ```no_run
//! use std::time::Duration;
//!
//! # async fn run() -> Result<(), String> {
//! let settings = oa_soak::Settings {
//!     calls: 500,
//!     concurrency: 32,
//!     seed: 1,
//!     idle_timeout: Duration::from_secs(1),
//!     hold: Duration::ZERO,
//!     checkpoint: 1000,
//! };
//! let report = oa_soak::run(&settings).await?;
//! assert_eq!((report.lost, report.mismatches), (0, 0));
//! # Ok(())
//! # }
//! ```

pub mod expect;
pub mod report;
mod rss;
mod run;
mod tally;

pub use rss::{mib, rss_kib};
pub use run::{MAX_ATTEMPTS, Report, Settings, run};
pub use tally::Counts;
