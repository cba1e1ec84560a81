//! The built `oa-soak` binary: a short soak passes with its closing line, and a usage error exits 2.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

#[test]
fn a_short_soak_passes_with_every_call_matched() {
    let output = Command::new(env!("CARGO_BIN_EXE_oa-soak"))
        .args([
            "--calls",
            "200",
            "--concurrency",
            "16",
            "--seed",
            "3",
            "--checkpoint",
            "100",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("\nsoak: 200 calls, 0 panics, 0 lost, "),
        "{stdout}"
    );
    assert!(
        stdout.contains("rss_checkpoint_mib after the first 100 calls"),
        "{stdout}"
    );
    assert!(
        stdout.contains("0 mismatches with the server's choice"),
        "{stdout}"
    );
}

#[test]
fn a_missing_count_is_a_usage_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_oa-soak"))
        .args(["--calls", "10"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("usage: oa-soak"));
}
