//! Fixture discovery (conformance-adapter §8.1): walk `<capability>/conformance/` directories for `*.yaml`.

use std::path::{Path, PathBuf};

/// One fixture file found on disk, with the capability it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FixtureFile {
    /// The name of the directory above `conformance/`.
    pub capability: String,
    /// The `.yaml` file.
    pub path: PathBuf,
}

/// Why a directory given to discovery could not be scanned.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// The directory does not exist or cannot be listed.
    #[error("cannot read fixture directory {path}")]
    Unreadable {
        /// The directory.
        path: PathBuf,
        /// The I/O failure.
        #[source]
        source: std::io::Error,
    },
    /// The directory holds no `conformance/` directory at any of the accepted places.
    #[error("no conformance directory under {path}")]
    NoConformanceDir {
        /// The directory.
        path: PathBuf,
    },
}

/// Finds every fixture file under `dir`, which may be a `conformance/` directory itself, a
/// capability directory holding one, or a directory of capability directories (a spec's `spec/`).
/// Files are returned sorted by capability, then path.
///
/// # Errors
///
/// When `dir` cannot be read or holds no conformance directory.
pub fn discover(dir: &Path) -> Result<Vec<FixtureFile>, DiscoverError> {
    let conformance_dirs = conformance_dirs(dir)?;
    if conformance_dirs.is_empty() {
        return Err(DiscoverError::NoConformanceDir {
            path: dir.to_path_buf(),
        });
    }
    let mut files = Vec::new();
    for conformance_dir in conformance_dirs {
        let capability = capability_of(&conformance_dir);
        for path in list(&conformance_dir)? {
            if path.extension().is_some_and(|ext| ext == "yaml") && path.is_file() {
                files.push(FixtureFile {
                    capability: capability.clone(),
                    path,
                });
            }
        }
    }
    files.sort();
    Ok(files)
}

fn conformance_dirs(dir: &Path) -> Result<Vec<PathBuf>, DiscoverError> {
    if dir.file_name().is_some_and(|name| name == "conformance") {
        list(dir)?; // surface an unreadable directory here
        return Ok(vec![dir.to_path_buf()]);
    }
    let own = dir.join("conformance");
    if own.is_dir() {
        return Ok(vec![own]);
    }
    let mut found = Vec::new();
    for child in list(dir)? {
        let candidate = child.join("conformance");
        if candidate.is_dir() {
            found.push(candidate);
        }
    }
    found.sort();
    Ok(found)
}

fn capability_of(conformance_dir: &Path) -> String {
    let canonical = conformance_dir
        .canonicalize()
        .unwrap_or_else(|_| conformance_dir.to_path_buf());
    canonical.parent().and_then(Path::file_name).map_or_else(
        || "unknown".to_owned(),
        |name| name.to_string_lossy().into_owned(),
    )
}

fn list(dir: &Path) -> Result<Vec<PathBuf>, DiscoverError> {
    let unreadable = |source| DiscoverError::Unreadable {
        path: dir.to_path_buf(),
        source,
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        paths.push(entry.map_err(unreadable)?.path());
    }
    paths.sort();
    Ok(paths)
}
