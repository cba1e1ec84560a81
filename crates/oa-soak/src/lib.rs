//! oa-soak: the chaos soak and load driver behind `cargo xtask soak`. It makes N structured calls, C at a time,
//! through the real provider stack (an `OpenAiProvider` inside an `ObservedProvider`, whose event bus carries the
//! OpenTelemetry observer of `Telemetry::in_memory()`) against oa-testkit's seeded chaos server on 127.0.0.1, and
//! judges every call against what the server chose for each of its attempts: the value, or a typed error of the
//! expected category with the expected failure class, status, Retry-After, timeout flag and transport cause, after
//! the expected number of requests. It reads resident memory at the start, after a checkpoint and at the end.
//!
//! ```
//! use std::time::Duration;
//!
//! let settings = oa_soak::Settings {
//!     calls: 50,
//!     concurrency: 8,
//!     seed: 1,
//!     idle_timeout: Duration::from_secs(1),
//!     hold: Duration::ZERO,
//!     checkpoint: 1000,
//! };
//! let runtime = tokio::runtime::Runtime::new().expect("a runtime");
//! let report = runtime.block_on(oa_soak::run(&settings)).expect("the server and provider start");
//! assert_eq!((report.calls, report.lost, report.mismatches), (50, 0, 0));
//! assert_eq!(report.ok + report.failed, 50);
//! ```

pub mod expect;
pub mod report;
mod rss;
mod run;
mod tally;

pub use rss::{mib, rss_kib};
pub use run::{MAX_ATTEMPTS, Report, Settings, run};
pub use tally::Counts;
