//! Fuzz target: validate arbitrary instances against a fixed set of real schemas. The first byte picks the schema
//! (and, by its lowest bit, whether `format` asserts); the rest is the instance as JSON text. The validator's
//! verdicts are compared (see `oa_fuzz::check_verdicts`), `is_valid == validate().is_ok()` among them.
//!
//! The schemas are compiled into the target from ../shared (the 2020-12 ports in bench-data and SchemaStore
//! schemas that declare 2020-12), so a missing ../shared fails the build rather than fuzzing nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_schema::Validator;
use std::sync::OnceLock;

/// The schemas, by name (the seed generator in xtask/src/fuzz/seeds.rs pairs instances with them by these names,
/// in this order).
const SCHEMAS: &[(&str, &str)] = &[
    (
        "metaschema",
        r#"{"$ref": "https://json-schema.org/draft/2020-12/schema"}"#,
    ),
    (
        "fast",
        include_str!("../../../shared/bench-data/fast_schema.2020-12.json"),
    ),
    (
        "citm_catalog",
        include_str!("../../../shared/bench-data/citm_catalog_schema.2020-12.json"),
    ),
    (
        "geojson",
        include_str!("../../../shared/bench-data/geojson.2020-12.json"),
    ),
    (
        "report-demo",
        include_str!("../../../shared/bench-data/report-demo.schema.json"),
    ),
    (
        "swagger",
        include_str!("../../../shared/bench-data/swagger.2020-12.json"),
    ),
    (
        "openhab-5.1",
        include_str!("../../../shared/schemastore/schemas/openhab-5.1.json"),
    ),
    (
        "yamllint",
        include_str!("../../../shared/schemastore/schemas/yamllint.json"),
    ),
    (
        "enonic-xp-content-type-8.0.0",
        include_str!("../../../shared/schemastore/schemas/enonic-xp-content-type-8.0.0.json"),
    ),
    (
        "license-report-config",
        include_str!("../../../shared/schemastore/schemas/license-report-config.json"),
    ),
];

/// Each schema compiled twice: `format` as an annotation, then as an assertion.
fn validators() -> &'static [Validator] {
    static VALIDATORS: OnceLock<Vec<Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let mut validators = Vec::new();
        for (name, text) in SCHEMAS {
            let schema = oa_schema::parse_json(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            for format_assertion in [false, true] {
                let validator = Validator::options()
                    .format_assertion(format_assertion)
                    .build(&schema)
                    .unwrap_or_else(|e| panic!("{name} does not compile: {e}"));
                validators.push(validator);
            }
        }
        validators
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(instance) = oa_schema::parse_json(text) else {
        return;
    };
    let validators = validators();
    let validator = &validators[usize::from(selector) % validators.len()];
    oa_fuzz::check_verdicts(validator, &instance);
});
