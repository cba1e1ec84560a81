//! `oa validate --resource` and `--resource-dir`: the schemas a schema refers to, read from files and registered
//! under their `$id` (or their file URI), so that a catalog whose schemas refer to each other by URL validates
//! offline. Nothing is ever fetched.

use oa_schema::{Draft, ValidatorOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Registers every file of `files` and every `.json` file under the folders of `dirs` with `options`; a
/// document that declares no `$schema` is read as `draft` (for its identifier keyword).
///
/// # Errors
/// A message naming the file that cannot be read, is not JSON, has no usable URI, or claims a URI another file
/// already claimed.
pub(crate) fn register(
    mut options: ValidatorOptions,
    files: &[PathBuf],
    dirs: &[PathBuf],
    draft: Draft,
) -> Result<ValidatorOptions, String> {
    let mut paths = files.to_vec();
    for dir in dirs {
        json_files(dir, &mut paths)?;
    }
    let mut claimed: HashMap<String, PathBuf> = HashMap::new();
    for path in paths {
        let text = crate::validate::read_file(&path)?;
        let document: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: the resource is not well-formed JSON: {e}", path.display()))?;
        let uri = match identifier(&document, draft) {
            Some(id) => id.to_owned(),
            None => file_uri(&path)?,
        };
        let key = uri.strip_suffix('#').unwrap_or(&uri).to_owned();
        if let Some(earlier) = claimed.get(&key) {
            return Err(format!(
                "{}: the resource URI {key} is already that of {}",
                path.display(),
                earlier.display()
            ));
        }
        options = options.resource(&key, document);
        claimed.insert(key, path);
    }
    Ok(options)
}

/// The document's `$id` (`id` when it is a draft 4 document), if it has one.
fn identifier(document: &Value, draft: Draft) -> Option<&str> {
    let draft = match document.get("$schema").and_then(Value::as_str) {
        Some(declared) => Draft::from_uri(declared).unwrap_or(draft),
        None => draft,
    };
    let keyword = if draft == Draft::Draft4 { "id" } else { "$id" };
    document.get(keyword).and_then(Value::as_str)
}

/// The `file://` URI of a path (made absolute from the current directory).
fn file_uri(path: &Path) -> Result<String, String> {
    let absolute = std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = absolute
        .to_str()
        .ok_or_else(|| format!("{}: the path is not UTF-8", path.display()))?;
    let mut uri = String::from("file://");
    for byte in text.replace('\\', "/").bytes() {
        // Percent-encode what a URI path cannot hold as it is.
        if byte.is_ascii_alphanumeric() || b"/-._~:@!$&'()*+,;=".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    if !uri.starts_with("file:///") {
        // A Windows path (C:/...) needs the third slash.
        uri.insert(7, '/');
    }
    Ok(uri)
}

/// Appends every `.json` file under `dir` (its subfolders too, but not folders reached through symbolic links,
/// which could loop), in a stable order.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let unreadable = |e: std::io::Error| format!("{}: cannot read the folder: {e}", dir.display());
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let is_dir = entry.file_type().map_err(unreadable)?.is_dir();
        entries.push((entry.path(), is_dir));
    }
    entries.sort();
    for (path, is_dir) in entries {
        if is_dir {
            json_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "json") && !path.is_dir() {
            out.push(path);
        }
    }
    Ok(())
}
