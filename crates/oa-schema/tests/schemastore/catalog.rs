//! The SchemaStore catalog in `../shared/schemastore`, loaded once for the SchemaStore test and benchmark: every
//! schema with its draft and its labelled documents, and the URIs the schemas refer to each other by.
//!
//! Read at run time, never copied into the repository. Each schema is registered under
//! `https://json.schemastore.org/NAME.json` (how the catalog's schemas name each other), the same path on
//! `www.schemastore.org` (which some `$id`s use), and its own `$id` when no other schema claims it; one shared
//! document serves every URI.

use oa_schema::Draft;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The draft of a catalog schema that declares no `$schema`: draft 7, the default of ajv, which labels the
/// catalog's documents.
pub(crate) const DEFAULT_DRAFT: Draft = Draft::Draft7;

/// The hosts under which the catalog serves its schemas.
const HOSTS: [&str; 2] = ["https://json.schemastore.org/", "https://www.schemastore.org/"];

/// One schema of the catalog with its documents.
pub(crate) struct CatalogSchema {
    /// The file name, `NAME.json`.
    pub(crate) name: String,
    pub(crate) value: Arc<Value>,
    /// The draft its `$schema` names, or [`DEFAULT_DRAFT`]; `None` for a `$schema` that names no draft.
    pub(crate) draft: Option<Draft>,
    /// Its documents, valid ones first, each in file-name order.
    pub(crate) documents: Vec<Document>,
}

/// One labelled document.
pub(crate) struct Document {
    /// `valid/NAME/FILE` or `invalid/NAME/FILE`, relative to the catalog.
    pub(crate) path: String,
    pub(crate) value: Value,
    /// The catalog's label: whether its CI finds the document valid.
    pub(crate) valid: bool,
}

/// The whole catalog.
pub(crate) struct Catalog {
    /// Every schema, by file name.
    pub(crate) schemas: Vec<CatalogSchema>,
    /// Every URI a schema is registered under, with its document.
    pub(crate) resources: Arc<BTreeMap<String, Arc<Value>>>,
}

/// `$OA_SCHEMASTORE` if set, else `../shared/schemastore` from the workspace root.
pub(crate) fn dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("OA_SCHEMASTORE") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemastore")
}

/// Whether the catalog is there to read.
pub(crate) fn present(dir: &Path) -> bool {
    dir.join("schemas").is_dir() && dir.join("valid").is_dir() && dir.join("invalid").is_dir()
}

/// Loads the catalog; an unreadable file or one that is not JSON is an error naming it.
pub(crate) fn load(dir: &Path) -> Result<Catalog, String> {
    let mut schemas = Vec::new();
    for path in sorted_files(&dir.join("schemas"))? {
        let Some(name) = path.file_name().and_then(|name| name.to_str()).map(str::to_owned) else {
            continue;
        };
        let value = read_json(&path)?;
        let draft = match value.get("$schema").and_then(Value::as_str) {
            Some(declared) => Draft::from_uri(declared),
            None => Some(DEFAULT_DRAFT),
        };
        let mut documents = Vec::new();
        for (label, valid) in [("valid", true), ("invalid", false)] {
            let folder = dir.join(label).join(name.trim_end_matches(".json"));
            if !folder.is_dir() {
                continue;
            }
            for document in sorted_files(&folder)? {
                let file = document
                    .file_name()
                    .and_then(|file| file.to_str())
                    .unwrap_or_default();
                documents.push(Document {
                    path: format!("{label}/{}/{file}", name.trim_end_matches(".json")),
                    value: read_json(&document)?,
                    valid,
                });
            }
        }
        schemas.push(CatalogSchema {
            name,
            value: Arc::new(value),
            draft,
            documents,
        });
    }
    let mut resources = BTreeMap::new();
    for schema in &schemas {
        for host in HOSTS {
            resources.insert(format!("{host}{}", schema.name), Arc::clone(&schema.value));
        }
    }
    for schema in &schemas {
        let id = schema
            .value
            .get("$id")
            .or_else(|| schema.value.get("id"))
            .and_then(Value::as_str);
        if let Some(id) = id.map(|id| id.trim_end_matches('#'))
            && id.starts_with("http")
        {
            resources
                .entry(id.to_owned())
                .or_insert_with(|| Arc::clone(&schema.value));
        }
    }
    Ok(Catalog {
        schemas,
        resources: Arc::new(resources),
    })
}

/// jsonschema-rs's way to the same resources: the catalog's documents by URI, handed over (as copies) when a
/// schema refers to one, and an error for any other URI (nothing is fetched). Retrieval is per schema, so one
/// schema's reference outside the catalog refuses that schema only, as it does for oa-schema.
pub(crate) struct CatalogRetriever(pub(crate) Arc<BTreeMap<String, Arc<Value>>>);

impl jsonschema::Retrieve for CatalogRetriever {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let uri = uri.as_str();
        let uri = uri.split_once('#').map_or(uri, |(document, _)| document);
        match self.0.get(uri) {
            Some(document) => Ok(Value::clone(document)),
            None => Err(format!("{uri} is not in the catalog").into()),
        }
    }
}

/// The files of a folder, sorted by name.
fn sorted_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|err| format!("{}: {err}", dir.display()))?.path();
        if path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?;
    serde_json::from_str(&text).map_err(|err| format!("{}: not JSON: {err}", path.display()))
}
