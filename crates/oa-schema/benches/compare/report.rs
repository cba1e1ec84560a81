//! The report: reads criterion's `new/benchmark.json` and `new/estimates.json` files and the benchmark's own
//! `oa-bench-run.json` and `oa-bench-paired.json`, and renders the Markdown table of ratios oa-schema ÷ peer with
//! geometric means, the acceptance checks of issues 5 and 26, the error counts and every skip.
//!
//! Two ratios oa-schema ÷ jsonschema per row: criterion's (its median for oa-schema ÷ its median for jsonschema,
//! measured one after the other) and the paired one (the median of interleaved rounds' ratios, see `paired.rs`).
//! The paired ratio is the ratio of record: every acceptance line and geomean against jsonschema reads it, and falls
//! back to criterion's only for a row without a paired result (marked `*`). Ratios to boon are criterion's.
//!
//! Shared by the benchmark (printed after a run) and `examples/bench_report.rs` (re-rendered from disk).

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Report order of the operations (the part of a criterion group id after the workload name).
const OPERATIONS: [&str; 5] = [
    "compile",
    "is_valid valid",
    "is_valid invalid",
    "errors valid",
    "errors invalid",
];

/// The tools, ours first, as the benchmark names them.
const TOOLS: [&str; 3] = ["oa-schema", "jsonschema", "boon"];

/// Issue 5's limits: the geometric mean against jsonschema, any one row against jsonschema, `is_valid` against boon.
const GEOMEAN_LIMIT: f64 = 1.0;
/// See [`GEOMEAN_LIMIT`].
const ROW_LIMIT_JSONSCHEMA: f64 = 2.0;
/// See [`GEOMEAN_LIMIT`].
const IS_VALID_LIMIT_BOON: f64 = 0.5;

/// Issue 26's small-schema set: the workloads whose names start with this (see `small.rs`, `schemastore.rs`).
const SMALL_PREFIX: &str = "small-";
/// Issue 26's targets: geomean oa ÷ jsonschema per operation on the small-schema set, on every other set, and the
/// limit for any one row.
const SMALL_TARGET: f64 = 0.8;
/// See [`SMALL_TARGET`].
const OTHER_TARGET: f64 = 1.0;
/// See [`SMALL_TARGET`].
const ROW_LIMIT_ISSUE_26: f64 = 1.5;

/// The paired pass's results, beside criterion's (written by the benchmark at the end of a run).
pub(crate) const PAIRED_FILE: &str = "oa-bench-paired.json";

/// Where criterion writes: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else the workspace's
/// `target/criterion` (criterion's own order of preference).
pub(crate) fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion")
}

/// One measured benchmark: median time in nanoseconds, keyed by (workload, operation, tool).
type Medians = BTreeMap<(String, String, String), f64>;

/// A paired ratio oa-schema ÷ jsonschema: median, first and third quartile of the round ratios.
#[derive(Debug, Clone, Copy)]
struct Paired {
    median: f64,
    q1: f64,
    q3: f64,
}

/// The paired results by (workload, operation), if the file was written by this run.
fn read_paired(criterion_dir: &Path, started_unix: Option<u64>) -> BTreeMap<(String, String), Paired> {
    let path = criterion_dir.join(PAIRED_FILE);
    let fresh = std::fs::metadata(&path)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .is_some_and(|elapsed| started_unix.is_none_or(|started| elapsed.as_secs() >= started));
    let mut paired = BTreeMap::new();
    let Some(rows) = fresh
        .then(|| read_json(&path).ok())
        .flatten()
        .and_then(|file| file.get("rows").and_then(Value::as_array).cloned())
    else {
        return paired;
    };
    for row in &rows {
        let text = |name: &str| row.get(name).and_then(Value::as_str).map(str::to_owned);
        let number = |name: &str| row.get(name).and_then(Value::as_f64);
        if let (Some(workload), Some(operation), Some(median), Some(q1), Some(q3)) = (
            text("workload"),
            text("operation"),
            number("median"),
            number("q1"),
            number("q3"),
        ) {
            paired.insert((workload, operation), Paired { median, q1, q3 });
        }
    }
    paired
}

/// Renders the whole report as Markdown.
///
/// # Errors
/// A message when the criterion folder holds no results from the current run.
pub(crate) fn render(criterion_dir: &Path) -> Result<String, String> {
    let run = read_json(&criterion_dir.join("oa-bench-run.json")).ok();
    let started_unix = run
        .as_ref()
        .and_then(|run| run.get("started_unix"))
        .and_then(Value::as_u64);
    let mut medians = Medians::new();
    let mut n_stale = 0usize;
    collect(criterion_dir, started_unix, &mut medians, &mut n_stale)?;
    if medians.is_empty() {
        return Err(format!(
            "no criterion results from this run under {}",
            criterion_dir.display()
        ));
    }
    let workload_order: Vec<String> = run
        .as_ref()
        .and_then(|run| run.get("workloads"))
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();

    let paired = read_paired(criterion_dir, started_unix);
    let mut out = String::new();
    let rows = rows(&medians, &paired, &workload_order);
    if paired.is_empty() {
        out.push_str(
            "**No paired results from this run**: every line against jsonschema reads criterion's ratio of \
             medians.\n\n",
        );
    } else {
        out.push_str(
            "**Ratio of record against jsonschema: the paired ratio** (median of interleaved rounds' ratios; IQR in \
             brackets). Every geomean and acceptance line against jsonschema reads it (`*`: criterion's ratio, for \
             a row without a paired result). Criterion's ratio of medians is shown beside it; ratios to boon are \
             criterion's.\n\n",
        );
    }
    render_table(&mut out, &rows);
    render_geomeans(&mut out, &rows);
    render_acceptance(&mut out, &rows);
    render_sets(&mut out, &rows);
    if let Some(run) = &run {
        render_error_counts(&mut out, run);
        render_skips(&mut out, run);
    } else {
        out.push_str("\n(no oa-bench-run.json: skips and error counts unknown)\n");
    }
    if n_stale > 0 {
        let _ = writeln!(
            out,
            "\n({n_stale} older criterion results in the folder were ignored: not from this run.)"
        );
    }
    Ok(out)
}

/// One table row: a workload's operation, with each tool's median if measured and the paired ratio.
struct Row {
    workload: String,
    operation: String,
    oa: Option<f64>,
    jsonschema: Option<f64>,
    boon: Option<f64>,
    paired: Option<Paired>,
}

impl Row {
    /// The ratio of record oa ÷ jsonschema: the paired one, else criterion's.
    fn ratio_jsonschema(&self) -> Option<f64> {
        self.paired
            .map(|paired| paired.median)
            .or_else(|| self.criterion_jsonschema())
    }

    /// Criterion's ratio of medians oa ÷ jsonschema.
    fn criterion_jsonschema(&self) -> Option<f64> {
        Some(self.oa? / self.jsonschema?)
    }

    fn ratio_boon(&self) -> Option<f64> {
        Some(self.oa? / self.boon?)
    }

    /// `compile`, `is_valid` or `errors`.
    fn family(&self) -> &str {
        self.operation.split(' ').next().unwrap_or("")
    }
}

/// Walks the criterion folder for `new/benchmark.json`, keeping results written since `started_unix`.
fn collect(
    dir: &Path,
    started_unix: Option<u64>,
    medians: &mut Medians,
    n_stale: &mut usize,
) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let benchmark = path.join("benchmark.json");
        if path.file_name().is_some_and(|name| name == "new") && benchmark.is_file() {
            let estimates = path.join("estimates.json");
            if let Some(started) = started_unix {
                let modified = std::fs::metadata(&estimates)
                    .and_then(|meta| meta.modified())
                    .ok()
                    .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |elapsed| elapsed.as_secs());
                if modified < started {
                    *n_stale += 1;
                    continue;
                }
            }
            let id = read_json(&benchmark)?;
            let median = read_json(&estimates)?
                .pointer("/median/point_estimate")
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("{} has no median", estimates.display()))?;
            let group = id.get("group_id").and_then(Value::as_str).unwrap_or("");
            let tool = id.get("function_id").and_then(Value::as_str).unwrap_or("");
            if let Some((workload, operation)) = group.split_once('/') {
                medians.insert(
                    (workload.to_owned(), operation.to_owned(), tool.to_owned()),
                    median,
                );
            }
        } else {
            collect(&path, started_unix, medians, n_stale)?;
        }
    }
    Ok(())
}

/// The rows in report order: workloads as the run listed them (others after, by name), operations as
/// [`OPERATIONS`].
fn rows(
    medians: &Medians,
    paired: &BTreeMap<(String, String), Paired>,
    workload_order: &[String],
) -> Vec<Row> {
    let mut workloads: Vec<String> = workload_order.to_vec();
    for (workload, _, _) in medians.keys() {
        if !workloads.contains(workload) {
            workloads.push(workload.clone());
        }
    }
    let get = |workload: &str, operation: &str, tool: &str| {
        medians
            .get(&(workload.to_owned(), operation.to_owned(), tool.to_owned()))
            .copied()
    };
    let mut rows = Vec::new();
    for workload in &workloads {
        for operation in OPERATIONS {
            let [oa, jsonschema, boon] = TOOLS.map(|tool| get(workload, operation, tool));
            if oa.is_some() || jsonschema.is_some() || boon.is_some() {
                rows.push(Row {
                    workload: workload.clone(),
                    operation: operation.to_owned(),
                    oa,
                    jsonschema,
                    boon,
                    paired: paired.get(&(workload.clone(), operation.to_owned())).copied(),
                });
            }
        }
    }
    rows
}

fn render_table(out: &mut String, rows: &[Row]) {
    out.push_str(
        "| workload | operation | oa-schema | jsonschema | boon | oa ÷ jsonschema, paired (IQR) | criterion's | \
         oa ÷ boon |\n",
    );
    out.push_str("|---|---|--:|--:|--:|--:|--:|--:|\n");
    for row in rows {
        let js_mark = match row.ratio_jsonschema() {
            Some(ratio) if ratio > ROW_LIMIT_JSONSCHEMA => " ✗",
            Some(ratio) if ratio > 1.0 => " ▲",
            _ => "",
        };
        let boon_mark = match row.ratio_boon() {
            Some(ratio) if row.family() == "is_valid" && ratio > IS_VALID_LIMIT_BOON => " ✗",
            _ => "",
        };
        let of_record = match row.paired {
            Some(paired) => format!("{:.2} ({:.2}–{:.2})", paired.median, paired.q1, paired.q3),
            None => format!("{}*", ratio(row.ratio_jsonschema())),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {of_record}{js_mark} | {} | {}{boon_mark} |",
            row.workload,
            row.operation,
            time(row.oa),
            time(row.jsonschema),
            time(row.boon),
            ratio(row.criterion_jsonschema()),
            ratio(row.ratio_boon()),
        );
    }
    out.push_str(
        "\nCriterion's medians per iteration (one iteration = every schema of the row compiled, or every instance of \
         the row validated). The paired ratio's rounds: see `oa-bench-paired.json`. ▲ slower than jsonschema; ✗ \
         beyond issue 5's limit (above 2.0 against jsonschema, above 0.5 against boon for `is_valid`); — not \
         measured (see the skips).\n",
    );
}

fn render_geomeans(out: &mut String, rows: &[Row]) {
    out.push_str(
        "\n| operation | geomean oa ÷ jsonschema (of record) | criterion's | rows | geomean oa ÷ boon | rows |\n\
         |---|--:|--:|--:|--:|--:|\n",
    );
    for family in ["compile", "is_valid", "errors", "all"] {
        let in_family: Vec<&Row> = rows
            .iter()
            .filter(|row| family == "all" || row.family() == family)
            .collect();
        let (js, n_js) = geomean(in_family.iter().filter_map(|row| row.ratio_jsonschema()));
        let (criterion, _) = geomean(in_family.iter().filter_map(|row| row.criterion_jsonschema()));
        let (boon, n_boon) = geomean(in_family.iter().filter_map(|row| row.ratio_boon()));
        let _ = writeln!(
            out,
            "| {family} | {} | {} | {n_js} | {} | {n_boon} |",
            ratio(js),
            ratio(criterion),
            ratio(boon)
        );
    }
}

fn render_acceptance(out: &mut String, rows: &[Row]) {
    out.push_str("\nIssue 5 acceptance, this run:\n\n");
    for family in ["compile", "is_valid", "errors"] {
        let (js, _) = geomean(
            rows.iter()
                .filter(|row| row.family() == family)
                .filter_map(Row::ratio_jsonschema),
        );
        let verdict = match js {
            Some(value) if value <= GEOMEAN_LIMIT => "met",
            Some(_) => "MISSED",
            None => "not measured",
        };
        let _ = writeln!(
            out,
            "- geomean oa ÷ jsonschema for {family} at most {GEOMEAN_LIMIT}: {verdict} ({})",
            ratio(js)
        );
    }
    let over = |limit: f64, family: Option<&str>, pick: fn(&Row) -> Option<f64>| -> Vec<String> {
        rows.iter()
            .filter(|row| family.is_none_or(|family| row.family() == family))
            .filter_map(|row| pick(row).filter(|value| *value > limit).map(|value| (row, value)))
            .map(|(row, value)| format!("{} {} ({value:.2})", row.workload, row.operation))
            .collect()
    };
    let list = |items: Vec<String>| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join("; ")
        }
    };
    let _ = writeln!(
        out,
        "- rows above {ROW_LIMIT_JSONSCHEMA} against jsonschema: {}",
        list(over(ROW_LIMIT_JSONSCHEMA, None, Row::ratio_jsonschema))
    );
    let _ = writeln!(
        out,
        "- `is_valid` rows above {IS_VALID_LIMIT_BOON} against boon: {}",
        list(over(IS_VALID_LIMIT_BOON, Some("is_valid"), Row::ratio_boon))
    );
    let _ = writeln!(
        out,
        "- rows above 1.0 against jsonschema (the longer goal): {}",
        list(over(1.0, None, Row::ratio_jsonschema))
    );
    let missing: Vec<String> = rows
        .iter()
        .filter(|row| row.oa.is_none() || row.jsonschema.is_none() || row.boon.is_none())
        .map(|row| format!("{} {}", row.workload, row.operation))
        .collect();
    let _ = writeln!(out, "- rows where a tool was not measured: {}", list(missing));
}

/// Issue 26: per set (small-schema against every other), then per workload, the geomean oa ÷ jsonschema of each
/// operation against its target, and every row above [`ROW_LIMIT_ISSUE_26`].
fn render_sets(out: &mut String, rows: &[Row]) {
    out.push_str(
        "\nIssue 26, geomean oa ÷ jsonschema per workload set, the ratio of record (criterion's ratio of medians and \
         the rows in brackets; ✗ above the target: 0.8 for the small-schema set, 1.0 for every other):\n\n",
    );
    out.push_str("| workload set | compile | is_valid | errors |\n|---|--:|--:|--:|\n");
    let mut sets = vec![
        (
            "**small-schema set** (`small-*`)".to_owned(),
            RowSet::Small,
            SMALL_TARGET,
        ),
        ("every other workload set".to_owned(), RowSet::Other, OTHER_TARGET),
    ];
    for row in rows {
        if !sets
            .iter()
            .any(|(_, set, _)| matches!(set, RowSet::Workload(name) if *name == row.workload))
        {
            let target = if row.workload.starts_with(SMALL_PREFIX) {
                SMALL_TARGET
            } else {
                OTHER_TARGET
            };
            sets.push((row.workload.clone(), RowSet::Workload(&row.workload), target));
        }
    }
    for (label, set, target) in &sets {
        let cells = ["compile", "is_valid", "errors"].map(|family| {
            let in_set = || rows.iter().filter(|row| set.holds(row) && row.family() == family);
            let (value, count) = geomean(in_set().filter_map(Row::ratio_jsonschema));
            let (criterion, _) = geomean(in_set().filter_map(Row::criterion_jsonschema));
            let verdict = if value.is_some_and(|value| value > *target) {
                " ✗"
            } else {
                ""
            };
            format!("{}{verdict} ({}; {count})", ratio(value), ratio(criterion))
        });
        let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
    }
    let above: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            row.ratio_jsonschema()
                .filter(|value| *value > ROW_LIMIT_ISSUE_26)
                .map(|value| format!("{} {} ({value:.2})", row.workload, row.operation))
        })
        .collect();
    let _ = writeln!(
        out,
        "\n- rows above {ROW_LIMIT_ISSUE_26} against jsonschema (issue 26's row limit): {}",
        if above.is_empty() {
            "none".to_owned()
        } else {
            above.join("; ")
        }
    );
}

/// The rows a line of issue 26's table covers.
enum RowSet<'a> {
    /// The small-schema set (`small-*`).
    Small,
    /// Every other workload.
    Other,
    /// One workload.
    Workload(&'a str),
}

impl RowSet<'_> {
    fn holds(&self, row: &Row) -> bool {
        match self {
            RowSet::Small => row.workload.starts_with(SMALL_PREFIX),
            RowSet::Other => !row.workload.starts_with(SMALL_PREFIX),
            RowSet::Workload(name) => row.workload == *name,
        }
    }
}

fn render_error_counts(out: &mut String, run: &Value) {
    let Some(counts) = run.get("error_counts").and_then(Value::as_array) else {
        return;
    };
    // (workload, set) -> tool -> count, in run order.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut table: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    for entry in counts {
        let field = |name: &str| entry.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
        let key = (field("workload"), field("set"));
        if !order.contains(&key) {
            order.push(key.clone());
        }
        table.insert(
            (key.0, key.1, field("tool")),
            entry.get("count").and_then(Value::as_u64).unwrap_or(0),
        );
    }
    out.push_str(
        "\nErrors reported by full collection (per row, summed over its instances; the tools report at different \
         granularity: oa-schema's violations, jsonschema's `iter_errors` items, boon's error-tree leaves):\n\n",
    );
    out.push_str("| workload | set | oa-schema | jsonschema | boon |\n|---|---|--:|--:|--:|\n");
    for (workload, set) in &order {
        let cell = |tool: &str| {
            table
                .get(&(workload.clone(), set.clone(), tool.to_owned()))
                .map_or_else(|| "—".to_owned(), u64::to_string)
        };
        let _ = writeln!(
            out,
            "| {workload} | {set} | {} | {} | {} |",
            cell("oa-schema"),
            cell("jsonschema"),
            cell("boon")
        );
    }
}

fn render_skips(out: &mut String, run: &Value) {
    let field = |entry: &Value, name: &str| entry.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
    // One list: its heading with the count, "- none" or one line per entry, the entry's label and its reason.
    let list = |out: &mut String, key: &str, heading: &str, label: &dyn Fn(&Value) -> String| {
        let entries = run
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let _ = writeln!(out, "\n{heading} ({}):\n", entries.len());
        if entries.is_empty() {
            out.push_str("- none\n");
        }
        for entry in &entries {
            let reason = field(entry, "reason").replace('\n', " ");
            let _ = writeln!(out, "- {}: {reason}", label(entry));
        }
    };
    list(out, "skips", "Skipped rows", &|entry| {
        format!(
            "{} on {} ({})",
            field(entry, "tool"),
            field(entry, "workload"),
            field(entry, "rows")
        )
    });
    list(
        out,
        "dropped",
        "Keyword cases or instances dropped for every tool",
        &|entry| {
            format!(
                "{} {} ({})",
                field(entry, "workload"),
                field(entry, "case"),
                field(entry, "set")
            )
        },
    );
}

/// The geometric mean and the number of values.
fn geomean(values: impl Iterator<Item = f64>) -> (Option<f64>, usize) {
    let (sum_ln, count) = values.fold((0.0f64, 0usize), |(sum, count), value| {
        (sum + value.ln(), count + 1)
    });
    if count == 0 {
        (None, 0)
    } else {
        ((sum_ln / count as f64).exp().into(), count)
    }
}

fn ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |value| format!("{value:.2}"))
}

/// A median in a readable unit.
fn time(nanos: Option<f64>) -> String {
    match nanos {
        None => "—".to_owned(),
        Some(ns) if ns < 1e3 => format!("{ns:.0} ns"),
        Some(ns) if ns < 1e6 => format!("{:.1} µs", ns / 1e3),
        Some(ns) if ns < 1e9 => format!("{:.1} ms", ns / 1e6),
        Some(ns) => format!("{:.2} s", ns / 1e9),
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    serde_json::from_str(&text).map_err(|err| format!("{} is not JSON: {err}", path.display()))
}
