//! The nightly toolchain, which only fuzzing and Miri use: found through rustup's `cargo +nightly`, never installed
//! by the repository (a toolchain cannot come from a package registry), so its absence is said loudly.

use std::process::{Command, Stdio};

/// `cargo +nightly`, through rustup's proxy (the `CARGO` that runs xtask is the stable binary itself, which knows
/// no `+toolchain`), without the toolchain choice `cargo run` passed down.
pub(crate) fn cargo() -> Command {
    toolchain_cargo("+nightly")
}

/// `cargo +TOOLCHAIN` (`toolchain` with its `+`), as [`cargo`] makes it.
pub(crate) fn toolchain_cargo(toolchain: &str) -> Command {
    let mut command = Command::new("cargo");
    command
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .arg(toolchain);
    command
}

/// Whether the nightly toolchain is here (`cargo +nightly --version` answers).
pub(crate) fn present() -> bool {
    succeeds(cargo().arg("--version"))
}

/// Whether `cargo +nightly ARGS` runs and succeeds, its output discarded (for `--version` probes).
pub(crate) fn answers(args: &[&str]) -> bool {
    succeeds(cargo().args(args))
}

/// Whether `command` runs and succeeds, its output discarded.
pub(crate) fn succeeds(command: &mut Command) -> bool {
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}
