//! How `oa validate` reads a schema's references, against the built binary: a sibling file by its relative `$ref`,
//! files only under the schema's folder and the `--resource-dir` folders, a reference that resolves to nothing an
//! error only when an instance reaches it, a catalog with duplicated `$id`s and broken files, and SchemaStore's
//! package.json schema with its real negatives (from `../shared/schemastore`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{oa, schemastore, stderr, stdout};

fn write(path: &Path, value: &Value) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value.to_string()).unwrap();
    path.to_path_buf()
}

fn write_text(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// `person.json` referring to its sibling `address.json` by a relative `$ref`, neither with an `$id`.
fn person_and_address(dir: &Path) -> PathBuf {
    write(
        &dir.join("address.json"),
        &json!({ "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }),
    );
    write(
        &dir.join("person.json"),
        &json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": { "name": { "type": "string" }, "home": { "$ref": "address.json" } }
        }),
    )
}

#[test]
fn a_sibling_file_resolves_by_its_relative_ref() {
    let scratch = tempfile::tempdir().unwrap();
    let person = person_and_address(scratch.path());
    let valid = write(
        &scratch.path().join("valid.json"),
        &json!({ "home": { "city": "Oslo" } }),
    );
    let output = oa(&[&"validate", &person, &valid]);
    support::assert_exit(&output, 0);
    assert_eq!(stderr(&output), "");
    let invalid = write(&scratch.path().join("invalid.json"), &json!({ "home": {} }));
    let output = oa(&[&"validate", &person, &invalid, &"--json"]);
    support::assert_exit(&output, 1);
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let address = std::fs::canonicalize(scratch.path().join("address.json")).unwrap();
    assert_eq!(report["violations"][0]["location"], json!("#/home/city"));
    // --json shows a sibling file's location by its relative path; --output basic keeps the absolute URI.
    assert_eq!(
        report["violations"][0]["schema_location"],
        json!("address.json#/required")
    );
    let output = oa(&[&"validate", &person, &invalid, &"--output", &"basic"]);
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report["errors"][0]["absoluteKeywordLocation"],
        json!(format!("file://{}#/required", address.display()))
    );
    // A violation in the schema file itself reads as it did before schema files had a base URI: `#/…`.
    let wrong = write(&scratch.path().join("wrong.json"), &json!({ "name": 7 }));
    let output = oa(&[&"validate", &person, &wrong, &"--json"]);
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let location = report["violations"][0]["schema_location"]
        .as_str()
        .unwrap_or_default();
    assert!(location.starts_with("#/"), "{report}");
    // Read from standard input the schema has no file URI: the sibling is not read.
    let output = Command::new(env!("CARGO_BIN_EXE_oa"))
        .args(["validate", "-"])
        .arg(&invalid)
        .stdin(std::fs::File::open(&person).unwrap())
        .output()
        .unwrap();
    support::assert_exit(&output, 2);
    support::assert_contains(&stderr(&output), "no schema oa was given has that URI");
}

/// Writes `order.json` into `scratch`: an object with an integer `id` beside each of `references`, a property that
/// is only a `$ref` to its URI.
fn order_schema(scratch: &tempfile::TempDir, references: &[(&str, &str)]) -> PathBuf {
    let mut properties = json!({ "id": { "type": "integer" } });
    for (name, uri) in references {
        properties[*name] = json!({ "$ref": uri });
    }
    write(
        &scratch.path().join("order.json"),
        &json!({ "properties": properties }),
    )
}

#[test]
fn a_reached_missing_reference_is_an_input_error_saying_how_to_give_it() {
    let scratch = tempfile::tempdir().unwrap();
    let schema = order_schema(&scratch, &[("customer", "customer.json")]);
    let reaches = write(&scratch.path().join("reaches.json"), &json!({ "customer": {} }));
    let output = oa(&[&"validate", &schema, &reaches]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    let err = stderr(&output);
    let schema_uri = format!("file://{}", std::fs::canonicalize(&schema).unwrap().display());
    for expected in [
        "no verdict",
        "$ref \"customer.json\"",
        &format!("at {schema_uri}#/properties/customer/$ref"),
        "(reached at #/customer)",
        "no such file",
        "oa never fetches schemas",
        "--resource FILE",
        "--resource-dir DIR",
    ] {
        assert!(err.contains(expected), "{expected:?} not in {err}");
    }
    // Given the file, the reference resolves (a --resource without $id is found by its file URI).
    let elsewhere = tempfile::tempdir().unwrap();
    let customer = write(
        &elsewhere.path().join("customer.json"),
        &json!({ "required": ["name"] }),
    );
    let output = oa(&[&"validate", &schema, &reaches, &"--resource", &customer]);
    // Registered under its own file URI, which is not the one the reference names: still missing.
    support::assert_exit(&output, 2);
    let with_id = write(
        &elsewhere.path().join("customer-id.json"),
        &json!({ "$id": format!("{}/customer.json", schema_uri.rsplit_once('/').unwrap().0), "required": ["name"] }),
    );
    let output = oa(&[&"validate", &schema, &reaches, &"--resource", &with_id]);
    support::assert_exit(&output, 1);
    support::assert_contains(&stdout(&output), "#/customer/name: required");
}

#[test]
fn an_unreached_missing_reference_is_a_warning_once() {
    let scratch = tempfile::tempdir().unwrap();
    let schema = order_schema(
        &scratch,
        &[
            ("lint", "https://example.com/lint.json"),
            ("lint2", "https://example.com/lint.json"),
        ],
    );
    let instance = write(&scratch.path().join("order-1.json"), &json!({ "id": "seven" }));
    let output = oa(&[&"validate", &schema, &instance]);
    support::assert_exit(&output, 1);
    assert_eq!(stdout(&output).trim(), "#/id: type: expected integer, got string");
    let err = stderr(&output);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(err.contains("$ref \"https://example.com/lint.json\""), "{err}");
    assert!(err.contains("(and 1 more place)"), "{err}");
    assert!(err.contains("no instance reached it"), "{err}");
    // A batch: one line reaches it (no verdict, exit 2), the others are judged; the warning names only what no
    // line reached.
    let batch = write_text(
        &scratch.path().join("orders.jsonl"),
        "{\"id\": 1}\n{\"lint\": {}}\n{\"id\": \"x\"}\n",
    );
    let output = oa(&[&"validate", &schema, &"--batch", &batch, &"--json"]);
    support::assert_exit(&output, 2);
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["valid"], json!(true));
    assert!(
        lines[1]["no_verdict"]
            .as_str()
            .unwrap()
            .contains("#/properties/lint/$ref")
    );
    assert_eq!(
        lines[1]["violations"][0]["unresolved_reference"],
        json!("https://example.com/lint.json")
    );
    assert_eq!(lines[2]["valid"], json!(false));
    assert_eq!(lines[2].get("no_verdict"), None);
    let err = stderr(&output);
    support::assert_contains(&err, "1 valid, 1 invalid, 0 unreadable, 1 without a verdict");
    support::assert_contains(&err, "warning: $ref \"https://example.com/lint.json\" at");
    assert!(err.contains("#/properties/lint2/$ref"), "{err}");
    assert!(!err.contains("(and 1 more place)"), "{err}");
}

#[test]
fn files_are_read_only_under_the_schema_folder_and_the_resource_dirs() {
    let scratch = tempfile::tempdir().unwrap();
    let secret = write(
        &scratch.path().join("outside/secret.json"),
        &json!({ "type": "string" }),
    );
    let schema = write(
        &scratch.path().join("project/schema.json"),
        &json!({ "properties": {
            "up": { "$ref": "../outside/secret.json" },
            "link": { "$ref": "linked.json" }
        } }),
    );
    let instance = write(&scratch.path().join("up.json"), &json!({ "up": 1 }));
    let output = oa(&[&"validate", &schema, &instance]);
    support::assert_exit(&output, 2);
    let err = stderr(&output);
    support::assert_contains(
        &err,
        "is outside the schema's folder and the --resource-dir folders",
    );
    // Allowed by naming its folder.
    let output = oa(&[
        &"validate",
        &schema,
        &instance,
        &"--resource-dir",
        &secret.parent().unwrap(),
    ]);
    support::assert_exit(&output, 1);
    #[cfg(unix)]
    {
        // A symbolic link inside the folder that leads out of it is refused too.
        std::os::unix::fs::symlink(&secret, scratch.path().join("project/linked.json")).unwrap();
        let instance = write(&scratch.path().join("link.json"), &json!({ "link": 1 }));
        let output = oa(&[&"validate", &schema, &instance]);
        support::assert_exit(&output, 2);
        support::assert_contains(&stderr(&output), "is outside the schema's folder");
        // ... and skipped, with a warning, when a --resource-dir holds it.
        let catalog = scratch.path().join("catalog");
        std::fs::create_dir_all(&catalog).unwrap();
        std::os::unix::fs::symlink(&secret, catalog.join("escape.json")).unwrap();
        let plain = write(&scratch.path().join("plain.json"), &json!({}));
        let output = oa(&[&"validate", &plain, &plain, &"--resource-dir", &catalog]);
        assert_eq!(output.status.code(), Some(0));
        support::assert_contains(&stderr(&output), "skipped: a symbolic link out of");
    }
}

#[test]
fn a_catalog_with_duplicate_ids_and_a_broken_file_fails_only_where_used() {
    let scratch = tempfile::tempdir().unwrap();
    let catalog = scratch.path().join("catalog");
    write(
        &catalog.join("a.json"),
        &json!({ "$id": "https://example.com/a.json", "type": "integer" }),
    );
    write(
        &catalog.join("dup-1.json"),
        &json!({ "$id": "https://example.com/dup.json", "type": "string" }),
    );
    write(
        &catalog.join("dup-2.json"),
        &json!({ "$id": "https://example.com/dup.json", "type": "number" }),
    );
    write_text(&catalog.join("broken.json"), "{ not json");
    let schema = write(
        &scratch.path().join("schema.json"),
        &json!({ "properties": {
            "a": { "$ref": "https://example.com/a.json" },
            "dup": { "$ref": "https://example.com/dup.json" }
        } }),
    );
    let uses_a = write(&scratch.path().join("uses-a.json"), &json!({ "a": "x" }));
    let output = oa(&[&"validate", &schema, &uses_a, &"--resource-dir", &catalog]);
    support::assert_exit(&output, 1);
    assert_eq!(stdout(&output).trim(), "#/a: type: expected integer, got string");
    let err = stderr(&output);
    // One warning per problem file, named; and the unreached ambiguous reference, once.
    assert_eq!(
        err.matches("broken.json: skipped: not well-formed JSON").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("is claimed by").count(), 1, "{err}");
    assert!(
        err.contains("dup-1.json and ") && err.contains("dup-2.json"),
        "{err}"
    );
    assert!(
        err.contains("ambiguous: claimed by") && err.contains("no instance reached it"),
        "{err}"
    );
    // Used: an input error naming the claimants.
    let uses_dup = write(&scratch.path().join("uses-dup.json"), &json!({ "dup": "x" }));
    let output = oa(&[&"validate", &schema, &uses_dup, &"--resource-dir", &catalog]);
    support::assert_exit(&output, 2);
    let err = stderr(&output);
    assert!(err.contains("(reached at #/dup): ambiguous: claimed by"), "{err}");
    // The one meant, given with --resource, wins.
    let output = oa(&[
        &"validate",
        &"--resource",
        &catalog.join("dup-2.json"),
        &schema,
        &uses_dup,
        &"--resource-dir",
        &catalog,
    ]);
    support::assert_exit(&output, 1);
    assert_eq!(stdout(&output).trim(), "#/dup: type: expected number, got string");
    // The broken file, referenced by its path and reached.
    let by_path = write(
        &scratch.path().join("by-path.json"),
        &json!({ "items": { "$ref": "catalog/broken.json" } }),
    );
    let list = write(&scratch.path().join("list.json"), &json!([1]));
    let output = oa(&[&"validate", &by_path, &list]);
    assert_eq!(output.status.code(), Some(2));
    support::assert_contains(&stderr(&output), "broken.json: not well-formed JSON");
}

#[test]
fn resource_takes_one_file_per_flag_and_may_come_first() {
    let scratch = tempfile::tempdir().unwrap();
    let int = write(
        &scratch.path().join("lib/int.json"),
        &json!({ "$id": "https://example.com/int.json", "type": "integer" }),
    );
    let text = write(
        &scratch.path().join("lib/text.json"),
        &json!({ "$id": "https://example.com/text.json", "type": "string" }),
    );
    let schema = write(
        &scratch.path().join("schema.json"),
        &json!({ "prefixItems": [{ "$ref": "https://example.com/int.json" }, { "$ref": "https://example.com/text.json" }] }),
    );
    let instance = write(&scratch.path().join("pair.json"), &json!([1, 2]));
    let output = oa(&[
        &"validate",
        &"--resource",
        &int,
        &"--resource",
        &text,
        &schema,
        &instance,
    ]);
    support::assert_exit(&output, 1);
    assert_eq!(stdout(&output).trim(), "#/1: type: expected string, got integer");
    // A second value after one --resource is the schema, not another resource.
    let output = oa(&[&"validate", &"--resource", &int, &schema, &instance]);
    assert_eq!(output.status.code(), Some(2));
    support::assert_contains(&stderr(&output), "https://example.com/text.json");
    let help = stdout(&oa(&[&"validate", &"--help"]));
    support::assert_contains(&help, "One file per flag; repeat the flag for more");
}

/// The documents of `folder` (`valid/package` or `invalid/package`), sorted.
fn documents(catalog: &Path, folder: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(catalog.join(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    paths
}

#[test]
fn schemastore_package_negatives_are_judged_offline() {
    let Some(catalog) = schemastore("schemastore_package_negatives_are_judged_offline") else {
        return;
    };
    let schema = catalog.join("schemas/package.json");
    let negatives = documents(&catalog, "invalid/package");
    assert_eq!(negatives.len(), 11);
    for negative in &negatives {
        // Alone (its references to other catalog schemas resolve to nothing, and none of these reach one), and
        // with the whole catalog.
        for extra in [
            vec![],
            vec![
                "--resource-dir".to_owned(),
                catalog.join("schemas").display().to_string(),
            ],
        ] {
            let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"validate", &schema, negative];
            for arg in &extra {
                args.push(arg);
            }
            let output = oa(&args);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{} {extra:?}: {}{}",
                negative.display(),
                stdout(&output),
                stderr(&output)
            );
        }
    }
    // Without the catalog the unreached references are warnings; stylelint's among them.
    let output = oa(&[&"validate", &schema, &negatives[0]]);
    support::assert_contains(&stderr(&output), "$ref \"stylelintrc.json\"");
}

#[test]
fn schemastore_package_over_the_real_catalog_with_its_duplicate_ids() {
    let Some(catalog) = schemastore("schemastore_package_over_the_real_catalog_with_its_duplicate_ids")
    else {
        return;
    };
    let schema = catalog.join("schemas/package.json");
    let schemas = catalog.join("schemas");
    let valid = documents(&catalog, "valid/package");
    // One batch of every valid document, against the whole catalog: each judged valid.
    let scratch = tempfile::tempdir().unwrap();
    let mut lines = String::new();
    for path in &valid {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        lines.push_str(&value.to_string());
        lines.push('\n');
    }
    let batch = write_text(&scratch.path().join("valid.jsonl"), &lines);
    let output = oa(&[
        &"validate",
        &schema,
        &"--batch",
        &batch,
        &"--resource-dir",
        &schemas,
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    let err = stderr(&output);
    assert!(
        err.contains(&format!("{} valid, 0 invalid, 0 unreadable", valid.len())),
        "{err}"
    );
    // The catalog's seven duplicated `$id`s are warned about, once each, and cost nothing here.
    assert_eq!(err.matches("is claimed by").count(), 7, "{err}");
    // Without the catalog, the documents that use a configuration another catalog schema describes have no
    // verdict (exit 2), the others are valid.
    let output = oa(&[&"validate", &schema, &"--batch", &batch]);
    support::assert_exit(&output, 2);
    let err = stderr(&output);
    assert!(err.contains("without a verdict"), "{err}");
    assert!(err.contains(", 0 invalid, 0 unreadable"), "{err}");
}
