//! The publishing checks of `ci`: every published crate packages and builds from its package, as a user's `cargo
//! add` would get it, with the compiler of the oldest toolchain the workspace declares (`rust-version`).
//!
//! Also the test run a library user's build gets: oa-schema's `arbitrary_precision` is opt-in, and the workspace's
//! test run has it on (the `oa` command turns it on, and features unify), so oa-schema and oa-provider are tested
//! again without it.

use crate::nightly::{succeeds, toolchain_cargo};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `cargo test` of the libraries without oa-schema's `arbitrary_precision`: only packages that do not turn it on are
/// selected, so the build's serde_json keeps no digits (the suite runner checks its listed differences then).
/// oa-provider's `redis` feature stays on (oa-cli turns it on in the workspace run), or its shared-registry tests
/// could not run, which fails under `CI=true`.
pub(crate) const WITHOUT_ARBITRARY_PRECISION: &[&str] = &[
    "test",
    "-p",
    "oa-schema",
    "-p",
    "oa-provider",
    "--features",
    "oa-provider/redis",
    "--locked",
];

/// The crates that are not published (`publish = false`), left out of `cargo package`.
const UNPUBLISHED: [&str; 2] = ["oa-soak", "xtask"];

/// Packages every published crate and verifies each by building it from its package with the compiler of the
/// declared `rust-version` (one build checks both: the packages are complete, and the code a user compiles builds
/// with the oldest toolchain the workspace declares). Where rustup cannot install that toolchain, a loud warning, and
/// the packages are verified with the current compiler.
///
/// cargo itself stays the current one: the `rust-version` toolchain's cargo (1.88) cannot package a workspace whose
/// crates depend on each other before they are published; only `RUSTC` is the old compiler.
pub(crate) fn check(root: &Path, env: &[(&str, &str)]) -> Result<(), String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("cannot read the workspace's Cargo.toml: {e}"))?;
    let rust_version =
        declared(&manifest, "rust-version").ok_or("the workspace's Cargo.toml declares no rust-version")?;
    let version = declared(&manifest, "version").ok_or("the workspace's Cargo.toml declares no version")?;
    forget_unpacked_packages(root, version)?;
    // Its own target directory: another compiler's artifacts would only evict the stable build's.
    let target = crate::target_dir(root).join("rust-version");
    // An earlier run's packages and their builds go first (see `forget_built_packages`).
    let packages = target.join("package");
    if packages.is_dir() {
        std::fs::remove_dir_all(&packages)
            .map_err(|e| format!("cannot remove {}: {e}", packages.display()))?;
    }
    forget_built_packages(&target)?;
    let mut args = vec!["package", "--workspace", "--locked"];
    for crate_name in UNPUBLISHED {
        args.extend(["--exclude", crate_name]);
    }
    let Some(rustc) = rust_version_rustc(rust_version) else {
        return crate::cargo(root, &args, env);
    };
    println!(
        "\n==> cargo {} (RUSTC={}, CARGO_TARGET_DIR={})",
        args.join(" "),
        rustc.display(),
        target.display()
    );
    let status = Command::new("cargo")
        .env_remove("RUSTUP_TOOLCHAIN")
        .envs(env.iter().copied())
        .env("RUSTC", &rustc)
        .env("CARGO_TARGET_DIR", &target)
        .args(&args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("could not run cargo package: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo {}` with rustc {rust_version} failed ({status}): a package is incomplete, or the code no longer \
             builds with its rust-version",
            args.join(" ")
        ))
    }
}

/// The `rustc` of the toolchain `version`, installed by rustup when missing (a minimal profile); `None`, after a
/// loud warning, where rustup cannot install it.
fn rust_version_rustc(version: &str) -> Option<PathBuf> {
    let toolchain = format!("+{version}");
    if !succeeds(toolchain_cargo(&toolchain).arg("--version")) {
        println!("\n==> rustup toolchain install {version} --profile minimal");
        let installed = Command::new("rustup")
            .args(["toolchain", "install", version, "--profile", "minimal"])
            .status()
            .is_ok_and(|status| status.success());
        if !installed {
            crate::loud_warning(&format!(
                "the toolchain of rust-version {version} is absent and rustup could not install it: the packages \
                 are verified with the current compiler, the rust-version is not checked"
            ));
            return None;
        }
    }
    let found = Command::new("rustup")
        .args(["which", "rustc", "--toolchain", version])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map(|path| PathBuf::from(path.trim()));
    if found.is_none() {
        crate::loud_warning(&format!(
            "rustup cannot name the rustc of toolchain {version}: the rust-version is not checked"
        ));
    }
    found
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

/// Removes the fingerprints of our crates' earlier package builds. cargo verifies a package against the others
/// as registry dependencies, and fingerprints a registry dependency by name and version alone (a registry's sources
/// never change): without this, a second run in one checkout links oa-provider's new sources against the first
/// run's oa-schema (seen here: `no ViolationKind in the root`). The dependencies' builds stay.
fn forget_built_packages(target: &Path) -> Result<(), String> {
    let fingerprints = target.join("debug").join(".fingerprint");
    for entry in std::fs::read_dir(&fingerprints).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with("oa-") {
            std::fs::remove_dir_all(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
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
