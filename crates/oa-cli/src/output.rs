//! Standard output that a closed pipe ends quietly: `oa validate s.json i.json | head -1` or `oa demo | head -1`
//! stop writing and exit 0, as Unix tools do, instead of panicking with "failed printing to stdout". Any other
//! write failure (a full disk behind a redirect) is reported on stderr and ends the run with exit 2.

use std::io::{ErrorKind, Write};

/// Writes one line to stdout (what `outln!` expands to).
pub(crate) fn line(args: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    if let Err(error) = written {
        if error.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("oa: cannot write to standard output: {error}");
        std::process::exit(2);
    }
}
