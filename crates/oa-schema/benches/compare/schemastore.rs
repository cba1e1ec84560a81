//! The SchemaStore workloads: real-world schemas of every draft with the catalog's labelled documents, all of them
//! (`schemastore`) and the smallest half by file size again as a small-schema row family (`small-schemastore`).

use crate::catalog::CatalogSchema;
use crate::workloads::Workload;
use std::path::Path;

/// SchemaStore's catalog (`../shared/schemastore`, or `$OA_SCHEMASTORE`) as two workloads, `schemastore` (every
/// schema) and `small-schemastore` (the smallest half of the catalog's schema files by size, ties by name).
///
/// In both, every schema whose `$schema` names a draft (none: draft 7, as for the catalog's own labels) is given to
/// each tool with that draft; its valid documents form one set, its invalid ones another; `format` asserts, as the
/// labels' validator (ajv) does. Schemas are compiled alone, without the rest of the catalog as resources: one that
/// refers to another catalog document does not compile, and is dropped for every tool with the reason recorded (as
/// is a document any tool misjudges against its label).
pub(crate) fn workloads() -> [Workload; 2] {
    let dir = crate::catalog::dir();
    let catalog = crate::catalog::load(&dir).unwrap_or_else(|err| {
        panic!(
            "oa-schema benchmark: cannot read the SchemaStore catalog at {} ({err}). It lives in \
             ../shared/schemastore next to the workspace (or set OA_SCHEMASTORE); it is read at run time and never \
             copied into the repository.",
            dir.display()
        )
    });
    let mut by_size: Vec<(u64, &CatalogSchema)> = catalog
        .schemas
        .iter()
        .map(|schema| (file_size(&dir, &schema.name), schema))
        .collect();
    by_size.sort_by(|(size_a, a), (size_b, b)| size_a.cmp(size_b).then_with(|| a.name.cmp(&b.name)));
    let smallest_half = by_size[..by_size.len() / 2].iter().map(|(_, schema)| *schema);
    [
        workload("schemastore", catalog.schemas.iter()),
        workload("small-schemastore", smallest_half),
    ]
}

/// The size of a catalog schema's file; an unreadable one is a loud panic (the catalog was just read).
fn file_size(dir: &Path, name: &str) -> u64 {
    let path = dir.join("schemas").join(name);
    std::fs::metadata(&path)
        .unwrap_or_else(|err| panic!("oa-schema benchmark: cannot stat {}: {err}", path.display()))
        .len()
}

/// One workload of the given catalog schemas (each with a draft) and their documents.
fn workload<'a>(name: &str, catalog_schemas: impl Iterator<Item = &'a CatalogSchema>) -> Workload {
    let mut schemas = Vec::new();
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for schema in catalog_schemas {
        let Some(draft) = schema.draft else {
            continue;
        };
        let schema_idx = schemas.len();
        for document in &schema.documents {
            let set = if document.valid { &mut valid } else { &mut invalid };
            set.push((schema_idx, document.value.clone()));
        }
        schemas.push((
            serde_json::Value::clone(&schema.value),
            draft,
            schema.name.clone(),
        ));
    }
    Workload::of_cases(name, schemas, valid, invalid, true)
}
