//! `cargo xtask soak --calls N --concurrency C [--seed S] [...]` and `cargo xtask load`: run the chaos soak driver
//! (crates/oa-soak, through `cargo run`, since xtask depends on no crate of ours) and pass its verdict on.
//!
//! `load` is the soak with every call in flight at once: 1,000 calls, 1,000 at a time, each reply held for a second
//! before its first byte (and the idle timeout raised above that hold), so memory per in-flight call is measured
//! with all of them open.

use std::path::Path;

/// The arguments of `cargo xtask load`.
pub(crate) const LOAD_ARGS: &[&str] = &[
    "--calls",
    "1000",
    "--concurrency",
    "1000",
    "--hold-ms",
    "1000",
    "--idle-ms",
    "5000",
];

/// The soak `cargo xtask ci` runs: cheap, but every behaviour of the chaos comes up.
pub(crate) const CI_ARGS: &[&str] = &["--calls", "500", "--concurrency", "32"];

/// Runs the driver with `args` (checked: `--calls` and `--concurrency` are required).
pub(crate) fn run(root: &Path, args: &[String], env: &[(&str, &str)]) -> Result<(), String> {
    for required in ["--calls", "--concurrency"] {
        if !args.iter().any(|arg| arg == required) {
            return Err(format!(
                "usage: cargo xtask soak --calls N --concurrency C [--seed S] [--idle-ms MS] [--hold-ms MS] [--checkpoint K]\n{required} is required"
            ));
        }
    }
    let mut command = vec!["run", "--quiet", "--locked", "-p", "oa-soak", "--"];
    command.extend(args.iter().map(String::as_str));
    crate::cargo(root, &command, env)
}
