//! The benchmark's workloads: ../shared/bench-data read at run time (never copied into the repository), plus the
//! LLM-shaped schemas of [`crate::llm`]; the benchmark adds SchemaStore's (`schemastore.rs`) and the small-schema
//! set (`small.rs`).

use oa_schema::Draft;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One row family of the report: one or more schemas, and the instances validated against them.
#[derive(Debug)]
pub(crate) struct Workload {
    /// Row name in the report and criterion group suffix.
    pub(crate) name: String,
    /// The schemas compiled together in one compile measurement (one, except for the keyword micro cases and
    /// SchemaStore).
    pub(crate) schemas: Vec<Value>,
    /// Each schema's draft, given to every tool alike (2020-12 but for SchemaStore's schemas).
    pub(crate) drafts: Vec<Draft>,
    /// A name per schema, for the report of dropped cases (the workload name when there is one schema).
    pub(crate) schema_names: Vec<String>,
    /// Instance sets, each measured as one `is_valid` and one error-collection row.
    pub(crate) instance_sets: Vec<InstanceSet>,
    /// Whether `format` asserts, for every tool alike.
    pub(crate) format_assertion: bool,
}

/// Instances measured together, each paired with the index of its schema in [`Workload::schemas`].
#[derive(Debug)]
pub(crate) struct InstanceSet {
    /// `valid` or `invalid`.
    pub(crate) label: &'static str,
    /// Whether every instance of the set is expected to be valid.
    pub(crate) expect_valid: bool,
    /// The instances, each with its schema index.
    pub(crate) instances: Vec<(usize, Value)>,
}

impl Workload {
    /// A workload of several schemas (each with its draft and name), with one valid and one invalid instance set.
    pub(crate) fn of_cases(
        name: &str,
        schemas: Vec<(Value, Draft, String)>,
        valid: Vec<(usize, Value)>,
        invalid: Vec<(usize, Value)>,
        format_assertion: bool,
    ) -> Self {
        let mut workload = Workload {
            name: name.to_owned(),
            schemas: Vec::with_capacity(schemas.len()),
            drafts: Vec::with_capacity(schemas.len()),
            schema_names: Vec::with_capacity(schemas.len()),
            instance_sets: vec![InstanceSet::valid(valid), InstanceSet::invalid(invalid)],
            format_assertion,
        };
        for (schema, draft, schema_name) in schemas {
            workload.schemas.push(schema);
            workload.drafts.push(draft);
            workload.schema_names.push(schema_name);
        }
        workload
    }
}

impl InstanceSet {
    /// A set of valid instances.
    pub(crate) fn valid(instances: Vec<(usize, Value)>) -> Self {
        Self {
            label: "valid",
            expect_valid: true,
            instances,
        }
    }

    /// A set of invalid instances.
    pub(crate) fn invalid(instances: Vec<(usize, Value)>) -> Self {
        Self {
            label: "invalid",
            expect_valid: false,
            instances,
        }
    }
}

/// The folder holding the shared workloads: `$OA_BENCH_DATA` if set, else `../shared/bench-data` from the
/// workspace root.
pub(crate) fn bench_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("OA_BENCH_DATA") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench-data")
}

/// Reads one JSON file of the shared workloads; a missing folder or file is a loud panic, never a silent skip.
fn load(file: &str) -> Value {
    let path = bench_data_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "oa-schema benchmark: cannot read {} ({err}). The workloads live in ../shared/bench-data next to the \
             workspace (or set OA_BENCH_DATA); they are read at run time and never copied into the repository.",
            path.display()
        )
    });
    serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("oa-schema benchmark: {} is not JSON: {err}", path.display()))
}

/// A workload of one schema file with its valid and invalid instance files (either list may be empty).
fn from_files(name: &str, schema: &str, valid: &[&str], invalid: &[&str]) -> Workload {
    let mut instance_sets = Vec::new();
    if !valid.is_empty() {
        instance_sets.push(InstanceSet::valid(
            valid.iter().map(|file| (0, load(file))).collect(),
        ));
    }
    if !invalid.is_empty() {
        instance_sets.push(InstanceSet::invalid(
            invalid.iter().map(|file| (0, load(file))).collect(),
        ));
    }
    Workload {
        name: name.to_owned(),
        schemas: vec![load(schema)],
        drafts: vec![Draft::Draft202012],
        schema_names: vec![name.to_owned()],
        instance_sets,
        format_assertion: false,
    }
}

/// Every workload of bench-data and [`crate::llm`], in report order.
pub(crate) fn all() -> Vec<Workload> {
    let mut workloads = vec![
        from_files(
            "fhir",
            "fhir.schema.2020-12.json",
            &["patient-example-d.json"],
            &["patient-example-d_invalid.json"],
        ),
        // bench-data has no invalid instance for the recursive schema.
        from_files(
            "recursive",
            "recursive_schema.2020-12.json",
            &["recursive_instance.json"],
            &[],
        ),
        from_files(
            "geojson-canada",
            "geojson.2020-12.json",
            &["canada.json"],
            &["canada_invalid.json"],
        ),
        from_files(
            "citm",
            "citm_catalog_schema.2020-12.json",
            &["citm_catalog.json"],
            &["citm_catalog_invalid.json"],
        ),
        // The README pairs swagger with kubernetes (valid only).
        from_files(
            "swagger-kubernetes",
            "swagger.2020-12.json",
            &["kubernetes.json"],
            &[],
        ),
        // Its instance (zuora.json) is not in bench-data: compile only.
        from_files("openapi", "openapi.2020-12.json", &[], &[]),
        from_files(
            "fast",
            "fast_schema.2020-12.json",
            &["fast_valid.json"],
            &["fast_invalid.json"],
        ),
        keywords(),
    ];
    workloads.extend(crate::llm::all());
    workloads
}

/// The per-keyword micro cases of keywords.json, all in one workload: one compile row compiles every schema, one
/// row validates every valid instance, one every invalid instance. They are written draft-07 style; each schema is
/// ported to 2020-12 here, by the bench-data README's rules, and `format` asserts (for every tool) so that the
/// `format_*` cases mean what they say.
fn keywords() -> Workload {
    let cases = match load("keywords.json") {
        Value::Array(cases) => cases,
        _ => panic!("oa-schema benchmark: keywords.json is not an array of cases"),
    };
    let mut schemas = Vec::new();
    let mut schema_names = Vec::new();
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for case in cases {
        let schema = case
            .get("schema")
            .cloned()
            .unwrap_or_else(|| panic!("keywords.json: a case has no schema"));
        let schema_idx = schemas.len();
        schemas.push(port_to_2020_12(schema));
        schema_names.push(
            case.get("name")
                .and_then(Value::as_str)
                .unwrap_or("unnamed")
                .to_owned(),
        );
        for instance in case.get("valid").and_then(Value::as_array).into_iter().flatten() {
            valid.push((schema_idx, instance.clone()));
        }
        for instance in case
            .get("invalid")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            invalid.push((schema_idx, instance.clone()));
        }
    }
    Workload {
        name: "keywords".to_owned(),
        drafts: vec![Draft::Draft202012; schemas.len()],
        schemas,
        schema_names,
        instance_sets: vec![InstanceSet::valid(valid), InstanceSet::invalid(invalid)],
        format_assertion: true,
    }
}

/// Ports a draft-07 micro-case schema to 2020-12: `$schema` set, array-form `items` to `prefixItems` (and
/// `additionalItems` to `items`), with `$ref`s into the old `items` array rewritten. Boolean schemas are unchanged.
fn port_to_2020_12(schema: Value) -> Value {
    let Value::Object(object) = schema else {
        return schema;
    };
    let mut ported = Map::new();
    ported.insert(
        "$schema".to_owned(),
        Value::from("https://json-schema.org/draft/2020-12/schema"),
    );
    let had_tuple_items = matches!(object.get("items"), Some(Value::Array(_)));
    for (key, value) in object {
        let key = match key.as_str() {
            "items" if had_tuple_items => "prefixItems".to_owned(),
            "additionalItems" if had_tuple_items => "items".to_owned(),
            _ => key,
        };
        ported.insert(
            key,
            if had_tuple_items {
                rewrite_item_refs(value)
            } else {
                value
            },
        );
    }
    Value::Object(ported)
}

/// Rewrites `$ref: "#/items/N..."` to `#/prefixItems/N...` throughout `value`.
fn rewrite_item_refs(value: Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("$ref", Value::String(target)) if target.starts_with("#/items/") => (
                        key,
                        Value::String(target.replacen("#/items/", "#/prefixItems/", 1)),
                    ),
                    (_, value) => (key, rewrite_item_refs(value)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(rewrite_item_refs).collect()),
        other => other,
    }
}
