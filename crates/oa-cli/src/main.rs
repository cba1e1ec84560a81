//! The `oa` command: a thin entry point that parses flags and hands over to the library's subcommands.

use std::process::ExitCode;

fn main() -> ExitCode {
    oa_cli::run(std::env::args_os())
}
