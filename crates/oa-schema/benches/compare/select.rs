//! Which workloads a run needs: with a criterion filter (`cargo bench ... -- small-`), only those with a benchmark id
//! the filter can match are loaded and pre-checked, so that a filtered run does not first check every workload.

use crate::tools::Tool;
use crate::workloads::Workload;

/// Criterion's options that take a value (the value is not a filter).
const VALUED_OPTIONS: [&str; 16] = [
    "--color",
    "-c",
    "--save-baseline",
    "-s",
    "--baseline",
    "-b",
    "--baseline-lenient",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
];

/// The filter criterion will apply: the first argument that is neither an option nor an option's value.
fn filter(args: &[String]) -> Option<&str> {
    let mut skip_next = false;
    for arg in args.iter().skip(1) {
        if skip_next {
            skip_next = false;
        } else if VALUED_OPTIONS.contains(&arg.as_str())
            || arg == "--output-format"
            || arg == "--plotting-backend"
        {
            skip_next = true;
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

/// Criterion's filter and a test of a benchmark id against it; none without a filter, or when the filter is not a
/// regex criterion reads the same way.
fn id_filter(args: &[String]) -> Option<(&str, impl Fn(&str) -> bool + '_)> {
    let filter = filter(args)?;
    let regex = regex::Regex::new(filter).ok()?;
    Some((filter, move |id: &str| regex.is_match(id) || id == filter))
}

/// The workloads of which criterion will run at least one benchmark under this process's arguments (all of them
/// without a filter, or when the filter is not a regex criterion reads the same way).
pub(crate) fn selected(workloads: Vec<Workload>) -> Vec<Workload> {
    let args: Vec<String> = std::env::args().collect();
    let Some((filter, matches)) = id_filter(&args) else {
        return workloads;
    };
    let (kept, left): (Vec<Workload>, Vec<Workload>) = workloads
        .into_iter()
        .partition(|workload| ids(workload).any(|id| matches(&id)));
    let names: Vec<&str> = left.iter().map(|workload| workload.name.as_str()).collect();
    eprintln!(
        "oa-schema benchmark: filter {filter:?} leaves out {} workloads: {}",
        names.len(),
        names.join(", ")
    );
    kept
}

/// Whether the paired pass measures the row `workload/operation`: not when criterion only tests or lists the
/// benchmarks (`--test`, `--list`, as `cargo test --benches` does), nor when criterion's filter matches neither
/// tool's benchmark id of the row.
pub(crate) fn runs_paired(workload: &str, operation: &str) -> bool {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|arg| arg == "--test" || arg == "--list") {
        return false;
    }
    let Some((_, matches)) = id_filter(&args) else {
        return true;
    };
    [Tool::OaSchema, Tool::Jsonschema]
        .into_iter()
        .any(|tool| matches(&format!("{workload}/{operation}/{}", tool.name())))
}

/// Every benchmark id the workload can produce (`WORKLOAD/OPERATION/TOOL`).
fn ids(workload: &Workload) -> impl Iterator<Item = String> + '_ {
    let mut operations = vec!["compile".to_owned()];
    for set in &workload.instance_sets {
        operations.push(format!("is_valid {}", set.label));
        operations.push(format!("errors {}", set.label));
    }
    operations.into_iter().flat_map(move |operation| {
        Tool::ALL
            .into_iter()
            .map(move |tool| format!("{}/{operation}/{}", workload.name, tool.name()))
    })
}
