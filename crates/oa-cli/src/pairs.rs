//! `oa probe --pairs FILE`: the enforcement chapter's "in CI, parametrised over every (provider, model) pair in the
//! config, so adding a provider without verifying it fails the build". Each pair gets the canary (or, with
//! `--schema`, the keyword matrix) through its own mapping, its verdict recorded in the registry, one line printed;
//! the exit is 1 when any pair is not verified enforcing.

use std::path::Path;
use std::sync::Arc;

use oa_provider::enforcement::{
    CapabilityRegistry, EnforcementMatrix, ProbeOutcome, probe_canary, probe_keywords,
};
use serde::Deserialize;
use serde_json::json;

use crate::cli::{EndpointArgs, Mapping, ProbeArgs};
use crate::endpoint::within;
use crate::exit::Exit;
use crate::schema_source::CallSchema;

/// One route to verify.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pair {
    #[serde(default)]
    mapping: Option<String>,
    base_url: String,
    model: String,
    #[serde(default)]
    api_key_env: Option<String>,
}

/// The TOML form: `[[pair]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PairsToml {
    pair: Vec<Pair>,
}

/// What one pair's probe found, as the line and the exit read it.
enum Finding {
    Canary(ProbeOutcome),
    Matrix(EnforcementMatrix),
    /// The pair could not even be probed (no such mapping, its key variable unset, a bad base URL).
    Unusable(String),
}

impl Finding {
    fn verdict(&self) -> &'static str {
        match self {
            Self::Canary(outcome) => outcome.verdict(),
            Self::Matrix(matrix) if matrix.has_error() => "error",
            Self::Matrix(matrix) if !matrix.is_all_enforced() => "not_enforced",
            Self::Matrix(matrix) if !matrix.is_complete() => "enforced_partial",
            Self::Matrix(_) => "enforced",
            Self::Unusable(_) => "error",
        }
    }
}

/// Probes every pair of `path`; `Err` only for a file that cannot be read as a list of pairs.
pub(crate) fn run(
    args: &ProbeArgs,
    path: &Path,
    schema: Option<&CallSchema>,
    registry: Option<&Arc<CapabilityRegistry>>,
    runtime: &tokio::runtime::Runtime,
) -> Result<Exit, String> {
    let pairs = read_pairs(path)?;
    let mut all_enforced = true;
    for pair in &pairs {
        let finding = runtime.block_on(probe_pair(args, pair, schema, registry));
        all_enforced &= finding.verdict() == "enforced";
        print_line(pair, &finding, args.json);
    }
    Ok(if all_enforced { Exit::Ok } else { Exit::Finding })
}

fn read_pairs(path: &Path) -> Result<Vec<Pair>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let pairs = if text.trim_start().starts_with('[') && !text.trim_start().starts_with("[[") {
        serde_json::from_str::<Vec<Pair>>(&text)
            .map_err(|e| format!("{}: not a JSON list of pairs: {e}", path.display()))?
    } else {
        toml::from_str::<PairsToml>(&text)
            .map_err(|e| format!("{}: not a TOML list of [[pair]] tables: {e}", path.display()))?
            .pair
    };
    if pairs.is_empty() {
        return Err(format!("{}: lists no pair", path.display()));
    }
    Ok(pairs)
}

async fn probe_pair(
    args: &ProbeArgs,
    pair: &Pair,
    schema: Option<&CallSchema>,
    registry: Option<&Arc<CapabilityRegistry>>,
) -> Finding {
    let mapping = match pair.mapping.as_deref() {
        None => Mapping::Openai,
        Some(name) => match <Mapping as clap::ValueEnum>::from_str(name, true) {
            Ok(mapping) => mapping,
            Err(_) => return Finding::Unusable(format!("no mapping {name:?} (openai, anthropic, gemini)")),
        },
    };
    let endpoint = EndpointArgs {
        base_url: Some(pair.base_url.clone()),
        model: Some(pair.model.clone()),
        mapping,
        api_key_env: pair.api_key_env.clone(),
        timeouts: args.endpoint.timeouts,
    };
    let provider = match endpoint
        .provider_builder()
        .and_then(|builder| builder.build().map_err(|error| error.to_string()))
    {
        Ok(provider) => provider,
        Err(message) => return Finding::Unusable(message),
    };
    let finding = match schema {
        None => {
            let outcome = within(endpoint.timeouts, async {
                Ok(probe_canary(provider.as_ref()).await)
            })
            .await
            .unwrap_or_else(|error| ProbeOutcome::Error {
                category: error.category(),
                message: error.message().to_owned(),
            });
            Finding::Canary(outcome)
        }
        Some(schema) => match within(endpoint.timeouts, async {
            // The schema this pair's mapping would be sent (its fit with --fit).
            match crate::probe::native_schema(schema, args.fit, mapping.into()) {
                Ok(sent) => Ok(Ok(probe_keywords(provider.as_ref(), &sent).await)),
                Err(message) => Ok(Err(message)),
            }
        })
        .await
        {
            Ok(Ok(matrix)) => Finding::Matrix(matrix),
            Ok(Err(message)) => Finding::Unusable(message),
            Err(error) => Finding::Unusable(error.to_string()),
        },
    };
    let canary = oa_provider::enforcement::KeywordSet::canary;
    let verdict = match &finding {
        Finding::Canary(ProbeOutcome::Enforced) => Some((true, canary())),
        Finding::Canary(ProbeOutcome::NotEnforced { .. }) => Some((false, canary())),
        Finding::Matrix(matrix) if !matrix.has_error() => {
            Some((matrix.is_all_enforced(), matrix.enforced_keywords()))
        }
        _ => None,
    };
    if let (Some(registry), Some((enforces, keywords))) = (registry, verdict) {
        let kind = if schema.is_some() {
            oa_provider::enforcement::ProbeKind::ProductionSchema
        } else {
            oa_provider::enforcement::ProbeKind::Canary
        };
        if let Err(message) = crate::probe::record(registry, &provider, enforces, kind, keywords).await {
            return Finding::Unusable(message);
        }
    }
    finding
}

fn print_line(pair: &Pair, finding: &Finding, as_json: bool) {
    let mapping = pair.mapping.as_deref().unwrap_or("openai");
    let detail = match finding {
        Finding::Canary(ProbeOutcome::NotEnforced { content, .. }) => format!("answered {content:?}"),
        Finding::Canary(ProbeOutcome::Error { category, message }) => format!("{category}: {message}"),
        Finding::Matrix(matrix) => format!(
            "{} of {} {} enforced, {} not probed",
            matrix
                .rows
                .iter()
                .filter(|(_, outcome)| outcome.is_enforced())
                .count(),
            matrix.rows.len(),
            if matrix.rows.len() == 1 {
                "keyword"
            } else {
                "keywords"
            },
            matrix.not_probed.len()
        ),
        Finding::Unusable(message) => message.clone(),
        Finding::Canary(ProbeOutcome::Enforced) => String::new(),
    };
    if as_json {
        outln!(
            "{}",
            json!({"mapping": mapping, "base_url": pair.base_url, "model": pair.model,
                   "verdict": finding.verdict(), "detail": detail})
        );
    } else {
        outln!(
            "{:<17}{mapping:<10}{}  {}  {detail}",
            finding.verdict(),
            pair.base_url,
            pair.model
        );
    }
}
