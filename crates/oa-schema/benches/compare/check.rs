//! The pre-check: before anything is timed, every tool compiles every schema and judges every instance once.
//!
//! Wrong verdicts and compile failures become loud, recorded skips (a timing of a wrong answer means nothing); the
//! error counts are recorded too, since the tools report at different granularity. Each tool's check runs on its
//! own thread under a time limit, so a runaway validation becomes a recorded skip rather than a hung benchmark.

use crate::tools::{self, Tool};
use crate::workloads::{InstanceSet, Workload};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long one tool may take to compile and check one workload once. Generous: the slowest peer needs a few
/// seconds on the largest workloads; a runaway (exponential error collection) needs far more.
const CHECK_TIME_LIMIT: Duration = Duration::from_secs(120);

/// A measured operation on an instance set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    /// `is_valid`.
    IsValid,
    /// Full error collection.
    Errors,
}

/// A workload ready to measure, with what each tool may run on it.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The workload, minus any dropped keyword cases.
    pub(crate) workload: Workload,
    /// Tools that compile every schema of the workload.
    compiling: Vec<Tool>,
    /// (tool, instance set index, operation) rows skipped because the tool's verdict was wrong.
    skipped_rows: Vec<(Tool, usize, Operation)>,
}

impl Plan {
    /// Whether `tool` compiles the workload (and so is measured on it at all).
    pub(crate) fn compiles(&self, tool: Tool) -> bool {
        self.compiling.contains(&tool)
    }

    /// Whether `tool` is measured for `operation` on instance set `set_idx`.
    pub(crate) fn runs(&self, tool: Tool, set_idx: usize, operation: Operation) -> bool {
        self.compiles(tool) && !self.skipped_rows.contains(&(tool, set_idx, operation))
    }
}

/// What one tool did on one workload during the check.
#[derive(Debug)]
struct ToolCheck {
    /// Per schema: `Err(message)` when it did not compile.
    compiled: Vec<Result<(), String>>,
    /// Per instance set, per instance: the `is_valid` verdict and the error count (empty when a schema failed).
    outcomes: Vec<Vec<(bool, usize)>>,
}

/// Everything recorded for the report: skips, dropped keyword cases and error counts.
#[derive(Debug, Default)]
struct RunRecord {
    /// One JSON object per skip.
    skips: Vec<Value>,
    /// One JSON object per dropped keyword case or instance.
    dropped: Vec<Value>,
    /// One JSON object per (workload, set, tool) error count.
    error_counts: Vec<Value>,
}

/// Checks every workload and writes `<criterion_dir>/oa-bench-run.json` (start time, skips, drops, error counts).
pub(crate) fn plan_all(workloads: Vec<Workload>, criterion_dir: &Path) -> Vec<Plan> {
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let mut record = RunRecord::default();
    let plans: Vec<Plan> = workloads
        .into_iter()
        .map(|workload| plan(workload, &mut record))
        .collect();
    let names: Vec<&str> = plans.iter().map(|plan| plan.workload.name.as_str()).collect();
    let run = json!({
        "started_unix": started_unix,
        "workloads": names,
        "skips": record.skips,
        "dropped": record.dropped,
        "error_counts": record.error_counts,
    });
    let path = criterion_dir.join("oa-bench-run.json");
    let written =
        std::fs::create_dir_all(criterion_dir).and_then(|()| std::fs::write(&path, run.to_string()));
    if let Err(err) = written {
        panic!("oa-schema benchmark: cannot write {}: {err}", path.display());
    }
    plans
}

/// Checks one workload with every tool and decides what is measured.
fn plan(workload: Workload, record: &mut RunRecord) -> Plan {
    eprintln!("oa-schema benchmark: checking {} with every tool", workload.name);
    let workload = Arc::new(workload);
    let checks: Vec<(Tool, Option<ToolCheck>)> = Tool::ALL
        .into_iter()
        .map(|tool| (tool, check_with_limit(tool, &workload)))
        .collect();
    let workload = Arc::try_unwrap(workload).unwrap_or_else(|shared| clone_workload(&shared));
    if workload.schemas.len() > 1 {
        plan_cases(workload, &checks, record)
    } else {
        plan_single(workload, &checks, record)
    }
}

/// Runs one tool's check on its own thread, giving up after [`CHECK_TIME_LIMIT`].
fn check_with_limit(tool: Tool, workload: &Arc<Workload>) -> Option<ToolCheck> {
    let (sender, receiver) = mpsc::channel();
    let shared = Arc::clone(workload);
    std::thread::spawn(move || {
        // The receiver may be gone after a timeout; nothing is left to tell then.
        let _ = sender.send(check_tool(tool, &shared));
    });
    match receiver.recv_timeout(CHECK_TIME_LIMIT) {
        Ok(check) => Some(check),
        Err(_) => {
            eprintln!(
                "\n!!! oa-schema benchmark: {} did not finish checking {} within {:?}; it is skipped there. Its thread \
                 is still running and shares the CPU with every later measurement: treat later figures with care.\n",
                tool.name(),
                workload.name,
                CHECK_TIME_LIMIT
            );
            None
        }
    }
}

/// Compiles and judges everything once, printing how long that took (a first look at the slow cases).
fn check_tool(tool: Tool, workload: &Workload) -> ToolCheck {
    let started = Instant::now();
    let check = check_tool_untimed(tool, workload);
    eprintln!(
        "  {:<10} checked {} in {:.3} s",
        tool.name(),
        workload.name,
        started.elapsed().as_secs_f64()
    );
    check
}

/// Compiles and judges everything once.
fn check_tool_untimed(tool: Tool, workload: &Workload) -> ToolCheck {
    let compiled: Vec<_> = workload
        .schemas
        .iter()
        .zip(&workload.drafts)
        .map(|(schema, draft)| tools::compile(tool, schema, *draft, workload.format_assertion))
        .collect();
    let outcomes = workload
        .instance_sets
        .iter()
        .map(|set| {
            set.instances
                .iter()
                .map(|(schema_idx, instance)| match &compiled[*schema_idx] {
                    Ok(validator) => (validator.is_valid(instance), validator.count_errors(instance)),
                    // Judged as wrong whatever the expectation: the schema did not compile.
                    Err(_) => (!set.expect_valid, usize::from(set.expect_valid)),
                })
                .collect()
        })
        .collect();
    ToolCheck {
        compiled: compiled.into_iter().map(|result| result.map(|_| ())).collect(),
        outcomes,
    }
}

/// A single-schema workload: a tool that fails to compile or to judge is skipped for the affected rows.
fn plan_single(workload: Workload, checks: &[(Tool, Option<ToolCheck>)], record: &mut RunRecord) -> Plan {
    let mut compiling = Vec::new();
    let mut skipped_rows = Vec::new();
    for (tool, check) in checks {
        let Some(check) = check else {
            skip_timed_out(record, &workload.name, *tool);
            continue;
        };
        if let Some(Err(message)) = check.compiled.first() {
            skip(
                record,
                &workload.name,
                *tool,
                "all",
                &format!("does not compile the schema: {message}"),
            );
            continue;
        }
        compiling.push(*tool);
        for (set_idx, set) in workload.instance_sets.iter().enumerate() {
            let outcomes = &check.outcomes[set_idx];
            let rows = format!("{} set", set.label);
            if let Some(bad) = outcomes
                .iter()
                .position(|(is_valid, _)| *is_valid != set.expect_valid)
            {
                let reason = format!(
                    "is_valid says {} for instance {bad}, expected {}",
                    outcomes[bad].0, set.expect_valid
                );
                skip(
                    record,
                    &workload.name,
                    *tool,
                    &format!("is_valid, {rows}"),
                    &reason,
                );
                skipped_rows.push((*tool, set_idx, Operation::IsValid));
            }
            if let Some(bad) = outcomes
                .iter()
                .position(|(_, n_errors)| (*n_errors == 0) != set.expect_valid)
            {
                let reason = format!(
                    "error collection found {} errors for instance {bad}",
                    outcomes[bad].1
                );
                skip(record, &workload.name, *tool, &format!("errors, {rows}"), &reason);
                skipped_rows.push((*tool, set_idx, Operation::Errors));
            }
            record_errors(record, &workload.name, set, *tool, outcomes);
        }
    }
    Plan {
        workload,
        compiling,
        skipped_rows,
    }
}

/// The multi-schema keyword workload: a case (schema) any tool cannot compile, or an instance any tool misjudges,
/// is dropped for every tool, so that all tools keep measuring the same inputs.
fn plan_cases(workload: Workload, checks: &[(Tool, Option<ToolCheck>)], record: &mut RunRecord) -> Plan {
    let mut compiling = Vec::new();
    let mut keep_schema = vec![true; workload.schemas.len()];
    for (tool, check) in checks {
        let Some(check) = check else {
            skip_timed_out(record, &workload.name, *tool);
            continue;
        };
        compiling.push(*tool);
        for (schema_idx, result) in check.compiled.iter().enumerate() {
            if let Err(message) = result {
                keep_schema[schema_idx] = false;
                let reason = format!("{} does not compile it: {message}", tool.name());
                drop_case(
                    record,
                    &workload.name,
                    &workload.schema_names[schema_idx],
                    "all",
                    &reason,
                );
            }
        }
    }
    let mut instance_sets = Vec::new();
    // Per instance set, per tool (in `checks` order): the error count over the kept instances.
    let mut kept_counts = Vec::new();
    for (set_idx, set) in workload.instance_sets.iter().enumerate() {
        let mut kept = Vec::new();
        let mut counts = vec![0usize; checks.len()];
        for (instance_idx, (schema_idx, instance)) in set.instances.iter().enumerate() {
            if !keep_schema[*schema_idx] {
                continue;
            }
            let mut misjudged = Vec::new();
            for (tool, check) in checks {
                let Some(check) = check else { continue };
                let (is_valid, n_errors) = check.outcomes[set_idx][instance_idx];
                if is_valid != set.expect_valid || (n_errors == 0) != set.expect_valid {
                    misjudged.push(format!(
                        "{} (is_valid {is_valid}, {n_errors} errors)",
                        tool.name()
                    ));
                }
            }
            if misjudged.is_empty() {
                for (tool_idx, (_, check)) in checks.iter().enumerate() {
                    if let Some(check) = check {
                        counts[tool_idx] += check.outcomes[set_idx][instance_idx].1;
                    }
                }
                kept.push((*schema_idx, instance.clone()));
            } else {
                let reason = format!("expected {}, misjudged by {}", set.label, misjudged.join(", "));
                let case = format!(
                    "{} (instance {instance_idx} of the set)",
                    workload.schema_names[*schema_idx]
                );
                drop_case(record, &workload.name, &case, set.label, &reason);
            }
        }
        instance_sets.push(InstanceSet {
            label: set.label,
            expect_valid: set.expect_valid,
            instances: kept,
        });
        kept_counts.push(counts);
    }
    for (tool_idx, (tool, check)) in checks.iter().enumerate() {
        if check.is_none() {
            continue;
        }
        for (set, counts) in instance_sets.iter().zip(&kept_counts) {
            let count = counts[tool_idx];
            record.error_counts.push(
                json!({ "workload": workload.name, "set": set.label, "tool": tool.name(), "count": count }),
            );
        }
    }
    let plan = reindex(workload, &keep_schema, instance_sets);
    Plan {
        workload: plan,
        compiling,
        skipped_rows: Vec::new(),
    }
}

/// Keeps the schemas marked in `keep_schema`, renumbering the instances' schema indices.
fn reindex(workload: Workload, keep_schema: &[bool], instance_sets: Vec<InstanceSet>) -> Workload {
    let mut new_idx = vec![usize::MAX; workload.schemas.len()];
    let mut schemas = Vec::new();
    let mut drafts = Vec::new();
    let mut schema_names = Vec::new();
    for (schema_idx, ((schema, draft), name)) in workload
        .schemas
        .into_iter()
        .zip(workload.drafts)
        .zip(workload.schema_names)
        .enumerate()
    {
        if keep_schema[schema_idx] {
            new_idx[schema_idx] = schemas.len();
            schemas.push(schema);
            drafts.push(draft);
            schema_names.push(name);
        }
    }
    let instance_sets = instance_sets
        .into_iter()
        .map(|set| InstanceSet {
            instances: set
                .instances
                .into_iter()
                .map(|(schema_idx, instance)| (new_idx[schema_idx], instance))
                .collect(),
            ..set
        })
        .collect();
    Workload {
        schemas,
        drafts,
        schema_names,
        instance_sets,
        ..workload
    }
}

/// Records and loudly prints a skipped row.
fn skip(record: &mut RunRecord, workload: &str, tool: Tool, rows: &str, reason: &str) {
    eprintln!(
        "\n!!! oa-schema benchmark: SKIPPING {} on {workload} ({rows}): {reason}\n",
        tool.name()
    );
    record
        .skips
        .push(json!({ "workload": workload, "tool": tool.name(), "rows": rows, "reason": reason }));
}

/// [`skip`]s every row of `tool` on `workload`: its check did not finish in time.
fn skip_timed_out(record: &mut RunRecord, workload: &str, tool: Tool) {
    skip(
        record,
        workload,
        tool,
        "all",
        &format!("the check did not finish within {CHECK_TIME_LIMIT:?}"),
    );
}

/// Records and loudly prints a dropped keyword case or instance.
fn drop_case(record: &mut RunRecord, workload: &str, case: &str, set: &str, reason: &str) {
    eprintln!(
        "\n!!! oa-schema benchmark: DROPPING {workload} case {case} ({set}) for every tool: {reason}\n"
    );
    record
        .dropped
        .push(json!({ "workload": workload, "case": case, "set": set, "reason": reason }));
}

/// Records a tool's total error count on an instance set.
fn record_errors(
    record: &mut RunRecord,
    workload: &str,
    set: &InstanceSet,
    tool: Tool,
    outcomes: &[(bool, usize)],
) {
    let count: usize = outcomes.iter().map(|(_, n_errors)| n_errors).sum();
    record
        .error_counts
        .push(json!({ "workload": workload, "set": set.label, "tool": tool.name(), "count": count }));
}

/// A copy of a workload, for the rare case where a timed-out check thread still holds the original.
fn clone_workload(workload: &Workload) -> Workload {
    Workload {
        name: workload.name.clone(),
        schemas: workload.schemas.clone(),
        drafts: workload.drafts.clone(),
        schema_names: workload.schema_names.clone(),
        instance_sets: workload
            .instance_sets
            .iter()
            .map(|set| InstanceSet {
                label: set.label,
                expect_valid: set.expect_valid,
                instances: set.instances.clone(),
            })
            .collect(),
        format_assertion: workload.format_assertion,
    }
}
