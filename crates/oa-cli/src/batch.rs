//! `oa validate --batch`: one JSON instance per line, every line judged on its own (a line that cannot be read —
//! invalid UTF-8, a byte-order mark, a blank line — is that line's own input error, in its own numbering, and the
//! run goes on), spread over `--jobs` threads sharing one compiled validator, printed in input order, and closed by
//! a summary line on stderr. When the reader of the results goes away, reading stops there and the summary is of
//! the lines judged, marked partial.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::{Mutex, mpsc};

use crate::cli::Output;
use crate::progress::Progress;
use crate::validate::{Checker, Outcome};

/// Lines per unit of work handed to a thread: large enough that the hand-over costs little beside judging, small
/// enough that every thread gets work and the lines in flight stay few.
const CHUNK_LINES: usize = 256;

/// Chunks in flight per thread: each thread has the next chunk waiting while it judges one, and memory stays
/// bounded whatever the file's length (jobs x 2 x 256 lines).
const CHUNKS_PER_JOB: usize = 2;

/// Numbered lines, as read (without their line ends).
type Lines = Vec<(usize, Vec<u8>)>;

/// A chunk of numbered lines, with its place in the input.
type Chunk = (usize, Lines);

/// A judged chunk: its place in the input, and each line's printed result.
type Judged = (usize, Vec<Printed>);

/// One line's result, judged and rendered by the thread that judged it (so the writing thread only writes).
struct Printed {
    /// Which count of the summary it adds to.
    kind: Kind,
    text: String,
}

/// The summary's counts.
#[derive(Clone, Copy)]
enum Kind {
    Valid,
    Invalid,
    Unreadable,
    /// The line reaches a reference that resolves to no schema, or nests deeper than the reader's limit.
    NoVerdict,
}

/// Judges and renders line `number`; a panic in the validator (a bug) costs that line, never the run.
fn print(checker: &Checker, output: Output, number: usize, bytes: &[u8]) -> Printed {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| judge(checker, bytes)))
        .unwrap_or(LineResult::Unreadable("the validator failed on this line"));
    let kind = match &result {
        LineResult::Judged(outcome) if outcome.is_valid() => Kind::Valid,
        LineResult::Judged(Outcome::NoVerdict(..) | Outcome::TooDeep(_)) => Kind::NoVerdict,
        LineResult::Judged(_) => Kind::Invalid,
        LineResult::Unreadable(_) => Kind::Unreadable,
    };
    Printed {
        kind,
        text: render(checker, number, &result, output),
    }
}

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
    /// Lines without a verdict: they reach a reference that resolves to no schema, or nest deeper than the
    /// reader's limit.
    pub(crate) n_no_verdict: usize,
    /// The output closed before the input ended: the counts are of the lines judged until then.
    pub(crate) partial: bool,
}

impl Totals {
    /// `N valid, M invalid, K unreadable`, then `, J without a verdict` when there are such lines; after `partial: `
    /// when the run stopped early.
    pub(crate) fn summary(&self) -> String {
        let mut summary = format!(
            "{}{} valid, {} invalid, {} unreadable",
            if self.partial { "partial: " } else { "" },
            self.n_valid,
            self.n_invalid,
            self.n_unreadable
        );
        if self.n_no_verdict > 0 {
            summary.push_str(&format!(", {} without a verdict", self.n_no_verdict));
        }
        summary
    }

    /// How many lines were judged.
    pub(crate) fn n_lines(&self) -> usize {
        self.n_valid + self.n_invalid + self.n_unreadable + self.n_no_verdict
    }
}

/// Judges every line of `input` and prints one result per line to `out`, in input order. Returns the totals, or
/// `Err` when reading the input itself failed (the lines before it were judged and printed).
///
/// With more than one job, persistent threads take chunks of lines from a queue and hand back their results; this
/// thread reads ahead (a bounded number of chunks), and writes results as soon as the next one in input order is
/// back. No thread waits for the slowest of a group, which on a busy machine would serialise the run.
pub(crate) fn run(
    checker: &Checker,
    input: &mut dyn BufRead,
    output: Output,
    jobs: usize,
    out: &mut dyn Write,
) -> Result<Totals, std::io::Error> {
    let mut writer = Writer {
        output,
        out,
        totals: Totals::default(),
        progress: Progress::new("validated"),
        closed: false,
    };
    let mut reader = Reader {
        input,
        line_number: 0,
        at_end: false,
    };
    let read = if jobs <= 1 {
        let mut read = Ok(());
        while !writer.closed {
            match reader.chunk() {
                Ok(Some(lines)) => {
                    let judged = lines
                        .into_iter()
                        .map(|(n, bytes)| print(checker, writer.output, n, &bytes))
                        .collect();
                    writer.write(judged);
                }
                Ok(None) => break,
                Err(e) => {
                    read = Err(e);
                    break;
                }
            }
        }
        read
    } else {
        in_parallel(checker, &mut reader, &mut writer, jobs)
    };
    writer.progress.finish();
    // Input left after the lines read: the end may be there unseen (the last chunk was full).
    let input_left = !reader.at_end && reader.input.fill_buf().is_ok_and(|rest| !rest.is_empty());
    writer.totals.partial = is_partial(
        writer.closed,
        reader.line_number,
        writer.totals.n_lines(),
        input_left,
    );
    read.map(|()| writer.totals)
}

/// Whether a run's counts leave lines out: its output closed with lines read but not judged, or input not read.
/// (When the very last line's write is the one that failed, every line was judged: not partial.)
fn is_partial(closed: bool, n_read: usize, n_judged: usize, input_left: bool) -> bool {
    closed && (input_left || n_judged < n_read)
}

/// The multi-threaded run: `jobs` threads judging chunks, this thread reading ahead and writing in order.
fn in_parallel(
    checker: &Checker,
    reader: &mut Reader<'_>,
    writer: &mut Writer<'_>,
    jobs: usize,
) -> Result<(), std::io::Error> {
    let (work_tx, work_rx) = mpsc::channel::<Chunk>();
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Judged>();
    let output = writer.output;
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                loop {
                    // The lock is held only to take the next chunk.
                    let next = match work_rx.lock() {
                        Ok(queue) => queue.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, lines)) = next else { return };
                    let judged = lines
                        .into_iter()
                        .map(|(n, bytes)| print(checker, output, n, &bytes))
                        .collect();
                    if done_tx.send((seq, judged)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let mut sent = 0_usize;
        let mut written = 0_usize;
        let mut waiting: BTreeMap<usize, Vec<Printed>> = BTreeMap::new();
        let mut read = Ok(());
        let mut input_done = false;
        loop {
            // Read ahead while few chunks are in flight.
            while !input_done && !writer.closed && sent - written < jobs * CHUNKS_PER_JOB {
                match reader.chunk() {
                    Ok(Some(lines)) => {
                        if work_tx.send((sent, lines)).is_err() {
                            input_done = true;
                        }
                        sent += 1;
                    }
                    Ok(None) => input_done = true,
                    Err(e) => {
                        read = Err(e);
                        input_done = true;
                    }
                }
            }
            if written == sent || writer.closed {
                break;
            }
            let Ok((seq, judged)) = done_rx.recv() else { break };
            waiting.insert(seq, judged);
            while let Some(judged) = waiting.remove(&written) {
                writer.write(judged);
                written += 1;
            }
        }
        // Closing the queue ends every thread; the scope waits for them.
        drop(work_tx);
        read
    })
}

/// Reads numbered lines, a chunk at a time.
struct Reader<'a> {
    input: &'a mut dyn BufRead,
    line_number: usize,
    /// The input's end was reached.
    at_end: bool,
}

impl Reader<'_> {
    /// The next chunk of up to [`CHUNK_LINES`] lines (without their line ends), or `None` at the end.
    fn chunk(&mut self) -> Result<Option<Lines>, std::io::Error> {
        let mut lines = Vec::with_capacity(CHUNK_LINES);
        while lines.len() < CHUNK_LINES {
            let mut bytes = Vec::new();
            if self.input.read_until(b'\n', &mut bytes)? == 0 {
                self.at_end = true;
                break;
            }
            self.line_number += 1;
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
            }
            lines.push((self.line_number, bytes));
        }
        Ok((!lines.is_empty()).then_some(lines))
    }
}

/// Prints judged lines in order and counts them.
struct Writer<'a> {
    output: Output,
    out: &'a mut dyn Write,
    totals: Totals,
    progress: Progress,
    /// The reader went away (a closed pipe): nothing more is read, judged or written.
    closed: bool,
}

impl Writer<'_> {
    fn write(&mut self, printed: Vec<Printed>) {
        for line in printed {
            if self.closed {
                return;
            }
            match line.kind {
                Kind::Valid => self.totals.n_valid += 1,
                Kind::Invalid => self.totals.n_invalid += 1,
                Kind::Unreadable => self.totals.n_unreadable += 1,
                Kind::NoVerdict => self.totals.n_no_verdict += 1,
            }
            if let Err(error) = writeln!(self.out, "{}", line.text).and_then(|()| self.out.flush()) {
                if error.kind() != std::io::ErrorKind::BrokenPipe {
                    eprintln!("oa validate: cannot write to standard output: {error}");
                    std::process::exit(2);
                }
                self.closed = true;
                return;
            }
            self.progress.tick();
        }
    }
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
            let status = match outcome {
                Outcome::Valid(_) => "valid",
                Outcome::NoVerdict(..) | Outcome::TooDeep(_) => "no verdict",
                _ => "invalid",
            };
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
            let mut value = outcome.to_output_value(&checker.validator, &checker.locations, output);
            value["line"] = serde_json::json!(number);
            value.to_string()
        }
        (LineResult::Unreadable(why), Output::Text) => format!("line {number}: unreadable\n  {why}"),
        (LineResult::Unreadable(why), _) => {
            serde_json::json!({"line": number, "valid": false, "unreadable": true, "error": why}).to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNK_LINES, Totals, is_partial, run};
    use crate::cli::Output;
    use crate::validate::Checker;

    /// An output whose reader goes away after `lines` lines: every later write is a broken pipe.
    struct ClosesAfter {
        lines: usize,
    }

    impl std::io::Write for ClosesAfter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.lines == 0 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            self.lines -= buf.iter().filter(|&&byte| byte == b'\n').count().min(self.lines);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Found by `cargo xtask mutants-diff`: the output closing at the very last line of a full chunk leaves
    /// nothing unjudged when the input ends there (not partial), and leaves the rest unread when it does not.
    #[test]
    fn a_run_is_partial_only_when_input_is_left() {
        let checker = Checker {
            validator: oa_schema::Validator::new(&serde_json::json!({"type": "object"})).unwrap(),
            report: oa_schema::ReportOptions::new(),
            reached: crate::schema_source::Reached::default(),
            locations: crate::schema_source::LocationView::default(),
            streams: true,
            max_violations: None,
        };
        for jobs in [1, 2] {
            for (n_lines, partial) in [(CHUNK_LINES, false), (CHUNK_LINES + 1, true)] {
                let input = "{}\n".repeat(n_lines);
                // Every line of the first chunk is written but the last, whose write fails.
                let mut out = ClosesAfter {
                    lines: CHUNK_LINES - 1,
                };
                let totals = run(&checker, &mut input.as_bytes(), Output::Json, jobs, &mut out).unwrap();
                assert_eq!(totals.n_lines(), CHUNK_LINES, "jobs {jobs}, {n_lines} lines");
                assert_eq!(totals.partial, partial, "jobs {jobs}, {n_lines} lines");
            }
        }
    }

    /// Found by `cargo xtask mutants-diff`: the count in "stopped after N lines" is every line judged, unreadable
    /// ones included, and the summary says partial only when it is.
    #[test]
    fn the_counts_and_the_partial_mark_are_exact() {
        let totals = Totals {
            n_valid: 2,
            n_invalid: 1,
            n_unreadable: 3,
            n_no_verdict: 4,
            partial: true,
        };
        assert_eq!(totals.n_lines(), 10);
        assert_eq!(
            totals.summary(),
            "partial: 2 valid, 1 invalid, 3 unreadable, 4 without a verdict"
        );
        let totals = Totals {
            n_no_verdict: 0,
            ..totals
        };
        assert_eq!(
            Totals {
                partial: false,
                ..totals
            }
            .summary(),
            "2 valid, 1 invalid, 3 unreadable"
        );
        // (closed, read, judged, input left) -> partial
        for (closed, n_read, n_judged, input_left, partial) in [
            (false, 10, 10, false, false),
            (false, 10, 3, true, false),
            (true, 10, 10, false, false),
            (true, 10, 3, false, true),
            (true, 10, 10, true, true),
            (true, 10, 3, true, true),
        ] {
            assert_eq!(
                is_partial(closed, n_read, n_judged, input_left),
                partial,
                "{closed} {n_read} {n_judged} {input_left}"
            );
        }
    }
}
