//! The child: measures one row in a process of its own and prints one JSON line.

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
    let mut spec: Value = serde_json::from_str(&text).map_err(|err| format!("stdin is not JSON: {err}"))?;
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
