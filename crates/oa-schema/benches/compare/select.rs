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

/// The workloads of which criterion will run at least one benchmark under this process's arguments (all of them
/// without a filter, or when the filter is not a regex criterion reads the same way).
pub(crate) fn selected(workloads: Vec<Workload>) -> Vec<Workload> {
    let args: Vec<String> = std::env::args().collect();
    let Some(filter) = filter(&args) else {
        return workloads;
    };
    let Ok(regex) = regex::Regex::new(filter) else {
        return workloads;
    };
    let (kept, left): (Vec<Workload>, Vec<Workload>) = workloads
        .into_iter()
        .partition(|workload| ids(workload).any(|id| regex.is_match(&id) || id == filter));
    let names: Vec<&str> = left.iter().map(|workload| workload.name.as_str()).collect();
    eprintln!(
        "oa-schema benchmark: filter {filter:?} leaves out {} workloads: {}",
        names.len(),
        names.join(", ")
    );
    kept
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
