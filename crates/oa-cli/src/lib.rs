#![doc = include_str!("../README.md")]

/// `println!` for results: a closed pipe ends the run quietly (see [`output`]).
macro_rules! outln {
    () => {
        $crate::output::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}

mod batch;
mod cli;
mod complete;
mod conformance;
mod demo;
mod endpoint;
mod exit;
mod hints;
mod output;
mod pairs;
mod probe;
mod progress;
mod schema_source;
mod tap;
mod validate;

pub use exit::Exit;

use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;

/// Parses `args` (program name first) and runs the chosen subcommand, returning the process exit code.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help and version to stdout with success, usage errors to stderr.
            let _ = error.print();
            return if error.use_stderr() {
                Exit::Usage.into()
            } else {
                Exit::Ok.into()
            };
        }
    };
    let exit = match cli.command {
        cli::Command::Validate(args) => validate::run(&args),
        cli::Command::Conformance(args) => conformance::run(&args),
        cli::Command::Probe(args) => probe::run(&args),
        cli::Command::Complete(args) => complete::run(&args),
        cli::Command::Demo(args) => demo::run(&args),
    };
    exit.into()
}
