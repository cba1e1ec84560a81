//! House rules that rustfmt and clippy cannot see, checked over every Rust file in the workspace.
//!
//! Every file opens with a `//!` line saying what it is for (a crate root may open with its README as its
//! documentation instead), and no test carries the ignore attribute: a case we cannot pass is asserted as it stands
//! or listed, with its reason, in a counted skip list.

use std::path::{Path, PathBuf};

/// Returns every broken rule, one line each, or `Ok` when the tree is tidy.
pub(crate) fn check(root: &Path) -> Result<(), Vec<String>> {
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "fuzz"] {
        collect_rust_files(&root.join(dir), &mut files);
    }
    let mut problems = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            problems.push(format!("{}: unreadable", file.display()));
            continue;
        };
        let first_line = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
        let readme_root = file.file_name().is_some_and(|name| name == "lib.rs")
            && first_line == r#"#![doc = include_str!("../README.md")]"#;
        if !first_line.starts_with("//!") && !readme_root {
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
}
