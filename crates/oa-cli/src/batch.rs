//! `oa validate --batch`: one JSON instance per line, every line judged on its own (a line that cannot be read —
//! invalid UTF-8, a byte-order mark, a blank line — is that line's own input error, in its own numbering, and the
//! run goes on), spread over `--jobs` threads sharing one compiled validator, printed in input order, and closed by
//! a summary line on stderr.

use std::io::{BufRead, Write};

use crate::cli::Output;
use crate::progress::Progress;
use crate::validate::{Checker, Outcome};

/// How many lines are read, judged in parallel and printed at a time: enough to keep every thread busy, small
/// enough that memory stays bounded whatever the file's length.
const WINDOW_LINES: usize = 4096;

/// What happened to one line.
enum LineResult {
    /// The line was read and judged.
    Judged(Outcome),
    /// The line could not be read as a JSON document's text.
    Unreadable(&'static str),
}

/// The counts the summary line reports.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    pub(crate) n_valid: usize,
    pub(crate) n_invalid: usize,
    pub(crate) n_unreadable: usize,
}

impl Totals {
    /// `N valid, M invalid, K unreadable`.
    pub(crate) fn summary(&self) -> String {
        format!(
            "{} valid, {} invalid, {} unreadable",
            self.n_valid, self.n_invalid, self.n_unreadable
        )
    }
}

/// Judges every line of `input` and prints one result per line to `out`, in input order. Returns the totals, or
/// `Err` when reading the input itself failed (the lines before it were judged and printed).
pub(crate) fn run(
    checker: &Checker,
    input: &mut dyn BufRead,
    output: Output,
    jobs: usize,
    out: &mut dyn Write,
) -> Result<Totals, std::io::Error> {
    let mut totals = Totals::default();
    let mut progress = Progress::new("validated");
    let mut line_number = 0_usize;
    loop {
        let mut window: Vec<(usize, Vec<u8>)> = Vec::with_capacity(WINDOW_LINES);
        while window.len() < WINDOW_LINES {
            let mut bytes = Vec::new();
            if input.read_until(b'\n', &mut bytes)? == 0 {
                break;
            }
            line_number += 1;
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
            }
            window.push((line_number, bytes));
        }
        if window.is_empty() {
            break;
        }
        let results = judge_window(checker, &window, jobs);
        for ((number, _), result) in window.iter().zip(&results) {
            match result {
                LineResult::Judged(outcome) if outcome.is_valid() => totals.n_valid += 1,
                LineResult::Judged(_) => totals.n_invalid += 1,
                LineResult::Unreadable(_) => totals.n_unreadable += 1,
            }
            if writeln!(out, "{}", render(checker, *number, result, output)).is_err() {
                // The reader went away (a closed pipe): stop quietly, as Unix tools do.
                progress.finish();
                return Ok(totals);
            }
            progress.tick();
        }
    }
    progress.finish();
    Ok(totals)
}

/// Judges a window of lines over up to `jobs` scoped threads, each taking a contiguous share.
fn judge_window(checker: &Checker, window: &[(usize, Vec<u8>)], jobs: usize) -> Vec<LineResult> {
    let jobs = jobs.clamp(1, window.len().max(1));
    if jobs == 1 {
        return window.iter().map(|(_, bytes)| judge(checker, bytes)).collect();
    }
    let share = window.len().div_ceil(jobs);
    std::thread::scope(|scope| {
        let handles: Vec<_> = window
            .chunks(share)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(_, bytes)| judge(checker, bytes))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| vec![LineResult::Unreadable("the validator failed on this line")])
            })
            .collect()
    })
}

fn judge(checker: &Checker, bytes: &[u8]) -> LineResult {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return LineResult::Unreadable("the line starts with a byte-order mark");
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return LineResult::Unreadable("the line is not valid UTF-8");
    };
    if text.trim().is_empty() {
        return LineResult::Unreadable("the line is blank");
    }
    LineResult::Judged(Outcome::of(checker, text))
}

fn render(checker: &Checker, number: usize, result: &LineResult, output: Output) -> String {
    match (result, output) {
        (LineResult::Judged(outcome), Output::Text) => {
            let status = if outcome.is_valid() { "valid" } else { "invalid" };
            let mut text = format!("line {number}: {status}");
            if !outcome.is_valid() {
                for detail in outcome.to_text().lines() {
                    text.push_str("\n  ");
                    text.push_str(detail);
                }
            }
            text
        }
        (LineResult::Judged(outcome), _) => {
            let mut value = outcome.to_output_value(&checker.validator, output);
            value["line"] = serde_json::json!(number);
            value.to_string()
        }
        (LineResult::Unreadable(why), Output::Text) => format!("line {number}: unreadable\n  {why}"),
        (LineResult::Unreadable(why), _) => {
            serde_json::json!({"line": number, "valid": false, "unreadable": true, "error": why}).to_string()
        }
    }
}
