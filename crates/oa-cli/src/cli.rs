//! The command line as clap sees it: subcommands, flags and their help text.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Structured output you can trust: JSON Schema validation that names every violation.
#[derive(Debug, Parser)]
#[command(
    name = "oa",
    version,
    about,
    after_help = "Exit codes: 0 ok, 1 a negative finding (invalid, not enforced, failed fixtures), 2 usage or input error."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Validate a JSON instance (or a JSONL batch) against a JSON Schema (draft 2020-12).
    ///
    /// Exit 0 when valid, 1 when invalid (including an instance that is not well-formed JSON), 2 when the schema
    /// is invalid or a file cannot be read.
    Validate(ValidateArgs),
    /// Run OpenArmature conformance fixtures against the oa stack.
    ///
    /// Prints a line per fixture and the totals as `N passed, M failed, K skipped`; exit 1 when any case failed.
    Conformance(ConformanceArgs),
    /// Show what oa does on an embedded example: no API key, no network.
    Demo,
}

/// Flags of `oa validate`.
#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The schema file (JSON).
    pub(crate) schema: PathBuf,
    /// The instance file (JSON). Required unless --batch is given.
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    pub(crate) instance: Option<PathBuf>,
    /// Validate one JSON instance per line of this JSONL file; prints one result per line, in input order.
    #[arg(long, value_name = "INSTANCES.jsonl")]
    pub(crate) batch: Option<PathBuf>,
    /// Treat `format` as an assertion (it is an annotation by default, as draft 2020-12 says).
    #[arg(long)]
    pub(crate) format_assertion: bool,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    pub(crate) output: Output,
}

/// Output styles of `oa validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Output {
    /// The error_message: one line per violation, with its location and the constraint that failed.
    Text,
    /// One JSON object: {"valid": bool, "violations": [...]}; with --batch, one per line.
    Json,
}

/// Flags of `oa conformance`.
#[derive(Debug, Args)]
pub(crate) struct ConformanceArgs {
    /// Fixture directories (a `conformance/` directory, a capability directory or a spec's `spec/`). Default: the
    /// llm-provider and observability fixtures in ../shared and the project's own, found from the current directory.
    pub(crate) dirs: Vec<PathBuf>,
    /// Print one JSON object per case instead of the per-fixture lines.
    #[arg(long)]
    pub(crate) json: bool,
}
