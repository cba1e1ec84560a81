//! `oa conformance`: runs fixture directories through oa-conformance and prints per-fixture lines and totals.

use crate::cli::ConformanceArgs;
use crate::exit::Exit;
use crate::progress::Progress;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs `oa conformance` and reports how it ended.
pub(crate) fn run(args: &ConformanceArgs) -> Exit {
    let dirs = if args.dirs.is_empty() {
        match default_dirs() {
            Some(dirs) => dirs,
            None => {
                eprintln!(
                    "oa conformance: no fixture directories given, and no oa workspace (crates/oa-conformance) \
                     above the current directory to find the default ones from"
                );
                return Exit::Usage;
            }
        }
    } else {
        args.dirs.clone()
    };
    let planned = match oa_conformance::plan(&dirs) {
        Ok(planned) => planned,
        Err(error) => {
            eprintln!("oa conformance: {error}");
            return Exit::Usage;
        }
    };
    let mut progress = Progress::new("cases run");
    let cases = planned
        .iter()
        .map(|case| {
            let report = case.run();
            progress.tick();
            report
        })
        .collect();
    progress.finish();
    let report = oa_conformance::Report { cases };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let lines: Vec<String> = if args.json {
        report
            .cases
            .iter()
            .map(|case| case.to_json().to_string())
            .collect()
    } else {
        let mut lines = report.fixture_lines();
        lines.push(report.totals_line());
        lines
    };
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            break; // The reader went away.
        }
    }
    if args.json {
        eprintln!("{}", report.totals_line());
    }
    if report.is_success() {
        Exit::Ok
    } else {
        Exit::Finding
    }
}

/// The default directories, found from the nearest oa workspace at or above the current directory.
fn default_dirs() -> Option<Vec<PathBuf>> {
    let cwd = std::env::current_dir().ok()?;
    let root = cwd.ancestors().find(|dir| is_workspace_root(dir))?;
    Some(oa_conformance::default_dirs(root))
}

fn is_workspace_root(dir: &Path) -> bool {
    dir.join("crates").join("oa-conformance").is_dir()
}
