//! Standard output that a closed pipe cannot turn into a false verdict: when the reader goes away
//! (`oa validate s.json i.json | head -1`), writing stops and the subcommand goes on to exit with the verdict of what
//! it judged (invalid stays 1), so `set -o pipefail` users never read a closed pipe as "valid". No panic with
//! "failed printing to stdout" either. Any other write failure (a full disk behind a redirect) is reported on
//! stderr and ends the run with exit 2.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write met a closed pipe: later lines are not written (the one process-wide fact of the binary, which
/// the library crates never see).
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes one line to stdout (what `outln!` expands to); nothing once the reader has gone.
pub(crate) fn line(args: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    if let Err(error) = written {
        if error.kind() == ErrorKind::BrokenPipe {
            CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        eprintln!("oa: cannot write to standard output: {error}");
        std::process::exit(2);
    }
}
