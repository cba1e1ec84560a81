//! The official suite's folders: `remotes/`, read once per test binary that needs it (every file by its URI under
//! `http://localhost:1234/`, as the suite serves them), and a folder of test files, parsed in name order.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Every `.json` file below `remotes`, by its URI under `http://localhost:1234/`.
pub(crate) fn remotes(remotes: &Path) -> HashMap<String, Arc<Value>> {
    let mut documents = HashMap::new();
    let mut stack = vec![remotes.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                let relative = path
                    .strip_prefix(remotes)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                documents.insert(
                    format!("http://localhost:1234/{relative}"),
                    Arc::new(parsed(&path)),
                );
            }
        }
    }
    documents
}

/// Every `.json` file of `dir` (not of its subfolders), in name order, parsed.
pub(crate) fn json_files(dir: &Path) -> Vec<(PathBuf, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let value = parsed(&file);
            (file, value)
        })
        .collect()
}

fn parsed(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
