//! The official suite's `remotes/` folder, read once per test binary that needs it: every file by its URI under
//! `http://localhost:1234/`, as the suite serves them.

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
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
                let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                documents.insert(format!("http://localhost:1234/{relative}"), Arc::new(document));
            }
        }
    }
    documents
}
