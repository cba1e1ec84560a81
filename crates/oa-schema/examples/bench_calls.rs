//! One benchmark operation repeated in a loop, for instruction counts (issue 5 asks for them to confirm a change:
//! the machine is shared and wall-clock medians of one row move between runs).
//!
//! ```sh
//! CARGO_TARGET_DIR=... cargo build --release -p oa-schema --example bench_calls
//! valgrind --tool=callgrind --toggle-collect='bench_calls::hot*' \
//!     $CARGO_TARGET_DIR/release/examples/bench_calls TOOL WORKLOAD OP N
//! ```
//!
//! `TOOL` is `oa` (oa-schema) or `js` (jsonschema); `WORKLOAD` a row name of the comparative benchmark
//! (`llm-flat10`, `fhir`, ..., `schemastore`, `small-schemastore`, `small-llm`, `small-generated`: for the last four
//! the benchmark's own pre-check picks the schemas and documents first); `OP` one of `compile`, `valid`, `invalid` (`is_valid` on that instance set), `errv`,
//! `erri` (full error collection). Callgrind counts only inside `hot*`, so the total divided by `N` is the cost of
//! one iteration, with the inputs' parsing left out; one untimed round (or compile)
//! runs first, so first-use costs (a regex built on first match, the meta-schema compiled once) are left out. The inputs are the benchmark's
//! own (`benches/compare/workloads.rs` and `llm.rs`), read from `../shared/bench-data` or `$OA_BENCH_DATA`.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a developer tool: bad arguments or inputs end the run with a message"
)]

#[path = "../tests/schemastore/catalog.rs"]
#[allow(dead_code, reason = "shared with the SchemaStore test, which uses more of it")]
mod catalog;
#[path = "../benches/compare/check.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod check;
#[path = "../benches/compare/llm.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod llm;
#[path = "../benches/compare/schemastore.rs"]
mod schemastore;
#[path = "../benches/compare/small.rs"]
mod small;
#[path = "../benches/compare/tools.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod tools;
#[path = "../benches/compare/workloads.rs"]
#[allow(dead_code, reason = "shared with the benchmark, which uses more of it")]
mod workloads;

use serde_json::Value;
use std::hint::black_box;
use workloads::Workload;

/// A compiled validator of either tool.
enum Compiled {
    Oa(oa_schema::Validator),
    Js(jsonschema::Validator),
}

fn build(tool: &str, schema: &Value, draft: oa_schema::Draft, format_assertion: bool) -> Compiled {
    match tool {
        "oa" => match tools::compile_oa(schema, draft, format_assertion) {
            Ok(tools::Compiled::OaSchema(validator)) => Compiled::Oa(validator),
            _ => panic!("oa-schema compiles the workload"),
        },
        "js" => match tools::compile_jsonschema(schema, draft, format_assertion) {
            Ok(tools::Compiled::Jsonschema(validator)) => Compiled::Js(validator),
            _ => panic!("jsonschema compiles the workload"),
        },
        other => panic!("unknown tool {other:?}: use oa or js"),
    }
}

/// The workload named `name`, as the benchmark measures it: SchemaStore's and the small-schema ones after the
/// benchmark's pre-check (which drops what a tool misjudges). The check is slow under callgrind: with
/// `OA_BENCH_CALLS_CACHE=FILE` the checked workload is written there once and read back after (for the same name).
fn workload(name: &str) -> Workload {
    if !name.contains("schemastore") && !name.starts_with("small-") {
        return workloads::all()
            .into_iter()
            .find(|workload| workload.name == name)
            .unwrap_or_else(|| panic!("no workload named {name:?}"));
    }
    let cache = std::env::var_os("OA_BENCH_CALLS_CACHE").map(std::path::PathBuf::from);
    let cached = cache
        .as_ref()
        .and_then(|cache| std::fs::read_to_string(cache).ok())
        .map(|text| from_json(&serde_json::from_str(&text).expect("the cache is JSON")));
    if let Some(cached) = cached.filter(|cached| cached.name == name) {
        return cached;
    }
    let candidates = if name.starts_with("small-") && !name.contains("schemastore") {
        small::all()
    } else {
        schemastore::workloads().into()
    };
    let workload = candidates
        .into_iter()
        .find(|workload| workload.name == name)
        .unwrap_or_else(|| panic!("no workload named {name:?}"));
    let scratch = std::env::temp_dir().join(format!("oa-bench-calls-{}", std::process::id()));
    let plan = check::plan_all(vec![workload], &scratch).pop().expect("one plan");
    let _ = std::fs::remove_dir_all(&scratch);
    if let Some(cache) = cache {
        std::fs::write(cache, to_json(&plan.workload).to_string()).expect("the cache is writable");
    }
    plan.workload
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, tool, name, op, n] = args.as_slice() else {
        panic!("usage: bench_calls oa|js WORKLOAD compile|valid|invalid|errv|erri N");
    };
    let n: usize = n.parse().expect("N is a count");
    let workload = workload(name);
    let total = if op == "compile" {
        // One untimed compile of each schema first: the bundled meta-schemas are compiled once per process.
        for (schema, draft) in workload.schemas.iter().zip(&workload.drafts) {
            drop(build(tool, schema, *draft, workload.format_assertion));
        }
        hot_compile(tool, &workload, n)
    } else {
        let compiled: Vec<Compiled> = workload
            .schemas
            .iter()
            .zip(&workload.drafts)
            .map(|(schema, draft)| build(tool, schema, *draft, workload.format_assertion))
            .collect();
        // One untimed round first: first-use costs (regex automata built on first match, caches) stay out.
        let (instances, errors) = instances_of(&workload, op);
        calls(&compiled, instances, errors, 1);
        if std::env::var_os("OA_BENCH_CALLS_PER_SCHEMA").is_some() {
            per_schema(&compiled, &workload, instances, errors, n)
        } else {
            hot_calls(&compiled, instances, errors, n)
        }
    };
    println!("{total}");
}

/// A checked workload as JSON, for the cache.
fn to_json(workload: &Workload) -> Value {
    let drafts: Vec<&str> = workload.drafts.iter().map(|draft| draft.name()).collect();
    let sets: Vec<Value> = workload
        .instance_sets
        .iter()
        .map(|set| serde_json::json!({ "valid": set.expect_valid, "instances": set.instances }))
        .collect();
    serde_json::json!({
        "name": workload.name, "schemas": workload.schemas, "drafts": drafts,
        "names": workload.schema_names, "sets": sets, "format": workload.format_assertion,
    })
}

/// A checked workload back from the cache.
fn from_json(value: &Value) -> Workload {
    let sets = value["sets"].as_array().expect("sets");
    Workload {
        name: value["name"].as_str().expect("name").to_owned(),
        schemas: value["schemas"].as_array().expect("schemas").clone(),
        drafts: value["drafts"]
            .as_array()
            .expect("drafts")
            .iter()
            .map(|draft| {
                draft
                    .as_str()
                    .and_then(|name| name.parse().ok())
                    .expect("a draft")
            })
            .collect(),
        schema_names: serde_json::from_value(value["names"].clone()).expect("names"),
        instance_sets: sets
            .iter()
            .map(|set| {
                let instances = serde_json::from_value(set["instances"].clone()).expect("instances");
                if set["valid"] == Value::Bool(true) {
                    workloads::InstanceSet::valid(instances)
                } else {
                    workloads::InstanceSet::invalid(instances)
                }
            })
            .collect(),
        format_assertion: value["format"] == Value::Bool(true),
    }
}

/// `n` compiles of every schema of the workload.
#[inline(never)]
fn hot_compile(tool: &str, workload: &Workload, n: usize) -> usize {
    let mut built = 0;
    for _ in 0..n {
        for (schema, draft) in workload.schemas.iter().zip(&workload.drafts) {
            drop(black_box(build(
                tool,
                black_box(schema),
                *draft,
                workload.format_assertion,
            )));
            built += 1;
        }
    }
    built
}

/// `n` rounds of the operation on every instance of the chosen set.
#[inline(never)]
fn hot_calls(compiled: &[Compiled], instances: &[(usize, Value)], errors: bool, n: usize) -> usize {
    calls(compiled, instances, errors, n)
}

/// With `OA_BENCH_CALLS_PER_SCHEMA` set: the rounds schema by schema, one `hot_schema` call each, so that
/// callgrind's `--dump-after='bench_calls::hot_schema'` writes one count per schema, in the order printed on
/// stderr (the index and name of each schema that has instances in the set).
fn per_schema(
    compiled: &[Compiled],
    workload: &Workload,
    instances: &[(usize, Value)],
    errors: bool,
    n: usize,
) -> usize {
    let mut count = 0;
    for schema_idx in 0..compiled.len() {
        let own: Vec<(usize, Value)> = instances
            .iter()
            .filter(|(idx, _)| *idx == schema_idx)
            .cloned()
            .collect();
        if !own.is_empty() {
            eprintln!("schema {schema_idx} {}", workload.schema_names[schema_idx]);
            count += hot_schema(compiled, &own, errors, n);
        }
    }
    count
}

/// `n` rounds over one schema's instances (see [`per_schema`]).
#[inline(never)]
fn hot_schema(compiled: &[Compiled], instances: &[(usize, Value)], errors: bool, n: usize) -> usize {
    calls(compiled, instances, errors, n)
}

/// The instances `op` runs on, and whether it collects errors.
fn instances_of<'w>(workload: &'w Workload, op: &str) -> (&'w [(usize, Value)], bool) {
    let (label, errors) = match op {
        "valid" => ("valid", false),
        "invalid" => ("invalid", false),
        "errv" => ("valid", true),
        "erri" => ("invalid", true),
        other => panic!("unknown operation {other:?}"),
    };
    let set = workload
        .instance_sets
        .iter()
        .find(|set| set.label == label)
        .unwrap_or_else(|| panic!("{} has no {label} instances", workload.name));
    (&set.instances, errors)
}

/// `n` rounds of the operation over every given instance.
#[inline(never)]
fn calls(compiled: &[Compiled], instances: &[(usize, Value)], errors: bool, n: usize) -> usize {
    let mut count = 0;
    for _ in 0..n {
        for (schema_idx, instance) in instances {
            let instance = black_box(instance);
            count += match (&compiled[*schema_idx], errors) {
                (Compiled::Oa(validator), false) => usize::from(validator.is_valid(instance)),
                (Compiled::Js(validator), false) => usize::from(validator.is_valid(instance)),
                (Compiled::Oa(validator), true) => validator.validate(instance).err().map_or(0, |v| v.len()),
                (Compiled::Js(validator), true) => validator.iter_errors(instance).count(),
            };
        }
    }
    count
}
