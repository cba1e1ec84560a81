//! The publishing checks of `ci`: the workspace builds with the oldest toolchain it declares (`rust-version`), and
//! every published crate packages and builds from its package, as a user's `cargo add` would get it.
//!
//! Also the test run a library user's build gets: oa-schema's `arbitrary_precision` is opt-in, and the workspace's
//! test run has it on (the `oa` command turns it on, and features unify), so oa-schema and oa-provider are tested
//! again without it.

use crate::nightly::{succeeds, toolchain_cargo};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `cargo test` of the libraries without oa-schema's `arbitrary_precision`: only packages that do not turn it on are
/// selected, so the build's serde_json keeps no digits (the suite runner checks its listed differences then).
pub(crate) const WITHOUT_ARBITRARY_PRECISION: &[&str] =
    &["test", "-p", "oa-schema", "-p", "oa-provider", "--locked"];

/// The crates that are not published (`publish = false`), left out of `cargo package`.
const UNPUBLISHED: [&str; 2] = ["oa-soak", "xtask"];

/// Checks the declared `rust-version` with that toolchain, then packages and verifies every published crate.
pub(crate) fn check(root: &Path, env: &[(&str, &str)]) -> Result<(), String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("cannot read the workspace's Cargo.toml: {e}"))?;
    let rust_version =
        declared(&manifest, "rust-version").ok_or("the workspace's Cargo.toml declares no rust-version")?;
    check_rust_version(root, rust_version)?;
    let version = declared(&manifest, "version").ok_or("the workspace's Cargo.toml declares no version")?;
    forget_unpacked_packages(root, version)?;
    let mut args = vec!["package", "--workspace", "--locked"];
    for crate_name in UNPUBLISHED {
        args.extend(["--exclude", crate_name]);
    }
    crate::cargo(root, &args, env)
}

/// `cargo +VERSION check --workspace --all-targets` with the toolchain of the workspace's `rust-version`, installed
/// by rustup when missing (a minimal profile). Where rustup cannot install it, a loud warning, as for nightly.
fn check_rust_version(root: &Path, version: &str) -> Result<(), String> {
    let toolchain = format!("+{version}");
    if !succeeds(toolchain_cargo(&toolchain).arg("--version")) {
        println!("\n==> rustup toolchain install {version} --profile minimal");
        let installed = Command::new("rustup")
            .args(["toolchain", "install", version, "--profile", "minimal"])
            .status()
            .is_ok_and(|status| status.success());
        if !installed {
            crate::loud_warning(&format!(
                "the toolchain of rust-version {version} is absent and rustup could not install it: the \
                 rust-version check did not run"
            ));
            return Ok(());
        }
    }
    // Its own target directory: another compiler's artifacts would only evict the stable build's.
    let target = crate::target_dir(root).join("rust-version");
    let args = ["check", "--workspace", "--all-targets", "--locked"];
    println!(
        "\n==> cargo {toolchain} {} (CARGO_TARGET_DIR={})",
        args.join(" "),
        target.display()
    );
    let status = toolchain_cargo(&toolchain)
        .args(args)
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(root)
        .status()
        .map_err(|e| format!("could not run cargo {toolchain}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo {toolchain} {}` failed ({status}): the code no longer builds with its rust-version",
            args.join(" ")
        ))
    }
}

/// Removes what an earlier `cargo package` unpacked of our crates. cargo verifies each package from a temporary
/// local registry, unpacked into `$CARGO_HOME/registry/src/-HASH/NAME-VERSION` (HASH from that registry's path, the
/// same for every run in one checkout), and reuses a folder it finds there unread: without this, a run builds an
/// earlier run's sources of the same version (seen here). cargo unpacks them again from the new packages.
fn forget_unpacked_packages(root: &Path, version: &str) -> Result<(), String> {
    let Some(cargo_home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
    else {
        return Ok(());
    };
    let ours: Vec<String> = std::fs::read_dir(root.join("crates"))
        .map_err(|e| format!("cannot list crates/: {e}"))?
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !UNPUBLISHED.contains(&name.as_str()))
        .collect();
    let sources = cargo_home.join("registry").join("src");
    // Local registries only: a `file://` source has no host, so its folder's name starts with `-`.
    for registry in std::fs::read_dir(&sources).into_iter().flatten().flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for name in &ours {
            let unpacked = registry.path().join(format!("{name}-{version}"));
            if unpacked.is_dir() {
                std::fs::remove_dir_all(&unpacked)
                    .map_err(|e| format!("cannot remove {}: {e}", unpacked.display()))?;
            }
        }
    }
    Ok(())
}

/// The string value of `key` (`rust-version = "X.Y"`) in the manifest's `[workspace.package]` table.
fn declared<'m>(manifest: &'m str, key: &str) -> Option<&'m str> {
    let mut in_table = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_table = line == "[workspace.package]";
        } else if in_table
            && let Some(value) = line.strip_prefix(key)
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            return value.trim().strip_prefix('"')?.strip_suffix('"');
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::declared;

    #[test]
    fn reads_the_workspace_package_table() {
        let manifest = "[workspace]\nmembers = []\n\n[workspace.package]\nversion = \"0.1.0\"\n# a comment\n\
                        rust-version = \"1.88\"\n\n[workspace.dependencies]\nrust-version = \"9\"\n";
        assert_eq!(declared(manifest, "rust-version"), Some("1.88"));
        assert_eq!(declared(manifest, "version"), Some("0.1.0"));
        assert_eq!(
            declared("[package]\nrust-version = \"1.80\"\n", "rust-version"),
            None
        );
    }

    #[test]
    fn the_workspace_declares_a_rust_version_and_a_version() {
        let manifest = std::fs::read_to_string(crate::workspace_root().join("Cargo.toml")).unwrap();
        for key in ["rust-version", "version"] {
            let value = declared(&manifest, key).unwrap();
            assert!(
                value.split('.').all(|part| part.parse::<u32>().is_ok()),
                "{key} = {value}"
            );
        }
    }
}
