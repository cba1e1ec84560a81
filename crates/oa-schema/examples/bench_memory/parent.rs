//! The parent: builds the workloads, runs one child per row, prints the tables and judges the bound.

use super::*;

/// Command-line options of the parent.
#[derive(Debug)]
pub(crate) struct Options {
    /// Only workloads whose name starts with this.
    workload_prefix: Option<String>,
    /// Whether jsonschema and boon are measured too (for context; they never fail the run).
    peers: bool,
    /// Calls per measurement.
    repeats: u32,
    /// Whether children keep glibc's default malloc settings.
    plain_malloc: bool,
}

impl Options {
    /// Parses the options listed in the module docs.
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            workload_prefix: None,
            peers: true,
            repeats: 3,
            plain_malloc: false,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--workload" => {
                    options.workload_prefix =
                        Some(args.next().ok_or("--workload needs a name prefix")?.clone());
                }
                "--no-peers" => options.peers = false,
                "--plain-malloc" => options.plain_malloc = true,
                "--repeats" => {
                    options.repeats = args
                        .next()
                        .and_then(|value| value.parse().ok())
                        .filter(|repeats| *repeats > 0)
                        .ok_or("--repeats needs a positive number")?;
                }
                other => return Err(format!("unknown option {other:?}")),
            }
        }
        Ok(options)
    }
}

/// One row: a tool, an operation and the inputs it sees.
struct Row<'a> {
    workload: &'a str,
    /// `valid` or `invalid` for calls, empty for compile.
    set_label: &'static str,
    op: Op,
    tool: Tool,
    /// What the child receives on stdin.
    spec: Value,
    /// Compact JSON bytes of the schemas (and, for calls, the instances) of the row.
    input_bytes: u64,
}

/// One measured row.
#[derive(Debug)]
pub(crate) struct Measured {
    /// The workload's name.
    pub(crate) workload: String,
    /// `valid` or `invalid` for calls, empty for compile.
    pub(crate) set_label: &'static str,
    /// The operation.
    pub(crate) op: Op,
    /// The tool.
    pub(crate) tool: Tool,
    /// Compact JSON bytes of the schemas (and, for calls, the instances) of the row.
    pub(crate) input_bytes: u64,
    /// The child's figures (KiB and counts), or why it could not measure.
    pub(crate) result: Result<Value, String>,
}

impl Measured {
    /// A figure of the child's result (0 when absent or not measured).
    pub(crate) fn figure(&self, key: &str) -> u64 {
        self.result
            .as_ref()
            .ok()
            .and_then(|result| result.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// The heap bytes the bound applies to: for compile, its peak; for calls, the validators held plus the worst
    /// call's peak above the live bytes before it, less the report it returned.
    pub(crate) fn counted_bytes(&self) -> u64 {
        self.figure("counted_bytes")
    }

    /// Everything the row takes on the heap, report included (the peer table's figure, alike for every tool).
    pub(crate) fn total_bytes(&self) -> u64 {
        if self.op == Op::Compile {
            self.figure("peak_bytes")
        } else {
            self.figure("held_bytes") + self.figure("peak_bytes")
        }
    }

    /// Whether this is the reference row of the empty schema, which is shown but not judged.
    pub(crate) fn is_reference(&self) -> bool {
        self.workload == FLOOR
    }

    /// Whether the row was measured and stays within [`BOUND_FACTOR`] times its input bytes.
    pub(crate) fn is_within_bound(&self) -> bool {
        self.result.is_ok() && self.counted_bytes() <= BOUND_FACTOR * self.input_bytes
    }
}

/// Runs every row and prints the report; fails when an oa-schema row breaks the bound or cannot be measured.
pub(crate) fn run(options: &Options) -> ExitCode {
    let measured = match measure_all(options) {
        Ok(measured) => measured,
        Err(message) => {
            eprintln!("bench_memory: {message}");
            return ExitCode::FAILURE;
        }
    };
    let (table, n_broken) = oa_table(&measured);
    println!("{table}");
    if options.peers {
        println!("{}", peer_table(&measured));
    }
    if n_broken > 0 {
        eprintln!(
            "bench_memory: {n_broken} oa-schema row(s) break the {BOUND_FACTOR}x bound or were not measured"
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Builds the selected workloads and measures every row, one child each.
pub(crate) fn measure_all(options: &Options) -> Result<Vec<Measured>, String> {
    let workloads: Vec<Workload> = match &options.workload_prefix {
        // The LLM-shaped workloads are built in code: no need for bench-data.
        Some(prefix) if prefix.starts_with("llm-") => llm::all(),
        _ => workloads::all(),
    }
    .into_iter()
    .filter(|workload| {
        options
            .workload_prefix
            .as_ref()
            .is_none_or(|prefix| workload.name.starts_with(prefix.as_str()))
    })
    .collect();
    if workloads.is_empty() {
        return Err("no workload matches".to_owned());
    }
    let mut workloads = workloads;
    if options.workload_prefix.is_none() {
        workloads.insert(0, floor());
    }
    let tools: &[Tool] = if options.peers {
        &Tool::ALL
    } else {
        &[Tool::OaSchema]
    };

    let mut measured = Vec::new();
    for workload in &workloads {
        for row in rows(workload, tools) {
            let result = run_child(&row, options);
            if let Err(message) = &result {
                eprintln!(
                    "bench_memory: {} {} {} ({}): {message}",
                    row.workload,
                    row.op.name(),
                    row.set_label,
                    row.tool.name()
                );
            }
            measured.push(Measured {
                workload: row.workload.to_owned(),
                set_label: row.set_label,
                op: row.op,
                tool: row.tool,
                input_bytes: row.input_bytes,
                result,
            });
        }
    }
    Ok(measured)
}

/// The reference row: the empty schema `{}` on `null`, whose figures are the fixed cost of a validator and a
/// call whatever the input (shown, never judged).
fn floor() -> Workload {
    Workload {
        name: FLOOR.to_owned(),
        schemas: vec![json!({})],
        drafts: vec![oa_schema::Draft::Draft202012],
        schema_names: vec![FLOOR.to_owned()],
        instance_sets: vec![workloads::InstanceSet::valid(vec![(0, Value::Null)])],
        format_assertion: false,
    }
}

/// The rows of one workload: compile, then `is_valid` and `validate` per instance set, each for every tool.
fn rows<'a>(workload: &'a Workload, tools: &[Tool]) -> Vec<Row<'a>> {
    let schema_bytes: u64 = workload.schemas.iter().map(json_bytes).sum();
    let mut ops = vec![(Op::Compile, "", Vec::new())];
    for set in &workload.instance_sets {
        ops.push((Op::IsValid, set.label, set.instances.clone()));
        ops.push((Op::Validate, set.label, set.instances.clone()));
    }
    let mut rows = Vec::new();
    for (op, set_label, instances) in ops {
        let instance_bytes: u64 = instances.iter().map(|(_, instance)| json_bytes(instance)).sum();
        for tool in tools {
            rows.push(Row {
                workload: &workload.name,
                set_label,
                op,
                tool: *tool,
                spec: json!({
                    "schemas": workload.schemas,
                    "format_assertion": workload.format_assertion,
                    "instances": instances,
                }),
                input_bytes: schema_bytes + instance_bytes,
            });
        }
    }
    rows
}

/// The size of a document as compact JSON: the strictest fair reading of "its size" (files with whitespace are
/// larger, which would loosen the bound).
fn json_bytes(value: &Value) -> u64 {
    serde_json::to_vec(value).map_or(0, |bytes| bytes.len() as u64)
}

/// Spawns this executable as a child for one row and parses the one JSON line it prints.
fn run_child(row: &Row<'_>, options: &Options) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find own executable: {err}"))?;
    let mut command = Command::new(exe);
    command
        .args([
            "--child",
            row.tool.name(),
            row.op.name(),
            &options.repeats.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !options.plain_malloc {
        command.env("GLIBC_TUNABLES", MALLOC_TUNABLES);
    }
    let mut child = command
        .spawn()
        .map_err(|err| format!("cannot spawn child: {err}"))?;
    let spec_text = row.spec.to_string();
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(spec_text.as_bytes())
            .map_err(|err| format!("cannot write the child's input: {err}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|err| format!("child did not finish: {err}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "child failed ({}): {}{}",
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    serde_json::from_str(stdout.trim()).map_err(|err| format!("child printed no result ({err}): {stdout}"))
}

/// The oa-schema table and the number of rows that break the bound or were not measured.
fn oa_table(measured: &[Measured]) -> (String, usize) {
    let mut table = String::from(
        "| workload | op | input | bound | held | peak | report (violations) | counted | ratio | verdict | RSS peak | stack |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n",
    );
    let mut n_broken = 0;
    let mut notes = Vec::new();
    for row in measured.iter().filter(|row| row.tool == Tool::OaSchema) {
        let name = format!("{} {}", row.op.name(), row.set_label);
        if !row.is_within_bound() && !row.is_reference() {
            n_broken += 1;
        }
        if let Err(message) = &row.result {
            table.push_str(&format!(
                "| {} | {} | {} | | | | | | | NOT MEASURED: {} | | |\n",
                row.workload,
                name.trim(),
                format_bytes(row.input_bytes),
                message.replace('|', "/")
            ));
            continue;
        }
        let report_cell = if row.op == Op::Validate {
            format!(
                "{} ({})",
                format_bytes(row.figure("report_bytes")),
                row.figure("n_violations")
            )
        } else {
            "—".to_owned()
        };
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {} | {} | {} KiB |\n",
            row.workload,
            name.trim(),
            format_bytes(row.input_bytes),
            format_bytes(BOUND_FACTOR * row.input_bytes),
            format_bytes(row.figure("held_bytes")),
            format_bytes(row.figure("peak_bytes")),
            report_cell,
            format_bytes(row.counted_bytes()),
            row.counted_bytes() as f64 / row.input_bytes.max(1) as f64,
            if row.is_reference() {
                "reference"
            } else if row.is_within_bound() {
                "within"
            } else {
                "EXCEEDS"
            },
            rss_cell(row),
            row.figure("stack_kib"),
        ));
        let kept = row.figure("kept_bytes");
        if kept > 0 {
            notes.push(format!(
                "- {} {}: the first round of calls left {} live after it returned (state kept across calls, \
                 such as per-thread regex caches)",
                row.workload,
                name.trim(),
                format_bytes(kept)
            ));
        }
        let left = row.figure("left_bytes");
        if left > 0 {
            notes.push(format!(
                "- {} {}: {} stayed live after the validators were dropped",
                row.workload,
                name.trim(),
                format_bytes(left)
            ));
        }
    }
    if !notes.is_empty() {
        table.push('\n');
        table.push_str(&notes.join("\n"));
        table.push('\n');
    }
    (table, n_broken)
}

/// Context: every tool's heap bytes per row, report included for all (jsonschema drains its errors one by one,
/// so it holds no report; boon's error tree is its report): compile's peak, or the validators held plus the worst
/// call's peak.
fn peer_table(measured: &[Measured]) -> String {
    let mut table = String::from(
        "| workload | op | input | oa-schema | jsonschema | boon |\n|---|---|---:|---:|---:|---:|\n",
    );
    for row in measured.iter().filter(|row| row.tool == Tool::OaSchema) {
        let cell = |tool: Tool| {
            measured
                .iter()
                .find(|other| {
                    other.tool == tool
                        && other.workload == row.workload
                        && other.op == row.op
                        && other.set_label == row.set_label
                })
                .map_or_else(
                    || "—".to_owned(),
                    |other| match &other.result {
                        Ok(_) => format_bytes(other.total_bytes()),
                        Err(_) => "not measured".to_owned(),
                    },
                )
        };
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            row.workload,
            format!("{} {}", row.op.name(), row.set_label).trim(),
            format_bytes(row.input_bytes),
            cell(Tool::OaSchema),
            cell(Tool::Jsonschema),
            cell(Tool::Boon)
        ));
    }
    table
}

/// The resident cross-check: the row's peak RSS above the measuring thread's start, or a dash when the kernel's
/// peak could not be reset.
fn rss_cell(row: &Measured) -> String {
    match row
        .result
        .as_ref()
        .ok()
        .and_then(|result| result.get("rss_peak_kib"))
    {
        Some(Value::Number(kib)) => format!("{kib} KiB"),
        _ => "—".to_owned(),
    }
}

/// Bytes for the table: exact under 10 KiB, else KiB with one decimal.
pub(crate) fn format_bytes(bytes: u64) -> String {
    if bytes < 10 * 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}
