//! `oa-soak --calls N --concurrency C [--seed S] [--idle-ms MS] [--hold-ms MS] [--checkpoint K]`: runs the chaos
//! soak (see the crate docs), prints its report, and exits 1 on a panic, a lost call, a mismatch or memory past the
//! bound, 2 on a usage error. Every panic anywhere in the process is counted by a panic hook.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use oa_soak::{Settings, report};

const USAGE: &str =
    "usage: oa-soak --calls N --concurrency C [--seed S] [--idle-ms MS] [--hold-ms MS] [--checkpoint K]";

fn parse(args: &[String]) -> Result<Settings, String> {
    let mut settings = Settings {
        calls: 0,
        concurrency: 0,
        seed: 1,
        idle_timeout: Duration::from_millis(1000),
        hold: Duration::ZERO,
        checkpoint: 1000,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let number: u64 = value
            .parse()
            .map_err(|_| format!("{flag} takes a non-negative integer, not {value:?}\n{USAGE}"))?;
        match flag.as_str() {
            "--calls" => settings.calls = number,
            "--concurrency" => settings.concurrency = usize::try_from(number).map_err(|e| e.to_string())?,
            "--seed" => settings.seed = number,
            "--idle-ms" => settings.idle_timeout = Duration::from_millis(number),
            "--hold-ms" => settings.hold = Duration::from_millis(number),
            "--checkpoint" => settings.checkpoint = number,
            _ => return Err(format!("unknown flag {flag}\n{USAGE}")),
        }
    }
    if settings.calls == 0 || settings.concurrency == 0 || settings.idle_timeout.is_zero() {
        return Err(format!(
            "--calls, --concurrency and --idle-ms must be positive\n{USAGE}"
        ));
    }
    Ok(settings)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let settings = match parse(&args) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let panics = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&panics);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        counted.fetch_add(1, Ordering::Relaxed);
        default_hook(info);
    }));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("oa-soak: runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "soak run: {} calls, {} at a time, seed {}, idle timeout {:?}, hold {:?}",
        settings.calls, settings.concurrency, settings.seed, settings.idle_timeout, settings.hold
    );
    let outcome = runtime.block_on(oa_soak::run(&settings));
    drop(runtime);
    let report = match outcome {
        Ok(report) => report,
        Err(message) => {
            eprintln!("oa-soak: {message}");
            return ExitCode::FAILURE;
        }
    };
    let panics = panics.load(Ordering::Relaxed);
    for line in report::lines(&report, panics) {
        println!("{line}");
    }
    match report::verdict(&report, panics) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reasons) => {
            eprintln!("oa-soak: failed: {}", reasons.join(", "));
            ExitCode::FAILURE
        }
    }
}
