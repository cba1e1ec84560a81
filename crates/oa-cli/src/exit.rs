//! The exit codes every `oa` subcommand shares.

use std::process::ExitCode;

/// How a subcommand ended, as the process exit code tools outside the repository rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: all is well (valid, enforced, every fixture passed).
    Ok,
    /// 1: a negative finding (invalid, not enforced, failed fixtures).
    Finding,
    /// 2: a usage or input error (bad flags, unreadable file, invalid schema).
    Usage,
    /// 3 (`oa probe --schema` only): every probed keyword was enforced, but the schema uses keywords no probe
    /// exists for, whose enforcement is unknown.
    Partial,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        match exit {
            Exit::Ok => ExitCode::SUCCESS,
            Exit::Finding => ExitCode::from(1),
            Exit::Usage => ExitCode::from(2),
            Exit::Partial => ExitCode::from(3),
        }
    }
}
