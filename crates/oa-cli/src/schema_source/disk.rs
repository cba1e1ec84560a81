//! Schema documents on disk: `--resource` files registered up front, `--resource-dir` folders indexed by `$id` and
//! file URI, and the retriever that reads a referenced file on demand, only inside the allowed folders (after
//! resolving `..` and symbolic links) and never over a network.

use oa_schema::{Draft, Retrieve, RetrieveError, ValidatorOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use url::Url;

/// Registers every `--resource` file with `options`, under its `$id` (draft 4: `id`; a document that declares no
/// `$schema` is read as `draft`) and its file URI.
///
/// # Errors
/// A message naming the file that cannot be read, is not JSON, has an `$id` that is no URI, or claims a URI another
/// file already claimed.
pub(super) fn register_files(
    mut options: ValidatorOptions,
    files: &[PathBuf],
    draft: Draft,
) -> Result<ValidatorOptions, String> {
    let mut claimed: HashMap<String, PathBuf> = HashMap::new();
    for path in files {
        let canonical =
            std::fs::canonicalize(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let document = Arc::new(read_json(path).map_err(|reason| format!("{}: {reason}", path.display()))?);
        for uri in
            claims(&document, &canonical, draft).map_err(|reason| format!("{}: {reason}", path.display()))?
        {
            if let Some(earlier) = claimed.get(&uri) {
                return Err(format!(
                    "{}: the resource URI {uri} is already that of {}",
                    path.display(),
                    earlier.display()
                ));
            }
            options = options.shared_resource(&uri, Arc::clone(&document));
            claimed.insert(uri, path.clone());
        }
    }
    Ok(options)
}

/// What a URI of the `--resource-dir` folders names.
#[derive(Debug)]
enum Claim {
    /// One document (and the file it came from).
    One(Arc<Value>),
    /// Several files claim it as their `$id`.
    Ambiguous(Vec<PathBuf>),
    /// The file at this file URI cannot be used.
    Unusable(String),
}

/// The `--resource-dir` folders, indexed: every `.json` file under them by its `$id` and its file URI.
#[derive(Debug, Default)]
pub(super) struct Catalog {
    /// The folders, canonical.
    roots: Vec<PathBuf>,
    claims: HashMap<String, Claim>,
}

impl Catalog {
    /// Reads every `.json` file under `dirs` (subfolders too, not folders reached through symbolic links). A file
    /// that cannot be read or is not JSON, and a URI two files claim, is warned about once on stderr (prefixed by
    /// `command`), and fails only a reference that needs it.
    ///
    /// # Errors
    /// A message naming a folder that cannot be read.
    pub(super) fn index(dirs: &[PathBuf], draft: Draft, command: &str) -> Result<Self, String> {
        let mut catalog = Self::default();
        let mut by_id: HashMap<String, Vec<(PathBuf, Arc<Value>)>> = HashMap::new();
        for dir in dirs {
            let root = std::fs::canonicalize(dir)
                .map_err(|e| format!("{}: cannot read the folder: {e}", dir.display()))?;
            let mut files = Vec::new();
            std::fs::read_dir(&root)
                .map_err(|e| format!("{}: cannot read the folder: {e}", dir.display()))?;
            json_files(&root, &mut files, command);
            for path in files {
                let shown = path.display();
                // A file reached through a symbolic link that leads out of the folder is not read.
                let canonical = match std::fs::canonicalize(&path) {
                    Ok(canonical) if canonical.starts_with(&root) => canonical,
                    Ok(_) => {
                        eprintln!(
                            "{command}: warning: {shown}: skipped: a symbolic link out of {}",
                            root.display()
                        );
                        continue;
                    }
                    Err(e) => {
                        eprintln!("{command}: warning: {shown}: skipped: cannot read: {e}");
                        continue;
                    }
                };
                let Ok(file_uri) = file_uri(&canonical) else {
                    eprintln!("{command}: warning: {shown}: skipped: the path is not UTF-8");
                    continue;
                };
                let document = match read_json(&canonical) {
                    Ok(document) => Arc::new(document),
                    Err(reason) => {
                        eprintln!(
                            "{command}: warning: {shown}: skipped: {reason} (a reference that needs it fails)"
                        );
                        catalog
                            .claims
                            .insert(file_uri, Claim::Unusable(format!("{shown}: {reason}")));
                        continue;
                    }
                };
                match claims(&document, &canonical, draft) {
                    Ok(uris) => {
                        for uri in uris {
                            if uri == file_uri {
                                catalog.claims.insert(uri, Claim::One(Arc::clone(&document)));
                            } else {
                                by_id
                                    .entry(uri)
                                    .or_default()
                                    .push((path.clone(), Arc::clone(&document)));
                            }
                        }
                    }
                    Err(reason) => {
                        eprintln!("{command}: warning: {shown}: its $id is ignored: {reason}");
                        catalog.claims.insert(file_uri, Claim::One(document));
                    }
                }
            }
            catalog.roots.push(root);
        }
        let mut ids: Vec<_> = by_id.into_iter().collect();
        ids.sort_by(|a, b| a.0.cmp(&b.0));
        for (uri, mut claimants) in ids {
            let claim = if claimants.len() == 1 {
                Claim::One(claimants.remove(0).1)
            } else {
                let paths: Vec<PathBuf> = claimants.into_iter().map(|(path, _)| path).collect();
                let names: Vec<String> = paths.iter().map(|path| path.display().to_string()).collect();
                eprintln!(
                    "{command}: warning: the $id {uri} is claimed by {}: a reference to it fails as ambiguous \
                     (give the one meant with --resource FILE)",
                    names.join(" and ")
                );
                Claim::Ambiguous(paths)
            };
            // A file URI is its own file's: an `$id` naming another file's location does not replace it.
            catalog.claims.entry(uri).or_insert(claim);
        }
        Ok(catalog)
    }

    /// The folders, canonical.
    pub(super) fn roots(&self) -> &[PathBuf] {
        &self.roots
    }
}

/// Supplies the documents a schema refers to that no `--resource` file holds: from the `--resource-dir` index, or a
/// file read on demand under the allowed folders. Nothing else is ever read.
#[derive(Debug)]
pub(super) struct Retriever {
    /// Folders a file may be read from (canonical): the schema's own and the `--resource-dir` ones.
    roots: Vec<PathBuf>,
    catalog: Catalog,
}

impl Retriever {
    pub(super) fn new(roots: Vec<PathBuf>, catalog: Catalog) -> Self {
        Self { roots, catalog }
    }

    /// Reads the file a `file:` URI names, if it is inside an allowed folder.
    fn read(&self, url: &Url) -> Result<Option<Arc<Value>>, RetrieveError> {
        let unusable = |reason: String| RetrieveError::Unusable { reason };
        let Ok(path) = url.to_file_path() else {
            return Err(unusable(format!("{url} names no local file")));
        };
        let canonical = match std::fs::canonicalize(&path) {
            Ok(canonical) => canonical,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unusable(format!("{}: cannot read: {e}", path.display()))),
        };
        if !self.roots.iter().any(|root| canonical.starts_with(root)) {
            return Err(unusable(format!(
                "{} is outside the schema's folder and the --resource-dir folders, the only places oa reads \
                 schemas from (give it with --resource FILE)",
                canonical.display()
            )));
        }
        read_json(&canonical)
            .map(|document| Some(Arc::new(document)))
            .map_err(|reason| unusable(format!("{}: {reason}", path.display())))
    }
}

impl Retrieve for Retriever {
    fn retrieve(&self, uri: &str) -> Result<Option<Arc<Value>>, RetrieveError> {
        match self.catalog.claims.get(uri) {
            Some(Claim::One(document)) => return Ok(Some(Arc::clone(document))),
            Some(Claim::Ambiguous(paths)) => {
                return Err(RetrieveError::Ambiguous {
                    claimants: paths.iter().map(|path| path.display().to_string()).collect(),
                });
            }
            Some(Claim::Unusable(reason)) => {
                return Err(RetrieveError::Unusable {
                    reason: reason.clone(),
                });
            }
            None => {}
        }
        match Url::parse(uri) {
            Ok(url) if url.scheme() == "file" => self.read(&url),
            // Never the network: http(s) and every other scheme resolve only through the index above.
            _ => Ok(None),
        }
    }
}

/// A file's JSON document, or why it has none.
fn read_json(path: &Path) -> Result<Value, String> {
    if path.is_dir() {
        return Err("a folder, not a schema file".to_owned());
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("not well-formed JSON: {e}"))
}

/// The URIs a document at `path` (canonical) is found by: its file URI, and its `$id` (`id` in draft 4) resolved
/// against it, fragment dropped.
fn claims(document: &Value, path: &Path, draft: Draft) -> Result<Vec<String>, String> {
    let file = file_uri(path)?;
    let mut uris = vec![file.clone()];
    if let Some(id) = identifier(document, draft) {
        let mut url = Url::parse(&file)
            .and_then(|base| base.join(id))
            .map_err(|e| format!("its $id {id:?} is not a URI reference: {e}"))?;
        url.set_fragment(None);
        if url.as_str() != file {
            uris.push(url.into());
        }
    }
    Ok(uris)
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

/// The `file://` URI of an absolute path.
///
/// # Errors
/// A message when the path is not absolute or not UTF-8.
pub(super) fn file_uri(path: &Path) -> Result<String, String> {
    Url::from_file_path(path)
        .map(String::from)
        .map_err(|()| format!("{}: the path has no file URI", path.display()))
}

/// Appends every `.json` file under `dir` (its subfolders too, but not folders reached through symbolic links,
/// which could loop), in a stable order; a folder that cannot be read is warned about and left out.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>, command: &str) {
    let mut entries = Vec::new();
    let listed = std::fs::read_dir(dir).and_then(|listing| {
        for entry in listing {
            let entry = entry?;
            entries.push((entry.path(), entry.file_type()?.is_dir()));
        }
        Ok(())
    });
    if let Err(e) = listed {
        eprintln!(
            "{command}: warning: {}: skipped: cannot read the folder: {e}",
            dir.display()
        );
        return;
    }
    entries.sort();
    for (path, is_dir) in entries {
        if is_dir {
            json_files(&path, out, command);
        } else if path.extension().is_some_and(|ext| ext == "json") {
            out.push(path);
        }
    }
}
