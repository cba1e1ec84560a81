//! `Validator::bundle`: a compiled schema of any draft as one self-contained draft 2020-12 document that judges as the
//! original does, every subschema traceable to where it came from.
//!
//! Checked on every schema of the official suite (all five drafts, remotes included) and on generated schemas of
//! every draft: validating against the bundle read as 2020-12 gives the original's verdict on every instance; only
//! schemas whose bundle reports something inexpressible are left out, counted by kind.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "support/metas.rs"]
mod metas;
#[path = "support/remotes.rs"]
mod remotes;

use oa_schema::{Bundle, Draft, Inexpressible, Validator};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every `$ref` of the bundle is local and every `$id`-like keyword is gone (walking the schema by its 2020-12
/// keywords, so that data and member names are not taken for keywords); every subschema the bundle lists is there.
fn assert_self_contained(bundle: &Bundle) {
    fn walk(value: &Value, at: &str) {
        let Value::Object(map) = value else { return };
        for (key, child) in map {
            let here = format!("{at}/{key}");
            match key.as_str() {
                "$ref" => assert!(
                    child.as_str().is_some_and(|r| r.starts_with('#')),
                    "{here}: {child}"
                ),
                "$id" | "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" | "$dynamicRef"
                | "$recursiveRef" => {
                    panic!("{here} left in the bundle")
                }
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                    for (name, schema) in child.as_object().into_iter().flatten() {
                        walk(schema, &format!("{here}/{name}"));
                    }
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    for (index, schema) in child.as_array().into_iter().flatten().enumerate() {
                        walk(schema, &format!("{here}/{index}"));
                    }
                }
                "items"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "additionalProperties"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties" => walk(child, &here),
                _ => {}
            }
        }
    }
    walk(bundle.schema(), "");
    for (pointer, _) in bundle.subschemas() {
        assert!(
            bundle.schema().pointer(pointer).is_some(),
            "{pointer} is not in the bundle"
        );
    }
}

/// The inexpressible kinds of a bundle, for the counts.
fn kinds(bundle: &Bundle) -> Vec<&'static str> {
    bundle
        .inexpressible()
        .iter()
        .map(|item| match item {
            Inexpressible::DynamicReference { .. } => "dynamic reference",
            Inexpressible::UnresolvedReference { .. } => "unresolved reference",
            Inexpressible::ContainsNotEvaluating { .. } => "2019-09 contains under unevaluatedItems",
            Inexpressible::FormatAssertion { .. } => "format asserted by vocabulary",
            _ => "other",
        })
        .collect()
}

/// The bundle of `original` compiled as 2020-12 (with nothing registered: it must stand alone).
fn rebuilt(original: &Validator, format_assertion: bool) -> (Bundle, Validator) {
    let bundle = original.bundle();
    assert_self_contained(&bundle);
    let rebuilt = Validator::options()
        .format_assertion(format_assertion)
        .build(bundle.schema())
        .unwrap_or_else(|err| panic!("the bundle does not compile: {err}\n{:#}", bundle.schema()));
    (bundle, rebuilt)
}

fn suite_dir() -> Option<PathBuf> {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/json-schema-test-suite");
    if suite.join("tests/draft2020-12").is_dir() {
        return Some(suite);
    }
    let message = format!(
        "the JSON Schema Test Suite is not at {}: NOT checked",
        suite.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    println!("\n!!!!! SKIPPED: {message}\n");
    None
}

/// The groups of every `.json` file of a folder (not its subfolders).
fn groups(dir: &Path) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (file, value) in remotes::json_files(dir) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for group in value.as_array().unwrap() {
            out.push((
                format!("{name} / {}", group["description"].as_str().unwrap()),
                group.clone(),
            ));
        }
    }
    out
}

#[test]
fn every_suite_schema_bundles_and_judges_alike() {
    let Some(suite) = suite_dir() else { return };
    let registered = remotes::remotes(&suite.join("remotes"))
        .into_iter()
        .fold(Validator::options(), |options, (uri, document)| {
            options.shared_resource(&uri, document)
        });
    let drafts = [
        ("draft4", Draft::Draft4),
        ("draft6", Draft::Draft6),
        ("draft7", Draft::Draft7),
        ("draft2019-09", Draft::Draft201909),
        ("draft2020-12", Draft::Draft202012),
    ];
    let (mut bundled, mut instances, mut skipped_groups, mut skipped_instances) = (0, 0, 0, 0);
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for (folder, draft) in drafts {
        let root = suite.join("tests").join(folder);
        for (dir, format_assertion) in [
            (root.clone(), false),
            (root.join("optional"), false),
            (root.join("optional/format"), true),
        ] {
            let options = registered
                .clone()
                .default_draft(draft)
                .format_assertion(format_assertion);
            for (name, group) in groups(&dir) {
                let Ok(original) = options.build(&group["schema"]) else {
                    continue;
                };
                let (bundle, rebuilt) = rebuilt(&original, format_assertion);
                let tests = group["tests"].as_array().unwrap();
                if !bundle.inexpressible().is_empty() {
                    for kind in kinds(&bundle) {
                        *skipped.entry(kind).or_default() += 1;
                    }
                    skipped_groups += 1;
                    skipped_instances += tests.len();
                    continue;
                }
                bundled += 1;
                // Root-document origins point into the group's schema.
                for (pointer, origin) in bundle.subschemas() {
                    if origin.in_root_document() {
                        assert!(
                            group["schema"].pointer(origin.pointer()).is_some(),
                            "{folder}/{name}: {pointer} from {} which is not in the schema",
                            origin.pointer()
                        );
                    }
                }
                for test in tests {
                    instances += 1;
                    let data = &test["data"];
                    if original.is_valid(data) != rebuilt.is_valid(data)
                        || original.validate(data).is_ok() != rebuilt.validate(data).is_ok()
                    {
                        disagreements.push(format!(
                            "{folder}/{name} / {}\n{:#}",
                            test["description"],
                            bundle.schema()
                        ));
                    }
                }
            }
        }
    }
    println!(
        "suite: {bundled} schemas bundled, {instances} instances judged alike; left out as inexpressible: \
         {skipped_groups} schemas ({skipped_instances} instances), items by kind {skipped:?}"
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n\n"));
    assert!(bundled >= 1688, "{bundled}");
    // What 2020-12 cannot say stays rare: the suite's dynamic-scope cases (and the 2020-12 meta-schema's own
    // `$dynamicRef`s, where a case refers to it) and a format-assertion vocabulary.
    assert!(skipped_groups <= 20, "{skipped_groups}: {skipped:?}");
}

#[test]
fn the_root_document_keeps_its_pointers_and_other_documents_say_their_uri() {
    let validator = Validator::options()
        .default_draft(Draft::Draft4)
        .base_uri("https://example.com/root.json")
        .resource(
            "https://example.com/other.json",
            json!({ "$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": { "n": { "type": "integer" } } }),
        )
        .build(&json!({
            "id": "https://example.com/root.json",
            "definitions": {
                "positive": { "minimum": 0, "exclusiveMinimum": true },
                "pair": { "items": [{ "$ref": "#/definitions/positive" }], "additionalItems": false },
                "named": { "id": "#named", "type": "string" },
                "deps": { "dependencies": { "a": ["b"], "c": { "required": ["d"] } } }
            },
            "properties": {
                "p": { "$ref": "#/definitions/pair" },
                "n": { "$ref": "#named" },
                "o": { "$ref": "other.json#/$defs/n" },
                "d": { "$ref": "#/definitions/deps", "description": "ignored beside $ref in draft 4" }
            }
        }))
        .unwrap();
    let bundle = validator.bundle();
    assert!(bundle.inexpressible().is_empty());
    assert_eq!(
        bundle.schema(),
        &json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "definitions": {
                "positive": { "exclusiveMinimum": 0 },
                "pair": { "prefixItems": [{ "$ref": "#/definitions/positive" }], "items": false },
                "named": { "type": "string" },
                "deps": { "dependentRequired": { "a": ["b"] }, "dependentSchemas": { "c": { "required": ["d"] } } }
            },
            "properties": {
                "p": { "$ref": "#/definitions/pair" },
                "n": { "$ref": "#/definitions/named" },
                "o": { "$ref": "#/$defs/other.json/$defs/n" },
                "d": { "$ref": "#/definitions/deps" }
            },
            "$defs": { "other.json": { "$defs": { "n": { "type": "integer" } } } }
        })
    );
    let origin = bundle.origin("/definitions/pair/prefixItems/0").unwrap();
    assert_eq!(
        (origin.document(), origin.in_root_document(), origin.pointer()),
        ("https://example.com/root.json", true, "/definitions/pair/items/0")
    );
    let other = bundle.origin("/$defs/other.json/$defs/n").unwrap();
    assert_eq!(
        (other.document(), other.in_root_document(), other.pointer()),
        ("https://example.com/other.json", false, "/$defs/n")
    );
    // Each rewritten keyword names the keyword it was written as.
    for (at, keyword, written_as) in [
        ("/definitions/pair", "prefixItems", "items"),
        ("/definitions/pair", "items", "additionalItems"),
        ("/definitions/positive", "exclusiveMinimum", "minimum"),
        ("/definitions/deps", "dependentSchemas", "dependencies"),
        ("/definitions/deps", "dependentRequired", "dependencies"),
    ] {
        assert_eq!(
            bundle.source_keyword(at, keyword),
            Some(written_as),
            "{at} {keyword}"
        );
    }
    assert_eq!(bundle.source_keyword("/properties", "type"), None);
    // The `$defs` entry the other document's root would have is not a subschema (only its `n` is reached).
    assert_eq!(bundle.origin("/$defs/other.json"), None);
}

#[test]
fn what_2020_12_cannot_say_is_reported() {
    // A `$dynamicRef` that really depends on the dynamic scope.
    let dynamic = Validator::new(&json!({
        "$id": "https://example.com/list",
        "$defs": {
            "items": { "$id": "items", "$dynamicAnchor": "item", "not": true },
            "list": { "$id": "list-of", "items": { "$dynamicRef": "items#item" } }
        },
        "$ref": "list-of"
    }))
    .unwrap();
    let bundle = dynamic.bundle();
    let [Inexpressible::DynamicReference { keyword, pointer, .. }] = bundle.inexpressible() else {
        panic!("{:?}", bundle.inexpressible())
    };
    assert_eq!(*keyword, "$dynamicRef");
    assert!(bundle.schema().pointer(pointer).is_some());
    // A reference that resolves to nothing, deferred: left out, and named.
    let deferred = Validator::options()
        .defer_unresolved_references(true)
        .build(&json!({ "properties": { "a": { "$ref": "missing.json", "type": "object" } } }))
        .unwrap();
    let bundle = deferred.bundle();
    let [Inexpressible::UnresolvedReference { pointer, reference }] = bundle.inexpressible() else {
        panic!("{:?}", bundle.inexpressible())
    };
    assert_eq!(pointer, "/properties/a");
    assert_eq!(reference.reference(), "missing.json");
    assert_eq!(
        bundle.schema().pointer("/properties/a"),
        Some(&json!({ "type": "object" }))
    );
    // A meta-schema's format-assertion vocabulary.
    let vocabulary = Validator::options()
        .resource(metas::FORMAT_ASSERTION_META, metas::format_assertion_meta())
        .build(&json!({ "$schema": "https://example.com/meta", "format": "ipv4" }))
        .unwrap();
    assert!(matches!(
        vocabulary.bundle().inexpressible(),
        [Inexpressible::FormatAssertion { .. }]
    ));
}

#[test]
fn references_into_places_2020_12_would_read_get_their_own_defs_entry() {
    // Draft 6 ignores `if`; a reference into it must not make it live in the bundle.
    let validator = Validator::options()
        .default_draft(Draft::Draft6)
        .build(&json!({
            "if": { "type": "string" },
            "properties": { "a": { "$ref": "#/if" }, "b": { "$ref": "#/definitions/x/definitions/y" } },
            "definitions": { "x": { "definitions": { "y": { "type": "integer" } } } }
        }))
        .unwrap();
    let bundle = validator.bundle();
    let schema = bundle.schema();
    assert_eq!(schema.get("if"), None, "{schema:#}");
    let target = schema["properties"]["a"]["$ref"].as_str().unwrap();
    assert!(target.starts_with("#/$defs/"), "{target}");
    assert_eq!(bundle.origin(&target[1..]).unwrap().pointer(), "/if");
    // Nested definitions keep their pointers.
    assert_eq!(
        schema["properties"]["b"]["$ref"],
        json!("#/definitions/x/definitions/y")
    );
    let rebuilt = Validator::new(schema).unwrap();
    for instance in [
        json!({ "a": "s" }),
        json!({ "a": 1 }),
        json!({ "b": 1 }),
        json!({ "b": "s" }),
        json!(7),
    ] {
        assert_eq!(
            rebuilt.is_valid(&instance),
            validator.is_valid(&instance),
            "{instance}"
        );
    }
}

/// Schemas of `draft` with the keywords that changed between drafts, definitions and references among them.
fn schema_of(draft: Draft) -> impl Strategy<Value = Value> {
    let defs = if draft >= Draft::Draft201909 {
        "$defs"
    } else {
        "definitions"
    };
    let leaf = prop_oneof![
        // Draft 4 has no boolean schemas: `{}` and `{"not": {}}` say the same there.
        any::<bool>().prop_map(move |verdict| match (draft, verdict) {
            (Draft::Draft4, true) => json!({}),
            (Draft::Draft4, false) => json!({ "not": {} }),
            _ => Value::Bool(verdict),
        }),
        prop::sample::select(vec!["integer", "string", "object", "array", "null", "number"])
            .prop_map(|name| json!({ "type": name })),
        (-3i64..4).prop_map(|n| json!({ "minimum": n })),
        (-3i64..4, any::<bool>()).prop_map(move |(n, exclusive)| if draft == Draft::Draft4 {
            json!({ "maximum": n, "exclusiveMaximum": exclusive })
        } else {
            json!({ "exclusiveMaximum": n })
        }),
        Just(json!({ "required": ["a"] })),
        (0u64..3).prop_map(|n| json!({ "maxItems": n })),
        Just(json!({ "$ref": format!("#/{defs}/d0") })),
        Just(json!({ "$ref": format!("#/{defs}/d1") })),
        Just(json!({ "const": [1, "a"] })),
    ];
    let inner_schema = leaf.prop_recursive(3, 16, 3, move |inner| {
        let items = if draft >= Draft::Draft202012 {
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, rest)| json!({ "prefixItems": [a, b], "items": rest }))
                .boxed()
        } else {
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, rest)| json!({ "items": [a, b], "additionalItems": rest }))
                .boxed()
        };
        let dependencies = if draft >= Draft::Draft201909 {
            inner
                .clone()
                .prop_map(|s| json!({ "dependentRequired": { "a": ["b"] }, "dependentSchemas": { "b": s } }))
                .boxed()
        } else {
            inner
                .clone()
                .prop_map(|s| json!({ "dependencies": { "a": ["b"], "b": s } }))
                .boxed()
        };
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(|m| json!({ "anyOf": m })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|m| json!({ "oneOf": m })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|m| json!({ "allOf": m })),
            inner.clone().prop_map(|m| json!({ "not": m })),
            inner.clone().prop_map(|m| json!({ "items": m })),
            inner.clone().prop_map(|m| json!({ "contains": m })),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({ "properties": { "a": a, "b": b } })),
            (inner.clone(), inner.clone())
                .prop_map(|(a, rest)| json!({ "properties": { "a": a }, "additionalProperties": rest })),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| json!({ "$ref": format!("#/{}/d0", "DEFS"), "a": a, "b": b })),
            items,
            dependencies,
        ]
    });
    (inner_schema.clone(), inner_schema.clone(), inner_schema).prop_map(move |(root, d0, d1)| {
        let text = serde_json::to_string(&root).unwrap().replace("DEFS", defs);
        let mut root: Value = serde_json::from_str(&text).unwrap();
        let defs_value = json!({ "d0": d0, "d1": d1 });
        let text = serde_json::to_string(&defs_value).unwrap().replace("DEFS", defs);
        let defs_value: Value = serde_json::from_str(&text).unwrap();
        match &mut root {
            Value::Object(map) => {
                map.insert(defs.to_owned(), defs_value);
                map.insert("$schema".to_owned(), json!(draft.meta_schema_uri()));
                root
            }
            other => {
                json!({ "$schema": draft.meta_schema_uri(), defs: defs_value, "allOf": [other.clone()] })
            }
        }
    })
}

fn instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        3 => (-3i64..4).prop_map(|n| json!(n)),
        1 => Just(json!(2.5)),
        1 => "[ab]{0,2}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[abc]", inner, 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Instances on and beside every number the schema names (bounds are where drafts differ), alone and in an array
/// and an object.
fn boundaries(schema: &Value) -> Vec<Value> {
    fn numbers(value: &Value, out: &mut Vec<i64>) {
        match value {
            Value::Number(number) => out.extend(number.as_i64()),
            Value::Array(items) => items.iter().for_each(|item| numbers(item, out)),
            Value::Object(map) => map.values().for_each(|item| numbers(item, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    numbers(schema, &mut found);
    found.sort_unstable();
    found.dedup();
    found
        .into_iter()
        .flat_map(|n| [n - 1, n, n + 1])
        .flat_map(|n| [json!(n), json!([n, n]), json!({ "a": n, "b": n })])
        .collect()
}

fn any_draft() -> impl Strategy<Value = Draft> {
    prop::sample::select(vec![
        Draft::Draft4,
        Draft::Draft6,
        Draft::Draft7,
        Draft::Draft201909,
        Draft::Draft202012,
    ])
}

/// Generated schemas of every draft: the bundle, read as 2020-12, judges every instance as the original does. (A
/// runner rather than `proptest!`, to count how many generated schemas compiled: the check must not pass by
/// generating schemas the meta-schemas refuse.)
#[test]
fn generated_schemas_bundle_and_judge_alike() {
    use proptest::test_runner::{Config, TestRunner};
    let compiled = std::cell::Cell::new(0_u32);
    let cases = 1024;
    let mut runner = TestRunner::new(Config::with_cases(cases));
    let strategy = (
        any_draft().prop_flat_map(|draft| (Just(draft), schema_of(draft))),
        prop::collection::vec(instance(), 1..6),
    );
    runner
        .run(&strategy, |((draft, schema), instances)| {
            let Ok(original) = Validator::new(&schema) else {
                return Ok(());
            };
            compiled.set(compiled.get() + 1);
            let (bundle, rebuilt) = rebuilt(&original, false);
            prop_assert!(bundle.inexpressible().is_empty(), "{:?}", bundle.inexpressible());
            for instance in instances.iter().chain(&boundaries(&schema)) {
                prop_assert_eq!(
                    original.is_valid(instance),
                    rebuilt.is_valid(instance),
                    "{:?} {} against {:#}\nbundle {:#}",
                    draft,
                    instance,
                    schema,
                    bundle.schema()
                );
            }
            Ok(())
        })
        .unwrap();
    // Nearly every generated schema is one its draft accepts.
    assert!(
        compiled.get() * 10 >= cases * 9,
        "only {} of {cases} compiled",
        compiled.get()
    );
}

#[test]
fn a_keyword_whose_place_is_taken_moves_into_an_all_of_member() {
    // `$ref` beside a `$dynamicRef` that resolves statically: both become `$ref`.
    let validator = Validator::new(&json!({
        "$defs": { "int": { "type": "integer" }, "small": { "maximum": 3 } },
        "allOf": [{ "minimum": 0 }],
        "$ref": "#/$defs/int",
        "$dynamicRef": "#/$defs/small"
    }))
    .unwrap();
    let bundle = validator.bundle();
    assert!(bundle.inexpressible().is_empty());
    let schema = bundle.schema();
    assert_eq!(schema["allOf"].as_array().map(Vec::len), Some(2), "{schema:#}");
    let refs = [
        schema["$ref"].as_str().unwrap(),
        schema["allOf"][1]["$ref"].as_str().unwrap(),
    ];
    assert!(
        refs.contains(&"#/$defs/int") && refs.contains(&"#/$defs/small"),
        "{schema:#}"
    );
    assert_eq!(bundle.origin("/allOf/1").unwrap().pointer(), "");
    let (at_root, in_member) = if schema["$ref"] == json!("#/$defs/int") {
        ("$ref", "$dynamicRef")
    } else {
        ("$dynamicRef", "$ref")
    };
    assert_eq!(bundle.source_keyword("", "$ref"), Some(at_root));
    assert_eq!(bundle.source_keyword("/allOf/1", "$ref"), Some(in_member));
    let rebuilt = Validator::new(schema).unwrap();
    for instance in [json!(-1), json!(0), json!(3), json!(4), json!(2.5), json!("x")] {
        assert_eq!(
            rebuilt.is_valid(&instance),
            validator.is_valid(&instance),
            "{instance}"
        );
    }
}
