//! The child: measures one row in a process of its own and prints one JSON line.

use super::*;
use peak_alloc::PeakAlloc;

/// The row's inputs, as parsed from stdin.
struct Inputs {
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
    let mut spec: Value = serde_json::from_str(&text).map_err(|err| format!("stdin is not JSON: {err}"))?;
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
        schemas,
        format_assertion,
        instances,
    })
}

/// Warms up on this thread, then measures on a fresh one (see the module docs).
fn measure_row(tool: Tool, op: Op, repeats: u32, inputs: &Inputs) -> Result<Value, String> {
    check_counting()?;
    // Warm-up: process-wide one-time state (the bundled meta-schemas and their validator, kept in `OnceLock`s) and
    // the binary's code pages are in place now, not during the measurement.
    {
        let validators = compile_all(tool, inputs)?;
        if op != Op::Compile {
            for (schema_idx, instance) in &inputs.instances {
                if let Some(validator) = validators.get(*schema_idx) {
                    drop(black_box(call(tool, op, validator, instance)));
                }
            }
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

/// Fails unless the counting allocator is this process's global allocator (its counters would stay at zero).
fn check_counting() -> Result<(), String> {
    let before = heap_live();
    let block = black_box(vec![0u8; 1000]);
    let with_block = heap_live();
    drop(block);
    if with_block < before + 1000 {
        return Err(
            "the counting allocator (peak_alloc::PeakAlloc) is not the #[global_allocator]".to_owned(),
        );
    }
    Ok(())
}

/// Live heap bytes of the process (exact: the sizes Rust asked the allocator for).
fn heap_live() -> i64 {
    PeakAlloc.current_usage() as i64
}

/// Starts a heap peak at the live bytes now; returns them, the base that [`heap_peak_above`] reads against.
fn heap_mark() -> i64 {
    PeakAlloc.reset_peak_usage();
    heap_live()
}

/// The highest live heap since `mark` was taken, above `mark` (0 when nothing new was live).
fn heap_peak_above(mark: i64) -> u64 {
    (PeakAlloc.peak_usage() as i64 - mark).max(0) as u64
}

/// Live heap bytes now above `mark` (0 when below: the call freed memory that was live before it).
fn heap_above(mark: i64) -> u64 {
    (heap_live() - mark).max(0) as u64
}

/// The measurement proper, on the fresh thread: exact heap bytes, with the kernel's resident figures (stack and
/// peak RSS, whole pages) as a cross-check.
fn measure(tool: Tool, op: Op, repeats: u32, inputs: &Inputs) -> Result<Value, String> {
    let baseline_stack = stack_kib()?;
    // The resident cross-check is best effort: a peak that did not reset leaves its column empty, the heap
    // figures stand.
    fill_free_memory()?;
    let rss_reset = reset_peak().is_ok();
    let baseline_rss = status()?.rss;
    let rss_peak = |status: Status| rss_reset.then(|| status.hwm.saturating_sub(baseline_rss));

    if op == Op::Compile {
        // Kept: the validators' live bytes after the compile. Not kept: the compile's peak (the validators
        // included), then whatever is still live once they are dropped (state a compile leaves behind).
        let mut held = 0;
        let mut peak = 0;
        let mut left = 0;
        for _ in 0..repeats {
            let mark = heap_mark();
            let validators = compile_all(tool, inputs)?;
            held = held.max(heap_above(mark));
            drop(black_box(validators));
            peak = peak.max(heap_peak_above(mark));
            left = left.max(heap_above(mark));
        }
        let status = status()?;
        return Ok(json!({
            "held_bytes": held,
            "peak_bytes": peak,
            "left_bytes": left,
            "counted_bytes": peak,
            "rss_peak_kib": rss_peak(status),
            "stack_kib": stack_kib()?.saturating_sub(baseline_stack),
        }));
    }

    let mark = heap_mark();
    let validators = compile_all(tool, inputs)?;
    let held = heap_above(mark);
    // Per call: its peak above the live bytes before it, the report it returns (live bytes with the report held,
    // less those once it is dropped), and what stays live after it (state kept across calls).
    let mut worst = CallFigures::default();
    let mut first_round_kept = 0;
    let (mut n_valid, mut n_violations) = (0, 0);
    for repeat in 0..repeats {
        let round_mark = heap_live();
        (n_valid, n_violations) = (0, 0);
        for (schema_idx, instance) in &inputs.instances {
            let Some(validator) = validators.get(*schema_idx) else {
                continue;
            };
            let call_mark = heap_mark();
            let outcome = call(tool, op, validator, black_box(instance));
            let peak = heap_peak_above(call_mark);
            let with_report = heap_above(call_mark);
            n_valid += usize::from(outcome.n_violations == 0 && outcome.valid);
            n_violations += outcome.n_violations;
            drop(black_box(outcome));
            let kept = heap_above(call_mark);
            let report = if tool == Tool::OaSchema {
                with_report.saturating_sub(kept)
            } else {
                // Context only: jsonschema drains its errors one by one (no report held), boon's error tree is
                // its report; neither is subtracted.
                0
            };
            worst.merge(CallFigures {
                peak,
                report,
                counted: peak.saturating_sub(report),
                kept,
            });
        }
        if repeat == 0 {
            first_round_kept = heap_above(round_mark);
        }
    }
    let status = status()?;
    Ok(json!({
        "held_bytes": held,
        "peak_bytes": worst.peak,
        "report_bytes": worst.report,
        "call_counted_bytes": worst.counted,
        "counted_bytes": held + worst.counted,
        "kept_bytes": first_round_kept,
        "n_valid": n_valid,
        "n_violations": n_violations,
        "rss_peak_kib": rss_peak(status),
        "stack_kib": stack_kib()?.saturating_sub(baseline_stack),
    }))
}

/// One call's heap figures, or the worst of several (each field its own maximum).
#[derive(Debug, Default, Clone, Copy)]
struct CallFigures {
    /// Peak live bytes above those before the call, the report included.
    peak: u64,
    /// Live bytes of the report the call returned (oa-schema's `validate` only).
    report: u64,
    /// `peak - report`: what the bound applies to.
    counted: u64,
    /// Live bytes left once the report is dropped: state kept across calls (such as per-thread caches).
    kept: u64,
}

impl CallFigures {
    fn merge(&mut self, other: CallFigures) {
        self.peak = self.peak.max(other.peak);
        self.report = self.report.max(other.report);
        self.counted = self.counted.max(other.counted);
        self.kept = self.kept.max(other.kept);
    }
}

/// What a call returns, held until the caller drops it (so that the report can be measured while it lives).
struct Outcome {
    valid: bool,
    n_violations: usize,
    /// oa-schema's report, kept alive.
    _report: Option<oa_schema::Violations>,
}

/// Calls the operation once on one instance and returns its outcome with the report still alive.
fn call(tool: Tool, op: Op, validator: &Compiled, instance: &Value) -> Outcome {
    match (op, tool, validator) {
        (Op::Validate, Tool::OaSchema, Compiled::OaSchema(validator)) => match validator.validate(instance) {
            Ok(()) => Outcome {
                valid: true,
                n_violations: 0,
                _report: None,
            },
            Err(report) => Outcome {
                valid: false,
                n_violations: report.len(),
                _report: Some(report),
            },
        },
        (Op::Validate, _, _) => {
            let n_violations = validator.count_errors(instance);
            Outcome {
                valid: n_violations == 0,
                n_violations,
                _report: None,
            }
        }
        _ => Outcome {
            valid: validator.is_valid(instance),
            n_violations: 0,
            _report: None,
        },
    }
}

/// Compiles every schema of the row, as the benchmark's compile row does (the measured workloads are all 2020-12:
/// SchemaStore's is the benchmark's only other-draft workload, and it is not measured here).
fn compile_all(tool: Tool, inputs: &Inputs) -> Result<Vec<Compiled>, String> {
    inputs
        .schemas
        .iter()
        .map(|schema| {
            tools::compile(
                tool,
                schema,
                oa_schema::Draft::Draft202012,
                inputs.format_assertion,
            )
        })
        .collect()
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
            && let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16))
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
