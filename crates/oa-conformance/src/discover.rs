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

/// Finds every fixture file under `dir`: the `*.yaml` files of every `conformance/` directory at or below it, at
/// most [`MAX_DEPTH`] levels down (hidden directories, `target/` and symbolic links are not followed). Every
/// directory is searched whatever its name, a `conformance/` one included, so `work/conformance/` holding
/// `observability/conformance/*.yaml` is found through. Files are returned sorted by capability, then path.
///
/// # Errors
///
/// When `dir` cannot be read, or no fixture file is found.
pub fn discover(dir: &Path) -> Result<Vec<FixtureFile>, DiscoverError> {
    let mut conformance_dirs = Vec::new();
    list(dir)?; // surface an unreadable directory here
    if is_conformance_dir(dir) {
        conformance_dirs.push(dir.to_path_buf());
    }
    find_conformance_dirs(dir, 0, &mut conformance_dirs)?;
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
    files.dedup();
    Ok(files)
}

fn is_conformance_dir(dir: &Path) -> bool {
    dir.file_name().is_some_and(|name| name == "conformance")
}

/// Walks the directories below `dir` for `conformance/` directories, descending into every one (a `conformance/`
/// directory may itself hold capability folders).
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
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if name == "conformance" {
            found.push(child.clone());
        }
        if depth < MAX_DEPTH {
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

    /// Issue 39: a folder named `conformance` above the capability folders is searched through, whether it is the
    /// directory given or one below it.
    #[test]
    fn capability_folders_are_found_below_a_folder_named_conformance() {
        let root = tempfile::tempdir().unwrap();
        touch(
            &root
                .path()
                .join("work/conformance/observability/conformance/999-copy.yaml"),
        );
        touch(
            &root
                .path()
                .join("work/conformance/llm-provider/conformance/001-x.yaml"),
        );
        for dir in [
            root.path().to_path_buf(),
            root.path().join("work"),
            root.path().join("work/conformance"),
        ] {
            let capabilities: Vec<String> = discover(&dir)
                .unwrap()
                .into_iter()
                .map(|f| f.capability)
                .collect();
            assert_eq!(
                capabilities,
                ["llm-provider", "observability"],
                "{}",
                dir.display()
            );
        }
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
