//! Fixture discovery (conformance-adapter §8.1): every `conformance/` directory at or below a given directory,
//! and the `*.yaml` files in each; the capability is the name of the directory above `conformance/`.

use std::path::{Path, PathBuf};

/// One fixture file found on disk, with the capability it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FixtureFile {
    /// The name of the directory above `conformance/`.
    pub capability: String,
    /// The `.yaml` file.
    pub path: PathBuf,
}

/// Why a directory given to discovery yields nothing to run.
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
    /// No `conformance/` directory at or below it holds a `*.yaml` fixture.
    #[error(
        "no fixture in {path}: no `*.yaml` file in a `conformance/` directory at or below it (looked {MAX_DEPTH} levels deep)"
    )]
    NoFixtures {
        /// The directory.
        path: PathBuf,
    },
}

/// How many directory levels below the given one are searched for `conformance/` directories.
pub const MAX_DEPTH: usize = 8;

/// Finds every fixture file under `dir`: `dir` itself when it is a `conformance/` directory, else every
/// `conformance/` directory at most [`MAX_DEPTH`] levels below it (hidden directories, `target/` and symbolic
/// links are not followed). Files are returned sorted by capability, then path.
///
/// # Errors
///
/// When `dir` cannot be read, or no fixture file is found.
pub fn discover(dir: &Path) -> Result<Vec<FixtureFile>, DiscoverError> {
    let mut conformance_dirs = Vec::new();
    if is_conformance_dir(dir) {
        list(dir)?; // surface an unreadable directory here
        conformance_dirs.push(dir.to_path_buf());
    } else {
        find_conformance_dirs(dir, 0, &mut conformance_dirs)?;
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
    if files.is_empty() {
        return Err(DiscoverError::NoFixtures {
            path: dir.to_path_buf(),
        });
    }
    files.sort();
    Ok(files)
}

fn is_conformance_dir(dir: &Path) -> bool {
    dir.file_name().is_some_and(|name| name == "conformance")
}

/// Walks `dir` (which is not itself a `conformance/` directory) for `conformance/` directories; does not descend
/// into one it found.
fn find_conformance_dirs(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) -> Result<(), DiscoverError> {
    for child in list(dir)? {
        let Ok(kind) = std::fs::symlink_metadata(&child).map(|meta| meta.file_type()) else {
            continue;
        };
        if !kind.is_dir() {
            continue;
        }
        let name = child
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == "conformance" {
            found.push(child);
        } else if depth < MAX_DEPTH && !name.starts_with('.') && name != "target" {
            // A subdirectory that cannot be read is skipped, not fatal: the search is a convenience.
            if let Err(DiscoverError::Unreadable { .. }) = find_conformance_dirs(&child, depth + 1, found) {
                continue;
            }
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "entry: a\n").unwrap();
    }

    #[test]
    fn conformance_directories_are_found_at_any_depth_below() {
        let root = tempfile::tempdir().unwrap();
        touch(&root.path().join("X/observability/conformance/999-copy.yaml"));
        touch(&root.path().join("a/b/c/llm-provider/conformance/001-x.yaml"));
        touch(&root.path().join(".hidden/observability/conformance/002-y.yaml"));
        std::fs::write(root.path().join("X/observability/conformance/notes.md"), "").unwrap();
        let files = discover(root.path()).unwrap();
        let found: Vec<(&str, String)> = files
            .iter()
            .map(|f| {
                (
                    f.capability.as_str(),
                    f.path.file_name().unwrap().to_string_lossy().into_owned(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("llm-provider", "001-x.yaml".to_owned()),
                ("observability", "999-copy.yaml".to_owned())
            ]
        );
        // The conformance directory itself, and its capability directory, work too.
        let dir = root.path().join("X/observability/conformance");
        assert_eq!(discover(&dir).unwrap().len(), 1);
        assert_eq!(discover(&root.path().join("X/observability")).unwrap().len(), 1);
    }

    #[test]
    fn a_directory_without_fixtures_is_an_error_naming_it() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("cap/conformance")).unwrap();
        let error = discover(root.path()).unwrap_err();
        assert!(matches!(error, DiscoverError::NoFixtures { .. }));
        assert!(error.to_string().contains(&root.path().display().to_string()));
        assert!(matches!(
            discover(&root.path().join("missing")),
            Err(DiscoverError::Unreadable { .. })
        ));
    }
}
