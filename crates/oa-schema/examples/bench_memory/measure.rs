//! The measurement behind `bench_memory`: the parent that builds the rows and judges the bound, and the child that
//! measures one row in a process of its own. Shared with `tests/memory.rs`; the method is described in
//! `examples/bench_memory.rs`.

use crate::llm;
use crate::tools::{self, Compiled, Tool};
use crate::workloads::{self, Workload};
use serde_json::{Value, json};
use std::hint::black_box;
use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

/// The bound: extra memory at most this many times the schema and instance bytes together.
pub(crate) const BOUND_FACTOR: u64 = 10;

/// How many reports (or compiled validators) are held at once to measure the size of one (amortizes the 4 KiB page
/// granularity).
const COPIES: u64 = 16;

/// Inputs from this size on (JSON text bytes) have their compiled validators measured as one copy, not [`COPIES`].
const LARGE_INPUT: usize = 256 << 10;

/// The name of the reference row (see `parent::floor`).
const FLOOR: &str = "empty schema {}";

/// How far (KiB) `VmHWM` may stay above `VmRSS` right after a reset (see `reset_peak`).
const RESET_SLACK_KIB: u64 = 64;

/// The glibc settings given to children (see the module docs); `--plain-malloc` turns them off.
const MALLOC_TUNABLES: &str = "glibc.malloc.trim_threshold=0:glibc.malloc.top_pad=0";

/// A measured operation; the names are those of the benchmark's rows (`validate` is its "errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Build the validators of every schema of the workload.
    Compile,
    /// The cheap question on every instance of a set.
    IsValid,
    /// Full error collection on every instance of a set (oa-schema's `validate`, jsonschema's `iter_errors`,
    /// boon's error tree).
    Validate,
}

impl Op {
    /// The name on the command line and in the table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Compile => "compile",
            Op::IsValid => "is_valid",
            Op::Validate => "validate",
        }
    }

    /// The inverse of [`Op::name`].
    fn from_name(name: &str) -> Option<Op> {
        [Op::Compile, Op::IsValid, Op::Validate]
            .into_iter()
            .find(|op| op.name() == name)
    }
}

/// The parent: builds the workloads, runs one child per row, prints the tables and judges the bound.
pub(crate) mod parent {
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

        /// The extra peak in KiB that the bound applies to: everything but the report.
        pub(crate) fn counted_kib(&self) -> u64 {
            self.figure("extra_kib").saturating_sub(self.figure("report_kib"))
        }

        /// Whether this is the reference row of the empty schema, which is shown but not judged.
        pub(crate) fn is_reference(&self) -> bool {
            self.workload == FLOOR
        }

        /// Whether the row was measured and stays within [`BOUND_FACTOR`] times its input bytes.
        pub(crate) fn is_within_bound(&self) -> bool {
            self.result.is_ok() && self.counted_kib() * 1024 <= BOUND_FACTOR * self.input_bytes
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
        serde_json::from_str(stdout.trim())
            .map_err(|err| format!("child printed no result ({err}): {stdout}"))
    }

    /// The oa-schema table and the number of rows that break the bound or were not measured.
    fn oa_table(measured: &[Measured]) -> (String, usize) {
        let mut table = String::from(
            "| workload | op | input | held | call peak | extra peak | of which stack | report (violations) | counted | ratio | verdict |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
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
                    "| {} | {} | {} | | | | | | | | NOT MEASURED: {} |\n",
                    row.workload,
                    name.trim(),
                    format_bytes(row.input_bytes),
                    message.replace('|', "/")
                ));
                continue;
            }
            let report_cell = if row.op == Op::Validate {
                format!(
                    "{} KiB ({})",
                    row.figure("report_kib"),
                    row.figure("n_violations")
                )
            } else {
                "—".to_owned()
            };
            table.push_str(&format!(
                "| {} | {} | {} | {} | {} KiB | {} KiB | {} KiB | {} | {} KiB | {:.1} | {} |\n",
                row.workload,
                name.trim(),
                format_bytes(row.input_bytes),
                held_cell(row),
                row.figure("call_peak_kib"),
                row.figure("extra_kib"),
                row.figure("stack_kib"),
                report_cell,
                row.counted_kib(),
                (row.counted_kib() * 1024) as f64 / row.input_bytes.max(1) as f64,
                if row.is_reference() {
                    "reference"
                } else if row.is_within_bound() {
                    "within"
                } else {
                    "EXCEEDS"
                }
            ));
            let kept = row.figure("first_call_kept_kib");
            if kept > 64 {
                notes.push(format!(
                    "- {} {}: the first call left {kept} KiB resident after it returned (state kept across calls, \
                     such as per-thread regex caches, or allocator retention)",
                    row.workload,
                    name.trim()
                ));
            }
            let growth = row.figure("growth_kib");
            if growth > 8 {
                notes.push(format!(
                    "- {} {}: resident memory grew by {growth} KiB between the first and the last call",
                    row.workload,
                    name.trim()
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

    /// Context: every tool's extra peak per row, report included for all (jsonschema drains its errors one by one,
    /// so it holds no report; boon's error tree is its report).
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
                            Ok(_) => format!("{} KiB", other.figure("extra_kib")),
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

    /// What the compiled validators hold: after one compile (with the stack it touched), and for compile rows, in
    /// parentheses, one copy alone (amortized over [`COPIES`] copies held at once).
    fn held_cell(row: &Measured) -> String {
        if row.op == Op::Compile {
            format!(
                "{} KiB ({} KiB)",
                row.figure("held_kib"),
                row.figure("validator_kib")
            )
        } else {
            format!("{} KiB", row.figure("held_kib"))
        }
    }

    /// Bytes for the table: plain under 10 KiB, else KiB.
    fn format_bytes(bytes: u64) -> String {
        if bytes < 10 * 1024 {
            format!("{bytes} B")
        } else {
            format!("{:.0} KiB", bytes as f64 / 1024.0)
        }
    }
}

/// The child: measures one row in a process of its own and prints one JSON line.
pub(crate) mod child {
    use super::*;

    /// The row's inputs, as parsed from stdin.
    struct Inputs {
        /// Bytes of the JSON text the inputs came in.
        text_bytes: usize,
        schemas: Vec<Value>,
        format_assertion: bool,
        instances: Vec<(usize, Value)>,
    }

    /// Runs the child for `args` = `[tool, op, repeats]`; the inputs come on stdin.
    pub(crate) fn run(args: &[String]) -> ExitCode {
        let outcome = parse_args(args).and_then(|(tool, op, repeats)| {
            let inputs = read_inputs()?;
            measure_row(tool, op, repeats, &inputs)
        });
        match outcome {
            Ok(result) => {
                println!("{result}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                println!("{}", json!({ "error": message }));
                ExitCode::FAILURE
            }
        }
    }

    fn parse_args(args: &[String]) -> Result<(Tool, Op, u32), String> {
        let [tool, op, repeats] = args else {
            return Err("usage: --child TOOL OP REPEATS".to_owned());
        };
        let tool = Tool::ALL
            .into_iter()
            .find(|candidate| candidate.name() == tool)
            .ok_or_else(|| format!("unknown tool {tool:?}"))?;
        let op = Op::from_name(op).ok_or_else(|| format!("unknown operation {op:?}"))?;
        let repeats = repeats
            .parse()
            .map_err(|_| format!("bad repeat count {repeats:?}"))?;
        Ok((tool, op, repeats))
    }

    /// Reads and parses the row's inputs; the text is dropped before anything is measured.
    fn read_inputs() -> Result<Inputs, String> {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|err| format!("cannot read stdin: {err}"))?;
        let mut spec: Value =
            serde_json::from_str(&text).map_err(|err| format!("stdin is not JSON: {err}"))?;
        let text_bytes = text.len();
        drop(text);
        let schemas = match spec["schemas"].take() {
            Value::Array(schemas) => schemas,
            _ => return Err("no schemas".to_owned()),
        };
        let format_assertion = spec["format_assertion"].as_bool().unwrap_or(false);
        let instances = match spec["instances"].take() {
            Value::Array(pairs) => pairs
                .into_iter()
                .map(|pair| match pair {
                    Value::Array(mut pair) if pair.len() == 2 => {
                        let instance = pair.pop().unwrap_or(Value::Null);
                        let schema_idx = pair[0].as_u64().ok_or("bad schema index")? as usize;
                        Ok((schema_idx, instance))
                    }
                    _ => Err("bad instance pair".to_owned()),
                })
                .collect::<Result<Vec<_>, String>>()?,
            _ => Vec::new(),
        };
        Ok(Inputs {
            text_bytes,
            schemas,
            format_assertion,
            instances,
        })
    }

    /// Warms up on this thread, then measures on a fresh one (see the module docs).
    fn measure_row(tool: Tool, op: Op, repeats: u32, inputs: &Inputs) -> Result<Value, String> {
        // Warm-up: the binary's code pages and any one-time state become resident now, not during the measurement.
        {
            let validators = compile_all(tool, inputs)?;
            if op != Op::Compile {
                call_all(tool, op, &validators, inputs);
            }
        }
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("measure".to_owned())
                .stack_size(16 << 20)
                .spawn_scoped(scope, || measure(tool, op, repeats, inputs))
                .map_err(|err| format!("cannot spawn the measuring thread: {err}"))?
                .join()
                .map_err(|_| "the measuring thread panicked".to_owned())?
        })
    }

    /// The measurement proper, on the fresh thread.
    fn measure(tool: Tool, op: Op, repeats: u32, inputs: &Inputs) -> Result<Value, String> {
        fill_free_memory()?;
        reset_peak()?;
        let baseline = status()?;
        let baseline_stack = stack_kib()?;

        if op == Op::Compile {
            let mut held = 0;
            for repeat in 0..repeats {
                let validators = compile_all(tool, inputs)?;
                if repeat == 0 {
                    held = status()?.rss.saturating_sub(baseline.rss);
                }
                drop(black_box(validators));
            }
            let peak = status()?.hwm.saturating_sub(baseline.rss);
            // The compiled validators alone, amortized over many copies held at once (no stack, no transients).
            fill_free_memory()?;
            let before_copies = status()?.rss;
            // Large schemas need no amortizing, and sixteen copies of a large validator would be a burden.
            let n_copies = if inputs.text_bytes < LARGE_INPUT {
                COPIES
            } else {
                1
            };
            let copies = (0..n_copies)
                .map(|_| compile_all(tool, inputs))
                .collect::<Result<Vec<_>, String>>()?;
            let validator = status()?.rss.saturating_sub(before_copies).div_ceil(n_copies);
            drop(black_box(copies));
            return Ok(json!({
                "validator_kib": validator,
                "baseline_kib": baseline.rss,
                "stack_kib": stack_kib()?.saturating_sub(baseline_stack),
                "held_kib": held,
                "call_peak_kib": peak,
                "extra_kib": peak,
            }));
        }

        let validators = compile_all(tool, inputs)?;
        let held = status()?.rss.saturating_sub(baseline.rss);
        fill_free_memory()?;
        reset_peak()?;
        let before_calls = status()?;
        let mut after_first = 0;
        let mut counts = (0, 0);
        for repeat in 0..repeats {
            counts = call_all(tool, op, &validators, inputs);
            if repeat == 0 {
                after_first = status()?.rss;
            }
        }
        let after_calls = status()?;
        let call_peak = after_calls.hwm.saturating_sub(before_calls.rss);
        let (n_valid, n_violations) = counts;

        let report = if op == Op::Validate && tool == Tool::OaSchema {
            report_kib(&validators, inputs)?
        } else {
            0
        };
        Ok(json!({
            "baseline_kib": baseline.rss,
            "stack_kib": stack_kib()?.saturating_sub(baseline_stack),
            "held_kib": held,
            "call_peak_kib": call_peak,
            "extra_kib": held + call_peak,
            "report_kib": report,
            "n_valid": n_valid,
            "n_violations": n_violations,
            "growth_kib": after_calls.rss.saturating_sub(after_first),
            "first_call_kept_kib": after_first.saturating_sub(before_calls.rss),
        }))
    }

    /// Compiles every schema of the row, as the benchmark's compile row does.
    fn compile_all(tool: Tool, inputs: &Inputs) -> Result<Vec<Compiled>, String> {
        inputs
            .schemas
            .iter()
            .map(|schema| tools::compile(tool, schema, inputs.format_assertion))
            .collect()
    }

    /// Calls the operation once on every instance, dropping each report at once; returns (valid instances,
    /// violations counted).
    fn call_all(tool: Tool, op: Op, validators: &[Compiled], inputs: &Inputs) -> (usize, usize) {
        let mut n_valid = 0;
        let mut n_violations = 0;
        for (schema_idx, instance) in &inputs.instances {
            let Some(validator) = validators.get(*schema_idx) else {
                continue;
            };
            match op {
                Op::Compile => {}
                Op::IsValid => n_valid += usize::from(validator.is_valid(black_box(instance))),
                Op::Validate => {
                    let n_errors = match (tool, validator) {
                        (Tool::OaSchema, Compiled::OaSchema(validator)) => validator
                            .validate(black_box(instance))
                            .err()
                            .map_or(0, |report| report.len()),
                        _ => validator.count_errors(black_box(instance)),
                    };
                    n_valid += usize::from(n_errors == 0);
                    n_violations += n_errors;
                }
            }
        }
        (n_valid, n_violations)
    }

    /// The resident size of one oa-schema report, in KiB: the instance with the most violations is validated
    /// [`COPIES`] times with every report kept.
    fn report_kib(validators: &[Compiled], inputs: &Inputs) -> Result<u64, String> {
        let worst = inputs
            .instances
            .iter()
            .filter_map(|(schema_idx, instance)| match validators.get(*schema_idx) {
                Some(Compiled::OaSchema(validator)) => {
                    let n_violations = validator
                        .validate(instance)
                        .err()
                        .map_or(0, |report| report.len());
                    Some((n_violations, validator, instance))
                }
                _ => None,
            })
            .max_by_key(|(n_violations, _, _)| *n_violations);
        let Some((n_violations, validator, instance)) = worst else {
            return Ok(0);
        };
        if n_violations == 0 {
            return Ok(0);
        }
        fill_free_memory()?;
        let before = status()?.rss;
        let reports: Vec<_> = (0..COPIES).map(|_| validator.validate(instance)).collect();
        let after = status()?.rss;
        drop(black_box(reports));
        Ok(after.saturating_sub(before).div_ceil(COPIES))
    }

    /// `VmRSS` and `VmHWM` of this process, in KiB.
    #[derive(Debug, Clone, Copy)]
    struct Status {
        rss: u64,
        hwm: u64,
    }

    /// Reads `/proc/self/status` (Linux).
    fn status() -> Result<Status, String> {
        let text = std::fs::read_to_string("/proc/self/status")
            .map_err(|err| format!("cannot read /proc/self/status (Linux only): {err}"))?;
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .ok_or_else(|| format!("/proc/self/status has no {name}"))
        };
        Ok(Status {
            rss: field("VmRSS:")?,
            hwm: field("VmHWM:")?,
        })
    }

    /// The resident part of the calling thread's stack in KiB, from the `/proc/self/smaps` mapping that holds a
    /// local of this function (the measuring thread's own stack, mapped fresh when the thread started).
    fn stack_kib() -> Result<u64, String> {
        let marker = 0u8;
        let address = std::ptr::from_ref(black_box(&marker)) as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps")
            .map_err(|err| format!("cannot read /proc/self/smaps (Linux only): {err}"))?;
        let mut in_stack = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((start, end)) = range.split_once('-')
                && let (Ok(start), Ok(end)) =
                    (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16))
            {
                in_stack = (start..end).contains(&address);
            } else if in_stack && let Some(rest) = line.strip_prefix("Rss:") {
                return rest
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad Rss line in /proc/self/smaps: {line}"));
            }
        }
        Err("no /proc/self/smaps mapping holds the stack".to_owned())
    }

    /// Resets `VmHWM` to the current `VmRSS` (Linux 4.0 and later: writing 5 to `clear_refs`).
    ///
    /// Memory can be given back between the reset and the check (glibc trims freed memory at once here), so a
    /// peak a few pages above the current size passes; a peak that did not move at all from a higher value does
    /// not. Readings taken against a peak left that way only err upwards.
    fn reset_peak() -> Result<(), String> {
        let before = status()?;
        std::fs::write("/proc/self/clear_refs", "5")
            .map_err(|err| format!("cannot reset the peak through /proc/self/clear_refs: {err}"))?;
        let after = status()?;
        if after.hwm > after.rss + RESET_SLACK_KIB && after.hwm >= before.hwm {
            return Err(format!(
                "the peak did not reset (VmHWM {} KiB, VmRSS {} KiB)",
                after.hwm, after.rss
            ));
        }
        Ok(())
    }

    /// Takes up the memory the allocator already holds, so that what is measured next must take fresh pages.
    ///
    /// Freed memory that is still resident (holes left by parsing, compiling or earlier calls) would otherwise be
    /// reused without any change in `VmRSS`, and the measurement would come out too low. The blocks are leaked on
    /// purpose: this process exits right after measuring. glibc first serves a small request from its per-size
    /// caches (tcache: drained by taking 7 blocks of every small size), then from exact-size fast bins (merged into
    /// the general free lists by one large request), then from any larger free chunk, which it splits. So small
    /// blocks are taken until `VmRSS` grows by two pages: from then on, new blocks come from fresh pages.
    fn fill_free_memory() -> Result<(), String> {
        // Plain `malloc` requests (`with_capacity`, not zeroed: glibc's `calloc` bypasses the per-size caches).
        let take = |size: usize| std::mem::forget(black_box(Vec::<u8>::with_capacity(size)));
        for size in (24..=1032).step_by(16) {
            for _ in 0..7 {
                take(size);
            }
        }
        take(4096);
        let start = status()?.rss;
        // A ceiling of 4 GiB of blocks, far above any workload here, so that a broken reading cannot loop forever.
        for _ in 0..(4u64 << 30) / (256 * 32) {
            for _ in 0..256 {
                take(16);
            }
            if status()?.rss >= start + 8 {
                return Ok(());
            }
        }
        Err("the allocator's free memory did not run out".to_owned())
    }
}
