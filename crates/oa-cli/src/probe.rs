//! `oa probe`: asks a real endpoint the canary question (or one probe per keyword of a schema) through the same
//! provider mapping production traffic uses, and says whether the route enforces the schema.
//!
//! Exit 0 enforced (every keyword, with `--schema`), 1 not enforced, 2 error (bad flags or schema, unreachable
//! endpoint, rejected request).

use std::time::SystemTime;

use oa_provider::enforcement::{Capability, KeywordSet, ProbeKind};
use std::sync::Arc;

use oa_provider::enforcement::{
    CANARY_ANSWER, CANARY_QUESTION, CapabilityRegistry, EnforcementMatrix, ProbeOutcome, probe_canary,
    probe_keywords,
};
use oa_provider::{Provider, StructuredOutputPath};
use serde_json::{Value, json};

use crate::cli::ProbeArgs;
use crate::endpoint::{open_registry, within};
use crate::exit::Exit;
use crate::schema_source::CallSchema;

/// Runs `oa probe`.
pub(crate) fn run(args: &ProbeArgs) -> Exit {
    match probe(args) {
        Ok(exit) => exit,
        Err(message) => {
            eprintln!("oa probe: {message}");
            Exit::Usage
        }
    }
}

fn probe(args: &ProbeArgs) -> Result<Exit, String> {
    let schema = args
        .schema
        .as_deref()
        .map(|path| CallSchema::open(path, &args.schema_flags, "oa probe", !args.no_warn))
        .transpose()?;
    if let Some(schema) = &schema {
        schema.warn_unreached("oa probe");
    }
    let stale_after = std::time::Duration::from_secs(args.stale_after);
    let registry = args
        .registry
        .as_deref()
        .map(|location| open_registry(location, stale_after))
        .transpose()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    // A store that cannot be reached would lose every verdict: say so before any probe is sent.
    if let Some(registry) = &registry {
        runtime
            .block_on(registry.check_store())
            .map_err(|error| format!("--registry cannot be reached: {error}"))?;
    }
    if let Some(path) = &args.pairs {
        return crate::pairs::run(args, path, schema.as_ref(), registry.as_ref(), &runtime);
    }
    let provider = build_provider(args)?;
    let schema = schema
        .map(|schema| native_schema(&schema, args.fit, args.endpoint.mapping.into()))
        .transpose()?;
    match schema {
        None => {
            let outcome = runtime
                .block_on(within(args.endpoint.timeouts, async {
                    Ok(probe_canary(provider.as_ref()).await)
                }))
                .unwrap_or_else(|error| ProbeOutcome::Error {
                    category: error.category(),
                    message: error.message().to_owned(),
                });
            if let (Some(registry), Some(enforces)) = (&registry, verdict_of(&outcome)) {
                runtime.block_on(record(
                    registry,
                    &provider,
                    enforces,
                    ProbeKind::Canary,
                    KeywordSet::canary(),
                ))?;
            }
            print_canary(&outcome, args.json);
            Ok(exit_of(&outcome))
        }
        Some(schema) => {
            let matrix = runtime
                .block_on(within(args.endpoint.timeouts, async {
                    Ok(probe_keywords(provider.as_ref(), &schema).await)
                }))
                .map_err(|error| error.to_string())?;
            if matrix.rows.is_empty() {
                return Err(format!(
                    "the schema uses none of the probed keywords ({})",
                    oa_provider::enforcement::PROBED_KEYWORDS.join(", ")
                ));
            }
            if let (Some(registry), false) = (&registry, matrix.has_error()) {
                runtime.block_on(record(
                    registry,
                    &provider,
                    matrix.is_all_enforced(),
                    ProbeKind::ProductionSchema,
                    matrix.enforced_keywords(),
                ))?;
            }
            print_matrix(&matrix, args.json);
            Ok(if matrix.has_error() {
                Exit::Usage
            } else if !matrix.is_all_enforced() {
                Exit::Finding
            } else if !matrix.is_complete() {
                Exit::Partial
            } else {
                Exit::Ok
            })
        }
    }
}

fn build_provider(args: &ProbeArgs) -> Result<Arc<dyn Provider>, String> {
    args.endpoint
        .provider_builder()?
        .build()
        .map_err(|e| format!("cannot build the provider: {e}"))
}

/// The schema a call with `schema` (fitted when `fit`) sends on `mapping`'s native path: what the keyword probes
/// are derived from, so the verdict is about the bytes that reach the provider.
pub(crate) fn native_schema(
    schema: &CallSchema,
    fit: bool,
    mapping: oa_provider::Mapping,
) -> Result<Value, String> {
    let request = schema.apply(oa_provider::CompletionRequest::default(), fit);
    match oa_provider::fit::native_schema(&request, mapping) {
        Ok(Some(sent)) => Ok(sent.schema().clone()),
        Ok(None) => Err("no schema to probe".to_owned()),
        Err(error) => Err(error.message().to_owned()),
    }
}

/// Whether a probe outcome says the route enforces; `None` for an error (not evidence either way).
fn verdict_of(outcome: &ProbeOutcome) -> Option<bool> {
    match outcome {
        ProbeOutcome::Enforced => Some(true),
        ProbeOutcome::NotEnforced { .. } => Some(false),
        ProbeOutcome::Error { .. } => None,
    }
}

/// Writes a verdict for the provider's route into the registry (its file, or its shared store).
pub(crate) async fn record(
    registry: &CapabilityRegistry,
    provider: &Arc<dyn Provider>,
    enforces: bool,
    probe: ProbeKind,
    keywords: KeywordSet,
) -> Result<(), String> {
    let key = provider
        .capability_key()
        .ok_or("the provider names no route for the registry")?;
    let capability = Capability {
        enforces,
        checked_at: SystemTime::now(),
        probe,
        keywords,
    };
    registry
        .record_verdict(key, capability)
        .await
        .map_err(|error| format!("--registry: {error}"))
}

fn exit_of(outcome: &ProbeOutcome) -> Exit {
    match outcome {
        ProbeOutcome::Enforced => Exit::Ok,
        ProbeOutcome::NotEnforced { .. } => Exit::Finding,
        ProbeOutcome::Error { .. } => Exit::Usage,
    }
}

fn print_canary(outcome: &ProbeOutcome, as_json: bool) {
    if as_json {
        let mut line = json!({"probe": "canary"});
        if let (Value::Object(line), Ok(Value::Object(fields))) = (&mut line, serde_json::to_value(outcome)) {
            line.extend(fields);
        }
        outln!("{line}");
        return;
    }
    outln!(
        "canary: asked {CANARY_QUESTION:?} with a strict schema whose only legal answer is {CANARY_ANSWER:?}"
    );
    match outcome {
        ProbeOutcome::Enforced => {
            outln!("enforced: the answer was {CANARY_ANSWER:?}, which only a schema-bound decoder produces");
        }
        ProbeOutcome::NotEnforced { content, path } => {
            outln!("not enforced: the model answered {}", shorten(content));
            if let Some(path) = path.filter(|path| *path != StructuredOutputPath::Native) {
                outln!(
                    "  (the request went on the {} path, which never asks for enforcement)",
                    path.as_str()
                );
            } else {
                outln!(
                    "  the schema was sent strict, and something on the route (provider, model or a gateway) ignored it"
                );
            }
        }
        ProbeOutcome::Error { category, message } => {
            outln!("error: {category}: {message}");
        }
    }
}

fn print_matrix(matrix: &EnforcementMatrix, as_json: bool) {
    let verdict = if matrix.has_error() {
        "error"
    } else if !matrix.is_all_enforced() {
        "not_enforced"
    } else if !matrix.is_complete() {
        "enforced_partial"
    } else {
        "enforced"
    };
    if as_json {
        let rows: Vec<Value> = matrix
            .rows
            .iter()
            .map(|(keyword, outcome)| {
                let mut row = json!({"keyword": keyword});
                if let (Value::Object(row), Ok(Value::Object(fields))) =
                    (&mut row, serde_json::to_value(outcome))
                {
                    row.extend(fields);
                }
                row
            })
            .chain(
                matrix
                    .not_probed
                    .iter()
                    .map(|keyword| json!({"keyword": keyword, "verdict": "not_probed"})),
            )
            .collect();
        outln!(
            "{}",
            json!({"probe": "keywords", "verdict": verdict, "keywords": rows})
        );
        return;
    }
    outln!("enforcement matrix (one probe per keyword the schema uses):");
    for (keyword, outcome) in &matrix.rows {
        let detail = match outcome {
            ProbeOutcome::Enforced => String::new(),
            ProbeOutcome::NotEnforced { content, .. } => format!("  answered {}", shorten(content)),
            ProbeOutcome::Error { category, message } => format!("  {category}: {message}"),
        };
        outln!("  {keyword:<22} {:<13}{detail}", outcome.verdict());
    }
    for keyword in &matrix.not_probed {
        outln!("  {keyword:<22} not probed   no probe exists for it: its enforcement is unknown");
    }
    match verdict {
        "enforced_partial" => outln!(
            "enforced for the probed keywords; {} not probed",
            matrix.not_probed.len()
        ),
        other => outln!("{}", other.replace('_', " ")),
    }
}

/// The answer on one line, cut at 120 characters.
fn shorten(content: &str) -> String {
    let one_line = content.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut shown: String = one_line.chars().take(120).collect();
    if one_line.chars().count() > 120 {
        shown.push_str("...");
    }
    format!("{shown:?}")
}
