//! The SchemaStore workload: real-world schemas of every draft with the catalog's labelled documents.

use crate::workloads::{InstanceSet, Workload};

/// SchemaStore's catalog (`../shared/schemastore`, or `$OA_SCHEMASTORE`) as one workload: every schema whose
/// `$schema` names a draft (none: draft 7, as for the catalog's own labels), each tool given that draft; its valid
/// documents as one set, its invalid ones as another; `format` asserting, as the labels' validator (ajv) does.
/// Schemas are compiled alone, without the rest of the catalog as resources: one that refers to another catalog
/// document does not compile, and is dropped for every tool with the reason recorded (as is a document any tool
/// misjudges against its label).
pub(crate) fn workload() -> Workload {
    let dir = crate::catalog::dir();
    let catalog = crate::catalog::load(&dir).unwrap_or_else(|err| {
        panic!(
            "oa-schema benchmark: cannot read the SchemaStore catalog at {} ({err}). It lives in \
             ../shared/schemastore next to the workspace (or set OA_SCHEMASTORE); it is read at run time and never \
             copied into the repository.",
            dir.display()
        )
    });
    let mut schemas = Vec::new();
    let mut drafts = Vec::new();
    let mut schema_names = Vec::new();
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for schema in catalog.schemas {
        let Some(draft) = schema.draft else {
            continue;
        };
        let schema_idx = schemas.len();
        for document in schema.documents {
            let set = if document.valid { &mut valid } else { &mut invalid };
            set.push((schema_idx, document.value));
        }
        schemas.push(std::sync::Arc::unwrap_or_clone(schema.value));
        drafts.push(draft);
        schema_names.push(schema.name);
    }
    Workload {
        name: "schemastore".to_owned(),
        schemas,
        drafts,
        schema_names,
        instance_sets: vec![InstanceSet::valid(valid), InstanceSet::invalid(invalid)],
        format_assertion: true,
    }
}
