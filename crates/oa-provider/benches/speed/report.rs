//! The report: the paired pass's ratios, criterion's medians of this run (read from its `new/estimates.json` files)
//! and the usage pass, as Markdown tables of ratios to the floor, the acceptance checks of issue 24, and the SSE
//! throughput in MB/s.
//!
//! The time checks read the paired ratios (medians of interleaved rounds' ratios, see `paired.rs`): oa ÷ floor,
//! oa+observers ÷ floor, and oa ÷ each peer taken round by round. A row without a paired result falls back to
//! criterion's ratio of medians and says so.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::clients::Client;
use crate::paired::{Rounds, Spread};
use crate::sse::SseResults;
use crate::usage::Usage;
use crate::workloads::Workload;
use crate::{CONCURRENCIES, PairedRows};

/// Issue 24's limits on oa (no observer) ÷ floor: plain and structured, and the stream; both observers attached.
const LIMIT_OA: f64 = 1.10;
/// See [`LIMIT_OA`].
const LIMIT_OA_STREAM: f64 = 1.25;
/// See [`LIMIT_OA`].
const LIMIT_OBSERVED: f64 = 1.25;

/// Where criterion writes: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else the workspace's
/// `target/criterion` (criterion's own order of preference).
pub(crate) fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion")
}

/// Criterion's median of one benchmark in nanoseconds, if this run wrote it (a filtered run leaves older files).
pub(crate) fn median(dir: &Path, group: &str, function: &str, started: SystemTime) -> Option<f64> {
    let path = dir.join(group).join(function).join("new").join("estimates.json");
    let modified = std::fs::metadata(&path).and_then(|meta| meta.modified()).ok()?;
    if modified < started {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// `value ÷ floor`; none when either is missing or the floor is zero (a peak heap below the batch's start).
fn ratio(value: Option<f64>, floor: Option<f64>) -> Option<f64> {
    Some(value? / floor?).filter(|ratio| ratio.is_finite())
}

fn cell(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |value| format!("{value:.2}"))
}

/// A paired ratio with its interquartile range.
fn spread_cell(spread: Spread) -> String {
    format!("{:.2} ({:.2}–{:.2})", spread.median, spread.q1, spread.q3)
}

/// The column of `client` in the paired rounds (they hold every client of [`Client::ALL`], in order).
fn column(client: Client) -> Option<usize> {
    Client::ALL.iter().position(|each| *each == client)
}

/// Paired `a ÷ b` of one row, if the row was paired.
fn paired_ratio(rounds: Option<&Rounds>, a: Client, b: Client) -> Option<Spread> {
    Some(rounds?.ratio(column(a)?, column(b)?))
}

pub(crate) fn render(
    dir: &Path,
    started: SystemTime,
    paired: &PairedRows,
    usage: &Usage,
    sse: &SseResults,
) -> String {
    let mut out = String::new();
    let header = Client::ALL
        .iter()
        .map(|client| client.name())
        .collect::<Vec<_>>()
        .join(" | ");
    let rule = "|---".repeat(Client::ALL.len() + 3);
    let mut checks: Vec<(String, bool)> = Vec::new();

    let _ = writeln!(
        out,
        "### Time per call, ratio to the floor: paired (the ratio of record)\n\n\
         Median of the round ratios, interquartile range in brackets; rounds interleave every client on the same \
         calls (see `paired.rs`). The acceptance checks below read these.\n"
    );
    let _ = writeln!(
        out,
        "| workload | c | rounds | floor µs | {header} |\n{}|",
        "|---".repeat(Client::ALL.len() + 4)
    );
    for workload in Workload::ALL {
        for concurrency in CONCURRENCIES {
            let Some(rounds) = paired.get(&(workload, concurrency)) else {
                continue;
            };
            let cells: Vec<String> = Client::ALL
                .iter()
                .map(|client| {
                    paired_ratio(Some(rounds), *client, Client::Floor)
                        .map_or_else(|| "—".to_owned(), spread_cell)
                })
                .collect();
            let _ = writeln!(
                out,
                "| {} | {concurrency} | {} | {:.1} | {} |",
                workload.name(),
                rounds.ratio(0, 0).rounds,
                rounds.median_ns(0) / 1_000.0 / concurrency as f64,
                cells.join(" | ")
            );
        }
    }

    let _ = writeln!(
        out,
        "\n### Time per call, ratio to the floor: criterion (clients timed one after another; floor in µs)\n"
    );
    let _ = writeln!(out, "| workload | c | floor µs | {header} |\n{rule}|");
    for workload in Workload::ALL {
        for concurrency in CONCURRENCIES {
            let group = format!("{}-c{concurrency}", workload.name());
            let medians: Vec<Option<f64>> = Client::ALL
                .iter()
                .map(|client| median(dir, &group, client.name(), started))
                .collect();
            let floor = medians[0];
            let ratios: Vec<Option<f64>> = medians.iter().map(|value| ratio(*value, floor)).collect();
            let cells: Vec<String> = ratios.iter().map(|value| cell(*value)).collect();
            let _ = writeln!(
                out,
                "| {} | {concurrency} | {} | {} |",
                workload.name(),
                floor.map_or_else(|| "—".to_owned(), |floor| format!("{:.1}", floor / 1_000.0)),
                cells.join(" | ")
            );
            let rounds = paired.get(&(workload, concurrency));
            // The ratio a check reads: paired when the row was paired, else criterion's (said in the check).
            let of_record = |a: Client, b: Client| -> Option<(f64, &str)> {
                match paired_ratio(rounds, a, b) {
                    Some(spread) => Some((spread.median, "")),
                    None => {
                        ratio(ratios[column(a)?], ratios[column(b)?]).map(|value| (value, " (criterion)"))
                    }
                }
            };
            let limit = if workload == Workload::Stream {
                LIMIT_OA_STREAM
            } else {
                LIMIT_OA
            };
            if let Some((oa, how)) = of_record(Client::Oa, Client::Floor) {
                checks.push((
                    format!("{group}: oa {oa:.2} ≤ {limit:.2} × floor{how}"),
                    oa <= limit,
                ));
            }
            for peer in [Client::AsyncOpenAi, Client::Rig] {
                if let Some((oa_to_peer, how)) = of_record(Client::Oa, peer) {
                    checks.push((
                        format!("{group}: oa ÷ {} {oa_to_peer:.2} ≤ 1{how}", peer.name()),
                        oa_to_peer <= 1.0,
                    ));
                }
            }
            if let Some((observed, how)) = of_record(Client::OaObserved, Client::Floor) {
                checks.push((
                    format!("{group}: oa+observers {observed:.2} ≤ {LIMIT_OBSERVED:.2} × floor{how}"),
                    observed <= LIMIT_OBSERVED,
                ));
            }
        }
    }

    for (title, index, unit, scale) in [
        ("CPU time per call", 0, "floor µs", 1_000.0),
        ("Peak heap per in-flight call", 1, "floor KiB", 1_024.0),
    ] {
        let _ = writeln!(out, "\n### {title}, ratio to the floor\n");
        let _ = writeln!(out, "| workload | c | {unit} | {header} |\n{rule}|");
        for workload in Workload::ALL {
            for concurrency in CONCURRENCIES {
                let value = |client: Client| {
                    usage
                        .get(&(workload, concurrency, client))
                        .map(|pair| if index == 0 { pair.0 } else { pair.1 })
                };
                let floor = value(Client::Floor);
                let cells: Vec<String> = Client::ALL
                    .iter()
                    .map(|client| cell(ratio(value(*client), floor)))
                    .collect();
                let _ = writeln!(
                    out,
                    "| {} | {concurrency} | {} | {} |",
                    workload.name(),
                    floor.map_or_else(|| "—".to_owned(), |floor| format!("{:.1}", floor / scale)),
                    cells.join(" | ")
                );
            }
        }
    }

    let _ = writeln!(out, "\n### SSE decoding throughput (MB/s, criterion medians)\n");
    let _ = writeln!(
        out,
        "| stream | bytes | oa | eventsource-stream | oa ÷ eventsource-stream |\n|---|---|---|---|---|"
    );
    for (name, n_bytes) in &sse.streams {
        let group = format!("sse-{name}");
        let mb_s =
            |function: &str| median(dir, &group, function, started).map(|ns| *n_bytes as f64 / ns * 1_000.0);
        let (oa, eventsource) = (mb_s("oa"), mb_s("eventsource-stream"));
        let speedup = ratio(oa, eventsource);
        let _ = writeln!(
            out,
            "| {name} | {n_bytes} | {} | {} | {} |",
            cell(oa),
            cell(eventsource),
            cell(speedup)
        );
        if let Some(speedup) = speedup {
            checks.push((
                format!("sse {name}: oa {speedup:.2} × eventsource-stream ≥ 1"),
                speedup >= 1.0,
            ));
        }
    }
    let _ = writeln!(
        out,
        "\nA 32 MiB line that never ends, in 64 KiB chunks: oa peak heap {} KiB ({}); eventsource-stream peak heap \
         {} KiB ({}).",
        sse.oa_unending.0 / 1024,
        sse.oa_unending.1,
        sse.eventsource_unending.0 / 1024,
        sse.eventsource_unending.1
    );
    checks.push((
        "sse unending line: oa stops at its cap with a bounded heap".to_owned(),
        sse.oa_unending.1.starts_with("stopped") && sse.oa_unending.0 < 4 * 1024 * 1024,
    ));

    let n_failed = checks.iter().filter(|(_, ok)| !ok).count();
    let _ = writeln!(
        out,
        "\n### Acceptance (issue 24): {} of {} hold\n\nTime checks on the paired ratios (criterion's where a row has none, \
         marked \"(criterion)\").\n",
        checks.len() - n_failed,
        checks.len()
    );
    for (check, ok) in &checks {
        let _ = writeln!(out, "- {} {check}", if *ok { "holds:" } else { "FAILS:" });
    }
    out
}
