//! The command line as clap sees it: subcommands, flags and their help text.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Structured output you can trust: validate JSON against a schema naming every violation, complete and probe LLM
/// calls with structured output, run the spec's conformance fixtures.
#[derive(Debug, Parser)]
#[command(
    name = "oa",
    version,
    about,
    after_help = "Exit codes: 0 ok, 1 a negative finding (invalid, not enforced, failed fixtures, a failed call), 2 usage \
or input error.\n\nExamples:\n  oa demo\n  oa validate schema.json answer.json\n  \
oa complete --base-url http://127.0.0.1:8080/v1 --model m --schema schema.json \"...\""
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Validate a JSON instance (or a JSONL batch) against a JSON Schema (drafts 4, 6, 7, 2019-09, 2020-12).
    ///
    /// The draft is the one the schema's `$schema` names (2020-12, or --draft, when it names none). A relative
    /// `$ref` resolves against the schema file's own URI, so a sibling file is read from disk (only under the
    /// schema's folder and the --resource-dir folders); other schemas it refers to are found among --resource files
    /// and by their `$id` in --resource-dir folders. Nothing is fetched over the network. A reference that resolves
    /// to nothing is a warning while no instance reaches it. Exit 0 when valid, 1 when invalid (including an
    /// instance that is not well-formed JSON), 2 when the schema is invalid, a file cannot be read, or the instance
    /// reaches a reference that resolves to nothing.
    #[command(after_help = "Examples:\n  oa validate schema.json answer.json\n  \
llm-tool ... | oa validate schema.json - --json\n  \
oa validate geojson.schema.json feature.json --discriminate --max-violations 20\n  \
oa validate schema.json --batch answers.jsonl --jobs 2 --output json > results.jsonl\n  \
oa validate tsconfig.json config.json --draft 7 --resource-dir schemastore/schemas\n  \
oa validate --resource address.json --resource country.json person.json answer.json")]
    Validate(ValidateArgs),
    /// Run OpenArmature conformance fixtures against the oa stack.
    ///
    /// Prints a line per fixture and the totals as `N passed, M failed, K skipped`; exit 1 when any case failed.
    #[command(
        after_help = "Examples:\n  oa conformance\n  oa conformance ../shared/openarmature-spec-0.118/spec --json\n  \
oa conformance crates/oa-conformance/fixtures"
    )]
    Conformance(ConformanceArgs),
    /// Check whether an endpoint enforces a strict JSON Schema: the canary probe, or one probe per keyword.
    ///
    /// Sends a question whose true answer the schema forbids, so only a schema-bound decoder answers validly.
    /// With --schema, every keyword the schema uses is listed: probed ones with their verdict, the rest as not
    /// probed. Exit 0 enforced (with --schema: every keyword probed and enforced), 1 not enforced, 2 error or
    /// inconclusive, 3 enforced for the probed keywords while some were not probed.
    #[command(
        after_help = "Examples:\n  oa probe --base-url http://127.0.0.1:8080/v1 --model m\n  \
oa probe --base-url http://127.0.0.1:8080/v1 --model m --registry caps.json\n  \
oa probe --base-url https://gw.example/v1 --model m --api-key-env GW_KEY --schema ticket.json --json"
    )]
    Probe(ProbeArgs),
    /// Send one message through the real provider; with --schema, ask for structured output.
    ///
    /// Prints the content or parsed value, finish_reason, usage, structured_output_path, schema_mode, attempts and
    /// diagnostics (as warnings); with --json exactly one JSON object. Exit 0 when ok, 1 when the call failed, 2 for
    /// usage errors.
    ///
    /// schema_mode says how the schema constrained the answer: `enforced` (native strict request, every clause of
    /// the schema sent, and the --registry file holds a fresh probe verdict that this route enforces covering every
    /// keyword sent), `unverified` (native strict request without that), `unenforced` (native request with strict: false: the schema cannot go strict),
    /// `coerced` (anthropic's tool coercion: the schema went as a forced tool's input schema, a path no probe
    /// verifies), `prompted` (the schema went into the prompt); each with `_repaired` when a reask was needed.
    /// `unenforced:` lists each clause of the schema the provider was not asked to enforce, or not shown to, with
    /// why (dropped_* / relaxed / kept_* by --fit, not_accepted after a 400, not_verified, not_requested).
    #[command(
        after_help = "Examples:\n  oa complete --base-url http://127.0.0.1:8080/v1 --model m --schema answer.json \"What is 6 x 7?\"\n  \
echo \"Summarize: ...\" | oa complete --base-url URL --model m --schema s.json --reask --json -\n  \
oa complete --base-url URL --model m --schema s.json --registry caps.json --route --trace \"...\"\n  \
oa complete --mapping anthropic --base-url URL --model m --schema s.json --resource-dir schemas/ --fit --json \"...\""
    )]
    Complete(CompleteArgs),
    /// Show what oa does on an embedded example: no API key, no network.
    ///
    /// A mock model on 127.0.0.1 answers one structured call: every violation reported, one reask, the recovered
    /// value with schema_mode and schema_version, the typed events, and a gateway that drops the schema.
    #[command(
        after_help = "Examples:\n  oa demo\n  oa demo --base-url http://127.0.0.1:8080/v1 --model m --timeout 60"
    )]
    Demo(DemoArgs),
}

/// Flags of `oa validate`.
#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The schema file (JSON); `-` reads it from standard input.
    pub(crate) schema: PathBuf,
    /// The instance file (JSON); `-` reads it from standard input. Required unless --batch is given.
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    pub(crate) instance: Option<PathBuf>,
    /// Validate one JSON instance per line of this JSONL file (`-`: standard input); prints one result per line,
    /// in input order, a line that cannot be read as its own error, and a summary on stderr
    /// (`N valid, M invalid, K unreadable`).
    #[arg(long, value_name = "INSTANCES.jsonl")]
    pub(crate) batch: Option<PathBuf>,
    /// Threads for --batch, sharing one compiled validator [default: the number of cores]; needs --batch.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: Option<u16>,
    /// Treat `format` as an assertion (it is an annotation by default, as draft 2020-12 says).
    #[arg(long)]
    pub(crate) format_assertion: bool,
    /// --draft, --resource FILE, --resource-dir DIR.
    #[command(flatten)]
    pub(crate) schema_flags: crate::schema_source::SchemaFlags,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    pub(crate) output: Output,
    /// Short for --output json.
    #[arg(long, conflicts_with = "output")]
    pub(crate) json: bool,
    /// Report a failed union only against the members whose `const`/`enum` tag the instance carries (a GeoJSON
    /// geometry saying "Polygon" is checked against Polygon alone); for text and json output.
    #[arg(long)]
    pub(crate) discriminate: bool,
    /// Print at most N violations per instance, then `... and K more` (json: an "omitted" count); a failed union
    /// is cut by whole alternatives, closest to valid first, its heading keeping its true member count (json:
    /// "omitted_alternatives"); for text and json output.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_violations: Option<u32>,
    /// Do not warn about keywords the schema likely misspelled (a name one edit from a keyword of its draft, e.g.
    /// `requird`, which is otherwise silently ignored).
    #[arg(long)]
    pub(crate) no_warn: bool,
}

impl ValidateArgs {
    /// The output style, `--json` read as `--output json`.
    pub(crate) fn output(&self) -> Output {
        if self.json { Output::Json } else { self.output }
    }

    /// The report view the flags ask for (the full report by default).
    pub(crate) fn report_options(&self) -> oa_schema::ReportOptions {
        let options = oa_schema::ReportOptions::new().discriminators(self.discriminate);
        match self.max_violations {
            Some(max) => options.max_violations(usize::try_from(max).unwrap_or(usize::MAX)),
            None => options,
        }
    }

    /// The --batch threads: the flag, else the number of cores.
    pub(crate) fn jobs(&self) -> usize {
        self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            usize::from,
        )
    }
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
    /// Fixture directories: a `conformance/` directory, or any directory with `<capability>/conformance/` folders
    /// below it, under any folder name (a directory with no fixture exits 2). Default: the llm-provider,
    /// observability and conformance-adapter fixtures of spec v0.118.2 in ../shared and the project's own, found
    /// from the current directory.
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
    /// Probe each keyword this schema uses (enum, const, maxLength, ...) and print the enforcement matrix: the
    /// schema as a call would send it (its bundle when it refers to other files; fitted with --fit), so the verdict
    /// is about the bytes that reach the provider. Any draft `oa validate` reads.
    #[arg(long)]
    pub(crate) schema: Option<PathBuf>,
    /// --draft, --resource FILE, --resource-dir DIR: how --schema and the files it refers to are read, as for
    /// `oa validate`.
    #[command(flatten)]
    pub(crate) schema_flags: crate::schema_source::SchemaFlags,
    /// Probe the --schema fitted to the mapping's native path (what `oa complete --fit` sends).
    #[arg(long, requires = "schema")]
    pub(crate) fit: bool,
    /// Do not warn about keywords the --schema likely misspelled (one edit from a keyword, e.g. `requird`).
    #[arg(long)]
    pub(crate) no_warn: bool,
    /// Record the verdict in this capability registry: a JSON file (created if absent), or a Redis server shared by
    /// many instances (`redis://HOST:PORT/DB`, the verdict expiring after --stale-after), keyed by mapping, model
    /// and base URL, for `oa complete --registry` to read. An error verdict records nothing.
    #[arg(long, value_name = "FILE|redis://HOST:PORT/DB")]
    pub(crate) registry: Option<String>,
    /// How long a verdict stays fresh (seconds); older ones count as unverified.
    #[arg(long, value_name = "SECS", default_value_t = 21_600)]
    pub(crate) stale_after: u64,
    /// Probe every pair this file lists (a JSON array, or TOML `[[pair]]` tables, of `mapping`, `base_url`, `model`
    /// and `api_key_env`), record each verdict with --registry, print one line per pair, and exit 1 when any pair
    /// is not verified enforcing, so adding a provider without verifying it fails the build.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["base_url", "model", "api_key_env"])]
    pub(crate) pairs: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The endpoint flags `oa probe` and `oa complete` share: where to send, as which model, in which wire format.
#[derive(Debug, Args)]
pub(crate) struct EndpointArgs {
    /// The endpoint's base URL including its version path, exactly as production traffic uses it (gateway
    /// included): for openai e.g. http://127.0.0.1:8080/v1 (requests go to {base}/chat/completions); for anthropic
    /// the API root ending in /v1 (requests go to {base}/messages); for gemini the root ending in /v1beta
    /// (requests go to {base}/models/{model}:generateContent). Required (with oa probe, unless --pairs is given).
    #[arg(long)]
    pub(crate) base_url: Option<String>,
    /// The model name sent on the wire (for gemini, in the URL path). Required (with oa probe, unless --pairs).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// The provider wire mapping.
    #[arg(long, value_enum, default_value_t = Mapping::Openai)]
    pub(crate) mapping: Mapping,
    /// The environment variable holding the API key (default: send none, so no key reaches an endpoint by
    /// accident). It travels only in the mapping's header: Authorization: Bearer (openai), x-api-key (anthropic),
    /// x-goog-api-key (gemini), never in the URL.
    #[arg(long, value_name = "VAR")]
    pub(crate) api_key_env: Option<String>,
    #[command(flatten)]
    pub(crate) timeouts: TimeoutArgs,
}

/// How long to wait: shared by every subcommand that talks to an endpoint.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct TimeoutArgs {
    /// Give up on the whole call (every attempt and wait included) after SECS seconds; one attempt never runs past
    /// it either. A server that accepts and never answers fails after this long.
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) timeout: u64,
    /// Give up connecting to the endpoint after SECS seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) connect_timeout: u64,
}

/// A provider wire mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mapping {
    /// OpenAI-compatible Chat Completions (llm-provider §8.1).
    Openai,
    /// Anthropic Messages (llm-provider §8.2); does not stream.
    Anthropic,
    /// Google Gemini generateContent (llm-provider §8.3); does not stream.
    Gemini,
}

impl From<Mapping> for oa_provider::Mapping {
    fn from(mapping: Mapping) -> Self {
        match mapping {
            Mapping::Openai => Self::OpenAi,
            Mapping::Anthropic => Self::Anthropic,
            Mapping::Gemini => Self::Gemini,
        }
    }
}

/// Flags of `oa complete`.
#[derive(Debug, Args)]
pub(crate) struct CompleteArgs {
    #[command(flatten)]
    pub(crate) endpoint: EndpointArgs,
    /// Ask for structured output against this JSON Schema file (an object at the top; any draft `oa validate`
    /// reads: its `$schema`, else --draft). Sent verbatim, or as one bundled document when it refers to other files;
    /// every answer is validated against it whole.
    #[arg(long, value_name = "FILE")]
    pub(crate) schema: Option<PathBuf>,
    /// --draft, --resource FILE, --resource-dir DIR: how --schema and the files it refers to are read, as for
    /// `oa validate` (the file's folder is its base; nothing is fetched over a network).
    #[command(flatten)]
    pub(crate) schema_flags: crate::schema_source::SchemaFlags,
    /// Send the mapping's native path the strongest schema that provider accepts (clauses it would reject or ignore
    /// dropped or relaxed, references inlined, optional properties made required and nullable on openai), map the
    /// answer back and validate it against the whole --schema; the clauses the provider was not asked to enforce are
    /// listed (--json: "unenforced").
    #[arg(long, requires = "schema")]
    pub(crate) fit: bool,
    /// Do not warn about keywords the --schema likely misspelled (one edit from a keyword, e.g. `requird`).
    #[arg(long)]
    pub(crate) no_warn: bool,
    /// A system message sent before the user message.
    #[arg(long, value_name = "TEXT")]
    pub(crate) system: Option<String>,
    /// Offer these tools: a JSON array of {name, description, parameters}. A call that answers with tool calls
    /// prints them; with --schema and --no-native on anthropic, the schema then goes into the prompt instead of a
    /// synthetic tool.
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<PathBuf>,
    /// The output token budget (max_tokens). The anthropic mapping requires one, so it is sent as 1024 there
    /// unless given; the other mappings send none unless given.
    #[arg(long, value_name = "N")]
    pub(crate) max_tokens: Option<u64>,
    /// The sampling temperature (default: the server's).
    #[arg(long, value_name = "T")]
    pub(crate) temperature: Option<f64>,
    /// Stream tokens to the terminal as they arrive (openai only: the anthropic and gemini mappings do not stream).
    /// With --schema, the answer is checked as it arrives and shown growing instead: one line per value as it
    /// completes, `POINTER VALUE` (with --json, one JSON object per value, {"kind": "partial_value", "attempt_index",
    /// "pointer", "value", "certain_violations"}, before the report).
    #[arg(long)]
    pub(crate) stream: bool,
    /// With --stream and --schema: end the stream at the answer's first violation that no continuation could
    /// repair (the connection is closed; with --reask the reask starts at once). Each attempt in --json says where
    /// it stopped ("early_stop": {pointer, keyword, bytes, deltas}, or null).
    #[arg(long, requires_all = ["stream", "schema"])]
    pub(crate) early_stop: bool,
    /// Total attempts including the first (call-level retry).
    #[arg(long, value_name = "N")]
    pub(crate) max_attempts: Option<u32>,
    /// On a structured-output failure, send the model its output and every violation and ask again.
    #[arg(long)]
    pub(crate) reask: bool,
    /// Declare the endpoint without native structured output, so each mapping takes its own fallback: openai and
    /// gemini put the schema in the prompt; anthropic forces a synthetic tool whose input schema is the schema (tool
    /// coercion), or, with --tools, puts it in the prompt.
    #[arg(long)]
    pub(crate) no_native: bool,
    /// When the server says its engine could not parse the model's output (LM Studio's "peg-native" failure,
    /// failure_class provider_output_parse_failed), send the same bytes once more.
    #[arg(long)]
    pub(crate) retry_parse_failure: bool,
    /// A stop sequence (repeatable).
    #[arg(long, value_name = "SEQ")]
    pub(crate) stop: Vec<String>,
    /// Read enforcement verdicts from this capability registry (a file, or `redis://HOST:PORT/DB`, as written by
    /// `oa probe --registry`): a native strict call is `enforced` only when it holds a fresh verdict that this route
    /// enforces. Redis is read with a bounded timeout; unreachable (or a file that is not there), it reads as
    /// unverified, the call goes on, and one warning names it and the cause.
    #[arg(long, value_name = "FILE|redis://HOST:PORT/DB")]
    pub(crate) registry: Option<String>,
    /// How long a verdict stays fresh (seconds); older ones count as unverified.
    #[arg(long, value_name = "SECS", default_value_t = 21_600)]
    pub(crate) stale_after: u64,
    /// Route on the registry (needs --registry): send the schema natively only on a route with a fresh enforcing
    /// verdict; otherwise (unverified, stale or not enforcing) put it in the prompt at temperature 0 with one repair.
    #[arg(long, requires = "registry")]
    pub(crate) route: bool,
    /// Print the call's OpenTelemetry span tree (one span per attempt) and its log records to stderr.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Export the call's spans, log records and metrics over OTLP/HTTP (protobuf) to URL/v1/traces, /v1/logs and
    /// /v1/metrics, flushed before exit [default: $OTEL_EXPORTER_OTLP_ENDPOINT when set].
    #[arg(long, value_name = "URL")]
    pub(crate) otlp: Option<String>,
    /// Send the call's trace to Langfuse (one trace, one generation for the call carrying its structured-output
    /// path), flushed before exit. Keys and host from LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY and LANGFUSE_HOST
    /// (default https://cloud.langfuse.com); prompts and answers are not sent.
    #[arg(long)]
    pub(crate) langfuse: bool,
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// The user message; `-` reads it from standard input.
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
    #[command(flatten)]
    pub(crate) timeouts: TimeoutArgs,
}
