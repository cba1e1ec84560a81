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
    /// Validate a JSON instance (or a JSONL batch) against a JSON Schema (drafts 4, 6, 7, 2019-09, 2020-12).
    ///
    /// The draft is the one the schema's `$schema` names (2020-12, or --draft, when it names none). Schemas it
    /// refers to are found among --resource files and --resource-dir folders; nothing is fetched over the network.
    /// Exit 0 when valid, 1 when invalid (including an instance that is not well-formed JSON), 2 when the schema
    /// is invalid or a file cannot be read.
    Validate(ValidateArgs),
    /// Run OpenArmature conformance fixtures against the oa stack.
    ///
    /// Prints a line per fixture and the totals as `N passed, M failed, K skipped`; exit 1 when any case failed.
    Conformance(ConformanceArgs),
    /// Check whether an endpoint enforces a strict JSON Schema: the canary probe, or one probe per keyword.
    ///
    /// Sends a question whose true answer the schema forbids, so only a schema-bound decoder answers validly.
    /// Exit 0 enforced, 1 not enforced, 2 error.
    Probe(ProbeArgs),
    /// Send one message through the real provider; with --schema, ask for structured output.
    ///
    /// Prints the content or parsed value, finish_reason, usage, structured_output_path, schema_mode, attempts and
    /// diagnostics (as warnings); with --json exactly one JSON object. Exit 0 when ok, 1 when the call failed, 2 for
    /// usage errors.
    Complete(CompleteArgs),
    /// Show what oa does on an embedded example: no API key, no network.
    ///
    /// A mock model on 127.0.0.1 answers one structured call: every violation reported, one reask, the recovered
    /// value with schema_mode and schema_version, the typed events, and a gateway that drops the schema.
    Demo(DemoArgs),
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
    /// The draft of a schema (or resource) that declares no `$schema`; a declared `$schema` always wins.
    #[arg(long, value_name = "4|6|7|2019-09|2020-12", default_value = "2020-12")]
    pub(crate) draft: oa_schema::Draft,
    /// Schemas the schema refers to, each registered under its `$id` (draft 4: `id`), or its file URI when it has
    /// none. Repeat the flag or list several files after it.
    #[arg(long, value_name = "FILE", num_args = 1.., action = clap::ArgAction::Append)]
    pub(crate) resource: Vec<PathBuf>,
    /// A folder of schemas registered as --resource files: every `.json` file in it and its subfolders.
    #[arg(long, value_name = "DIR", action = clap::ArgAction::Append)]
    pub(crate) resource_dir: Vec<PathBuf>,
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
    /// The JSON Schema 2020-12 "basic" output format: a flat list of output units.
    Basic,
    /// The JSON Schema 2020-12 "flag" output format: {"valid": bool}.
    Flag,
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

/// Flags of `oa probe`.
#[derive(Debug, Args)]
pub(crate) struct ProbeArgs {
    #[command(flatten)]
    pub(crate) endpoint: EndpointArgs,
    /// Probe each keyword this schema uses (enum, const, maxLength, ...) and print the enforcement matrix.
    #[arg(long)]
    pub(crate) schema: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The endpoint flags `oa probe` and `oa complete` share: where to send, as which model, in which wire format.
#[derive(Debug, Args)]
pub(crate) struct EndpointArgs {
    /// The endpoint's base URL including its version path, exactly as production traffic uses it (gateway
    /// included), e.g. http://127.0.0.1:8080/v1.
    #[arg(long)]
    pub(crate) base_url: String,
    /// The model name sent on the wire.
    #[arg(long)]
    pub(crate) model: String,
    /// The provider wire mapping.
    #[arg(long, value_enum, default_value_t = Mapping::Openai)]
    pub(crate) mapping: Mapping,
    /// The environment variable holding the API key (default: send none, so no key reaches an endpoint by
    /// accident).
    #[arg(long, value_name = "VAR")]
    pub(crate) api_key_env: Option<String>,
}

/// A provider wire mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mapping {
    /// OpenAI-compatible Chat Completions (llm-provider §8.1).
    Openai,
}

/// Flags of `oa complete`.
#[derive(Debug, Args)]
pub(crate) struct CompleteArgs {
    #[command(flatten)]
    pub(crate) endpoint: EndpointArgs,
    /// Ask for structured output against this JSON Schema file (draft 2020-12, an object at the top).
    #[arg(long, value_name = "FILE")]
    pub(crate) schema: Option<PathBuf>,
    /// A system message sent before the user message.
    #[arg(long, value_name = "TEXT")]
    pub(crate) system: Option<String>,
    /// Stream tokens to the terminal as they arrive.
    #[arg(long)]
    pub(crate) stream: bool,
    /// Total attempts including the first (call-level retry).
    #[arg(long, value_name = "N")]
    pub(crate) max_attempts: Option<u32>,
    /// On a structured-output failure, send the model its output and every violation and ask again.
    #[arg(long)]
    pub(crate) reask: bool,
    /// Declare the endpoint without native structured output: the prompt-augmentation path is taken.
    #[arg(long)]
    pub(crate) no_native: bool,
    /// A stop sequence (repeatable).
    #[arg(long, value_name = "SEQ")]
    pub(crate) stop: Vec<String>,
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// The user message.
    pub(crate) message: String,
}

/// Flags of `oa demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Send the demo to a real OpenAI-compatible server instead of the in-process mock (no key is sent).
    #[arg(long)]
    pub(crate) base_url: Option<String>,
    /// The model name to send with --base-url.
    #[arg(long, default_value = "default", requires = "base_url")]
    pub(crate) model: String,
}
