//! House rules that rustfmt and clippy cannot see, checked over every Rust file in the workspace.
//!
//! Every file opens with a `//!` line saying what it is for (a crate root may open with its README as its
//! documentation instead; a file pasted into others by `include!`, where an inner doc comment cannot stand, with a
//! `//` line), and no test carries the ignore attribute: a case we cannot pass is asserted as it stands
//! or listed, with its reason, in a counted skip list.

use std::path::{Path, PathBuf};

/// Returns every broken rule, one line each, or `Ok` when the tree is tidy.
pub(crate) fn check(root: &Path) -> Result<(), Vec<String>> {
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "fuzz"] {
        collect_rust_files(&root.join(dir), &mut files);
    }
    let included = included_files(&files);
    let mut problems = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            problems.push(format!("{}: unreadable", file.display()));
            continue;
        };
        let first_line = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
        let readme_root = file.file_name().is_some_and(|name| name == "lib.rs")
            && first_line == r#"#![doc = include_str!("../README.md")]"#;
        let pasted =
            first_line.starts_with("// ") && file.canonicalize().is_ok_and(|path| included.contains(&path));
        if !first_line.starts_with("//!") && !readme_root && !pasted {
            problems.push(format!(
                "{}: does not open with a `//!` line saying what it is for",
                file.display()
            ));
        }
        let ignore_attribute = concat!("#[", "ignore");
        if text.contains(ignore_attribute) {
            problems.push(format!(
                "{}: has an ignored test; assert today's behaviour or list it",
                file.display()
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The files some other file pastes in with `include!("...")`, resolved against the including file's folder.
fn included_files(files: &[PathBuf]) -> std::collections::HashSet<PathBuf> {
    let mut included = std::collections::HashSet::new();
    for file in files {
        let (Ok(text), Some(dir)) = (std::fs::read_to_string(file), file.parent()) else {
            continue;
        };
        for rest in text.split("include!(\"").skip(1) {
            if let Some(path) = rest.split('"').next()
                && let Ok(path) = dir.join(path).canonicalize()
            {
                included.insert(path);
            }
        }
    }
    included
}

fn collect_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && !name.to_string_lossy().starts_with('.') {
                collect_rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use std::path::Path;

    #[test]
    fn workspace_is_tidy() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        if let Err(problems) = check(root) {
            panic!("tidy found problems:\n{}", problems.join("\n"));
        }
    }

    #[test]
    fn a_file_without_a_module_doc_is_reported() {
        let dir = std::env::temp_dir().join(format!("oa-tidy-{}", std::process::id()));
        let crates = dir.join("crates");
        std::fs::create_dir_all(&crates).unwrap();
        std::fs::write(crates.join("bad.rs"), "fn main() {}\n").unwrap();
        let problems = check(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("bad.rs"));
    }

    #[test]
    fn a_pasted_file_may_open_with_a_plain_comment_only_when_something_includes_it() {
        let dir = std::env::temp_dir().join(format!("oa-tidy-pasted-{}", std::process::id()));
        let crates = dir.join("crates");
        std::fs::create_dir_all(&crates).unwrap();
        std::fs::write(
            crates.join("pasted.rs"),
            "// Shared items, pasted in.\nconst A: u8 = 1;\n",
        )
        .unwrap();
        std::fs::write(
            crates.join("loose.rs"),
            "// Not pasted anywhere.\nconst B: u8 = 1;\n",
        )
        .unwrap();
        std::fs::write(crates.join("root.rs"), "//! A root.\ninclude!(\"pasted.rs\");\n").unwrap();
        let problems = check(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("loose.rs"), "{problems:?}");
    }
}
